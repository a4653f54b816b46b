// Version strings. `redis_version` is the Redis release whose behaviour listd matches: clients
// and exporters branch on it. listd's own version is reported separately.
#pragma once

#include <string_view>

namespace listd::server {

inline constexpr std::string_view kRedisCompatVersion = "7.0.15";
inline constexpr std::string_view kListdVersion = "0.1.0";

}  // namespace listd::server
