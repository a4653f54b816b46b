// Shared by the script part's files: the engine state every C function reaches through the
// allocator's userdata (lua_getallocf), and the pieces each file installs.
#pragma once

#include <lua.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "listd/protocol/reply_writer.h"
#include "listd/script/engine.h"
#include "listd/script/rand48.h"

namespace listd::script {

struct LuaEngine::State {
  lua_State* L = nullptr;
  std::size_t heap_used = 0;
  std::size_t heap_limit = 0;
  Rand48 rand;
  CommandRunner* runner = nullptr;         ///< set for the length of one run
  int resp = 2;                            ///< redis.setresp: the protocol redis.call replies in
  bool in_call = false;                    ///< redis.call recursion guard
  unsigned runs = 0;                       ///< for the GC step every 50 runs
  int real_globals_ref = 0;                ///< registry ref of the writable globals behind _G
  FunctionRegistrar* registrar = nullptr;  ///< set for the length of one load_library
  std::uint64_t load_timeout_ms = 0;       ///< FUNCTION LOAD's limit (0: none)
  std::uint64_t load_start_ms = 0;         ///< steady clock, when the load began
};

namespace detail {

inline LuaEngine::State& state_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<LuaEngine::State*>(ud);
}

/// Redis luaPushErrorBuff: pushes {err="CODE msg"}; "-CODE msg" keeps its code, text without
/// a leading '-' gets "ERR", a trailing CR/LF is trimmed.
void push_error_table(lua_State* L, std::string_view text);
/// The RESP reply `bytes` (listd's own output) as the Lua value Redis gives a script.
void push_reply(lua_State* L, std::string_view bytes);
/// Consumes the value on top of the stack and writes it as the script's reply (Redis
/// luaReplyToRedisReply); `script_resp` is the run's setresp value.
void write_reply(lua_State* L, protocol::ReplyWriter& out, int script_resp);
/// Redis' reply integer of a Lua number: truncation toward 0; NaN and out-of-range values
/// give INT64_MIN (x86 cvttsd2si, undefined behaviour as a plain C++ cast).
long long number_to_integer(double value) noexcept;

/// Opens base, table, string, math, cjson, bit, cmsgpack and struct, with the replaced and
/// guarded functions (unpack, loadstring/load, math.random, bit.tohex, pcall).
void open_libraries(lua_State* L);
/// Installs the `redis` table.
void register_redis_api(lua_State* L);
/// Makes every table reachable from the globals read-only (proxies), installs the wrappers
/// that see through or refuse proxies, and makes the globals table read-only with Redis'
/// nonexistent-global error. Returns the registry ref of the writable real globals.
int install_sandbox(lua_State* L);
/// Compiles `code` with the collector stopped, refusing bytecode. Returns lua_load's status,
/// with the function or the error message on top of the stack.
int load_text_chunk(lua_State* L, std::string_view code, const char* chunk_name);

/// Pushes a read-only proxy of the table at `real` (absolute index), its tables protected too.
void push_read_only(lua_State* L, int real);
/// The __index of a protected globals table: raises "Script attempted to access nonexistent
/// global variable '<name>'".
int nonexistent_global(lua_State* L);
/// Writes the error value on top of the stack as the reply of a failed run named `name`.
void write_run_error(lua_State* L, std::string_view name, protocol::ReplyWriter& out);

int open_cmsgpack(lua_State* L);
int open_struct(lua_State* L);

}  // namespace detail
}  // namespace listd::script
