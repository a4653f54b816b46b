// Fuzz target for the Lua conversion layer (src/script/lua_convert.cpp: a command's RESP reply
// into a script's Lua value and a script's value into a reply; lua_cmsgpack.cpp and lua-cjson:
// bytes into Lua values and back), through LuaEngine's public API as EVAL runs it.
//
// Input: byte 0 picks the mode, the rest is its data:
//  - 0, 1: a reply of RESP2 (0) or RESP3 (1) built from the bytes with ReplyWriter (every type
//    listd writes, nested up to 8 deep: the conversion trusts listd's own well-formed replies,
//    so the bytes choose the reply's shape, not its framing), which a script gets from
//    redis.pcall and returns (pcall: an error reply raised by redis.call would get the
//    script's name appended on every pass, as in Redis). The script's reply must be well formed,
//    and converting it again must give the same reply (up to the order of map and set entries,
//    which Lua's tables do not keep): RESP -> Lua -> RESP is a fixed point after one pass.
//  - 2: cmsgpack.unpack of the bytes; what unpacks is packed and unpacked again to an equal
//    value, and returned (Lua -> RESP of any table shape msgpack can make).
//  - 3: cjson.decode of the bytes; likewise with cjson.encode (numbers compared to cjson's
//    14 significant digits).
// Every mode: no crash, no ASan/UBSan report, a well-formed reply whatever the bytes.
//
// Built as a libFuzzer target with clang; with LISTD_FUZZ_REPLAY it gets a main() (fuzz_replay.h)
// that runs the committed seeds and a fixed number of their mutations, for CI's gcc builds.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/protocol/reply_writer.h"
#include "listd/script/engine.h"

namespace {

using listd::protocol::ReplyWriter;
using listd::protocol::RespVersion;

[[noreturn]] void die(const char* what, std::string_view input, std::string_view detail) {
  std::fprintf(stderr, "lua_convert invariant violated: %s\n%s\ninput: %s\n", what,
               listd::base::repr(detail.substr(0, 2048)).c_str(),
               listd::base::repr(input.substr(0, 512)).c_str());
  std::abort();
}

// Reads the input's bytes; zeros once they run out.
struct Bytes {
  std::string_view s;
  std::uint8_t next() {
    if (s.empty()) return 0;
    const auto b = static_cast<std::uint8_t>(s.front());
    s.remove_prefix(1);
    return b;
  }
  std::string text(bool one_line) {
    std::string t(s.substr(0, std::min<std::size_t>(next() % 32, s.size())));
    s.remove_prefix(t.size());
    if (one_line)
      std::replace_if(
          t.begin(), t.end(), [](char c) { return c == '\r' || c == '\n'; }, ' ');
    return t;
  }
  std::uint64_t word() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | next();
    return v;
  }
};

void build_reply(Bytes& in, ReplyWriter& w, int depth) {
  const int kinds = depth >= 8 ? 10 : 13;
  switch (in.next() % kinds) {
    case 0: w.simple(in.text(true)); return;
    case 1: w.error(in.text(true)); return;
    case 2: w.integer(static_cast<long long>(in.word())); return;
    case 3: w.bulk(in.text(false)); return;
    case 4: w.null(); return;
    case 5: w.null_array(); return;
    case 6: {
      const std::uint64_t bits = in.word();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      w.double_value(d);
      return;
    }
    case 7: w.verbatim(in.text(false)); return;
    case 8: w.boolean(in.next() & 1); return;
    case 9: {  // a big number (listd writes none yet; Redis' DEBUG PROTOCOL bignum does)
      const std::string digits = std::to_string(in.word()) + std::to_string(in.word());
      if (w.resp3())
        w.raw("(" + digits + "\r\n");
      else
        w.bulk(digits);
      return;
    }
    default: break;
  }
  const std::size_t n = in.next() % 6;
  const int kind = in.next() % 3;
  if (kind == 0) w.array_header(n);
  if (kind == 1) w.map_header(n);
  if (kind == 2) w.set_header(n);
  for (std::size_t i = 0; i < (kind == 1 ? 2 * n : n); ++i) build_reply(in, w, depth + 1);
}

// A RESP reply's canonical form: nullopt when `p` does not hold exactly one well-formed reply.
// Map and set entries are sorted (their order is Lua's table order).
std::optional<std::string> canonical(std::string_view& p, int depth) {
  if (p.empty() || depth > 1000) return std::nullopt;
  const char type = p.front();
  const std::size_t eol = p.find("\r\n");
  if (eol == std::string_view::npos) return std::nullopt;
  const std::string_view line = p.substr(1, eol - 1);
  p.remove_prefix(eol + 2);
  long long n = 0;
  const bool counted = listd::base::parse_strict_integer(line, n);
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case '#':
    case ',':
    case '(': return std::string(1, type) + std::string(line) + ";";
    case '$':
    case '=': {
      if (!counted || n < -1) return std::nullopt;
      if (n == -1) return std::string("$-1;");
      if (p.size() < static_cast<std::size_t>(n) + 2 || p.substr(n, 2) != "\r\n")
        return std::nullopt;
      std::string out = std::string(1, type) + std::string(p.substr(0, n)) + ";";
      p.remove_prefix(n + 2);
      return out;
    }
    case '*':
    case '%':
    case '~': {
      if (!counted || n < -1) return std::nullopt;
      std::vector<std::string> items;
      for (long long i = 0; i < (type == '%' ? 2 * n : n); ++i) {
        std::optional<std::string> item = canonical(p, depth + 1);
        if (!item) return std::nullopt;
        if (type == '%' && i % 2)
          items.back() += *item;
        else
          items.push_back(std::move(*item));
      }
      if (type != '*') std::sort(items.begin(), items.end());
      std::string out = std::string(1, type) + std::to_string(n) + "[";
      for (const std::string& item : items) out += item;
      return out + "]";
    }
    default: return std::nullopt;
  }
}

std::string canonical_or_die(std::string_view reply, std::string_view input) {
  std::string_view p = reply;
  std::optional<std::string> c = canonical(p, 0);
  if (!c || !p.empty()) die("the script's reply is not one well-formed RESP reply", input, reply);
  return *c;
}

class FuzzRunner : public listd::script::CommandRunner {
 public:
  std::string reply;
  std::string call(std::span<const std::string_view>, RespVersion, std::string& out) override {
    out = reply;
    return {};
  }
  void log(int, std::string_view) override {}
  void set_repl(int) override {}
  std::optional<bool> acl_check(std::span<const std::string_view>) override { return std::nullopt; }
};

// Deep equality (NaN equals NaN; `digits` > 0 compares numbers to that many digits). Tables
// used as keys cannot be looked up in a copy: such values count as equal.
constexpr std::string_view kPrelude = R"(
local function same(a, b, digits, depth)
  if a ~= a and b ~= b then return true end
  if type(a) ~= type(b) then return false end
  if type(a) == 'number' and digits > 0 then
    return string.format('%.' .. digits .. 'g', a) == string.format('%.' .. digits .. 'g', b)
  end
  if type(a) ~= 'table' then return a == b end
  if depth > 200 then return true end
  for k, x in pairs(a) do
    if type(k) == 'table' then return true end
    if not same(x, b[k], digits, depth + 1) then return false end
  end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
)";

constexpr std::string_view kMsgpack = R"(
local ok, v = pcall(cmsgpack.unpack, ARGV[1])
if not ok then return 'refused' end
local again = cmsgpack.unpack(cmsgpack.pack(v))
if not same(v, again, 0, 0) then return redis.error_reply('LISTDFUZZ msgpack round trip') end
return v
)";

constexpr std::string_view kCjson = R"(
local ok, v = pcall(cjson.decode, ARGV[1])
if not ok then return 'refused' end
local eok, e = pcall(cjson.encode, v)
if not eok then return 'unencodable' end
if not same(v, cjson.decode(e), 14, 0) then return redis.error_reply('LISTDFUZZ cjson round trip') end
return v
)";

constexpr const char* kShas[] = {
    "f000000000000000000000000000000000000002", "f000000000000000000000000000000000000003",
    "f000000000000000000000000000000000000000", "f000000000000000000000000000000000000001"};

listd::script::LuaEngine& engine() {
  static listd::script::LuaEngine* e = [] {
    auto* made = new listd::script::LuaEngine(64u << 20);  // a refused allocation is an error
    const std::string scripts[] = {
        "return redis.pcall('fuzz')", "redis.setresp(3) return redis.pcall('fuzz')",
        std::string(kPrelude) + std::string(kMsgpack), std::string(kPrelude) + std::string(kCjson)};
    for (int i = 0; i < 4; ++i)
      if (const std::string err = made->compile(kShas[i], scripts[i]); !err.empty()) {
        std::fprintf(stderr, "%s\n", err.c_str());
        std::abort();
      }
    return made;
  }();
  return *e;
}

std::string run(int mode, FuzzRunner& runner, std::string_view arg) {
  std::string out;
  const RespVersion v = mode == 0 ? RespVersion::kResp2 : RespVersion::kResp3;
  const std::string_view args[] = {arg};
  engine().run(kShas[mode], {}, args, runner, ReplyWriter(out, v));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const int mode = data[0] % 4;
  FuzzRunner runner;
  if (mode >= 2) {
    const std::string out = run(mode, runner, input.substr(1));
    canonical_or_die(out, input);
    if (out.starts_with("-LISTDFUZZ")) die("a value does not round-trip", input, out);
    return 0;
  }
  Bytes in{input.substr(1)};
  ReplyWriter w(runner.reply, mode == 0 ? RespVersion::kResp2 : RespVersion::kResp3);
  build_reply(in, w, 0);
  const std::string first = run(mode, runner, "");
  const std::string first_form = canonical_or_die(first, input);
  runner.reply = first;
  const std::string second = run(mode, runner, "");
  if (canonical_or_die(second, input) != first_form)
    die("RESP -> Lua -> RESP is not a fixed point", input, first + "\n---\n" + second);
  return 0;
}

#ifdef LISTD_FUZZ_REPLAY
#include "fuzz_replay.h"
int main(int argc, char** argv) { return listd::fuzz::replay_main(argc, argv, "lua_convert"); }
#endif
