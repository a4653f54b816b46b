#include "listd/store/stream_id.h"

#include <fmt/format.h>

namespace listd::store {

std::string StreamId::to_string() const { return fmt::format("{}-{}", ms, seq); }

bool StreamId::increment() noexcept {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) return false;
    ++ms;
    seq = 0;
  } else {
    ++seq;
  }
  return true;
}

bool StreamId::decrement() noexcept {
  if (seq == 0) {
    if (ms == 0) return false;
    --ms;
    seq = UINT64_MAX;
  } else {
    --seq;
  }
  return true;
}

}  // namespace listd::store
