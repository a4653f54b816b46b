#include "listd/config/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "listd/base/glob.h"
#include "listd/base/redis_text.h"
#include "option_table.h"

namespace listd::config {
namespace {

using detail::get_option;
using detail::lookup;
using detail::Lookup;
using detail::OptionSpec;
using detail::rewrite_option;
using detail::set_option;
using detail::table;

// CONFIG SET splits multi-word values on single spaces (Redis sdssplitlen): "a  b" has an
// empty middle word and "" has no words at all.
std::vector<std::string> split_on_spaces(std::string_view value) {
  std::vector<std::string> words;
  if (value.empty()) return words;
  std::size_t start = 0;
  while (true) {
    const std::size_t sp = value.find(' ', start);
    if (sp == std::string_view::npos) {
      words.emplace_back(value.substr(start));
      return words;
    }
    words.emplace_back(value.substr(start, sp - start));
    start = sp + 1;
  }
}

std::string set_failed(std::string_view name, std::string_view why) {
  return fmt::format("ERR CONFIG SET failed (possibly related to argument '{}') - {}", name, why);
}

bool has_glob_chars(std::string_view s) { return s.find_first_of("[*?") != std::string_view::npos; }

}  // namespace

Config::Config() {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  settings_.dir = ec ? std::string(".") : cwd.string();
}

std::span<const OptionInfo> Config::options() noexcept {
  static const std::vector<OptionInfo> kInfos = [] {
    std::vector<OptionInfo> infos;
    for (const OptionSpec& spec : table()) infos.push_back(spec.info);
    return infos;
  }();
  return kInfos;
}

const OptionInfo* Config::find_option(std::string_view name) noexcept {
  const Lookup found = lookup(name);
  if (found.spec == nullptr) return nullptr;
  return &options()[static_cast<std::size_t>(found.spec - table().data())];
}

Config::NameValueList Config::get(std::string_view pattern) const {
  return get(std::span<const std::string_view>(&pattern, 1));
}

Config::NameValueList Config::get(std::span<const std::string_view> patterns) const {
  const std::vector<OptionSpec>& specs = table();
  // One slot per (option, primary-or-alias) name, so an option is reported once per name.
  std::vector<bool> taken(specs.size() * 2, false);
  NameValueList out;
  for (std::string_view pattern : patterns) {
    if (!has_glob_chars(pattern)) {
      const Lookup found = lookup(pattern);
      if (found.spec == nullptr) continue;
      const std::size_t slot = static_cast<std::size_t>(found.spec - specs.data()) * 2 +
                               (found.entry_name == found.spec->info.name ? 0 : 1);
      if (taken[slot]) continue;
      taken[slot] = true;
      out.emplace_back(std::string(pattern), get_option(*found.spec, settings_));
      continue;
    }
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const OptionInfo& info = specs[i].info;
      if (info.flags & kOptionHidden) continue;  // Redis HIDDEN_CONFIG: exact names only
      const std::string_view names[2] = {info.name, info.alias};
      for (std::size_t k = 0; k < 2; ++k) {
        if (names[k].empty() || taken[i * 2 + k]) continue;
        if (!base::glob_match(pattern, names[k], true)) continue;
        taken[i * 2 + k] = true;
        out.emplace_back(std::string(names[k]), get_option(specs[i], settings_));
      }
    }
  }
  return out;
}

std::optional<std::string> Config::value(std::string_view name) const {
  const Lookup found = lookup(name);
  if (found.spec == nullptr) return std::nullopt;
  return get_option(*found.spec, settings_);
}

std::optional<std::string> Config::set(std::string_view name, std::string_view value,
                                       bool client_is_local) {
  const NameValue pair{name, value};
  return set_many(std::span<const NameValue>(&pair, 1), client_is_local);
}

std::optional<std::string> Config::set_many(std::span<const NameValue> pairs,
                                            bool client_is_local) {
  const bool protected_allowed =
      settings_.enable_protected_configs == ProtectedAction::kYes ||
      (settings_.enable_protected_configs == ProtectedAction::kLocal && client_is_local);

  // Pass 1, as Redis: the first unknown, immutable, protected or repeated name fails the batch.
  std::vector<Lookup> found(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string_view name = pairs[i].first;
    found[i] = lookup(name);
    const OptionSpec* spec = found[i].spec;
    if (spec == nullptr) {
      return fmt::format("ERR Unknown option or number of arguments for CONFIG SET - '{}'", name);
    }
    if (spec->info.flags & kOptionImmutable) return set_failed(name, "can't set immutable config");
    if ((spec->info.flags & kOptionProtected) && !protected_allowed) {
      return set_failed(name, "can't set protected config");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (found[j].spec == spec) return set_failed(name, "duplicate parameter");
    }
  }

  // Pass 2: set everything on a copy; any failure leaves the live settings untouched.
  ServerSettings next = settings_;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const OptionSpec& spec = *found[i].spec;
    std::vector<std::string> args;
    if (spec.info.flags & kOptionMultiArg) {
      args = split_on_spaces(pairs[i].second);
    } else {
      args.emplace_back(pairs[i].second);
    }
    std::string err;
    if (!set_option(spec, next, args, /*from_file=*/false, err)) {
      return set_failed(found[i].entry_name, err);
    }
  }

  std::vector<std::string_view> changed;
  for (const Lookup& f : found) {
    const std::string_view name = f.spec->info.name;
    if (std::find(changed.begin(), changed.end(), name) != changed.end()) continue;
    if (get_option(*f.spec, settings_) != get_option(*f.spec, next)) changed.push_back(name);
  }
  for (const ApplyHook& hook : apply_hooks_) {
    if (std::optional<ApplyFailure> failed = hook(next, changed)) {
      return set_failed(failed->option, failed->message);
    }
  }
  settings_ = std::move(next);
  for (std::string_view name : changed) {
    for (const ChangeObserver& observer : observers_) observer(name);
  }
  return std::nullopt;
}

std::optional<std::string> Config::apply_directive(std::span<const std::string> argv) {
  if (argv.empty()) return std::nullopt;
  const std::string name = base::to_lower(argv[0]);
  if (name == "user" && argv.size() >= 2) {  // ACL users, loaded by the executor
    settings_.acl_user_lines.emplace_back(argv.begin() + 1, argv.end());
    return std::nullopt;
  }
  const Lookup found = lookup(name);
  if (found.spec == nullptr) {
    // Redis 7 still accepts, and ignores, these retired list settings.
    if ((name == "list-max-ziplist-entries" || name == "list-max-ziplist-value") &&
        argv.size() == 2) {
      return std::nullopt;
    }
    return std::string("Bad directive or wrong number of arguments");
  }
  const OptionSpec& spec = *found.spec;
  const bool multi_arg = (spec.info.flags & kOptionMultiArg) != 0;
  if (!multi_arg && argv.size() != 2) return std::string("wrong number of arguments");

  std::vector<std::string> args;
  if (multi_arg && argv.size() == 2 && !argv[1].empty()) {
    // Redis 7.0.1+: `--save "900 1 300 10"` arrives as one quoted word; split it again.
    std::optional<std::vector<std::string>> words = base::split_args(argv[1]);
    if (!words) return std::string("Unbalanced quotes in configuration line");
    args = std::move(*words);
  } else {
    args.assign(argv.begin() + 1, argv.end());
  }
  std::string err;
  if (!set_option(spec, settings_, args, /*from_file=*/true, err)) return err;
  return std::nullopt;
}

void Config::on_change(ChangeObserver observer) { observers_.push_back(std::move(observer)); }

void Config::on_apply(ApplyHook hook) { apply_hooks_.push_back(std::move(hook)); }

std::vector<RewriteEntry> Config::rewrite_entries() const {
  std::vector<RewriteEntry> entries;
  for (const OptionSpec& spec : table()) entries.push_back(rewrite_option(spec, settings_));
  return entries;
}

}  // namespace listd::config
