// Bitmap commands on strings: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO
// (Redis 7.0 bitops.c: the same check order, limits, errors and events). The bit arithmetic is
// in bit_ops.cpp; writes edit the string in place (CompactString::edit_raw), as Redis grows an
// unshared raw sds.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/server/bit_ops.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"

namespace listd::server {
namespace {

constexpr std::string_view kBitOffsetErr = "ERR bit offset is not an integer or out of range";
constexpr std::string_view kBitValueErr = "ERR bit is not an integer or out of range";
constexpr std::string_view kBitfieldTypeErr =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";

/// Redis getBitOffsetFromArgument: a bit offset below proto-max-bulk-len bytes; with `width`
/// > 0, "#n" means n * width (BITFIELD).
bool parse_bit_offset(CommandContext& ctx, std::size_t i, int width, std::uint64_t& out) {
  std::string_view a = ctx.arg(i);
  const bool hash = width > 0 && !a.empty() && a[0] == '#';
  if (hash) a.remove_prefix(1);
  long long offset = 0;
  if (!base::parse_strict_integer(a, offset)) {
    ctx.reply().error(kBitOffsetErr);
    return false;
  }
  if (hash) offset = static_cast<long long>(static_cast<unsigned long long>(offset) * width);
  const long long max = ctx.exec().config().settings().proto_max_bulk_len;
  if (offset < 0 || (offset >> 3) >= max) {
    ctx.reply().error(kBitOffsetErr);
    return false;
  }
  out = static_cast<std::uint64_t>(offset);
  return true;
}

/// Redis lookupStringForBitCommand: the string at argv[1], created or zero-padded so bit
/// `max_bit` exists; null after WRONGTYPE. `grown` says whether it was created or lengthened.
store::Entry* bitmap_for_write(CommandContext& ctx, std::uint64_t max_bit, bool& grown) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return nullptr;
  const std::size_t bytes = static_cast<std::size_t>(max_bit >> 3) + 1;
  if (!e) e = ctx.add_key(ctx.arg(1), store::Value::make_string({}, store::StringForm::kRaw));
  store::CompactString& s = e->value.as_string();
  grown = s.size() < bytes;
  s.edit_raw(bytes);
  return e;
}

// SETBIT key offset value
void cmd_setbit(CommandContext& ctx) {
  std::uint64_t offset = 0;
  if (!parse_bit_offset(ctx, 2, 0, offset)) return;
  long long on = 0;
  if (!ctx.parse_integer(3, on, kBitValueErr)) return;
  if (on & ~1LL) {
    ctx.reply().error(kBitValueErr);
    return;
  }
  bool grown = false;
  store::Entry* e = bitmap_for_write(ctx, offset, grown);
  if (!e) return;
  auto* p = reinterpret_cast<unsigned char*>(e->value.as_string().edit_raw(0));
  const unsigned mask = 1u << (7 - (offset & 7));
  unsigned char& byte = p[offset >> 3];
  const bool was_set = byte & mask;
  if (grown || was_set != static_cast<bool>(on)) {
    byte = static_cast<unsigned char>(on ? byte | mask : byte & ~mask);
    ctx.notify(config::kNotifyString, "setbit", ctx.arg(1));
    ctx.mark_dirty();
  }
  ctx.reply().integer(was_set ? 1 : 0);
}

// GETBIT key offset
void cmd_getbit(CommandContext& ctx) {
  std::uint64_t offset = 0;
  if (!parse_bit_offset(ctx, 2, 0, offset)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  const std::string_view s = e ? e->value.as_string().view() : std::string_view();
  const std::uint64_t byte = offset >> 3;
  const bool set =
      byte < s.size() && (static_cast<unsigned char>(s[byte]) & (1u << (7 - (offset & 7))));
  ctx.reply().integer(set ? 1 : 0);
}

/// A BITCOUNT/BITPOS range after Redis' index conversion: bytes [start, end] and, for a BIT
/// range, the masks of the bits outside it in the first and last byte.
struct ByteRange {
  long long start = 0;
  long long end = 0;
  unsigned char first_outside = 0;
  unsigned char last_outside = 0;
};

/// Redis' shared conversion of BITCOUNT/BITPOS indexes (negative from the end, clamped).
ByteRange clamp_range(long long start, long long end, long long length, bool bit_unit) {
  long long total = bit_unit ? length << 3 : length;
  if (start < 0) start += total;
  if (end < 0) end += total;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  ByteRange r{start, end};
  if (bit_unit && start <= end) {
    r.first_outside = static_cast<unsigned char>(~((1u << (8 - (start & 7))) - 1) & 0xff);
    r.last_outside = static_cast<unsigned char>((1u << (7 - (end & 7))) - 1);
    r.start = start >> 3;
    r.end = end >> 3;
  }
  return r;
}

/// BIT or BYTE at argv[i]; replies a syntax error otherwise.
bool parse_unit(CommandContext& ctx, std::size_t i, bool& bit_unit) {
  if (base::iequals(ctx.arg(i), "bit")) {
    bit_unit = true;
  } else if (base::iequals(ctx.arg(i), "byte")) {
    bit_unit = false;
  } else {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  return true;
}

// BITCOUNT key [start end [BYTE|BIT]]
void cmd_bitcount(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  const std::string_view s = e->value.as_string().view();
  ByteRange r{0, static_cast<long long>(s.size()) - 1};
  if (ctx.argc() == 4 || ctx.argc() == 5) {
    long long start = 0, end = 0;
    if (!ctx.parse_integer(2, start) || !ctx.parse_integer(3, end)) return;
    if (start < 0 && end < 0 && start > end) {
      ctx.reply().integer(0);
      return;
    }
    bool bit_unit = false;
    if (ctx.argc() == 5 && !parse_unit(ctx, 4, bit_unit)) return;
    r = clamp_range(start, end, static_cast<long long>(s.size()), bit_unit);
  } else if (ctx.argc() != 2) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  if (r.start > r.end) {
    ctx.reply().integer(0);
    return;
  }
  long long count = bits::popcount(
      s.substr(static_cast<std::size_t>(r.start), static_cast<std::size_t>(r.end - r.start + 1)));
  // Take back the bits of the edge bytes that lie outside a BIT range.
  const char edges[2] = {static_cast<char>(s[r.start] & r.first_outside),
                         static_cast<char>(s[r.end] & r.last_outside)};
  count -= bits::popcount(std::string_view(edges, 2));
  ctx.reply().integer(count);
}

/// The first `bit` in bytes [r.start, r.end] with r's edge masks, relative to r.start (Redis
/// bitposCommand: first byte, middle bytes, last byte); `bytes` returns the span searched last
/// for the end-given rule.
long long bitpos_in_range(std::string_view s, ByteRange& r, int bit, long long& bytes) {
  bytes = r.end - r.start + 1;
  auto masked = [&](unsigned char c, unsigned char outside) {
    return static_cast<char>(bit ? c & ~outside : c | outside);
  };
  long long pos = -1;
  if (r.first_outside) {
    char c = masked(static_cast<unsigned char>(s[r.start]), r.first_outside);
    if (r.last_outside && bytes == 1) c = masked(static_cast<unsigned char>(c), r.last_outside);
    pos = bits::first_bit(std::string_view(&c, 1), bit);
    if (bytes == 1 || (pos != -1 && pos != 8)) return pos;
    ++r.start;
    --bytes;
  }
  const long long middle = bytes - (r.last_outside ? 1 : 0);
  if (middle > 0) {
    pos = bits::first_bit(
        s.substr(static_cast<std::size_t>(r.start), static_cast<std::size_t>(middle)), bit);
    if (bytes == middle || (pos != -1 && pos != middle << 3)) return pos;
    r.start += middle;
    bytes -= middle;
  }
  const char last = masked(static_cast<unsigned char>(s[r.end]), r.last_outside);
  return bits::first_bit(std::string_view(&last, 1), bit);
}

// BITPOS key bit [start [end [BYTE|BIT]]]
void cmd_bitpos(CommandContext& ctx) {
  long long bit = 0;
  if (!ctx.parse_integer(2, bit)) return;
  if (bit != 0 && bit != 1) {
    ctx.reply().error("ERR The bit argument must be 1 or 0.");
    return;
  }
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().integer(bit ? -1 : 0);
    return;
  }
  const std::string_view s = e->value.as_string().view();
  const auto length = static_cast<long long>(s.size());
  ByteRange r{0, length - 1};
  bool end_given = false;
  if (ctx.argc() >= 4 && ctx.argc() <= 6) {
    long long start = 0, end = 0;
    bool bit_unit = false;
    if (!ctx.parse_integer(3, start)) return;
    if (ctx.argc() == 6 && !parse_unit(ctx, 5, bit_unit)) return;
    if (ctx.argc() >= 5) {
      if (!ctx.parse_integer(4, end)) return;
      end_given = true;
    } else {
      end = bit_unit ? (length << 3) + 7 : length - 1;
    }
    r = clamp_range(start, end, length, bit_unit);
  } else if (ctx.argc() != 3) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  if (r.start > r.end) {
    ctx.reply().integer(-1);
    return;
  }
  long long bytes = 0;
  long long pos = bitpos_in_range(s, r, static_cast<int>(bit), bytes);
  // A clear bit past an explicit end is not in the range.
  if (end_given && bit == 0 && pos == bytes << 3)
    pos = -1;
  else if (pos != -1)
    pos += r.start << 3;
  ctx.reply().integer(pos);
}

enum class BitOp { kAnd, kOr, kXor, kNot };

/// The BITOP result over `sources` (absent keys are empty strings), Redis' byte loop.
std::string bitop_result(BitOp op, const std::vector<std::string_view>& sources) {
  std::size_t max_len = 0;
  for (std::string_view s : sources) max_len = std::max(max_len, s.size());
  std::string out(max_len, '\0');
  for (std::size_t j = 0; j < max_len; ++j) {
    auto byte_of = [j](std::string_view s) {
      return j < s.size() ? static_cast<unsigned char>(s[j]) : static_cast<unsigned char>(0);
    };
    unsigned char acc = byte_of(sources[0]);
    if (op == BitOp::kNot) acc = static_cast<unsigned char>(~acc);
    for (std::size_t i = 1; i < sources.size(); ++i) {
      if (op == BitOp::kAnd) acc &= byte_of(sources[i]);
      if (op == BitOp::kOr) acc |= byte_of(sources[i]);
      if (op == BitOp::kXor) acc ^= byte_of(sources[i]);
    }
    out[j] = static_cast<char>(acc);
  }
  return out;
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]
void cmd_bitop(CommandContext& ctx) {
  const std::string_view name = ctx.arg(1);
  BitOp op;
  if (base::iequals(name, "and")) {
    op = BitOp::kAnd;
  } else if (base::iequals(name, "or")) {
    op = BitOp::kOr;
  } else if (base::iequals(name, "xor")) {
    op = BitOp::kXor;
  } else if (base::iequals(name, "not")) {
    op = BitOp::kNot;
  } else {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  if (op == BitOp::kNot && ctx.argc() != 4) {
    ctx.reply().error("ERR BITOP NOT must be called with a single source key.");
    return;
  }
  std::vector<std::string_view> sources;
  for (std::size_t i = 3; i < ctx.argc(); ++i) {
    auto [e, wrong_type] = ctx.read(ctx.arg(i), store::ValueType::kString);
    if (wrong_type) return;
    sources.push_back(e ? e->value.as_string().view() : std::string_view());
  }
  const std::string result = bitop_result(op, sources);
  const std::string_view dest = ctx.arg(2);
  if (!result.empty()) {
    ctx.set_key(dest, store::Value::make_string(result, store::StringForm::kRaw));
    ctx.notify(config::kNotifyString, "set", dest);
    ctx.mark_dirty();
  } else if (ctx.delete_key(dest)) {
    ctx.notify(config::kNotifyGeneric, "del", dest);
    ctx.mark_dirty();
  }
  ctx.reply().integer(static_cast<long long>(result.size()));
}

/// One parsed BITFIELD operation.
struct BitfieldOp {
  enum class Kind { kGet, kSet, kIncrby } kind;
  std::uint64_t offset;
  std::int64_t value;  // SET's value or INCRBY's increment
  bits::Overflow overflow;
  int width;
  bool is_signed;
};

/// Redis getBitfieldTypeFromArgument: i1..i64 or u1..u63 (the digits end at a NUL, as strlen).
bool parse_bitfield_type(CommandContext& ctx, std::size_t i, bool& is_signed, int& width) {
  std::string_view a = ctx.arg(i);
  long long n = 0;
  const bool ok = !a.empty() && (a[0] == 'i' || a[0] == 'u') &&
                  base::parse_strict_integer(a.substr(1, a.find('\0') - 1), n) && n >= 1 &&
                  n <= (a[0] == 'i' ? 64 : 63);
  if (!ok) {
    ctx.reply().error(kBitfieldTypeErr);
    return false;
  }
  is_signed = a[0] == 'i';
  width = static_cast<int>(n);
  return true;
}

/// Parses BITFIELD's operations from argv[2]; false after replying an error.
bool parse_bitfield(CommandContext& ctx, std::vector<BitfieldOp>& ops) {
  bits::Overflow overflow = bits::Overflow::kWrap;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const std::size_t remaining = ctx.argc() - j - 1;
    const std::string_view sub = ctx.arg(j);
    BitfieldOp op{};
    if (base::iequals(sub, "get") && remaining >= 2) {
      op.kind = BitfieldOp::Kind::kGet;
    } else if (base::iequals(sub, "set") && remaining >= 3) {
      op.kind = BitfieldOp::Kind::kSet;
    } else if (base::iequals(sub, "incrby") && remaining >= 3) {
      op.kind = BitfieldOp::Kind::kIncrby;
    } else if (base::iequals(sub, "overflow") && remaining >= 1) {
      const std::string_view how = ctx.arg(++j);
      if (base::iequals(how, "wrap")) {
        overflow = bits::Overflow::kWrap;
      } else if (base::iequals(how, "sat")) {
        overflow = bits::Overflow::kSat;
      } else if (base::iequals(how, "fail")) {
        overflow = bits::Overflow::kFail;
      } else {
        ctx.reply().error("ERR Invalid OVERFLOW type specified");
        return false;
      }
      continue;
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
    if (!parse_bitfield_type(ctx, j + 1, op.is_signed, op.width)) return false;
    if (!parse_bit_offset(ctx, j + 2, op.width, op.offset)) return false;
    if (op.kind != BitfieldOp::Kind::kGet) {
      long long v = 0;
      if (!ctx.parse_integer(j + 3, v)) return false;
      op.value = v;
    }
    op.overflow = overflow;
    ops.push_back(op);
    j += op.kind == BitfieldOp::Kind::kGet ? 2 : 3;
  }
  return true;
}

/// BITFIELD GET: the field read from a zero-padded copy of the (up to) 9 bytes it spans.
void bitfield_get(CommandContext& ctx, std::string_view s, const BitfieldOp& op) {
  unsigned char buf[9] = {};
  const std::uint64_t byte = op.offset >> 3;
  for (std::uint64_t i = 0; i < 9 && byte + i < s.size(); ++i)
    buf[i] = static_cast<unsigned char>(s[byte + i]);
  const std::uint64_t at = op.offset - byte * 8;
  if (op.is_signed)
    ctx.reply().integer(bits::get_signed(buf, at, op.width));
  else
    ctx.reply().integer(static_cast<long long>(bits::get_unsigned(buf, at, op.width)));
}

/// BITFIELD SET / INCRBY on the grown string `p`; returns whether it changed the field (or the
/// string was grown), Redis' per-op `changes`.
bool bitfield_write(CommandContext& ctx, unsigned char* p, const BitfieldOp& op, bool grown) {
  const bool incr = op.kind == BitfieldOp::Kind::kIncrby;
  std::uint64_t old_bits = 0, new_bits = 0;
  long long reply = 0;
  int overflow = 0;
  if (op.is_signed) {
    const std::int64_t old_value = bits::get_signed(p, op.offset, op.width);
    std::int64_t wrapped = 0;
    std::int64_t v = incr ? old_value : op.value;
    overflow = bits::signed_overflow(v, incr ? op.value : 0, op.width, op.overflow, wrapped);
    v = overflow ? wrapped
                 : static_cast<std::int64_t>(static_cast<std::uint64_t>(v) +
                                             static_cast<std::uint64_t>(incr ? op.value : 0));
    reply = incr ? v : old_value;
    old_bits = static_cast<std::uint64_t>(old_value);
    new_bits = static_cast<std::uint64_t>(v);
  } else {
    const std::uint64_t old_value = bits::get_unsigned(p, op.offset, op.width);
    std::uint64_t wrapped = 0;
    std::uint64_t v = incr ? old_value : static_cast<std::uint64_t>(op.value);
    overflow = bits::unsigned_overflow(v, incr ? op.value : 0, op.width, op.overflow, wrapped);
    v = overflow ? wrapped : v + static_cast<std::uint64_t>(incr ? op.value : 0);
    reply = static_cast<long long>(incr ? v : old_value);
    old_bits = old_value;
    new_bits = v;
  }
  if (overflow && op.overflow == bits::Overflow::kFail) {
    ctx.reply().null();
    return false;
  }
  ctx.reply().integer(reply);
  bits::set_field(p, op.offset, op.width, new_bits);
  return grown || old_bits != new_bits;
}

void bitfield_generic(CommandContext& ctx, bool read_only_command) {
  std::vector<BitfieldOp> ops;
  if (!parse_bitfield(ctx, ops)) return;
  std::uint64_t highest_bit = 0;
  bool writes = false;
  for (const BitfieldOp& op : ops) {
    if (op.kind == BitfieldOp::Kind::kGet) continue;
    writes = true;
    highest_bit = std::max(highest_bit, op.offset + static_cast<std::uint64_t>(op.width) - 1);
  }
  store::Entry* e = nullptr;
  bool grown = false;
  if (!writes) {
    auto typed = ctx.read(ctx.arg(1), store::ValueType::kString);
    if (typed.wrong_type) return;
    e = typed.entry;
  } else if (read_only_command) {
    ctx.reply().error("ERR BITFIELD_RO only supports the GET subcommand");
    return;
  } else if (!(e = bitmap_for_write(ctx, highest_bit, grown))) {
    return;
  }
  ctx.reply().array_header(ops.size());
  long long changes = 0;
  for (const BitfieldOp& op : ops) {
    if (op.kind == BitfieldOp::Kind::kGet) {
      bitfield_get(ctx, e ? e->value.as_string().view() : std::string_view(), op);
    } else {
      auto* p = reinterpret_cast<unsigned char*>(e->value.as_string().edit_raw(0));
      if (bitfield_write(ctx, p, op, grown)) ++changes;
    }
  }
  if (changes) {
    ctx.notify(config::kNotifyString, "setbit", ctx.arg(1));
    ctx.mark_dirty(changes);
  }
}

// BITFIELD key [GET type offset] [SET type offset value] [INCRBY type offset increment]
//          [OVERFLOW WRAP|SAT|FAIL] ...
void cmd_bitfield(CommandContext& ctx) { bitfield_generic(ctx, false); }

// BITFIELD_RO key [GET type offset ...]
void cmd_bitfield_ro(CommandContext& ctx) { bitfield_generic(ctx, true); }

}  // namespace

void register_bitmap_commands(CommandTable& table) {
  CommandFamily t = table.family("bitmap");
  t.add("setbit", 4, kWrite | kDenyOom, kFirstKey, &cmd_setbit, "2.2.0",
        "Sets or clears the bit at offset in the string value stored at key");
  t.add("getbit", 3, kReadonly | kFast, kFirstKey, &cmd_getbit, "2.2.0",
        "Returns the bit value at offset in the string value stored at key");
  t.add("bitcount", -2, kReadonly, kFirstKey, &cmd_bitcount, "2.6.0", "Count set bits in a string");
  t.add("bitpos", -3, kReadonly, kFirstKey, &cmd_bitpos, "2.8.7",
        "Find first bit set or clear in a string");
  t.add("bitop", -4, kWrite | kDenyOom, {2, -1, 1}, &cmd_bitop, "2.6.0",
        "Perform bitwise operations between strings");
  t.add("bitfield", -2, kWrite | kDenyOom, kFirstKey, &cmd_bitfield, "3.2.0",
        "Perform arbitrary bitfield integer operations on strings");
  t.add("bitfield_ro", -2, kReadonly | kFast, kFirstKey, &cmd_bitfield_ro, "6.0.0",
        "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD");
}

}  // namespace listd::server
