// Stream replies that carry times, made comparable between listd and redis-server: the idle
// times of XPENDING's extended form and XINFO CONSUMERS, and the unix-ms seen and delivery times
// of XINFO STREAM FULL, masked ("<ms>", "<time>") and checked as properties (non-negative).
// Used by the stream oracles (stream_group_oracle_test.cpp, stream_random_oracle_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace listd::testing {

// Each XPENDING entry's idle time (its third element) as "<ms>", checked to be non-negative
// (TIME 1000 puts a delivery in 1970, so there is no upper bound to check).
inline std::string mask_idle_times(const std::string& reply, const std::string& what) {
  static const std::regex kEntry("(\\*4\r\n\\$\\d+\r\n[^\r]*\r\n\\$\\d+\r\n[^\r]*\r\n):(\\d+)\r\n");
  std::string out;
  auto begin = std::sregex_iterator(reply.begin(), reply.end(), kEntry);
  std::size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const long long ms = std::stoll((*it)[2].str());
    EXPECT_GE(ms, 0) << what;
    out += reply.substr(last, static_cast<std::size_t>(it->position()) - last);
    out += (*it)[1].str() + ":<ms>\r\n";
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  return out + reply.substr(last);
}

// XINFO's times: a consumer's idle ms, and the unix-ms seen and delivery times of FULL (the
// only 13-digit integers these scripts produce), as "<ms>" / "<time>".
inline std::string mask_info_times(const std::string& reply, const std::string& what) {
  static const std::regex kIdle("(\\$4\r\nidle\r\n):(\\d+)\r\n");
  static const std::regex kUnixMs(":(\\d{13})\r\n");
  for (auto it = std::sregex_iterator(reply.begin(), reply.end(), kIdle);
       it != std::sregex_iterator(); ++it)
    EXPECT_GE(std::stoll((*it)[2].str()), 0) << what;
  const std::string out = std::regex_replace(reply, kIdle, "$1:<ms>\r\n");
  return std::regex_replace(out, kUnixMs, ":<time>\r\n");
}

/// The reply of `request` with the times it carries masked (XPENDING's extended form, XINFO).
inline std::string mask_stream_times(const std::vector<std::string>& request,
                                     const std::string& reply, const std::string& what) {
  if (request[0] == "XPENDING" && request.size() > 3) return mask_idle_times(reply, what);
  if (request[0] == "XINFO") return mask_info_times(reply, what);
  return reply;
}

}  // namespace listd::testing
