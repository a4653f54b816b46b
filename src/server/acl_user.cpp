// An ACL user: flags, passwords and selectors (Redis acl.c ACLSetUser, ACLDescribeUser,
// ACLCheckUserCredentials, ACLCheckAllUserCommandPerm).
#include <algorithm>

#include "listd/base/redis_text.h"
#include "listd/base/sha256.h"
#include "listd/server/acl_user.h"

namespace listd::server {
namespace {

// Redis ACLCheckPasswordHash: exactly 64 lowercase hex digits.
bool valid_hash(std::string_view h) {
  return h.size() == 64 && std::all_of(h.begin(), h.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Same time whatever the first difference is (Redis time_independent_strcmp).
bool equal_constant_time(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]);
  return diff == 0;
}

}  // namespace

std::string_view acl_rule_error_text(AclRuleError e) noexcept {
  switch (e) {
    case AclRuleError::kUnknownCommand: return "Unknown command or category name in ACL";
    case AclRuleError::kSyntax: return "Syntax error";
    case AclRuleError::kKeyAfterAllKeys:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
             "not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case AclRuleError::kChannelAfterAll:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
             "does not have any effect. Try 'resetchannels' to start with an empty list of "
             "channels";
    case AclRuleError::kNoSuchPassword:
      return "The password you are trying to remove from the user does not exist";
    case AclRuleError::kBadHash:
      return "The password hash must be exactly 64 characters and contain only lowercase "
             "hexadecimal characters";
    case AclRuleError::kSubcommandFirstArg:
      return "Allowing first-arg of a subcommand is not supported";
    case AclRuleError::kNone: break;
  }
  return "Wrong format";
}

AclUser::AclUser(const AclCatalog& catalog, std::string name, bool all_channels_default)
    : catalog_(&catalog), name_(std::move(name)), all_channels_default_(all_channels_default) {
  selectors_.emplace_back(catalog, true, all_channels_default);
}

AclRuleError AclUser::apply(std::string_view op) {
  const AclRuleError e = apply_rule(op);
  const AclSelector& root = selectors_.front();
  unrestricted_ = root.all_commands() && root.all_keys() && root.all_channels();
  return e;
}

AclRuleError AclUser::apply_rule(std::string_view op) {
  if (op.empty()) return AclRuleError::kNone;
  if (base::iequals(op, "on") || base::iequals(op, "off")) {
    enabled_ = base::iequals(op, "on");
  } else if (base::iequals(op, "skip-sanitize-payload") || base::iequals(op, "sanitize-payload")) {
    skip_sanitize_payload_ = base::iequals(op, "skip-sanitize-payload");
    sanitize_payload_ = !skip_sanitize_payload_;
  } else if (base::iequals(op, "nopass") || base::iequals(op, "resetpass")) {
    nopass_ = base::iequals(op, "nopass");
    passwords_.clear();
  } else if (op[0] == '>' || op[0] == '#') {
    std::string hash = op[0] == '>' ? base::sha256_hex(op.substr(1)) : std::string(op.substr(1));
    if (op[0] == '#' && !valid_hash(hash)) return AclRuleError::kBadHash;
    if (std::find(passwords_.begin(), passwords_.end(), hash) == passwords_.end())
      passwords_.push_back(std::move(hash));
    nopass_ = false;
  } else if (op[0] == '<' || op[0] == '!') {
    const std::string hash =
        op[0] == '<' ? base::sha256_hex(op.substr(1)) : std::string(op.substr(1));
    if (op[0] == '!' && !valid_hash(hash)) return AclRuleError::kBadHash;
    auto it = std::find(passwords_.begin(), passwords_.end(), hash);
    if (it == passwords_.end()) return AclRuleError::kNoSuchPassword;
    passwords_.erase(it);
  } else if (op[0] == '(' && op.back() == ')' && op.size() >= 2) {
    AclSelector selector(*catalog_, false, all_channels_default_);
    // Unbalanced quotes inside leave the selector empty, as 7.0's aclCreateSelectorFromOpSet
    // does (sdssplitargs fails with no arguments): it grants nothing.
    const auto rules = base::split_args(op.substr(1, op.size() - 2));
    if (rules)
      for (const auto& rule : *rules)
        if (AclRuleError e = selector.apply(rule); e != AclRuleError::kNone) return e;
    selectors_.push_back(std::move(selector));
  } else if (base::iequals(op, "clearselectors")) {
    selectors_.erase(selectors_.begin() + 1, selectors_.end());
  } else if (base::iequals(op, "reset")) {
    for (std::string_view rule : {"resetpass", "resetkeys", "resetchannels"}) apply(rule);
    if (all_channels_default_) apply("allchannels");
    for (std::string_view rule : {"off", "sanitize-payload", "clearselectors", "-@all"})
      apply(rule);
  } else {
    return selectors_.front().apply(op);
  }
  return AclRuleError::kNone;
}

std::vector<std::string_view> AclUser::flags() const {
  std::vector<std::string_view> out;
  out.push_back(enabled_ ? "on" : "off");
  if (nopass_) out.push_back("nopass");
  if (skip_sanitize_payload_) out.push_back("skip-sanitize-payload");
  if (sanitize_payload_) out.push_back("sanitize-payload");
  return out;
}

std::string AclUser::describe() const {
  std::string out;
  for (std::string_view f : flags()) out.append(f).push_back(' ');
  for (const auto& p : passwords_) out += '#' + p + ' ';
  for (const auto& s : selectors_) out += s.root() ? s.describe() : " (" + s.describe() + ")";
  return out;
}

bool AclUser::password_matches(std::string_view password) const {
  if (nopass_) return true;
  const std::string hash = base::sha256_hex(password);
  bool found = false;
  for (const auto& p : passwords_) found |= equal_constant_time(hash, p);
  return found;
}

AclDenial AclUser::check(const CommandSpec& spec, std::span<const std::string_view> argv,
                         std::size_t& denied_at) const {
  // Which denial to report: a command refused by every selector, else the key or channel
  // refused furthest along argv (Redis ACLCheckAllUserCommandPerm).
  AclDenial relevant = AclDenial::kCommand;
  std::size_t last_at = 0;
  for (const auto& s : selectors_) {
    std::size_t at = 0;
    const AclDenial d = s.check(spec, argv, at);
    if (d == AclDenial::kNone) return d;
    if (d > relevant || (d == relevant && at > last_at)) {
      relevant = d;
      last_at = at;
    }
  }
  denied_at = last_at;
  return relevant;
}

bool AclUser::runs_reading_every_key(const CommandSpec& spec,
                                     std::span<const std::string_view> argv) const {
  return std::any_of(selectors_.begin(), selectors_.end(), [&](const AclSelector& s) {
    std::size_t at = 0;
    return s.check(spec, argv, at) == AclDenial::kNone && s.reads_every_key();
  });
}

bool AclUser::allows_channel(std::string_view channel, bool is_pattern) const {
  return std::any_of(selectors_.begin(), selectors_.end(),
                     [&](const AclSelector& s) { return s.allows_channel(channel, is_pattern); });
}

}  // namespace listd::server
