// An effect consumer for unit tests: each effect as one line, its words each followed by a
// space ("SET k v "), in the order the executor delivered them.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/server/effect_stream.h"

namespace listd::testing {

class EffectLineRecorder final : public server::EffectConsumer {
 public:
  bool wants_effects() const noexcept override { return true; }
  void on_effect(int, std::span<const std::string_view> argv) override {
    std::string line;
    for (std::string_view a : argv) line += std::string(a) + " ";
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

}  // namespace listd::testing
