#include "listd/store/number.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace listd::store {

bool parse_strict_integer(std::string_view s, long long& out) noexcept {
  const std::size_t n = s.size();
  if (n == 0 || n > 20) return false;
  if (n == 1 && s[0] == '0') {
    out = 0;
    return true;
  }
  std::size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    if (++i == n) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  unsigned long long v = 0;
  for (; i < n; ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return false;
    if (v > (ULLONG_MAX / 10)) return false;
    v *= 10;
    const unsigned d = static_cast<unsigned>(c - '0');
    if (v > ULLONG_MAX - d) return false;
    v += d;
  }
  if (negative) {
    if (v > static_cast<unsigned long long>(LLONG_MAX) + 1) return false;
    out = static_cast<long long>(0ull - v);
  } else {
    if (v > static_cast<unsigned long long>(LLONG_MAX)) return false;
    out = static_cast<long long>(v);
  }
  return true;
}

bool parse_long_double(std::string_view s, long double& out) noexcept {
  char buf[5 * 1024 + 1];
  if (s.empty() || s.size() >= sizeof buf) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  if (std::isspace(static_cast<unsigned char>(buf[0]))) return false;
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
  char buf[5 * 1024 + 1];
  if (s.empty() || s.size() >= sizeof buf) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  if (std::isspace(static_cast<unsigned char>(buf[0]))) return false;
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

}  // namespace listd::store
