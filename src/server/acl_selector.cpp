// One ACL selector: its rules (Redis acl.c ACLSetSelector), its description and its checks.
#include <algorithm>
#include <cctype>
#include <climits>

#include "listd/base/glob.h"
#include "listd/base/redis_text.h"
#include "listd/server/acl_user.h"
#include "listd/server/command_reference.h"
#include "listd/server/command_table.h"
#include "listd/server/key_finder.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// Redis ACLStringHasSpaces: patterns may hold neither whitespace nor NUL.
void append_pattern(std::string& out, const AclKeyPattern& p) {
  if (p.access == (kAclKeyRead | kAclKeyWrite))
    out += '~';
  else if (p.access == kAclKeyRead)
    out += "%R~";
  else
    out += "%W~";
  out += p.pattern;
}

// The permissions a key found with these key-spec flags needs (Redis ACLSelectorCheckKey):
// ACCESS reads it; INSERT, DELETE and UPDATE write it. RO / RW / OW / RM alone need neither.
std::uint8_t key_permission(std::uint16_t key_spec_flags) {
  std::uint8_t needed = 0;
  if (key_spec_flags & kKeySpecAccess) needed |= kAclKeyRead;
  if (key_spec_flags & (kKeySpecInsert | kKeySpecDelete | kKeySpecUpdate)) needed |= kAclKeyWrite;
  return needed;
}

// The channels `argv` names for Redis' channel checks (publish and subscribe, not unsubscribe):
// from `first` on (or just argv[1]), as patterns for PSUBSCRIBE.
struct ChannelArgs {
  std::size_t first = 0;
  std::size_t last = 0;
  bool patterns = false;
};
ChannelArgs channel_args(const CommandSpec& spec, std::size_t argc) {
  const std::string_view n = spec.full_name;
  if (n == "publish" || n == "spublish") return {1, 2, false};
  if (n == "subscribe" || n == "ssubscribe") return {1, argc, false};
  if (n == "psubscribe") return {1, argc, true};
  return {};
}

}  // namespace

AclSelector::AclSelector(const AclCatalog& catalog, bool root, bool all_channels)
    : catalog_(&catalog),
      root_(root),
      all_channels_(all_channels),
      allowed_(catalog.by_slot.size() + 1, false),
      first_args_(catalog.by_slot.size()) {}

void AclSelector::set_bit(std::size_t slot, bool on) {
  allowed_[slot] = on;
  if (!on) all_commands_ = false;
}

// A container's rule covers its subcommands (Redis ACLChangeSelectorPerm).
void AclSelector::change_command(const CommandSpec& cmd, bool allow) {
  set_bit(cmd.slot, allow);
  first_args_[cmd.slot].clear();
  for (const CommandSpec* sub : catalog_->children[cmd.slot]) set_bit(sub->slot, allow);
}

void AclSelector::change_category(std::uint32_t category, bool allow) {
  catalog_->for_each([&](const CommandSpec& cmd) {
    if (catalog_->info[cmd.slot].categories & category) change_command(cmd, allow);
  });
}

void AclSelector::add_first_arg(std::size_t slot, std::string_view arg) {
  auto& args = first_args_[slot];
  for (const auto& a : args)
    if (base::iequals(a, arg)) return;
  args.emplace_back(arg);
}

AclRuleError AclSelector::apply_key_pattern(std::string_view op) {
  if (all_keys_) return AclRuleError::kKeyAfterAllKeys;
  std::uint8_t access = 0;
  std::size_t offset = 1;
  if (op[0] == '%') {
    for (; offset < op.size(); ++offset) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(op[offset])));
      if (c == 'R' && !(access & kAclKeyRead)) {
        access |= kAclKeyRead;
      } else if (c == 'W' && !(access & kAclKeyWrite)) {
        access |= kAclKeyWrite;
      } else if (op[offset] == '~') {
        ++offset;
        break;
      } else {
        return AclRuleError::kSyntax;
      }
    }
    if (access == 0) return AclRuleError::kSyntax;  // "%~x": 7.0.15 refuses it
  } else {
    access = kAclKeyRead | kAclKeyWrite;
  }
  const std::string_view pattern = op.substr(offset);
  if (has_space_or_nul(pattern)) return AclRuleError::kSyntax;
  auto it = std::find_if(patterns_.begin(), patterns_.end(),
                         [&](const AclKeyPattern& p) { return p.pattern == pattern; });
  if (it == patterns_.end())
    patterns_.push_back({std::string(pattern), access});
  else
    it->access |= access;
  return AclRuleError::kNone;
}

// +cmd, +container|sub, or +cmd|first-arg for a command without subcommands.
AclRuleError AclSelector::apply_allow(std::string_view name) {
  const std::size_t bar = name.rfind('|');
  if (bar == std::string_view::npos) {
    const CommandSpec* cmd = catalog_->lookup(name);
    if (!cmd) return AclRuleError::kUnknownCommand;
    change_command(*cmd, true);
    return AclRuleError::kNone;
  }
  const CommandSpec* cmd = catalog_->lookup(name.substr(0, bar));
  if (!cmd) return AclRuleError::kUnknownCommand;
  if (cmd->parent) return AclRuleError::kSubcommandFirstArg;
  const std::string_view sub = name.substr(bar + 1);
  if (sub.empty()) return AclRuleError::kSyntax;
  if (!catalog_->children[cmd->slot].empty()) {
    const CommandSpec* subcmd = catalog_->lookup(name);
    if (!subcmd) return AclRuleError::kUnknownCommand;
    change_command(*subcmd, true);
  } else {
    add_first_arg(cmd->slot, sub);
  }
  return AclRuleError::kNone;
}

AclRuleError AclSelector::apply(std::string_view op) {
  if (base::iequals(op, "allkeys") || op == "~*") {
    all_keys_ = true;
    patterns_.clear();
  } else if (base::iequals(op, "resetkeys")) {
    all_keys_ = false;
    patterns_.clear();
  } else if (base::iequals(op, "allchannels") || op == "&*") {
    all_channels_ = true;
    channels_.clear();
  } else if (base::iequals(op, "resetchannels")) {
    all_channels_ = false;
    channels_.clear();
  } else if (base::iequals(op, "allcommands") || base::iequals(op, "+@all")) {
    std::fill(allowed_.begin(), allowed_.end(), true);
    all_commands_ = true;
    for (auto& args : first_args_) args.clear();
  } else if (base::iequals(op, "nocommands") || base::iequals(op, "-@all")) {
    std::fill(allowed_.begin(), allowed_.end(), false);
    all_commands_ = false;
    for (auto& args : first_args_) args.clear();
  } else if (op[0] == '~' || op[0] == '%') {
    return apply_key_pattern(op);
  } else if (op[0] == '&') {
    if (all_channels_) return AclRuleError::kChannelAfterAll;
    const std::string_view pattern = op.substr(1);
    if (has_space_or_nul(pattern)) return AclRuleError::kSyntax;
    if (std::find(channels_.begin(), channels_.end(), pattern) == channels_.end())
      channels_.emplace_back(pattern);
  } else if ((op[0] == '+' || op[0] == '-') && op.size() > 1 && op[1] == '@') {
    const std::uint32_t category = acl_category_flag(op.substr(2));
    if (!category) return AclRuleError::kUnknownCommand;
    change_category(category, op[0] == '+');
  } else if (op[0] == '+') {
    return apply_allow(op.substr(1));
  } else if (op[0] == '-') {
    const CommandSpec* cmd = catalog_->lookup(op.substr(1));
    if (!cmd) return AclRuleError::kUnknownCommand;
    change_command(*cmd, false);
  } else {
    return AclRuleError::kSyntax;
  }
  return AclRuleError::kNone;
}

void AclSelector::count_category(std::uint32_t category, std::size_t& on, std::size_t& off) const {
  on = off = 0;
  for (const CommandSpec* spec : catalog_->by_slot)
    if (catalog_->info[spec->slot].categories & category) ++(bit(spec->slot) ? on : off);
}

// The commands the categories did not account for, in catalog order (Redis walks its command
// dict, whose order is its hash's), then the allowed first arguments.
void AclSelector::describe_single_commands(AclSelector& fake, std::string& rules) const {
  catalog_->for_each([&](const CommandSpec& cmd) {
    const bool user_bit = bit(cmd.slot);
    if (user_bit != fake.bit(cmd.slot)) {
      rules += user_bit ? '+' : '-';
      rules += cmd.full_name;
      rules += ' ';
      fake.change_command(cmd, user_bit);
    }
    if (!user_bit)
      for (const auto& arg : first_args_[cmd.slot]) rules += '+' + cmd.full_name + '|' + arg + ' ';
  });
}

// Redis' best fit: from +@all or -@all, apply the category that agrees with the user's bits
// on more commands than it disagrees, fewest disagreements first, then single commands.
std::string AclSelector::describe_commands() const {
  const bool additive = !future_bit();
  std::string rules = additive ? "-@all " : "+@all ";
  AclSelector fake(*catalog_, false, false);
  fake.apply(additive ? "-@all" : "+@all");
  AclSelector temp = *this;
  const auto names = acl_category_names();
  std::vector<bool> applied(names.size(), false);
  for (;;) {
    int best = -1;
    std::size_t min_diff = INT_MAX, max_same = 0;
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (applied[j]) continue;
      std::size_t on = 0, off = 0;
      temp.count_category(names[j].flag, on, off);
      const std::size_t diff = additive ? off : on, same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = static_cast<int>(j);
        min_diff = diff;
        max_same = same;
      }
    }
    if (best < 0) break;
    const std::uint32_t flag = names[static_cast<std::size_t>(best)].flag;
    fake.change_category(flag, additive);
    temp.change_category(flag, !additive);
    rules += additive ? "+@" : "-@";
    rules += names[static_cast<std::size_t>(best)].name;
    rules += ' ';
    applied[static_cast<std::size_t>(best)] = true;
  }
  describe_single_commands(fake, rules);
  rules.pop_back();
  return rules;
}

std::string AclSelector::describe_keys() const {
  if (all_keys_) return "~*";
  std::string out;
  for (const auto& p : patterns_) {
    if (!out.empty()) out += ' ';
    append_pattern(out, p);
  }
  return out;
}

std::string AclSelector::describe_channels() const {
  if (all_channels_) return "&*";
  std::string out;
  for (const auto& c : channels_) {
    if (!out.empty()) out += ' ';
    out += '&' + c;
  }
  return out;
}

std::string AclSelector::describe() const {
  std::string out;
  if (all_keys_) {
    out += "~* ";
  } else {
    for (const auto& p : patterns_) {
      append_pattern(out, p);
      out += ' ';
    }
  }
  if (all_channels_) {
    out += "&* ";
  } else {
    out += "resetchannels ";
    for (const auto& c : channels_) out += '&' + c + ' ';
  }
  return out + describe_commands();
}

AclDenial AclSelector::check(const CommandSpec& spec, std::span<const std::string_view> argv,
                             std::size_t& denied_at) const {
  if (!all_commands_ && !(spec.flags & kNoAuth) && !bit(spec.slot)) {
    // A denied command may still run with one of its allowed first arguments (+select|0).
    const auto& args = first_args_[spec.slot];
    const std::size_t at = spec.parent ? 2 : 1;
    if (argv.size() <= at || std::none_of(args.begin(), args.end(), [&](const std::string& a) {
          return base::iequals(a, argv[at]);
        }))
      return AclDenial::kCommand;
  }
  if (!all_keys_ && command_has_keys(spec)) {
    for (const KeyReference& key : find_command_keys(spec, argv)) {
      const auto at = static_cast<std::size_t>(key.pos);
      if (!allows_key(argv[at], key_permission(key.flags))) {
        denied_at = at;
        return AclDenial::kKey;
      }
    }
  }
  if (!all_channels_) {
    const ChannelArgs ch = channel_args(spec, argv.size());
    for (std::size_t at = ch.first; at < ch.last && at < argv.size(); ++at) {
      if (!allows_channel(argv[at], ch.patterns)) {
        denied_at = at;
        return AclDenial::kChannel;
      }
    }
  }
  return AclDenial::kNone;
}

bool AclSelector::reads_every_key() const noexcept {
  return all_keys_ || std::any_of(patterns_.begin(), patterns_.end(), [](const AclKeyPattern& p) {
           return (p.access & kAclKeyRead) && p.pattern == "*";
         });
}

bool AclSelector::allows_key(std::string_view key, std::uint8_t access) const {
  if (all_keys_) return true;
  for (const auto& p : patterns_)
    if ((p.access & access) == access && base::glob_match(p.pattern, key)) return true;
  return false;
}

// A PSUBSCRIBE pattern must equal an allowed pattern; a channel is matched against them.
bool AclSelector::allows_channel(std::string_view channel, bool is_pattern) const {
  if (all_channels_) return true;
  for (const auto& p : channels_)
    if (is_pattern ? p == channel : base::glob_match(p, channel)) return true;
  return false;
}

}  // namespace listd::server
