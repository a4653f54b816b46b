// Expected RESP replies for unit tests, as the raw bytes the executor writes:
//
//   using namespace listd::testing::resp;
//   EXPECT_EQ(t.run(c, {"LRANGE", "k", "0", "-1"}), array({"a", "b"}));
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace listd::testing::resp {

inline std::string bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}
inline std::string error(std::string_view text) { return "-" + std::string(text) + "\r\n"; }
inline std::string integer(long long n) { return ":" + std::to_string(n) + "\r\n"; }
/// An array of bulk strings.
inline std::string array(std::initializer_list<std::string_view> items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (std::string_view s : items) out += bulk(s);
  return out;
}
inline std::string array(const std::vector<std::string>& items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const auto& s : items) out += bulk(s);
  return out;
}
/// An array of integers.
inline std::string ints(const std::vector<long long>& items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (long long v : items) out += integer(v);
  return out;
}
/// The [key, value] pair of BLPOP/BRPOP.
inline std::string key_value(std::string_view k, std::string_view v) {
  return "*2\r\n" + bulk(k) + bulk(v);
}

inline const std::string kOk = "+OK\r\n";
inline const std::string kNullBulk = "$-1\r\n";
inline const std::string kNullArray = "*-1\r\n";
inline const std::string kEmptyArray = "*0\r\n";
inline const std::string kResp3Null = "_\r\n";

}  // namespace listd::testing::resp
