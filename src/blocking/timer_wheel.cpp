#include "listd/blocking/timer_wheel.h"

#include <algorithm>
#include <bit>

namespace listd::blocking {

namespace {

constexpr std::uint64_t kSlotMask = TimerWheel::kSlots - 1;

constexpr unsigned digit(std::uint64_t t, unsigned level) noexcept {
  return static_cast<unsigned>((t >> (level * TimerWheel::kSlotBits)) & kSlotMask);
}

// First time at which `now`'s digit at `level` equals `slot`, all lower digits zero: when the
// slot fires (level 0) or cascades. Only called for slot > digit(now, level), so it is > now.
constexpr std::uint64_t slot_start(std::uint64_t now, unsigned level, unsigned slot) noexcept {
  const unsigned shift = level * TimerWheel::kSlotBits;
  const std::uint64_t span_mask = (std::uint64_t{1} << (shift + TimerWheel::kSlotBits)) - 1;
  return (now & ~span_mask) | (std::uint64_t{slot} << shift);
}

}  // namespace

TimerNode::~TimerNode() {
  if (wheel_ != nullptr) wheel_->cancel(*this);
}

TimerWheel::TimerWheel(std::uint64_t now_ms) noexcept : now_(now_ms) { slot_min_.fill(kNoTime); }

TimerWheel::~TimerWheel() { clear(); }

TimerWheel::List& TimerWheel::list_at(std::uint16_t where) noexcept {
  if (where == kDueList) return due_;
  if (where == kOverflowList) return overflow_;
  return slots_[where];
}

void TimerWheel::append(std::uint16_t where, TimerNode& node) noexcept {
  List& list = list_at(where);
  node.where_ = where;
  node.next_ = nullptr;
  node.prev_ = list.tail;
  if (list.tail != nullptr) {
    list.tail->next_ = &node;
  } else {
    list.head = &node;
    if (where < kDueList)
      occupied_[where / kSlots][(where % kSlots) / 64] |= std::uint64_t{1} << (where % 64);
  }
  list.tail = &node;
}

void TimerWheel::unlink(TimerNode& node) noexcept {
  List& list = list_at(node.where_);
  (node.prev_ != nullptr ? node.prev_->next_ : list.head) = node.next_;
  (node.next_ != nullptr ? node.next_->prev_ : list.tail) = node.prev_;
  node.prev_ = node.next_ = nullptr;
  if (!list.empty()) return;
  if (node.where_ < kDueList) {
    occupied_[node.where_ / kSlots][(node.where_ % kSlots) / 64] &=
        ~(std::uint64_t{1} << (node.where_ % 64));
    slot_min_[node.where_] = kNoTime;
  } else if (node.where_ == kDueList) {
    due_min_ = kNoTime;
  } else {
    overflow_min_ = kNoTime;
  }
}

void TimerWheel::place(TimerNode& node) noexcept {
  const std::uint64_t deadline = node.deadline_;
  if (deadline <= now_) {
    append(kDueList, node);
    due_min_ = std::min(due_min_, deadline);
    return;
  }
  // The level is the highest digit where deadline and now differ: below it they agree on
  // every higher digit, so the slot (that digit of the deadline) is ahead of now's digit and
  // slots never wrap. Equal deadlines always land in the same list.
  const std::uint64_t diff = deadline ^ now_;
  if (diff >= kSpanMs) {
    append(kOverflowList, node);
    overflow_min_ = std::min(overflow_min_, deadline);
    return;
  }
  const auto level = static_cast<unsigned>(std::bit_width(diff) - 1) / kSlotBits;
  const auto where = static_cast<std::uint16_t>(level * kSlots + digit(deadline, level));
  append(where, node);
  slot_min_[where] = std::min(slot_min_[where], deadline);
}

void TimerWheel::schedule(TimerNode& node, std::uint64_t deadline_ms) noexcept {
  if (node.wheel_ != nullptr) {
    node.wheel_->unlink(node);
    --node.wheel_->size_;
  }
  node.wheel_ = this;
  node.deadline_ = deadline_ms;
  ++size_;
  ++stats_.scheduled;
  place(node);
}

void TimerWheel::cancel(TimerNode& node) noexcept {
  if (node.wheel_ == nullptr) return;
  assert(node.wheel_ == this && "TimerWheel::cancel() on a node of another wheel");
  if (node.wheel_ != this) {
    node.wheel_->cancel(node);
    return;
  }
  unlink(node);
  node.wheel_ = nullptr;
  --size_;
  ++stats_.cancelled;
}

TimerNode* TimerWheel::pop_due() noexcept {
  TimerNode* node = due_.head;
  if (node == nullptr) return nullptr;
  unlink(*node);
  node->wheel_ = nullptr;
  --size_;
  ++stats_.fired;
  return node;
}

bool TimerWheel::first_occupied(unsigned& level, unsigned& slot) const noexcept {
  for (unsigned l = 0; l < kLevels; ++l) {
    // Occupied slots are always > now's digit (see place()), so search only after it.
    const unsigned from = digit(now_, l) + 1;
    for (unsigned w = from / 64; w < kSlots / 64; ++w) {
      std::uint64_t bits = occupied_[l][w];
      if (w == from / 64) bits &= ~std::uint64_t{0} << (from % 64);
      ++stats_.bitmap_probes;
      if (bits != 0) {
        level = l;
        slot = w * 64 + static_cast<unsigned>(std::countr_zero(bits));
        return true;
      }
    }
  }
  return false;
}

std::optional<std::uint64_t> TimerWheel::next_deadline() const noexcept {
  if (size_ == 0) return std::nullopt;
  if (!due_.empty()) return due_min_;
  unsigned level = 0;
  unsigned slot = 0;
  // A lower level's slots all start before any higher level's and slots of a level are in time
  // order, so the first occupied slot of the lowest non-empty level holds the earliest timer.
  if (first_occupied(level, slot)) return slot_min_[level * kSlots + slot];
  return overflow_min_;
}

bool TimerWheel::step_to(std::uint64_t limit) noexcept {
  if (limit <= now_) return false;
  std::uint64_t event = 0;
  unsigned level = 0;
  unsigned slot = 0;
  if (first_occupied(level, slot)) {
    event = slot_start(now_, level, slot);
  } else if (!overflow_.empty()) {
    // overflow_min_ may be stale-low after a cancel; landing early just rescans and refines it.
    event = overflow_min_ & ~(kSpanMs - 1);
  } else {
    now_ = limit;
    return false;
  }
  if (event > limit) {
    now_ = limit;
    return false;
  }
  now_ = event;

  if ((now_ & (kSpanMs - 1)) == 0 && !overflow_.empty() &&
      now_ >= (overflow_min_ & ~(kSpanMs - 1))) {
    rescan_overflow();
  }
  // At most one level has a slot to cascade here: a cascade files only into slots after now's
  // digits, so a lower level's slot at a zero digit stays empty. The level-0 slot fires last,
  // after any cascade that could have fed due_ (never both for one deadline: placement is
  // canonical, so all timers of a deadline share one list).
  for (unsigned l = kLevels; l-- > 1;) {
    if ((now_ & ((std::uint64_t{1} << (l * kSlotBits)) - 1)) != 0) continue;
    const auto where = static_cast<std::uint16_t>(l * kSlots + digit(now_, l));
    if (!slots_[where].empty()) stats_.cascaded += redistribute(take_slot(where));
  }
  // Every deadline in this level-0 slot is now_: all go to due_, in order.
  const auto where = static_cast<std::uint16_t>(digit(now_, 0));
  if (!slots_[where].empty()) redistribute(take_slot(where));
  return true;
}

TimerWheel::List TimerWheel::take_slot(std::uint16_t where) noexcept {
  const List taken = slots_[where];
  slots_[where] = List{};
  slot_min_[where] = kNoTime;
  occupied_[where / kSlots][(where % kSlots) / 64] &= ~(std::uint64_t{1} << (where % 64));
  return taken;
}

std::size_t TimerWheel::redistribute(List list) noexcept {
  std::size_t moved = 0;
  for (TimerNode* node = list.head; node != nullptr;) {
    TimerNode* next = node->next_;
    place(*node);
    node = next;
    ++moved;
  }
  return moved;
}

void TimerWheel::rescan_overflow() noexcept {
  const List taken = overflow_;
  overflow_ = List{};
  overflow_min_ = kNoTime;
  stats_.overflow_scanned += redistribute(taken);
}

void TimerWheel::clear() noexcept {
  auto release = [](List& list) {
    for (TimerNode* node = list.head; node != nullptr;) {
      TimerNode* next = node->next_;
      node->prev_ = node->next_ = nullptr;
      node->wheel_ = nullptr;
      node = next;
    }
    list = List{};
  };
  for (List& list : slots_) release(list);
  release(due_);
  release(overflow_);
  occupied_ = {};
  slot_min_.fill(kNoTime);
  due_min_ = overflow_min_ = kNoTime;
  size_ = 0;
}

}  // namespace listd::blocking
