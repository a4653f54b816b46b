// The two conversions of SCRIPTING.md §1.5: a command's RESP reply into the Lua value a script
// sees (Redis redisProtocolToLuaType), and a script's return value into the caller's reply
// (Redis luaReplyToRedisReply, reading tables with raw access only so a metatable can neither
// run code nor crash the conversion).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "listd/base/number.h"
#include "lua_internal.h"

namespace listd::script::detail {
namespace {

// A cursor over listd's own reply bytes: well formed by construction, so no error paths.
struct ReplyCursor {
  const char* p;
  const char* end;

  std::string_view line() {
    const char* start = p;
    while (p + 1 < end && !(p[0] == '\r' && p[1] == '\n')) ++p;
    std::string_view text(start, static_cast<std::size_t>(p - start));
    p = p + 2 <= end ? p + 2 : end;
    return text;
  }
  long long number() {
    long long n = 0;
    const std::string_view text = line();
    base::parse_strict_integer(text, n);
    return n;
  }
  std::string_view bytes(long long n) {
    const auto len = static_cast<std::size_t>(n);
    std::string_view text(p, len);
    p += len + 2;  // the payload and its CRLF
    return text;
  }
};

void ensure_stack(lua_State* L, int n) {
  // Redis panics here; a reply this deep cannot come from listd's commands.
  if (!lua_checkstack(L, n)) luaL_error(L, "reached lua stack limit while parsing a reply");
}

void push_value(lua_State* L, ReplyCursor& c);

void push_field_table(lua_State* L, const char* field, std::string_view text) {
  lua_newtable(L);
  lua_pushstring(L, field);
  lua_pushlstring(L, text.data(), text.size());
  lua_settable(L, -3);
}

void push_aggregate(lua_State* L, ReplyCursor& c, char type, long long n) {
  if (type == '*') {
    lua_newtable(L);
    for (long long i = 1; i <= n; ++i) {
      lua_pushnumber(L, static_cast<lua_Number>(i));
      push_value(L, c);
      lua_settable(L, -3);
    }
    return;
  }
  lua_newtable(L);
  lua_pushstring(L, type == '%' ? "map" : "set");
  lua_newtable(L);
  for (long long i = 0; i < n; ++i) {
    push_value(L, c);
    if (type == '%')
      push_value(L, c);
    else
      lua_pushboolean(L, 1);
    lua_settable(L, -3);
  }
  lua_settable(L, -3);
}

void push_double(lua_State* L, std::string_view text) {
  lua_newtable(L);
  lua_pushstring(L, "double");
  lua_pushnumber(L, std::strtod(std::string(text).c_str(), nullptr));  // "inf", "-inf", "nan"
  lua_settable(L, -3);
}

void push_verbatim(lua_State* L, std::string_view text) {
  lua_newtable(L);
  lua_pushstring(L, "verbatim_string");
  lua_newtable(L);
  lua_pushstring(L, "format");
  lua_pushlstring(L, text.data(), std::min<std::size_t>(3, text.size()));
  lua_settable(L, -3);
  lua_pushstring(L, "string");
  const std::string_view body = text.size() > 4 ? text.substr(4) : std::string_view();
  lua_pushlstring(L, body.data(), body.size());
  lua_settable(L, -3);
  lua_settable(L, -3);
}

void push_value(lua_State* L, ReplyCursor& c) {
  ensure_stack(L, 4);
  const char type = *c.p++;
  switch (type) {
    case ':': lua_pushnumber(L, static_cast<lua_Number>(c.number())); return;
    case '$': {
      const long long n = c.number();
      if (n < 0) {
        lua_pushboolean(L, 0);
        return;
      }
      const std::string_view s = c.bytes(n);
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case '+': push_field_table(L, "ok", c.line()); return;
    case '-': push_error_table(L, "-" + std::string(c.line())); return;
    case '*':
    case '%':
    case '~': {
      const long long n = c.number();
      if (n < 0) {
        lua_pushboolean(L, 0);  // the RESP2 null array
        return;
      }
      push_aggregate(L, c, type, n);
      return;
    }
    case '_':
      c.line();
      lua_pushnil(L);
      return;
    case '#': lua_pushboolean(L, c.line() == "t"); return;
    case ',': push_double(L, c.line()); return;
    case '(': push_field_table(L, "big_number", c.line()); return;
    case '=': push_verbatim(L, c.bytes(c.number())); return;
    case '|': {  // an attribute: skipped, the value after it is the reply
      const long long n = c.number();
      for (long long i = 0; i < 2 * n; ++i) {
        push_value(L, c);
        lua_pop(L, 1);
      }
      push_value(L, c);
      return;
    }
    default:
      lua_pushnil(L);
      c.p = c.end;
      return;
  }
}

// ---- Lua value -> reply ---------------------------------------------------------------

void write_value(lua_State* L, protocol::ReplyWriter& out, int script_resp);

std::string one_line(std::string_view text) {
  std::string s(text);
  for (char& ch : s)
    if (ch == '\r' || ch == '\n') ch = ' ';
  return s;
}

// The table field `name` pushed (raw access) if it has Lua type `type`; false with nothing
// pushed otherwise.
bool raw_field(lua_State* L, const char* name, int type) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
  if (lua_type(L, -1) == type) return true;
  lua_pop(L, 1);
  return false;
}

std::string_view field_text(lua_State* L, int index) {
  std::size_t len = 0;
  const char* s = lua_tolstring(L, index, &len);
  return std::string_view(s, len);
}

bool write_verbatim(lua_State* L, protocol::ReplyWriter& out) {
  if (!raw_field(L, "verbatim_string", LUA_TTABLE)) return false;
  bool done = false;
  if (raw_field(L, "format", LUA_TSTRING)) {
    lua_pushstring(L, "string");
    lua_rawget(L, -3);
    if (lua_type(L, -1) == LUA_TSTRING) {
      std::string format(field_text(L, -2));
      format.resize(3, '\0');  // Redis copies three bytes of the format
      const std::string_view text = field_text(L, -1);
      if (out.resp3()) {
        out.raw("=");
        std::string len;
        protocol::append_integer(len, static_cast<long long>(text.size() + 4));
        out.raw(len);
        out.raw("\r\n");
        out.raw(format);
        out.raw(":");
        out.raw(text);
        out.raw("\r\n");
      } else {
        out.bulk(text);
      }
      done = true;
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  return done;
}

// {map=...} / {set=...}: entries counted, then written in lua_next order.
bool write_map_or_set(lua_State* L, protocol::ReplyWriter& out, int script_resp, bool map) {
  if (!raw_field(L, map ? "map" : "set", LUA_TTABLE)) return false;
  std::size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    ++n;
  }
  if (map)
    out.map_header(n);
  else
    out.set_header(n);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (map) {
      lua_pushvalue(L, -2);
      write_value(L, out, script_resp);  // the key
      write_value(L, out, script_resp);  // the value
    } else {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      write_value(L, out, script_resp);
    }
  }
  lua_pop(L, 1);
  return true;
}

void write_array(lua_State* L, protocol::ReplyWriter& out, int script_resp) {
  std::size_t n = 0;
  for (;;) {
    lua_rawgeti(L, -1, static_cast<int>(n + 1));
    const bool present = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!present) break;
    ++n;
  }
  out.array_header(n);
  for (std::size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, -1, static_cast<int>(i));
    write_value(L, out, script_resp);
  }
}

void write_table(lua_State* L, protocol::ReplyWriter& out, int script_resp) {
  if (raw_field(L, "err", LUA_TSTRING)) {
    out.error(field_text(L, -1));
  } else if (raw_field(L, "ok", LUA_TSTRING)) {
    out.simple(one_line(field_text(L, -1)));
  } else if (raw_field(L, "double", LUA_TNUMBER)) {
    out.double_value(lua_tonumber(L, -1));
  } else if (raw_field(L, "big_number", LUA_TSTRING)) {
    const std::string text = one_line(field_text(L, -1));
    if (out.resp3()) {
      out.raw("(");
      out.raw(text);
      out.raw("\r\n");
    } else {
      out.bulk(text);
    }
  } else {
    if (!write_verbatim(L, out) && !write_map_or_set(L, out, script_resp, true) &&
        !write_map_or_set(L, out, script_resp, false))
      write_array(L, out, script_resp);
    lua_pop(L, 1);  // the table
    return;
  }
  lua_pop(L, 2);  // the field and the table
}

void write_value(lua_State* L, protocol::ReplyWriter& out, int script_resp) {
  if (!lua_checkstack(L, 4)) {
    out.error("ERR reached lua stack limit");
    lua_pop(L, 1);
    return;
  }
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: out.bulk(field_text(L, -1)); break;
    case LUA_TBOOLEAN:
      if (script_resp == 2) {
        if (lua_toboolean(L, -1))
          out.integer(1);
        else
          out.null();
      } else {
        out.boolean(lua_toboolean(L, -1) != 0);
      }
      break;
    case LUA_TNUMBER: out.integer(number_to_integer(lua_tonumber(L, -1))); break;
    case LUA_TTABLE: write_table(L, out, script_resp); return;
    default: out.null(); break;
  }
  lua_pop(L, 1);
}

}  // namespace

long long number_to_integer(double value) noexcept {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (std::isnan(value) || value >= kTwo63 || value < -kTwo63)
    return std::numeric_limits<long long>::min();
  return static_cast<long long>(value);
}

void push_error_table(lua_State* L, std::string_view text) {
  std::string code = "ERR";
  std::string_view msg = text;
  if (!text.empty() && text[0] == '-') {
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) {
      msg = text.substr(1);
    } else {
      code = std::string(text.substr(1, space - 1));
      msg = text.substr(space + 1);
    }
  }
  while (!msg.empty() && (msg.front() == '\r' || msg.front() == '\n')) msg.remove_prefix(1);
  while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.remove_suffix(1);
  const std::string final_text = code + " " + std::string(msg);
  push_field_table(L, "err", final_text);
}

void push_reply(lua_State* L, std::string_view bytes) {
  ReplyCursor c{bytes.data(), bytes.data() + bytes.size()};
  if (bytes.empty()) {
    lua_pushnil(L);
    return;
  }
  push_value(L, c);
}

void write_reply(lua_State* L, protocol::ReplyWriter& out, int script_resp) {
  write_value(L, out, script_resp);
}

}  // namespace listd::script::detail
