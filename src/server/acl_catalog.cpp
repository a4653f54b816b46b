// The commands ACL rules name (AclCatalog): listd's command table, plus the Redis 7.0.15
// commands it lacks, taken from the generated category rows (acl_command_categories.cpp), so
// `+cluster|info` or `-module` mean in listd what they mean in Redis (acl.c ACLLookupCommand,
// ACLSetSelectorCommandBitsForCategory).
#include <algorithm>

#include "listd/base/redis_text.h"
#include "listd/server/acl_user.h"
#include "listd/server/command_table.h"

namespace listd::server {
namespace {

// The table's own command or subcommand of that name (lower case), or null.
const CommandSpec* table_command(const CommandTable& table, std::string_view full_name) {
  const std::size_t bar = full_name.find('|');
  if (bar == std::string_view::npos) return table.find(full_name);
  const std::string_view sub = full_name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  const CommandSpec* cmd = table.find(full_name.substr(0, bar));
  return cmd ? cmd->find_subcommand(sub) : nullptr;
}

}  // namespace

AclCatalog::AclCatalog(const CommandTable& t)
    : table(t), by_slot(t.by_slot()), info(acl_command_info(t)), children(t.by_slot().size()) {
  t.for_each([&](const CommandSpec& cmd) {
    top_level.push_back(&cmd);
    for (const auto& sub : cmd.subcommands) children[cmd.slot].push_back(sub.get());
  });
  // The rows are sorted by name, so a container comes before its subcommands.
  for (std::size_t i = 0; i < kAclCommandCategoryCount; ++i)
    if (!table_command(t, kAclCommandCategoryTable[i].name))
      add_absent(kAclCommandCategoryTable[i]);
}

AclCatalog::~AclCatalog() = default;

void AclCatalog::add_absent(const AclCommandCategories& row) {
  auto spec = std::make_unique<CommandSpec>();
  const std::size_t bar = row.name.find('|');
  spec->name = bar == std::string_view::npos ? row.name : row.name.substr(bar + 1);
  spec->full_name = std::string(row.name);
  spec->slot = by_slot.size();
  if (bar != std::string_view::npos) {
    spec->parent = lookup(row.name.substr(0, bar));
    if (!spec->parent) return;  // a subcommand row without its container: not in Redis' table
    children[spec->parent->slot].push_back(spec.get());
  } else {
    top_level.push_back(spec.get());
  }
  by_slot.push_back(spec.get());
  info.push_back({row.categories});
  children.emplace_back();
  absent_.push_back(std::move(spec));
}

void AclCatalog::for_each(const std::function<void(const CommandSpec&)>& f) const {
  for (const CommandSpec* cmd : top_level) {
    f(*cmd);
    for (const CommandSpec* sub : children[cmd->slot]) f(*sub);
  }
}

const CommandSpec* AclCatalog::lookup(std::string_view full_name) const {
  const std::size_t bar = full_name.find('|');
  const std::string_view base = full_name.substr(0, bar);
  if (bar != std::string_view::npos && full_name.find('|', bar + 1) != std::string_view::npos)
    return nullptr;
  const auto named = [](std::string_view name) {
    return [name](const CommandSpec* c) { return base::iequals(c->name, name); };
  };
  const CommandSpec* cmd = table.find(base);
  if (!cmd) {
    const auto it = std::find_if(top_level.begin(), top_level.end(), named(base));
    if (it == top_level.end()) return nullptr;
    cmd = *it;
  }
  if (bar == std::string_view::npos) return cmd;
  const auto& subs = children[cmd->slot];
  const auto it = std::find_if(subs.begin(), subs.end(), named(full_name.substr(bar + 1)));
  return it == subs.end() ? nullptr : *it;
}

}  // namespace listd::server
