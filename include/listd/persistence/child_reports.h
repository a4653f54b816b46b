// What a fork child tells its parent while it runs and as it ends, over a pipe (Redis
// childinfo.c): its copy-on-write (Private_Dirty, private_dirty.h) and how many keys it wrote.
//  - The child sends a progress report at most once a second (the first one at once) from its
//    writer (RdbSaveOptions::progress), re-reading its copy-on-write only when the last reading
//    cost less than 1 % of the time since (Redis CHILD_COW_DUTY_CYCLE); and a final report
//    when its body succeeded.
//  - The parent reads them (the cron, once a second, and at the reap): INFO current_cow_*,
//    current_fork_perc, current_save_keys_*; the final report's peak is the *_last_cow_size.
// Each report is one write of a few bytes (atomic: below PIPE_BUF), so reports never mix.
#pragma once

#include <cstddef>
#include <cstdint>

namespace listd::persistence {

/// What the running child reported last (zero before its first report).
struct ChildProgress {
  std::size_t cow_peak = 0;          ///< the largest copy-on-write reported
  std::size_t cow_size = 0;          ///< the last one
  std::uint64_t cow_updated_us = 0;  ///< steady-clock µs of that reading; 0: none yet
  std::size_t keys_processed = 0;
  std::size_t keys_total = 0;  ///< the keys at the fork (set by the parent)
};

class ChildReports {
 public:
  ChildReports() = default;
  ~ChildReports() { close(); }
  ChildReports(const ChildReports&) = delete;
  ChildReports& operator=(const ChildReports&) = delete;

  /// Before the fork: a fresh pipe and no progress. Without a pipe the child runs unreported.
  void open(std::size_t keys_total);
  /// In the child, right after the fork: its reports go to the pipe.
  void adopt_in_child() noexcept;
  /// In the parent, after the fork (or its failure: `forked` false closes the pipe).
  void after_fork(bool forked) noexcept;
  /// Parent: takes every report in the pipe. True when the final one was among them.
  bool read() noexcept;
  /// Parent: forgets the child's reports and closes the pipe.
  void close() noexcept;
  const ChildProgress& progress() const noexcept { return progress_; }

  /// Child: `keys` written so far; sent if a second passed since the last report.
  static void send_progress(std::size_t keys) noexcept;
  /// Child: its body succeeded; the copy-on-write read now ends its reports.
  static void send_final() noexcept;

 private:
  void take(const unsigned char* report) noexcept;

  int read_fd_ = -1;
  int write_fd_ = -1;  // the child's end, closed by the parent after the fork
  ChildProgress progress_;
  bool final_seen_ = false;
  unsigned char partial_[32] = {};
  std::size_t partial_len_ = 0;
};

}  // namespace listd::persistence
