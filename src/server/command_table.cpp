#include "listd/server/command_table.h"

#include <algorithm>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"

namespace listd::server {

const CommandSpec* CommandSpec::find_subcommand(std::string_view sub) const noexcept {
  char buf[64];
  if (sub.size() > sizeof buf) return nullptr;
  const std::string_view lower = base::to_lower(sub, buf);
  for (const auto& s : subcommands)
    if (s->name == lower) return s.get();
  return nullptr;
}

namespace {

// Redis sortGetKeys: options are skipped by their argument counts (LIMIT 2, GET and BY 1, any
// other none), so a STORE key named "limit" makes the scan skip, as there.
std::vector<int> sort_key_positions(std::span<const std::string_view> argv) {
  std::vector<int> out{1};
  int store_at = 0;
  const int argc = static_cast<int>(argv.size());
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[static_cast<std::size_t>(i)];
    if (base::iequals(a, "limit"))
      i += 2;
    else if (base::iequals(a, "get") || base::iequals(a, "by"))
      i += 1;
    else if (base::iequals(a, "store") && i + 1 < argc)
      store_at = i + 1;  // the last STORE wins, as in SORT itself
  }
  if (store_at) out.push_back(store_at);
  return out;
}

// The argument after the first `keyword` at or after argv[from], 0 when there is none. As Redis'
// keyword begin_search, the last argument is never taken for the keyword.
int after_keyword(std::span<const std::string_view> argv, int from, std::string_view keyword) {
  for (int i = from; i + 1 < static_cast<int>(argv.size()); ++i)
    if (base::iequals(argv[static_cast<std::size_t>(i)], keyword)) return i + 1;
  return 0;
}

// Redis 7.0 finds these keys by XREAD's key spec: the first STREAMS from argv[from], then the
// first half of what follows it (none when fewer than two arguments follow).
std::vector<int> stream_key_positions(std::span<const std::string_view> argv, int from) {
  std::vector<int> out;
  const int argc = static_cast<int>(argv.size());
  const int first = after_keyword(argv, from, "streams");
  if (first == 0) return out;
  const int last = first + (argc - first) / 2 - 1;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

// Redis 7.0: GEORADIUS' key specs, argv[1], then the key after the first STORE from argv[from],
// then the key after the first STOREDIST from there (so STOREDIST's key comes second).
std::vector<int> georadius_key_positions(std::span<const std::string_view> argv, int from) {
  std::vector<int> out{1};
  for (std::string_view keyword : {"store", "storedist"})
    if (const int at = after_keyword(argv, from, keyword)) out.push_back(at);
  return out;
}

}  // namespace

std::vector<int> CommandSpec::key_positions(std::span<const std::string_view> argv) const {
  std::vector<int> out;
  if (keys.not_key) return out;
  if (keys.sort_store) return argv.size() > 1 ? sort_key_positions(argv) : out;
  // Where Redis' keyword searches start: after XREADGROUP's GROUP group consumer, after
  // GEORADIUSBYMEMBER's member radius unit (one argument less than GEORADIUS' lon lat).
  if (keys.after_streams) return stream_key_positions(argv, name == "xreadgroup" ? 4 : 1);
  if (keys.georadius_store)
    return argv.size() > 1 ? georadius_key_positions(argv, name == "georadiusbymember" ? 5 : 6)
                           : out;
  const int argc = static_cast<int>(argv.size());
  int first = keys.first, last = keys.last, step = keys.step;
  if (keys.numkeys_at > 0) {
    if (keys.numkeys_at >= argc) return out;
    long long n = 0;
    if (!base::parse_strict_integer(argv[static_cast<std::size_t>(keys.numkeys_at)], n) || n <= 0 ||
        n > argc - keys.numkeys_at - 1)
      return out;
    if (keys.first > 0) out.push_back(keys.first);
    first = keys.numkeys_at + 1;
    last = first + static_cast<int>(n) - 1;
    step = 1;
  } else {
    if (first == 0 || step == 0) return out;
    if (last < 0) last = argc + last;
  }
  for (int i = first; i <= last && i < argc; i += step) out.push_back(i);
  return out;
}

CommandSpec& CommandTable::add(CommandSpec spec) {
  auto owned = std::make_unique<CommandSpec>(std::move(spec));
  owned->full_name = std::string(owned->name);
  CommandSpec& ref = *owned;
  ref.slot = by_slot_.size();
  by_slot_.push_back(&ref);
  ordered_.push_back(&ref);
  commands_.emplace(std::string(ref.name), std::move(owned));
  return ref;
}

CommandSpec& CommandTable::add_subcommand(CommandSpec& parent, CommandSpec sub) {
  auto owned = std::make_unique<CommandSpec>(std::move(sub));
  owned->parent = &parent;
  owned->full_name = std::string(parent.name) + "|" + std::string(owned->name);
  CommandSpec& ref = *owned;
  ref.slot = by_slot_.size();
  by_slot_.push_back(&ref);
  parent.subcommands.push_back(std::move(owned));
  return ref;
}

namespace {

CommandSpec family_spec(std::string_view group, std::string_view name, int arity,
                        std::uint32_t flags, KeySpec keys, Handler handler, std::string_view since,
                        std::string_view summary) {
  return {.name = name,
          .arity = arity,
          .flags = flags,
          .keys = keys,
          .handler = handler,
          .group = group,
          .since = since,
          .summary = summary};
}

}  // namespace

CommandSpec& CommandFamily::add(std::string_view name, int arity, std::uint32_t flags, KeySpec keys,
                                Handler handler, std::string_view since, std::string_view summary) {
  return table_.add(family_spec(group_, name, arity, flags, keys, handler, since, summary));
}

CommandSpec& CommandFamily::add_subcommand(CommandSpec& parent, std::string_view name, int arity,
                                           std::uint32_t flags, KeySpec keys, Handler handler,
                                           std::string_view since, std::string_view summary) {
  return table_.add_subcommand(
      parent, family_spec(group_, name, arity, flags, keys, handler, since, summary));
}

const CommandSpec* CommandTable::find(std::string_view name) const noexcept {
  char buf[64];
  if (name.size() > sizeof buf) return nullptr;
  auto it = commands_.find(base::to_lower(name, buf));
  return it == commands_.end() ? nullptr : it->second.get();
}

CommandTable CommandTable::with_all_commands() {
  CommandTable table;
  register_connection_commands(table);
  register_server_commands(table);
  register_client_commands(table);
  register_config_commands(table);
  register_slowlog_commands(table);
  register_latency_commands(table);
  register_queue_commands(table);
  register_introspection_commands(table);
  register_transaction_commands(table);
  register_keyspace_commands(table);
  register_sort_commands(table);
  register_expire_commands(table);
  register_dump_commands(table);
  register_migrate_command(table);
  register_cluster_commands(table);
  register_list_commands(table);
  register_blocking_commands(table);
  register_string_commands(table);
  register_bitmap_commands(table);
  register_hll_commands(table);
  register_hash_commands(table);
  register_set_commands(table);
  register_zset_commands(table);
  register_zset_algebra_commands(table);
  register_zset_random_commands(table);
  register_geo_commands(table);
  register_lolwut_commands(table);
  register_stream_commands(table);
  register_stream_read_commands(table);
  register_stream_group_commands(table);
  register_stream_pending_commands(table);
  register_stream_info_commands(table);
  register_persistence_commands(table);
  register_pubsub_commands(table);
  register_acl_commands(table);
  register_script_commands(table);
  register_function_commands(table);
  register_replication_commands(table);
  return table;
}

}  // namespace listd::server
