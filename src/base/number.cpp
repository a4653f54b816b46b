#include "listd/base/number.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace listd::base {

namespace {

// Redis' string2ld/string2d input rules before strtold/strtod: not empty, shorter than their
// 5 KB buffer, no leading space; copied NUL-terminated into `buf` for the C parser.
constexpr std::size_t kNumberBuffer = 5 * 1024 + 1;
bool terminated_copy(std::string_view s, char (&buf)[kNumberBuffer]) noexcept {
  if (s.empty() || s.size() >= kNumberBuffer) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  return !std::isspace(static_cast<unsigned char>(buf[0]));
}

}  // namespace

bool parse_long_double(std::string_view s, long double& out) noexcept {
  char buf[kNumberBuffer];
  if (!terminated_copy(s, buf)) return false;
  errno = 0;
  char* end = nullptr;
  const long double v = std::strtold(buf, &end);
  if (end != buf + s.size() || std::isnan(v)) return false;
  // Redis' string2ld: a range error is fatal on overflow and on underflow to zero only.
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return false;
  out = v;
  return true;
}

bool parse_double(std::string_view s, double& out) noexcept {
  char buf[kNumberBuffer];
  if (!terminated_copy(s, buf)) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(buf, &end);
  if (end != buf + s.size() || std::isnan(v)) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) return false;
  out = v;
  return true;
}

std::string format_long_double_human(long double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[5 * 1024];
  // Redis: "%.17Lf" then strip trailing zeros and a trailing dot.
  int len = std::snprintf(buf, sizeof buf, "%.17Lf", value);
  if (len <= 0) return "0";
  std::string s(buf, static_cast<std::size_t>(len));
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace listd::base
