// The one background child listd runs at a time: a BGSAVE or an AOF rewrite, as Redis'
// redisFork(purpose) + checkChildrenDone(). One place forks, reaps and kills, and keeps what
// both kinds need afterwards: the kind, the pid, the temporary file and the start time.
//
// The child runs one body (write one file) and _exits: no destructors, no sockets, no logging,
// no access to the parent's state after the fork. It takes SIGUSR1's default action (the parent
// stops it with SIGUSR1) and, on Linux, dies with the parent, so that a killed listd leaves no
// orphan writer behind.
// The child reports its progress and, when its body succeeded, its final copy-on-write over a
// pipe (child_reports.h), as Redis' childinfo.c; the parent reads them from the cron
// (read_reports) and when it reaps the child.
// Invariant: running() iff a child was started and has not been reaped or killed since.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "listd/persistence/child_reports.h"

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

  /// How a reaped child ended, with its bookkeeping (the child is forgotten by then).
  struct Exit {
    Kind kind = Kind::kNone;
    bool ok = false;  ///< exited with status 0
    std::string temp_path;
    std::uint64_t start_ms = 0;
    /// The peak of the child's reported copy-on-write, once its body succeeded (INFO
    /// rdb_last_cow_size / aof_last_cow_size); nullopt when it failed or sent no final report.
    std::optional<std::size_t> cow_bytes;
  };

  /// The temporary file of the child with this pid (both sides compute it).
  using TempPathFn = std::function<std::string(pid_t)>;
  /// What the child does; true is success. It gets its own temporary file's path.
  using Body = std::function<bool(const std::string& temp_path)>;

  /// Forks. The child runs `body` and _exits (0 when it returned true); start() returns only in
  /// the parent, which records the child. False with the fork error in `err`. `keys_total`:
  /// what the child is to write (INFO current_save_keys_total).
  bool start(Kind kind, const TempPathFn& temp_path, const Body& body, std::uint64_t now_ms,
             std::string& err, std::size_t keys_total = 0);
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
  /// Called in the parent after each fork that made a child, with its duration in µs (Redis
  /// redisFork's "fork" latency sample).
  void set_fork_hook(std::function<void(std::uint64_t fork_usec)> hook) {
    fork_hook_ = std::move(hook);
  }
  /// Takes the running child's reports (the cron, once a second).
  void read_reports() noexcept {
    if (running()) reports_.read();
  }
  /// What the running child reported; all zero while none runs.
  const ChildProgress& progress() const noexcept { return reports_.progress(); }

 private:
  /// Forgets the child reaped by waitpid (`reaped`, its `status`) and says how it ended.
  Exit reaped(pid_t reaped, int status);

  Kind kind_ = Kind::kNone;
  pid_t pid_ = -1;
  std::string temp_path_;
  std::uint64_t start_ms_ = 0;
  ChildReports reports_;
  std::function<void(std::uint64_t)> fork_hook_;
  ForkStats fork_stats_;
};

}  // namespace listd::persistence
