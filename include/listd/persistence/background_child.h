// The one background child listd runs at a time: a BGSAVE or an AOF rewrite, as Redis'
// redisFork(purpose) + checkChildrenDone(). One place forks, reaps and kills, and keeps what
// both kinds need afterwards: the kind, the pid, the temporary file and the start time.
//
// The child runs one body (write one file) and _exits: no destructors, no sockets, no logging,
// no access to the parent's state after the fork. It takes SIGUSR1's default action (the parent
// stops it with SIGUSR1) and, on Linux, dies with the parent, so that a killed listd leaves no
// orphan writer behind.
// A child whose body succeeded reports its copy-on-write (private_dirty.h) over a pipe before
// it exits, as Redis' sendChildCowInfo; the parent reads it when it reaps the child.
// Invariant: running() iff a child was started and has not been reaped or killed since.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace listd::persistence {

/// INFO stats' latest_fork_usec and total_forks (Redis redisFork: the parent's fork() call,
/// timed; only forks that made a child count). CONFIG RESETSTAT zeroes both.
struct ForkStats {
  std::uint64_t latest_fork_usec = 0;
  std::uint64_t total_forks = 0;
};

class BackgroundChild {
 public:
  enum class Kind { kNone, kRdb, kRewrite };

  BackgroundChild() = default;
  ~BackgroundChild();  // closes the report pipe of a child never reaped (it is not waited for)
  BackgroundChild(const BackgroundChild&) = delete;
  BackgroundChild& operator=(const BackgroundChild&) = delete;

  /// How a reaped child ended, with its bookkeeping (the child is forgotten by then).
  struct Exit {
    Kind kind = Kind::kNone;
    bool ok = false;  ///< exited with status 0
    std::string temp_path;
    std::uint64_t start_ms = 0;
    /// The child's Private_Dirty bytes after its body succeeded (INFO rdb_last_cow_size /
    /// aof_last_cow_size); nullopt when it failed or could not tell.
    std::optional<std::size_t> cow_bytes;
  };

  /// The temporary file of the child with this pid (both sides compute it).
  using TempPathFn = std::function<std::string(pid_t)>;
  /// What the child does; true is success. It gets its own temporary file's path.
  using Body = std::function<bool(const std::string& temp_path)>;

  /// Forks. The child runs `body` and _exits (0 when it returned true); start() returns only in
  /// the parent, which records the child. False with the fork error in `err`.
  bool start(Kind kind, const TempPathFn& temp_path, const Body& body, std::uint64_t now_ms,
             std::string& err);
  /// Reaps the child if it ended, without blocking (a child that vanished counts as failed).
  std::optional<Exit> poll();
  /// Blocks until the child ends; nullopt when none runs.
  std::optional<Exit> wait();
  /// Stops the child (SIGUSR1), reaps it and removes its temporary file.
  void kill();

  bool running() const noexcept { return pid_ > 0; }
  Kind kind() const noexcept { return kind_; }
  pid_t pid() const noexcept { return pid_; }
  std::uint64_t start_ms() const noexcept { return start_ms_; }
  const std::string& temp_path() const noexcept { return temp_path_; }
  const ForkStats& fork_stats() const noexcept { return fork_stats_; }
  void reset_fork_stats() noexcept { fork_stats_ = ForkStats{}; }

 private:
  /// Forgets the child reaped by waitpid (`reaped`, its `status`) and says how it ended.
  Exit reaped(pid_t reaped, int status);
  /// The child's copy-on-write report, if one is in the pipe; closes the pipe.
  std::optional<std::size_t> take_cow_report();

  Kind kind_ = Kind::kNone;
  pid_t pid_ = -1;
  std::string temp_path_;
  std::uint64_t start_ms_ = 0;
  int report_fd_ = -1;  // the pipe's read end while a child runs (-1: none)
  ForkStats fork_stats_;
};

}  // namespace listd::persistence
