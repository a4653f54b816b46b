#include "listd/server/acl_categories.h"

#include <algorithm>

#include "listd/base/redis_text.h"
#include "listd/server/command_table.h"

namespace listd::server {

namespace {

constexpr AclCategoryName kNames[] = {
    {"keyspace", kAclKeyspace},
    {"read", kAclRead},
    {"write", kAclWrite},
    {"set", kAclSet},
    {"sortedset", kAclSortedSet},
    {"list", kAclList},
    {"hash", kAclHash},
    {"string", kAclString},
    {"bitmap", kAclBitmap},
    {"hyperloglog", kAclHyperLogLog},
    {"geo", kAclGeo},
    {"stream", kAclStream},
    {"pubsub", kAclPubsub},
    {"admin", kAclAdmin},
    {"fast", kAclFast},
    {"slow", kAclSlow},
    {"blocking", kAclBlocking},
    {"dangerous", kAclDangerous},
    {"connection", kAclConnection},
    {"transaction", kAclTransaction},
    {"scripting", kAclScripting},
};

}  // namespace

std::span<const AclCategoryName> acl_category_names() noexcept { return kNames; }

std::uint32_t acl_category_flag(std::string_view name) noexcept {
  for (const auto& c : kNames)
    if (base::iequals(c.name, name)) return c.flag;
  return 0;
}

std::uint32_t acl_implicit_categories(std::uint32_t flags) noexcept {
  std::uint32_t cats = 0;
  if (flags & kWrite) cats |= kAclWrite;
  if (flags & kReadonly) cats |= kAclRead;
  if (flags & kAdmin) cats |= kAclAdmin | kAclDangerous;
  if (flags & kPubsub) cats |= kAclPubsub;
  if (flags & kFast) cats |= kAclFast;
  if (flags & kBlocking) cats |= kAclBlocking;
  if (!(cats & kAclFast)) cats |= kAclSlow;
  return cats;
}

const AclCommandCategories* acl_command_row(std::string_view full_name) noexcept {
  const AclCommandCategories* begin = kAclCommandCategoryTable;
  const AclCommandCategories* end = begin + kAclCommandCategoryCount;
  const auto* it = std::lower_bound(
      begin, end, full_name, [](const auto& row, std::string_view n) { return row.name < n; });
  return it != end && it->name == full_name ? it : nullptr;
}

std::vector<AclCommandInfo> acl_command_info(const CommandTable& table) {
  std::vector<AclCommandInfo> info(table.by_slot().size());
  for (const CommandSpec* spec : table.by_slot()) {
    if (const AclCommandCategories* row = acl_command_row(spec->full_name))
      info[spec->slot] = {row->categories};
    else
      info[spec->slot] = {acl_implicit_categories(spec->flags)};
  }
  return info;
}

}  // namespace listd::server
