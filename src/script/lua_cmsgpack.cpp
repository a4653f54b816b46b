// cmsgpack, with lua-cmsgpack 0.4.0's behaviour (the library Redis bundles; Debian has none):
// pack(...) concatenates its arguments' encodings (smallest integer form for integral numbers,
// float32 when exact, else float64; a table whose keys are exactly 1..n is an array, any other
// a map; tables nested deeper than 16 become nil); unpack(s) returns every object in s;
// unpack_one / unpack_limit return the next offset first (-1 at the end). bin and ext types are
// refused. Sizes are size_t throughout (CVE-2022-24834 was int sizes in the Redis copy).
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "lua_internal.h"

namespace listd::script::detail {
namespace {

constexpr int kMaxNesting = 16;

void put_be(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void encode_integer(std::string& out, std::int64_t n) {
  if (n >= 0) {
    if (n <= 127) {
      out.push_back(static_cast<char>(n));
    } else if (n <= 0xff) {
      out.push_back(static_cast<char>(0xcc));
      put_be(out, static_cast<std::uint64_t>(n), 1);
    } else if (n <= 0xffff) {
      out.push_back(static_cast<char>(0xcd));
      put_be(out, static_cast<std::uint64_t>(n), 2);
    } else if (n <= 0xffffffffLL) {
      out.push_back(static_cast<char>(0xce));
      put_be(out, static_cast<std::uint64_t>(n), 4);
    } else {
      out.push_back(static_cast<char>(0xcf));
      put_be(out, static_cast<std::uint64_t>(n), 8);
    }
    return;
  }
  const auto bits = static_cast<std::uint64_t>(n);
  if (n >= -32) {
    out.push_back(static_cast<char>(bits & 0xff));  // negative fixint 0xe0..0xff
  } else if (n >= -128) {
    out.push_back(static_cast<char>(0xd0));
    put_be(out, bits, 1);
  } else if (n >= -32768) {
    out.push_back(static_cast<char>(0xd1));
    put_be(out, bits, 2);
  } else if (n >= -2147483648LL) {
    out.push_back(static_cast<char>(0xd2));
    put_be(out, bits, 4);
  } else {
    out.push_back(static_cast<char>(0xd3));
    put_be(out, bits, 8);
  }
}

void encode_number(std::string& out, double d) {
  if (!std::isinf(d) && !std::isnan(d) && d >= -9223372036854775808.0 &&
      d < 9223372036854775808.0 && static_cast<double>(static_cast<std::int64_t>(d)) == d) {
    encode_integer(out, static_cast<std::int64_t>(d));
    return;
  }
  const auto f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    out.push_back(static_cast<char>(0xca));
    put_be(out, bits, 4);
  } else {
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    out.push_back(static_cast<char>(0xcb));
    put_be(out, bits, 8);
  }
}

void encode_length(std::string& out, std::size_t n, unsigned fix, std::size_t fix_max,
                   unsigned op16, unsigned op32) {
  if (n <= fix_max) {
    out.push_back(static_cast<char>(fix | n));
  } else if (n <= 0xffff) {
    out.push_back(static_cast<char>(op16));
    put_be(out, n, 2);
  } else {
    out.push_back(static_cast<char>(op32));
    put_be(out, n, 4);
  }
}

void encode_string(std::string& out, std::string_view s) {
  if (s.size() < 32) {
    out.push_back(static_cast<char>(0xa0 | s.size()));
  } else if (s.size() <= 0xff) {
    out.push_back(static_cast<char>(0xd9));
    put_be(out, s.size(), 1);
  } else {
    encode_length(out, s.size(), 0, 0, 0xda, 0xdb);
  }
  out.append(s);
}

// True when the table on top has only the keys 1..n (the empty table included).
bool is_array(lua_State* L, std::size_t& n) {
  luaL_checkstack(L, 2, "in function table_is_an_array");
  double max = 0;
  std::size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_pop(L, 1);
      return false;
    }
    const double k = lua_tonumber(L, -1);
    if (k <= 0 || std::floor(k) != k) {
      lua_pop(L, 1);
      return false;
    }
    if (k > max) max = k;
    ++count;
  }
  n = count;
  return max == static_cast<double>(count);
}

void encode_value(lua_State* L, std::string& out, int level);

void encode_table(lua_State* L, std::string& out, int level) {
  std::size_t n = 0;
  if (is_array(L, n)) {
    encode_length(out, n, 0x90, 15, 0xdc, 0xdd);
    for (std::size_t i = 1; i <= n; ++i) {
      luaL_checkstack(L, 1, "in function mp_encode_lua_table_as_array");
      lua_rawgeti(L, -1, static_cast<int>(i));
      encode_value(L, out, level + 1);
    }
    return;
  }
  std::size_t pairs = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    ++pairs;
  }
  encode_length(out, pairs, 0x80, 15, 0xde, 0xdf);
  luaL_checkstack(L, 3, "in function mp_encode_lua_table_as_map");
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    encode_value(L, out, level + 1);  // the key
    encode_value(L, out, level + 1);  // the value
  }
}

// Encodes and pops the value on top of the stack.
void encode_value(lua_State* L, std::string& out, int level) {
  int type = lua_type(L, -1);
  if (type == LUA_TTABLE && level == kMaxNesting) type = LUA_TNIL;
  switch (type) {
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      encode_string(out, std::string_view(s, len));
      break;
    }
    case LUA_TBOOLEAN: out.push_back(static_cast<char>(lua_toboolean(L, -1) ? 0xc3 : 0xc2)); break;
    case LUA_TNUMBER: encode_number(out, lua_tonumber(L, -1)); break;
    case LUA_TTABLE: encode_table(L, out, level); break;
    default: out.push_back(static_cast<char>(0xc0)); break;
  }
  lua_pop(L, 1);
}

int mp_pack(lua_State* L) {
  const int nargs = lua_gettop(L);
  if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  if (!lua_checkstack(L, nargs))
    return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  std::string out;
  for (int i = 1; i <= nargs; ++i) {
    luaL_checkstack(L, 1, "in function mp_check");
    lua_pushvalue(L, i);
    encode_value(L, out, 0);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

// ---- decoding ---------------------------------------------------------------------------

enum class DecodeError { kNone, kMissingBytes, kBadFormat };

struct Cursor {
  const unsigned char* p;
  std::size_t left;
  DecodeError error = DecodeError::kNone;

  bool need(std::size_t n) {
    if (left >= n) return true;
    error = DecodeError::kMissingBytes;
    return false;
  }
  std::uint64_t be(std::size_t offset, int bytes) const {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[offset + static_cast<std::size_t>(i)];
    return v;
  }
  void consume(std::size_t n) {
    p += n;
    left -= n;
  }
};

void decode_value(lua_State* L, Cursor& c);

void decode_array(lua_State* L, Cursor& c, std::size_t n) {
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
  lua_newtable(L);
  for (std::size_t i = 1; i <= n && c.error == DecodeError::kNone; ++i) {
    lua_pushnumber(L, static_cast<lua_Number>(i));
    decode_value(L, c);
    lua_settable(L, -3);
  }
}

void decode_map(lua_State* L, Cursor& c, std::size_t n) {
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_hash");
  lua_newtable(L);
  for (std::size_t i = 0; i < n && c.error == DecodeError::kNone; ++i) {
    decode_value(L, c);
    decode_value(L, c);
    if (c.error != DecodeError::kNone || lua_isnil(L, -2)) {
      lua_pop(L, 2);  // a nil key cannot be stored
      continue;
    }
    lua_settable(L, -3);
  }
}

// Fixed-width numbers and sized strings, arrays and maps (0xca..0xdf).
bool decode_sized(lua_State* L, Cursor& c, unsigned op) {
  static constexpr int kWidth[] = {4, 8, 1, 2, 4, 8, 1, 2, 4, 8};  // ca..d3
  if (op >= 0xca && op <= 0xd3) {
    const int w = kWidth[op - 0xca];
    if (!c.need(1 + static_cast<std::size_t>(w))) {
      lua_pushnil(L);
      return true;
    }
    const std::uint64_t raw = c.be(1, w);
    if (op == 0xca) {
      float f;
      const auto bits = static_cast<std::uint32_t>(raw);
      std::memcpy(&f, &bits, 4);
      lua_pushnumber(L, static_cast<lua_Number>(f));
    } else if (op == 0xcb) {
      double d;
      std::memcpy(&d, &raw, 8);
      lua_pushnumber(L, d);
    } else if (op <= 0xcf) {
      lua_pushnumber(L, static_cast<lua_Number>(raw));
    } else {
      const int shift = 64 - 8 * w;  // sign-extend the w-byte value
      lua_pushnumber(L, static_cast<lua_Number>(static_cast<std::int64_t>(raw << shift) >> shift));
    }
    c.consume(1 + static_cast<std::size_t>(w));
    return true;
  }
  int w = 0;
  switch (op) {
    case 0xd9: w = 1; break;
    case 0xda:
    case 0xdc:
    case 0xde: w = 2; break;
    case 0xdb:
    case 0xdd:
    case 0xdf: w = 4; break;
    default: return false;
  }
  if (!c.need(1 + static_cast<std::size_t>(w))) {
    lua_pushnil(L);
    return true;
  }
  const std::size_t n = c.be(1, w);
  c.consume(1 + static_cast<std::size_t>(w));
  if (op <= 0xdb) {
    if (!c.need(n)) {
      lua_pushnil(L);
      return true;
    }
    lua_pushlstring(L, reinterpret_cast<const char*>(c.p), n);
    c.consume(n);
  } else if (op <= 0xdd) {
    decode_array(L, c, n);
  } else {
    decode_map(L, c, n);
  }
  return true;
}

// Decodes one object and pushes it (on error, whatever it pushed is discarded by the caller).
void decode_value(lua_State* L, Cursor& c) {
  if (!c.need(1)) {
    lua_pushnil(L);
    return;
  }
  luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
  const unsigned op = c.p[0];
  if (op <= 0x7f) {
    lua_pushnumber(L, op);
    c.consume(1);
  } else if (op >= 0xe0) {
    lua_pushnumber(L, static_cast<int>(op) - 256);
    c.consume(1);
  } else if ((op & 0xe0) == 0xa0) {
    const std::size_t n = op & 0x1f;
    if (!c.need(1 + n)) return lua_pushnil(L);
    lua_pushlstring(L, reinterpret_cast<const char*>(c.p + 1), n);
    c.consume(1 + n);
  } else if ((op & 0xf0) == 0x90) {
    c.consume(1);
    decode_array(L, c, op & 0x0f);
  } else if ((op & 0xf0) == 0x80) {
    c.consume(1);
    decode_map(L, c, op & 0x0f);
  } else if (op == 0xc0 || op == 0xc2 || op == 0xc3) {
    if (op == 0xc0)
      lua_pushnil(L);
    else
      lua_pushboolean(L, op == 0xc3);
    c.consume(1);
  } else if (!decode_sized(L, c, op)) {
    c.error = DecodeError::kBadFormat;  // bin, ext, and the unused 0xc1
    lua_pushnil(L);
  }
}

int unpack_full(lua_State* L, lua_Integer limit, lua_Integer offset) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const bool all = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0)
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  if (static_cast<std::size_t>(offset) > len)
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  if (all) limit = INT_MAX;
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset,
           len - static_cast<std::size_t>(offset)};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    decode_value(L, c);
    if (c.error == DecodeError::kMissingBytes) return luaL_error(L, "Missing bytes in input.");
    if (c.error == DecodeError::kBadFormat) return luaL_error(L, "Bad data format in input.");
  }
  if (!all) {
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    lua_pushinteger(L, c.left == 0 ? -1 : static_cast<lua_Integer>(len - c.left));
    lua_insert(L, 2);
    ++count;
  }
  return count;
}

int mp_unpack(lua_State* L) { return unpack_full(L, 0, 0); }

int mp_unpack_one(lua_State* L) {
  const lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_settop(L, 1);
  return unpack_full(L, 1, offset);
}

int mp_unpack_limit(lua_State* L) {
  const lua_Integer limit = luaL_checkinteger(L, 2);
  const lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_settop(L, 1);
  return unpack_full(L, limit, offset);
}

}  // namespace

int open_cmsgpack(lua_State* L) {
  static const luaL_Reg functions[] = {{"pack", mp_pack},
                                       {"unpack", mp_unpack},
                                       {"unpack_one", mp_unpack_one},
                                       {"unpack_limit", mp_unpack_limit},
                                       {nullptr, nullptr}};
  lua_newtable(L);
  for (const luaL_Reg* f = functions; f->name; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  lua_pushstring(L, "cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushstring(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  lua_pushstring(L, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(L, -2, "_COPYRIGHT");
  lua_pushstring(L, "MessagePack C implementation for Lua");
  lua_setfield(L, -2, "_DESCRIPTION");
  lua_setfield(L, LUA_GLOBALSINDEX, "cmsgpack");
  return 0;
}

}  // namespace listd::script::detail
