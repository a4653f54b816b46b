#include "listd/server/effect_stream.h"

#include <algorithm>

namespace listd::server {

void EffectStream::subscribe(EffectConsumer& consumer) {
  if (std::find(consumers_.begin(), consumers_.end(), &consumer) == consumers_.end())
    consumers_.push_back(&consumer);
}

void EffectStream::unsubscribe(EffectConsumer& consumer) {
  consumers_.erase(std::remove(consumers_.begin(), consumers_.end(), &consumer), consumers_.end());
}

bool EffectStream::active() const noexcept {
  for (const EffectConsumer* c : consumers_)
    if (c->wants_effects()) return true;
  return false;
}

void EffectStream::begin_unit(bool wrap_allowed) noexcept {
  if (depth_++ == 0) wrap_allowed_ = wrap_allowed;
}

void EffectStream::emit(int db, std::span<const std::string_view> argv) {
  if (argv.empty() || muted_ || !active()) return;
  if (depth_ == 0) {
    deliver(db, argv);
    return;
  }
  pending_.push_back(Pending{db, arg_spans_.size(), argv.size()});
  for (std::string_view a : argv) {
    arg_spans_.emplace_back(bytes_.size(), a.size());
    bytes_.append(a);
  }
}

void EffectStream::end_unit() {
  if (depth_ == 0 || --depth_ > 0) return;
  if (pending_.empty()) return;
  // Redis propagatePendingCommands: MULTI takes the first effect's db, EXEC the last one's, so
  // a consumer never needs a SELECT between EXEC and the effect before it.
  const bool wrap = pending_.size() > 1 && wrap_allowed_;
  static constexpr std::string_view kMulti[] = {"MULTI"};
  static constexpr std::string_view kExec[] = {"EXEC"};
  if (wrap) deliver(pending_.front().db, kMulti);
  for (const Pending& p : pending_) {
    views_.clear();
    for (std::size_t i = 0; i < p.argc; ++i) {
      const auto [offset, length] = arg_spans_[p.first_arg + i];
      views_.emplace_back(bytes_.data() + offset, length);
    }
    deliver(p.db, views_);
  }
  if (wrap) deliver(pending_.back().db, kExec);
  pending_.clear();
  arg_spans_.clear();
  bytes_.clear();
}

void EffectStream::deliver(int db, std::span<const std::string_view> argv) {
  for (EffectConsumer* c : consumers_)
    if (c->wants_effects()) c->on_effect(db, argv);
}

}  // namespace listd::server
