// The libraries Redis 7.0 loads (script_lua.c luaLoadLibraries) and the functions listd
// replaces or guards in them (SCRIPTING.md §2.3): loadstring/load refuse bytecode and compile
// with the collector stopped, unpack cannot overflow, bit.tohex cannot be handed INT_MIN,
// math.random is Redis' rand48, and pcall hands a script the text of a Redis error table.
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "lua_internal.h"

extern "C" int luaopen_cjson(lua_State* L);
extern "C" int luaopen_bit(lua_State* L);

namespace listd::script::detail {
namespace {

bool is_bytecode(std::string_view code) { return !code.empty() && code[0] == LUA_SIGNATURE[0]; }

// loadstring(s [, chunkname]): nil plus the message on failure, as stock Lua.
int sandbox_loadstring(lua_State* L) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* name = luaL_optstring(L, 2, s);
  if (load_text_chunk(L, std::string_view(s, len), name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// load(f [, chunkname]): the pieces f returns, joined, then compiled as loadstring does.
int sandbox_load(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* name = luaL_optstring(L, 2, "=(load)");
  std::string code;
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    std::size_t len = 0;
    const char* piece = lua_tolstring(L, -1, &len);
    if (len == 0) {
      lua_pop(L, 1);
      break;
    }
    code.append(piece, len);
    lua_pop(L, 1);
  }
  if (load_text_chunk(L, code, name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// unpack(t [, i [, j]]) with the element count computed without overflow (the
// CVE-2025-46817 class: stock 5.1 crashes on unpack({}, -2^31, 2^31-1)).
int sandbox_unpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const long long first = luaL_optint(L, 2, 1);
  const long long last = lua_isnoneornil(L, 3) ? luaL_getn(L, 1) : luaL_checkint(L, 3);
  if (first > last) return 0;
  const long long n = last - first + 1;
  if (n >= INT_MAX || !lua_checkstack(L, static_cast<int>(n)))
    return luaL_error(L, "too many results to unpack");
  for (long long i = first; i <= last; ++i) lua_rawgeti(L, 1, static_cast<int>(i));
  return static_cast<int>(n);
}

// bit.tohex(x, n): LuaBitOp negates n, which overflows for INT_MIN (CVE-2024-31449); Redis
// maps it to INT_MIN + 1.
int guarded_tohex(lua_State* L) {
  if (lua_type(L, 2) == LUA_TNUMBER) {
    // LuaBitOp reads n modulo 2^32, so every value congruent to INT_MIN is the bad one.
    const double n = lua_tonumber(L, 2);
    const bool representable = std::fabs(n) < 4503599627370496.0;  // 2^52
    if (representable &&
        static_cast<std::uint32_t>(static_cast<long long>(std::nearbyint(n))) == 0x80000000u) {
      lua_pushinteger(L, INT_MIN + 1);
      lua_replace(L, 2);
    }
  }
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

// math.random as Lua 5.1 writes it, over Redis' rand48 instead of rand().
int redis_math_random(lua_State* L) {
  constexpr double kMax = 2147483647.0;  // Redis REDIS_LRAND48_MAX (INT32_MAX)
  const double r = static_cast<double>(state_of(L).rand.next() % INT32_MAX) / kMax;
  switch (lua_gettop(L)) {
    case 0: lua_pushnumber(L, r); break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default: return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int redis_math_randomseed(lua_State* L) {
  state_of(L).rand.seed(static_cast<std::int32_t>(luaL_checkint(L, 1)));
  return 0;
}

// pcall(f, ...): a raised Redis error table {err="..."} reaches the script as its text, the
// Redis 6 behaviour Redis 7 keeps (script_lua.c luaRedisPcall).
int guarded_pcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1))
        lua_replace(L, -2);
      else
        lua_pop(L, 1);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

void open(lua_State* L, lua_CFunction fn, const char* name) {
  lua_pushcfunction(L, fn);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

void set_global_function(lua_State* L, const char* name, lua_CFunction fn) {
  lua_pushcfunction(L, fn);
  lua_setfield(L, LUA_GLOBALSINDEX, name);
}

}  // namespace

int load_text_chunk(lua_State* L, std::string_view code, const char* chunk_name) {
  if (is_bytecode(code)) {
    // Redis' Lua parses every chunk as text; bytecode is the classic Lua 5.1 sandbox escape.
    std::string name(chunk_name);
    if (!name.empty() && (name[0] == '@' || name[0] == '=')) name.erase(0, 1);
    lua_pushfstring(L, "%s:1: unexpected symbol near 'char(27)'", name.c_str());
    return LUA_ERRSYNTAX;
  }
  // The parser runs with the collector stopped (the CVE-2025-49844 class: a collection during
  // parsing frees what the parser still uses).
  lua_gc(L, LUA_GCSTOP, 0);
  const int status = luaL_loadbuffer(L, code.data(), code.size(), chunk_name);
  lua_gc(L, LUA_GCRESTART, 0);
  return status;
}

void open_libraries(lua_State* L) {
  open(L, luaopen_base, "");
  open(L, luaopen_table, LUA_TABLIBNAME);
  open(L, luaopen_string, LUA_STRLIBNAME);
  open(L, luaopen_math, LUA_MATHLIBNAME);
  lua_pushcfunction(L, luaopen_cjson);
  lua_call(L, 0, 1);
  lua_setfield(L, LUA_GLOBALSINDEX, "cjson");  // Debian builds cjson without the global
  lua_pushcfunction(L, luaopen_bit);
  lua_call(L, 0, 0);  // registers the global `bit`
  lua_pushcfunction(L, open_cmsgpack);
  lua_call(L, 0, 0);
  lua_pushcfunction(L, open_struct);
  lua_call(L, 0, 0);

  set_global_function(L, "loadstring", sandbox_loadstring);
  set_global_function(L, "load", sandbox_load);
  set_global_function(L, "unpack", sandbox_unpack);
  set_global_function(L, "pcall", guarded_pcall);
  lua_getfield(L, LUA_GLOBALSINDEX, "math");
  lua_pushcfunction(L, redis_math_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, redis_math_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  lua_getfield(L, LUA_GLOBALSINDEX, "bit");
  lua_getfield(L, -1, "tohex");
  lua_pushcclosure(L, guarded_tohex, 1);
  lua_setfield(L, -2, "tohex");
  lua_pop(L, 1);
}

}  // namespace listd::script::detail
