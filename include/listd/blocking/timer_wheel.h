// listd::blocking::TimerWheel: the deadlines of blocked clients (BLPOP/BRPOP/BLMOVE timeouts).
// API: TimerNode (intrusive, embedded in the waiter), TimerWheel::schedule / cancel / advance /
//      next_deadline / size. Time is std::uint64_t milliseconds of a caller-supplied monotonic
//      clock; the wheel never reads a clock.
// Design: hashed hierarchical wheel, 4 levels x 256 slots (1 ms, 256 ms, 65.5 s, 4.66 h per
//      slot; 2^32 ms ~ 49.7 days in all) plus an unsorted overflow list beyond that, and a FIFO
//      `due` list for deadlines already reached. A 256-bit occupancy bitmap per level lets
//      advance() and next_deadline() jump over empty slots, so a +1 hour jump costs O(events).
// Invariants: every node in the wheel has deadline > now_ms() and sits at the level of the
//      highest 8-bit digit in which its deadline differs from now_ms() (so slots never wrap and a
//      level-0 slot holds exactly one deadline); equal deadlines share one list in schedule order.
#pragma once

#include <array>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "listd/base/scope_exit.h"

namespace listd::blocking {

class TimerWheel;

/// Intrusive timer: embed it in the object that owns the deadline (the waiter). No allocation
/// per timer. Neither copyable nor movable, so its owner needs a stable address (waiters live
/// behind unique_ptr or in node-based containers). Destroying a scheduled node cancels it.
/// Recover the owner in the expiry callback either with the `owner` back pointer given at
/// construction (`node.owner_as<Waiter>()`) or by deriving from TimerNode and static_cast.
class TimerNode {
 public:
  /// `owner` is an opaque back pointer returned by owner(); the wheel never dereferences it.
  explicit TimerNode(void* owner = nullptr) noexcept : owner_(owner) {}
  ~TimerNode();
  TimerNode(const TimerNode&) = delete;
  TimerNode& operator=(const TimerNode&) = delete;

  /// True from schedule() until it fires (just before its callback runs) or is cancelled.
  bool scheduled() const noexcept { return wheel_ != nullptr; }
  /// The deadline last given to schedule() (kept after firing, so callbacks can read it).
  std::uint64_t deadline() const noexcept { return deadline_; }
  /// The back pointer given at construction or by set_owner().
  void* owner() const noexcept { return owner_; }
  void set_owner(void* owner) noexcept { owner_ = owner; }
  /// owner() cast to the type the user stored there.
  template <class T>
  T& owner_as() const noexcept {
    return *static_cast<T*>(owner_);
  }

 private:
  friend class TimerWheel;

  TimerNode* prev_ = nullptr;
  TimerNode* next_ = nullptr;
  TimerWheel* wheel_ = nullptr;  // the wheel it is scheduled in, null when not scheduled
  void* owner_ = nullptr;
  std::uint64_t deadline_ = 0;
  std::uint16_t where_ = 0;  // which list of wheel_ holds it (TimerWheel::kDueList, ...)
};

/// Counters of internal work, for tests and INFO-style introspection. They show that
/// schedule()/cancel() never walk other timers and that advance()/next_deadline() only probe
/// bitmap words, never scan timers.
struct TimerWheelStats {
  std::uint64_t scheduled = 0;         ///< schedule() calls
  std::uint64_t cancelled = 0;         ///< cancel() calls that unscheduled a node
  std::uint64_t fired = 0;             ///< callbacks run by advance()
  std::uint64_t cascaded = 0;          ///< nodes moved down a level (< kLevels per timer)
  std::uint64_t overflow_scanned = 0;  ///< overflow nodes visited (once per 2^32 ms crossed)
  std::uint64_t bitmap_probes = 0;     ///< 64-bit occupancy words examined
};

/// Deadlines for blocked clients. Single-threaded, like the rest of the executor.
/// Neither copyable nor movable (scheduled nodes point to it); destroying it unschedules every
/// node without firing.
class TimerWheel {
 public:
  static constexpr unsigned kLevels = 4;
  static constexpr unsigned kSlotBits = 8;
  static constexpr unsigned kSlots = 1U << kSlotBits;
  /// Deadlines at least this far (in the sense of differing high bits) from now go to the
  /// overflow list, which is rescanned once each time now crosses a multiple of kSpanMs.
  static constexpr std::uint64_t kSpanMs = std::uint64_t{1} << (kLevels * kSlotBits);

  /// `now_ms`: the current time; deadlines <= now_ms are already due.
  explicit TimerWheel(std::uint64_t now_ms = 0) noexcept;
  ~TimerWheel();
  TimerWheel(const TimerWheel&) = delete;
  TimerWheel& operator=(const TimerWheel&) = delete;

  /// Arms `node` to fire at `deadline_ms`; O(1), no allocation. A scheduled node is first
  /// cancelled (rescheduling; it then ties as the newest). A deadline <= now_ms() is due at once:
  /// it fires at the next advance() (or later in the running one), after the timers already due
  /// at now_ms(), i.e. it is treated as a deadline of now_ms(). Callable from a callback.
  void schedule(TimerNode& node, std::uint64_t deadline_ms) noexcept;
  /// Unschedules `node`; O(1); no-op if it is not scheduled. Callable from a callback (also on
  /// a node due in the same advance(), which then does not fire).
  void cancel(TimerNode& node) noexcept;

  /// Moves time to `now_ms` (an earlier value is treated as now_ms()) and fires every timer with
  /// deadline <= now_ms: deadline order, equal deadlines in schedule order, calling
  /// `on_expire(TimerNode&)` with the node already unscheduled. During a callback now_ms() is
  /// the fired deadline, so timers the callback schedules at or before `now_ms` also fire in
  /// this call, in order (a callback that always reschedules at or before `now_ms` never lets it
  /// return). Cost: O(timers fired + nodes cascaded + a few bitmap words per slot reached);
  /// empty slots are skipped through the bitmaps, never walked one by one. If on_expire throws,
  /// the exception propagates, the wheel stays consistent and the remaining due timers fire at
  /// the next advance(). Not re-entrant: a call from inside a callback asserts in debug builds
  /// and otherwise does nothing and returns 0. Returns the number of callbacks run.
  template <class F>
  requires std::invocable<F&, TimerNode&> std::size_t advance(std::uint64_t now_ms, F&& on_expire);

  /// The earliest deadline, or a lower bound never later than it; nullopt when empty. It is
  /// > now_ms() unless a timer is already due (then it is the smallest due deadline). Exact
  /// unless a timer that shared a slot with the earliest one (or sat in the overflow list) was
  /// cancelled since: each list keeps a min that a cancel leaves stale-low. Arming one timer for
  /// it, then advance() and re-arm, never busy-loops. O(levels): bitmaps, no timer is visited.
  std::optional<std::uint64_t> next_deadline() const noexcept;

  /// The time of the last advance() (during a callback: the deadline being fired).
  std::uint64_t now_ms() const noexcept { return now_; }
  /// Number of scheduled nodes (including those due but not fired yet).
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Unschedules every node without firing; O(size() + slots).
  void clear() noexcept;
  const TimerWheelStats& stats() const noexcept { return stats_; }

 private:
  friend class TimerNode;

  struct List {
    TimerNode* head = nullptr;
    TimerNode* tail = nullptr;
    bool empty() const noexcept { return head == nullptr; }
  };
  using Bitmap = std::array<std::uint64_t, kSlots / 64>;

  // TimerNode::where_ values: 0 .. kLevels*kSlots-1 is level * kSlots + slot.
  static constexpr std::uint16_t kDueList = kLevels * kSlots;
  static constexpr std::uint16_t kOverflowList = kDueList + 1;
  static constexpr std::uint64_t kNoTime = ~std::uint64_t{0};

  // Detaches and returns a whole wheel slot, clearing its bit and min.
  List take_slot(std::uint16_t where) noexcept;
  List& list_at(std::uint16_t where) noexcept;
  void append(std::uint16_t where, TimerNode& node) noexcept;
  void unlink(TimerNode& node) noexcept;
  // Files `node` (scheduled, deadline_ set) in the list its deadline calls for relative to now_.
  void place(TimerNode& node) noexcept;
  // Pops the oldest due node, unscheduled; null when nothing is due.
  TimerNode* pop_due() noexcept;
  // Moves now_ to the next time <= limit at which a slot must fire or cascade and processes it
  // (due nodes land in due_); returns false, with now_ = max(now_, limit), when there is none.
  bool step_to(std::uint64_t limit) noexcept;
  // Lowest non-empty level and its first occupied slot (> now_'s digit there); false if none.
  bool first_occupied(unsigned& level, unsigned& slot) const noexcept;
  // Re-files every node of `list` (already detached) relative to now_; returns how many.
  std::size_t redistribute(List list) noexcept;
  void rescan_overflow() noexcept;

  std::array<List, kLevels * kSlots> slots_{};
  // Lower bound of the deadlines in each slot (exact until a cancel); kNoTime when empty.
  std::array<std::uint64_t, kLevels * kSlots> slot_min_;
  std::array<Bitmap, kLevels> occupied_{};
  List due_;
  List overflow_;
  std::uint64_t now_;
  std::uint64_t due_min_ = kNoTime;       // lower bound of deadlines in due_
  std::uint64_t overflow_min_ = kNoTime;  // lower bound of deadlines in overflow_ (cancel skews it)
  std::size_t size_ = 0;
  bool advancing_ = false;
  mutable TimerWheelStats stats_;
};

template <class F>
requires std::invocable<F&, TimerNode&> std::size_t TimerWheel::advance(std::uint64_t now_ms,
                                                                        F&& on_expire) {
  // A nested advance() would move now_ under the outer loop's feet.
  assert(!advancing_ && "TimerWheel::advance() called from an expiry callback");
  if (advancing_) return 0;
  advancing_ = true;
  base::ScopeExit done([this] { advancing_ = false; });
  std::size_t fired = 0;
  for (;;) {
    while (TimerNode* node = pop_due()) {
      ++fired;
      on_expire(*node);
    }
    if (!step_to(now_ms)) return fired;
  }
}

}  // namespace listd::blocking
