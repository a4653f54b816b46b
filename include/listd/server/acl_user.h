// ACL users (Redis 7.0 acl.c): a user's flags and password hashes, and its selectors: the root
// selector (the rules outside parentheses) and any added with `(...)`. A selector holds one
// command bit per command-table slot (plus Redis' "future commands" bit, set only by +@all),
// the first arguments allowed for a denied command (+select|0), key patterns with their read /
// write permission, and channel patterns. AclUser::apply takes one rule as ACL SETUSER does;
// describe() prints the user back as ACL LIST does.
// Invariants: a user always has its root selector first; password hashes are 64 lowercase hex
// digits, unique, in the order added.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/server/acl_categories.h"

namespace listd::server {

class CommandTable;
struct CommandSpec;

/// What the rules are applied against: listd's commands, and the Redis 7.0.15 commands listd
/// lacks (CLUSTER, MODULE, CLIENT CACHING, ...) as entries without a handler, so that rules
/// naming them are accepted and the best-fit categories of ACL LIST count them as Redis does.
/// Those entries never run: the executor finds only the table's commands.
struct AclCatalog {
  const CommandTable& table;
  std::vector<const CommandSpec*> by_slot;    ///< the table's slots, then the absent commands
  std::vector<AclCommandInfo> info;           ///< by slot
  std::vector<const CommandSpec*> top_level;  ///< the table's commands, then the absent ones
  /// By slot: a container's subcommands, the table's then the absent ones.
  std::vector<std::vector<const CommandSpec*>> children;

  explicit AclCatalog(const CommandTable& t);
  AclCatalog(const AclCatalog&) = delete;  // by_slot points into absent_
  AclCatalog& operator=(const AclCatalog&) = delete;
  ~AclCatalog();
  /// A command by its full name ("get", "config|get"; case-insensitive), Redis
  /// ACLLookupCommand: null if unknown or if it names a subcommand the command lacks.
  const CommandSpec* lookup(std::string_view full_name) const;
  /// Calls f on every command, each container before its subcommands.
  void for_each(const std::function<void(const CommandSpec&)>& f) const;

 private:
  void add_absent(const AclCommandCategories& row);

  std::vector<std::unique_ptr<CommandSpec>> absent_;
};

/// Why a rule was refused (Redis' errno values in ACLSetUser).
enum class AclRuleError : std::uint8_t {
  kNone,
  kUnknownCommand,      ///< ENOENT
  kSyntax,              ///< EINVAL
  kKeyAfterAllKeys,     ///< EEXIST
  kChannelAfterAll,     ///< EISDIR
  kNoSuchPassword,      ///< ENODEV
  kBadHash,             ///< EBADMSG
  kSubcommandFirstArg,  ///< ECHILD
};
/// Redis' text for `e` (ACLSetUserStringError).
std::string_view acl_rule_error_text(AclRuleError e) noexcept;

/// Why a command is refused (Redis ACL_DENIED_*), in Redis' order of relevance.
enum class AclDenial : std::uint8_t { kNone, kCommand, kKey, kChannel };

struct AclKeyPattern {
  std::string pattern;
  std::uint8_t access;  ///< AclKeyAccess bits
};

class AclSelector {
 public:
  AclSelector(const AclCatalog& catalog, bool root, bool all_channels);

  AclRuleError apply(std::string_view op);
  /// Redis ACLDescribeSelector: "~* &* +@all", patterns, channels, then the command rules.
  std::string describe() const;
  /// The command rules alone, "+@all -debug" (Redis ACLDescribeSelectorCommandRules).
  std::string describe_commands() const;
  std::string describe_keys() const;      ///< GETUSER's "keys" field
  std::string describe_channels() const;  ///< GETUSER's "channels" field

  /// Whether this selector lets `argv` run; `denied_at` gets the argv index of the refused key
  /// or channel.
  AclDenial check(const CommandSpec& spec, std::span<const std::string_view> argv,
                  std::size_t& denied_at) const;
  bool allows_key(std::string_view key, std::uint8_t access) const;
  bool allows_channel(std::string_view channel, bool is_pattern) const;
  /// Every key is readable: allkeys, or a `*` pattern with read access (Redis
  /// ACLSelectorHasUnrestrictedKeyAccess for CMD_KEY_ACCESS).
  bool reads_every_key() const noexcept;
  bool all_keys() const noexcept { return all_keys_; }
  bool all_channels() const noexcept { return all_channels_; }
  bool all_commands() const noexcept { return all_commands_; }
  bool root() const noexcept { return root_; }
  const std::vector<std::string>& channels() const noexcept { return channels_; }

 private:
  bool bit(std::size_t slot) const { return allowed_[slot]; }
  void set_bit(std::size_t slot, bool on);
  void change_command(const CommandSpec& cmd, bool allow);
  void change_category(std::uint32_t category, bool allow);
  AclRuleError apply_key_pattern(std::string_view op);
  AclRuleError apply_allow(std::string_view name);
  void add_first_arg(std::size_t slot, std::string_view arg);
  void count_category(std::uint32_t category, std::size_t& on, std::size_t& off) const;
  void describe_single_commands(AclSelector& fake, std::string& rules) const;
  bool future_bit() const { return allowed_.back(); }

  const AclCatalog* catalog_;
  bool root_;
  bool all_keys_ = false;
  bool all_channels_;
  bool all_commands_ = false;
  std::vector<bool> allowed_;  ///< by slot; the last bit is Redis' "future commands" bit
  std::vector<std::vector<std::string>> first_args_;  ///< by slot; empty for most
  std::vector<AclKeyPattern> patterns_;
  std::vector<std::string> channels_;
};

class AclUser {
 public:
  AclUser(const AclCatalog& catalog, std::string name, bool all_channels_default);

  /// One ACL SETUSER rule (selectors as one "(...)" argument).
  AclRuleError apply(std::string_view op);
  /// "on nopass ~* &* +@all" (ACL LIST without "user <name> ").
  std::string describe() const;
  /// Constant-time comparison against every password hash; nopass accepts any.
  bool password_matches(std::string_view password) const;
  /// The first denial of `argv` over all selectors, Redis ACLCheckAllUserCommandPerm.
  AclDenial check(const CommandSpec& spec, std::span<const std::string_view> argv,
                  std::size_t& denied_at) const;
  bool allows_channel(std::string_view channel, bool is_pattern) const;
  /// Redis ACLUserCheckCmdWithUnrestrictedKeyAccess: one selector both lets `argv` run and
  /// reads every key (SORT's BY and GET patterns name keys no ACL rule can check).
  bool runs_reading_every_key(const CommandSpec& spec,
                              std::span<const std::string_view> argv) const;

  const std::string& name() const noexcept { return name_; }
  bool enabled() const noexcept { return enabled_; }
  bool nopass() const noexcept { return nopass_; }
  /// The flags in GETUSER order ("on", "nopass", ...).
  std::vector<std::string_view> flags() const;
  const std::vector<std::string>& passwords() const noexcept { return passwords_; }
  const std::vector<AclSelector>& selectors() const noexcept { return selectors_; }
  /// True for a user that may run anything (one selector with all commands, keys, channels):
  /// the executor skips the check for it.
  bool unrestricted() const noexcept { return unrestricted_; }

 private:
  AclRuleError apply_rule(std::string_view op);

  const AclCatalog* catalog_;
  std::string name_;
  bool enabled_ = false;
  bool nopass_ = false;
  bool sanitize_payload_ = false;
  bool skip_sanitize_payload_ = false;
  bool all_channels_default_;
  std::vector<std::string> passwords_;
  std::vector<AclSelector> selectors_;
  bool unrestricted_ = false;  // cached after every rule: the executor reads it per command
};

}  // namespace listd::server
