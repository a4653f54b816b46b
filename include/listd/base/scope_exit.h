// One scope guard for the whole tree (Kvrocks common/scope_exit.h, Go's defer): runs a callable
// when the scope ends, however it ends, unless release() was called first.
// API: ScopeExit guard([&] { ... }); guard.release();
// Invariants: runs at most once; not copyable or movable, so it cannot run twice or outlive
// the scope that made it.
#pragma once

#include <utility>

namespace listd::base {

template <class F>
class [[nodiscard]] ScopeExit {
 public:
  explicit ScopeExit(F fn) noexcept(noexcept(F(std::move(fn)))) : fn_(std::move(fn)) {}
  ~ScopeExit() {
    if (armed_) fn_();
  }
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;

  /// The callable will not run.
  void release() noexcept { armed_ = false; }

 private:
  F fn_;
  bool armed_ = true;
};

}  // namespace listd::base
