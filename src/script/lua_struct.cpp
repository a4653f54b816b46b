// struct, with the behaviour of Roberto Ierusalimschy's Lua struct library 0.2 (bundled by
// Redis; Debian has none): struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]) and
// struct.size(fmt). Format letters: > < (endianness), ![n] (alignment), x (a zero byte),
// b B h H l L T i[n] I[n] (integers: lower case signed), f d (float, double), s (a
// zero-terminated string), c[n] (n bytes; c0 packs the whole string and unpacks the length
// read just before), spaces ignored. Native order is little-endian, alignment 1 by default.
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>

#include "lua_internal.h"

namespace listd::script::detail {
namespace {

constexpr int kMaxIntSize = 32;
constexpr int kMaxAlign = 8;

struct Header {
  bool big_endian = false;
  std::size_t align = 1;
};

bool power_of_two(long long x) { return x > 0 && (x & (x - 1)) == 0; }

int read_number(lua_State* L, const char*& fmt, int fallback) {
  if (!std::isdigit(static_cast<unsigned char>(*fmt))) return fallback;
  int a = 0;
  do {
    const int digit = *fmt - '0';
    if (a > INT_MAX / 10 || a * 10 > INT_MAX - digit) luaL_error(L, "integral size overflow");
    a = a * 10 + digit;
    ++fmt;
  } while (std::isdigit(static_cast<unsigned char>(*fmt)));
  return a;
}

std::size_t option_size(lua_State* L, char opt, const char*& fmt) {
  switch (opt) {
    case 'B':
    case 'b': return 1;
    case 'H':
    case 'h': return sizeof(short);
    case 'L':
    case 'l': return sizeof(long);
    case 'T': return sizeof(std::size_t);
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'x': return 1;
    case 'c': return static_cast<std::size_t>(read_number(L, fmt, 1));
    case 'i':
    case 'I': {
      const int size = read_number(L, fmt, sizeof(int));
      if (size > kMaxIntSize)
        luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      return static_cast<std::size_t>(size);
    }
    default: return 0;
  }
}

std::size_t padding(std::size_t len, const Header& h, char opt, std::size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > h.align) size = h.align;
  return (size - (len & (size - 1))) & (size - 1);
}

void control_option(lua_State* L, char opt, const char*& fmt, Header& h) {
  switch (opt) {
    case ' ': return;
    case '>': h.big_endian = true; return;
    case '<': h.big_endian = false; return;
    case '!': {
      const int a = read_number(L, fmt, kMaxAlign);
      if (!power_of_two(a)) luaL_error(L, "alignment %d is not a power of 2", a);
      h.align = static_cast<std::size_t>(a);
      return;
    }
    default: {
      const char* msg = lua_pushfstring(L, "invalid format option '%c'", opt);
      luaL_argerror(L, 1, msg);
    }
  }
}

bool is_integer_option(char opt) { return std::strchr("bBhHlLTiI", opt) != nullptr && opt != 0; }

void put_integer(lua_State* L, std::string& out, int arg, bool big_endian, std::size_t size) {
  const lua_Number n = luaL_checknumber(L, arg);
  const auto value = n < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(n))
                           : static_cast<std::uint64_t>(n);
  std::string bytes(size, '\0');
  std::uint64_t v = value;
  for (std::size_t i = 0; i < size && i < 8; ++i, v >>= 8)
    bytes[big_endian ? size - 1 - i : i] = static_cast<char>(v & 0xff);
  out += bytes;
}

template <class T>
void put_float(std::string& out, T value, bool big_endian) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if (big_endian)
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
  out.append(bytes, sizeof(T));
}

int struct_pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  int arg = 2;
  std::string out;
  while (*fmt) {
    const char opt = *fmt++;
    std::size_t size = option_size(L, opt, fmt);
    out.append(padding(out.size(), h, opt, size), '\0');
    if (is_integer_option(opt)) {
      put_integer(L, out, arg++, h.big_endian, size);
    } else if (opt == 'x') {
      out.push_back('\0');
    } else if (opt == 'f') {
      put_float(out, static_cast<float>(luaL_checknumber(L, arg++)), h.big_endian);
    } else if (opt == 'd') {
      put_float(out, static_cast<double>(luaL_checknumber(L, arg++)), h.big_endian);
    } else if (opt == 'c' || opt == 's') {
      std::size_t len = 0;
      const char* s = luaL_checklstring(L, arg++, &len);
      if (size == 0) size = len;
      luaL_argcheck(L, len >= size, arg, "string too short");
      out.append(s, size);
      if (opt == 's') out.push_back('\0');
    } else {
      control_option(L, opt, fmt, h);
    }
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

lua_Number get_integer(const char* p, bool big_endian, bool is_signed, std::size_t size) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t at = big_endian ? i : size - 1 - i;
    v = (v << 8) | static_cast<unsigned char>(p[at]);
  }
  if (!is_signed) return static_cast<lua_Number>(v);
  if (size < 8) {
    const std::uint64_t sign = std::uint64_t{1} << (size * 8 - 1);
    if (v & sign) v |= ~((sign << 1) - 1);
  }
  return static_cast<lua_Number>(static_cast<std::int64_t>(v));
}

template <class T>
lua_Number get_float(const char* p, bool big_endian) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if (big_endian)
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return static_cast<lua_Number>(value);
}

// One value of option `opt` at data[pos], pushed; `n` counts the results.
void unpack_one(lua_State* L, char opt, const char* data, std::size_t ld, std::size_t pos,
                std::size_t& size, const Header& h, int& n) {
  if (is_integer_option(opt)) {
    lua_pushnumber(L, get_integer(data + pos, h.big_endian, std::islower(opt) != 0, size));
    ++n;
  } else if (opt == 'f' || opt == 'd') {
    lua_pushnumber(L, opt == 'f' ? get_float<float>(data + pos, h.big_endian)
                                 : get_float<double>(data + pos, h.big_endian));
    ++n;
  } else if (opt == 'c') {
    if (size == 0) {
      if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
      size = static_cast<std::size_t>(lua_tonumber(L, -1));
      lua_pop(L, 1);
      --n;
      luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    }
    lua_pushlstring(L, data + pos, size);
    ++n;
  } else if (opt == 's') {
    const void* end = std::memchr(data + pos, '\0', ld - pos);
    if (!end) luaL_error(L, "unfinished string in data");
    size = static_cast<std::size_t>(static_cast<const char*>(end) - (data + pos)) + 1;
    lua_pushlstring(L, data + pos, size - 1);
    ++n;
  }
}

int struct_unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  std::size_t ld = 0;
  const char* data = luaL_checklstring(L, 2, &ld);
  const lua_Integer start = luaL_optinteger(L, 3, 1);
  luaL_argcheck(L, start > 0, 3, "offset must be 1 or greater");
  std::size_t pos = static_cast<std::size_t>(start) - 1;
  Header h;
  int n = 0;
  while (*fmt) {
    const char opt = *fmt++;
    std::size_t size = option_size(L, opt, fmt);
    pos += padding(pos, h, opt, size);
    luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    if (opt == 'x' || is_integer_option(opt) || std::strchr("fdcs", opt))
      unpack_one(L, opt, data, ld, pos, size, h, n);
    else
      control_option(L, opt, fmt, h);
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return n + 1;
}

int struct_size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  std::size_t pos = 0;
  while (*fmt) {
    const char opt = *fmt++;
    const std::size_t size = option_size(L, opt, fmt);
    pos += padding(pos, h, opt, size);
    if (opt == 's')
      luaL_argerror(L, 1, "option 's' has no fixed size");
    else if (opt == 'c' && size == 0)
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    if (!std::isalnum(static_cast<unsigned char>(opt))) control_option(L, opt, fmt, h);
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

int open_struct(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, struct_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, struct_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, struct_size);
  lua_setfield(L, -2, "size");
  lua_setfield(L, LUA_GLOBALSINDEX, "struct");
  return 0;
}

}  // namespace listd::script::detail
