// The command table: one CommandSpec per command (and per subcommand of container commands
// such as CLIENT or CONFIG). It drives dispatch, arity errors and the COMMAND introspection
// replies. Keys are found by the key finder (key_finder.h: GETKEYS, ACL, WATCH's and
// CLIENT TRACKING's touches), which falls back to a command's KeySpec when it has no reference
// row (listd's own commands).
//
// Each family registers its commands in one explicit function (register_<family>_commands),
// all called from CommandTable::with_all_commands(). Lookup is case-insensitive and does not
// allocate.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace listd::server {

class CommandContext;
using Handler = void (*)(CommandContext&);

/// Redis command flags (the ones COMMAND reports); combine with |.
enum CommandFlag : std::uint32_t {
  kWrite = 1u << 0,
  kReadonly = 1u << 1,
  kDenyOom = 1u << 2,
  kAdmin = 1u << 3,
  kPubsub = 1u << 4,
  kNoScript = 1u << 5,
  kBlocking = 1u << 6,
  kLoading = 1u << 7,
  kStale = 1u << 8,
  kSkipMonitor = 1u << 9,
  kSkipSlowlog = 1u << 10,
  kFast = 1u << 11,
  kNoAuth = 1u << 12,  ///< allowed before AUTH (AUTH, HELLO, QUIT, RESET)
  kMayReplicate = 1u << 13,
  kNoMulti = 1u << 14,
  kAllowBusy = 1u << 15,
  kSentinel = 1u << 16,
  /// Internal, not reported by COMMAND: runs at once inside MULTI instead of being queued.
  kNotQueued = 1u << 24,
  /// Internal: the handler emits its own effect (CommandContext::propagate_as) instead of the
  /// default, its argv (Dragonfly's NO_AUTOJOURNAL). See effect_stream.h.
  kOwnEffect = 1u << 25,
  /// Internal, as Redis' hidden TOUCHES_ARBITRARY_KEYS: the keys it expires on its way are not
  /// wrapped in MULTI/EXEC (SCAN, RANDOMKEY).
  kTouchesArbitraryKeys = 1u << 26,
  /// Internal: EXEC. A rejected EXEC answers EXECABORT and ends the transaction.
  kExecCommand = 1u << 27,
  /// Internal: refused with the writes while a failed BGSAVE stops writes (MISCONF): PING, as
  /// Redis' processCommand tests for pingCommand.
  kDeniedOnDiskError = 1u << 28,
  /// Internal: may run in RESP2 subscribed mode ((P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT,
  /// RESET), as Redis' processCommand lists them; Executor::rejection refuses the others.
  kAllowedWhenSubscribed = 1u << 29,
};

/// Where the keys are in argv, Redis' (first, last, step) convention; last < 0 counts from the
/// end. With `numkeys_at` > 0 the key count is read from that argument and keys follow it
/// (LMPOP, BLMPOP, ZMPOP: first = numkeys_at + 1); a `first` > 0 beside it is one more key
/// ahead of the counted ones (ZUNIONSTORE's destination).
struct KeySpec {
  int first = 0;
  int last = 0;
  int step = 0;
  int numkeys_at = 0;
  bool not_key = false;  ///< Redis' not_key flag (shard channels): reported, never a key
  /// Redis sortGetKeys: argv[1], then the key after the last STORE (SORT's movable key).
  bool sort_store = false;
  /// Redis 7.0 XREAD/XREADGROUP key spec: the first half of the arguments after STREAMS.
  bool after_streams = false;
  /// GEORADIUS(BYMEMBER) key specs: argv[1], the keys after STORE and STOREDIST.
  bool georadius_store = false;

  /// The key count at argv[at], the keys right after it.
  static constexpr KeySpec numkeys(int at) noexcept { return {0, 0, 0, at, false}; }
  /// A destination at argv[1], then the key count at argv[at] and the keys after it.
  static constexpr KeySpec destination_and_numkeys(int at) noexcept { return {1, 1, 1, at, false}; }
  /// SORT's keys: argv[1] and an optional STORE destination anywhere after it.
  static constexpr KeySpec sort_keys() noexcept { return {1, 1, 1, 0, false, true}; }
  /// XREAD's and XREADGROUP's stream keys, found after their STREAMS keyword.
  static constexpr KeySpec stream_keys() noexcept { return {0, 0, 0, 0, false, false, true}; }
  /// GEORADIUS(BYMEMBER)'s keys: argv[1] and an optional STORE/STOREDIST destination.
  static constexpr KeySpec georadius_keys() noexcept {
    return {1, 1, 1, 0, false, false, false, true};
  }
  /// Keys found by scanning the arguments (Redis' movablekeys commands with a getkeys_proc).
  constexpr bool scanned() const noexcept { return sort_store || after_streams || georadius_store; }
};

/// The key specs most commands have.
inline constexpr KeySpec kNoKeys{};
inline constexpr KeySpec kFirstKey{1, 1, 1};      ///< argv[1]
inline constexpr KeySpec kFirstTwoKeys{1, 2, 1};  ///< argv[1], argv[2] (source, destination)
inline constexpr KeySpec kAllKeys{1, -1, 1};      ///< every argument after the name

/// One command as registered. The registration fields come first; the rest is filled in by
/// CommandTable (every member has a default, so a braced `{name, arity, ...}` may stop early).
struct CommandSpec {
  std::string_view name{};  ///< lower case; for subcommands "container|sub" is derived
  int arity = 0;            ///< N exact, -N at least N (the name counts)
  std::uint32_t flags = 0;
  KeySpec keys{};
  Handler handler = nullptr;
  std::string_view group{};  ///< "list", "connection", ... (COMMAND DOCS / INFO)
  std::string_view since{};  ///< Redis version that introduced it
  std::string_view summary{};

  /// Container commands (CLIENT, CONFIG, ...) dispatch on argv[1] through this table.
  std::vector<std::unique_ptr<CommandSpec>> subcommands{};
  const CommandSpec* parent = nullptr;
  std::string full_name{};  ///< "lpush", or "client|setname" for a subcommand
  std::size_t slot = 0;     ///< dense index in its table (per-command counters in a vector)

  const CommandSpec* find_subcommand(std::string_view name) const noexcept;
  /// Whether `argc` arguments (the name included) satisfy the arity.
  bool arity_allows(std::size_t argc) const noexcept {
    const auto n = static_cast<long long>(argc);
    return arity >= 0 ? n == arity : n >= -arity;
  }
  /// Positions of the key arguments in argv by `keys` (empty if the arguments are malformed):
  /// the key finder's fallback for a command without a reference row; use find_command_keys.
  std::vector<int> key_positions(std::span<const std::string_view> argv) const;
};

class CommandTable;

/// One family's registration: every command added through it gets the family's group, so a
/// family file lists only what differs per command (CommandTable::family).
class CommandFamily {
 public:
  CommandFamily(CommandTable& table, std::string_view group) noexcept
      : table_(table), group_(group) {}

  /// Adds a command of this family; returns it so subcommands can be attached.
  CommandSpec& add(std::string_view name, int arity, std::uint32_t flags, KeySpec keys,
                   Handler handler, std::string_view since, std::string_view summary);
  /// Adds subcommand `name` of `parent` (CONTAINER|name), in this family's group.
  CommandSpec& add_subcommand(CommandSpec& parent, std::string_view name, int arity,
                              std::uint32_t flags, KeySpec keys, Handler handler,
                              std::string_view since, std::string_view summary);

 private:
  CommandTable& table_;
  std::string_view group_;
};

class CommandTable {
 public:
  /// A table holding every command listd implements.
  static CommandTable with_all_commands();

  /// The registration helper of one family: `table.family("hash").add("hget", ...)`.
  CommandFamily family(std::string_view group) noexcept { return CommandFamily(*this, group); }
  /// Adds a command; returns it so subcommands can be attached.
  CommandSpec& add(CommandSpec spec);
  /// Adds `sub` as a subcommand of `parent` (sub.name is the subcommand name only).
  CommandSpec& add_subcommand(CommandSpec& parent, CommandSpec sub);

  /// Case-insensitive lookup; null if unknown. Never allocates for names up to 64 bytes.
  const CommandSpec* find(std::string_view name) const noexcept;

  std::size_t size() const noexcept { return commands_.size(); }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& c : ordered_) f(*c);
  }
  /// Every command and subcommand, indexed by CommandSpec::slot.
  const std::vector<const CommandSpec*>& by_slot() const noexcept { return by_slot_; }

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, std::unique_ptr<CommandSpec>, NameHash, std::equal_to<>>
      commands_;
  std::vector<const CommandSpec*> ordered_;
  std::vector<const CommandSpec*> by_slot_;  // commands and subcommands, by CommandSpec::slot
};

/// Registration functions, one per command family (src/server/commands/*.cpp).
void register_connection_commands(CommandTable& table);
void register_server_commands(CommandTable& table);
void register_client_commands(CommandTable& table);
void register_config_commands(CommandTable& table);
void register_slowlog_commands(CommandTable& table);
void register_latency_commands(CommandTable& table);
void register_queue_commands(CommandTable& table);
void register_introspection_commands(CommandTable& table);
void register_transaction_commands(CommandTable& table);
void register_keyspace_commands(CommandTable& table);
void register_sort_commands(CommandTable& table);
void register_expire_commands(CommandTable& table);
void register_dump_commands(CommandTable& table);
void register_migrate_command(CommandTable& table);
void register_cluster_commands(CommandTable& table);
void register_list_commands(CommandTable& table);
void register_blocking_commands(CommandTable& table);
void register_string_commands(CommandTable& table);
void register_bitmap_commands(CommandTable& table);
void register_hll_commands(CommandTable& table);
void register_hash_commands(CommandTable& table);
void register_set_commands(CommandTable& table);
void register_zset_commands(CommandTable& table);
void register_zset_algebra_commands(CommandTable& table);
void register_zset_random_commands(CommandTable& table);
void register_geo_commands(CommandTable& table);
void register_lolwut_commands(CommandTable& table);
void register_stream_commands(CommandTable& table);
void register_stream_read_commands(CommandTable& table);
void register_stream_group_commands(CommandTable& table);
void register_stream_pending_commands(CommandTable& table);
void register_stream_info_commands(CommandTable& table);
void register_persistence_commands(CommandTable& table);
void register_pubsub_commands(CommandTable& table);
void register_script_commands(CommandTable& table);
void register_function_commands(CommandTable& table);
void register_replication_commands(CommandTable& table);
void register_acl_commands(CommandTable& table);

}  // namespace listd::server
