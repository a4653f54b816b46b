// XINFO STREAM key [FULL [COUNT count]] | GROUPS key | CONSUMERS key group | HELP.
//
// Redis 7.0.15 xinfoCommand / xinfoReplyWithStreamInfo: field names and order as 7.0 has them
// (no 7.2 fields such as active-time or inactive). radix-tree-keys is the node count;
// radix-tree-nodes is the node count of the radix tree Redis would hold for the same node keys
// (16-byte big-endian master ids), computed from the keys: the tree's shape depends only on
// the key set.
#include <array>
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/stream_group_ops.h"
#include "listd/server/stream_ops.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

using RaxKey = std::array<unsigned char, 16>;

RaxKey rax_key(store::StreamId id) {
  RaxKey k{};
  for (int i = 0; i < 8; ++i) {
    k[static_cast<std::size_t>(i)] = static_cast<unsigned char>(id.ms >> (56 - 8 * i));
    k[static_cast<std::size_t>(8 + i)] = static_cast<unsigned char>(id.seq >> (56 - 8 * i));
  }
  return k;
}

// Nodes of the subtree whose root sits at byte `depth` of the sorted keys [lo, hi): a key's
// end is a node; bytes shared by every key form one compressed node; a byte where the keys
// part is one node with a child per distinct byte (rax.c's layout).
std::size_t rax_subtree_nodes(const std::vector<RaxKey>& keys, std::size_t lo, std::size_t hi,
                              std::size_t depth) {
  if (depth == 16) return 1;
  std::size_t common = depth;
  while (common < 16 && keys[lo][common] == keys[hi - 1][common]) ++common;
  if (common > depth) return 1 + rax_subtree_nodes(keys, lo, hi, common);
  std::size_t n = 1;
  for (std::size_t i = lo; i < hi;) {
    std::size_t j = i;
    while (j < hi && keys[j][depth] == keys[i][depth]) ++j;
    n += rax_subtree_nodes(keys, i, j, depth + 1);
    i = j;
  }
  return n;
}

std::size_t rax_nodes(const store::StreamValue& s) {
  if (s.nodes().empty()) return 1;  // the empty root
  std::vector<RaxKey> keys;
  keys.reserve(s.nodes().size());
  for (const auto& [master, lp] : s.nodes()) keys.push_back(rax_key(master));
  return rax_subtree_nodes(keys, 0, keys.size(), 0);
}

/// The stream at argv[2], or null after "ERR no such key" / WRONGTYPE.
store::StreamValue* stream_or_reply(CommandContext& ctx) {
  store::Entry* e = ctx.read(ctx.arg(2));
  if (!e) {
    ctx.reply().error(kNoSuchKeyErr);
    return nullptr;
  }
  if (!e->value.is(store::ValueType::kStream)) {
    ctx.reply().error(kWrongTypeErr);
    return nullptr;
  }
  return &e->value.as_stream();
}

void reply_entries_read(protocol::ReplyWriter r, const store::StreamGroup& g) {
  if (g.entries_read == kInvalidEntriesRead)
    r.null();
  else
    r.integer(g.entries_read);
}

void reply_lag(protocol::ReplyWriter r, const store::StreamValue& s, const store::StreamGroup& g) {
  const std::optional<long long> lag = group_lag(s, g);
  if (lag)
    r.integer(*lag);
  else
    r.null();
}

/// The fields both forms of XINFO STREAM open with.
void reply_stream_header(protocol::ReplyWriter r, const store::StreamValue& s) {
  r.bulk("length");
  r.integer(static_cast<long long>(s.length()));
  r.bulk("radix-tree-keys");
  r.integer(static_cast<long long>(s.nodes().size()));
  r.bulk("radix-tree-nodes");
  r.integer(static_cast<long long>(rax_nodes(s)));
  r.bulk("last-generated-id");
  reply_stream_id(r, s.last_id());
  r.bulk("max-deleted-entry-id");
  reply_stream_id(r, s.max_deleted_id());
  r.bulk("entries-added");
  r.integer(static_cast<long long>(s.entries_added()));
  r.bulk("recorded-first-entry-id");
  reply_stream_id(r, s.first_id());
}

void reply_edge_entry(protocol::ReplyWriter r, const store::StreamValue& s, bool last) {
  store::StreamIterator it(s, store::StreamId{}, store::StreamId::max(), last);
  if (it.next())
    reply_stream_entry(r, it);
  else
    r.null();
}

// At most `count` (0 = all) of a PEL: [id, consumer, delivery time, count] for the group's,
// [id, delivery time, count] for a consumer's.
template <class Pel, class NackOf>
void reply_full_pel(protocol::ReplyWriter r, const Pel& pel, long long count, bool with_owner,
                    NackOf&& nack_of) {
  const std::size_t n =
      count == 0 ? pel.size() : std::min(pel.size(), static_cast<std::size_t>(count));
  r.array_header(n);
  auto it = pel.begin();
  for (std::size_t i = 0; i < n; ++i, ++it) {
    const store::StreamNack& nack = nack_of(it->second);
    r.array_header(with_owner ? 4 : 3);
    reply_stream_id(r, it->first);
    if (with_owner) r.bulk(nack.consumer->name);
    r.integer(nack.delivery_time);
    r.integer(static_cast<long long>(nack.delivery_count));
  }
}

void reply_full_group(protocol::ReplyWriter r, const store::StreamValue& s, std::string_view name,
                      const store::StreamGroup& g, long long count) {
  r.map_header(7);
  r.bulk("name");
  r.bulk(name);
  r.bulk("last-delivered-id");
  reply_stream_id(r, g.last_id);
  r.bulk("entries-read");
  reply_entries_read(r, g);
  r.bulk("lag");
  reply_lag(r, s, g);
  r.bulk("pel-count");
  r.integer(static_cast<long long>(g.pel.size()));
  r.bulk("pending");
  reply_full_pel(r, g.pel, count, true,
                 [](const store::StreamNack& n) -> const store::StreamNack& { return n; });
  r.bulk("consumers");
  r.array_header(g.consumers.size());
  for (const auto& [cname, c] : g.consumers) {
    r.map_header(4);
    r.bulk("name");
    r.bulk(cname);
    r.bulk("seen-time");
    r.integer(c.seen_time);
    r.bulk("pel-count");
    r.integer(static_cast<long long>(c.pel.size()));
    r.bulk("pending");
    reply_full_pel(r, c.pel, count, false,
                   [](const store::StreamNack* n) -> const store::StreamNack& { return *n; });
  }
}

// XINFO STREAM key [FULL [COUNT count]]
void cmd_xinfo_stream(CommandContext& ctx) {
  store::StreamValue* s = stream_or_reply(ctx);
  if (!s) return;
  const std::size_t optc = ctx.argc() - 3;
  long long count = 10;  // Redis' default, so FULL does not block the server
  if (optc != 0) {
    if ((optc != 1 && optc != 3) || !base::iequals(ctx.arg(3), "full") ||
        (optc == 3 && !base::iequals(ctx.arg(4), "count"))) {
      ctx.reply().error(subcommand_syntax_error(ctx.arg(0), ctx.arg(1)));
      return;
    }
    if (optc == 3) {
      if (!ctx.parse_integer(5, count)) return;
      if (count < 0) count = 10;
    }
  }
  auto r = ctx.reply();
  r.map_header(optc == 0 ? 10 : 9);
  reply_stream_header(r, *s);
  if (optc == 0) {
    r.bulk("groups");
    r.integer(static_cast<long long>(s->groups().size()));
    r.bulk("first-entry");
    reply_edge_entry(r, *s, false);
    r.bulk("last-entry");
    reply_edge_entry(r, *s, true);
    return;
  }
  r.bulk("entries");
  reply_stream_range(r, *s, store::StreamId{}, store::StreamId::max(),
                     static_cast<std::size_t>(count), false);
  r.bulk("groups");
  r.array_header(s->groups().size());
  for (const auto& [name, g] : s->groups()) reply_full_group(r, *s, name, g, count);
}

// XINFO GROUPS key
void cmd_xinfo_groups(CommandContext& ctx) {
  store::StreamValue* s = stream_or_reply(ctx);
  if (!s) return;
  auto r = ctx.reply();
  r.array_header(s->groups().size());
  for (const auto& [name, g] : s->groups()) {
    r.map_header(6);
    r.bulk("name");
    r.bulk(name);
    r.bulk("consumers");
    r.integer(static_cast<long long>(g.consumers.size()));
    r.bulk("pending");
    r.integer(static_cast<long long>(g.pel.size()));
    r.bulk("last-delivered-id");
    reply_stream_id(r, g.last_id);
    r.bulk("entries-read");
    reply_entries_read(r, g);
    r.bulk("lag");
    reply_lag(r, *s, g);
  }
}

// XINFO CONSUMERS key group
void cmd_xinfo_consumers(CommandContext& ctx) {
  store::StreamValue* s = stream_or_reply(ctx);
  if (!s) return;
  const auto it = s->groups().find(ctx.arg(3));
  if (it == s->groups().end()) {
    ctx.reply().error("NOGROUP No such consumer group '" + std::string(until_nul(ctx.arg(3))) +
                      "' for key name '" + std::string(until_nul(ctx.arg(2))) + "'");
    return;
  }
  auto r = ctx.reply();
  r.array_header(it->second.consumers.size());
  for (const auto& [name, c] : it->second.consumers) {
    r.map_header(3);
    r.bulk("name");
    r.bulk(name);
    r.bulk("pending");
    r.integer(static_cast<long long>(c.pel.size()));
    r.bulk("idle");
    const std::int64_t idle = ctx.now_ms() - c.seen_time;
    r.integer(idle < 0 ? 0 : idle);
  }
}

// XINFO HELP
void cmd_xinfo_help(CommandContext& ctx) {
  reply_help(ctx, {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.",
                   "GROUPS <key>", "    Show the stream consumer groups.",
                   "STREAM <key> [FULL [COUNT <count>]", "    Show information about the stream."});
}

}  // namespace

void register_stream_info_commands(CommandTable& table) {
  CommandFamily t = table.family("stream");
  constexpr KeySpec kSecondKey{2, 2, 1};
  CommandSpec& xinfo = t.add("xinfo", -2, 0, kNoKeys, nullptr, "5.0.0",
                             "A container for stream introspection commands");
  t.add_subcommand(xinfo, "stream", -3, kReadonly, kSecondKey, &cmd_xinfo_stream, "5.0.0",
                   "Get information about a stream");
  t.add_subcommand(xinfo, "groups", 3, kReadonly, kSecondKey, &cmd_xinfo_groups, "5.0.0",
                   "List the consumer groups of a stream");
  t.add_subcommand(xinfo, "consumers", 4, kReadonly, kSecondKey, &cmd_xinfo_consumers, "5.0.0",
                   "List the consumers in a consumer group");
  t.add_subcommand(xinfo, "help", 2, kLoading | kStale, kNoKeys, &cmd_xinfo_help, "5.0.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
