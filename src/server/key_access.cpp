#include "listd/server/key_access.h"

namespace listd::server {

std::uint32_t lfu_log_increment(std::uint32_t counter, int log_factor, std::mt19937_64& rng) {
  if (counter >= 255) return 255;
  const double r = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  const double base = counter > kLfuInitValue ? counter - kLfuInitValue : 0;
  const double p = 1.0 / (base * log_factor + 1);
  return r < p ? counter + 1 : counter;
}

}  // namespace listd::server
