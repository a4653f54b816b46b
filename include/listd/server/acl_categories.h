// ACL command categories (Redis 7.0 acl.c ACLCommandCategories): the category bits, their names
// in ACL CAT order, and each command's categories. The per-command rows are
// generated from redis-server 7.0.15 (src/server/acl_command_categories.cpp,
// scripts/gen_acl_categories.py); a command without a row gets the categories Redis derives
// from its flags (server.c setImplicitACLCategories).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace listd::server {

class CommandTable;
struct CommandSpec;

/// One bit per category; combine with |.
enum AclCategory : std::uint32_t {
  kAclKeyspace = 1u << 0,
  kAclRead = 1u << 1,
  kAclWrite = 1u << 2,
  kAclSet = 1u << 3,
  kAclSortedSet = 1u << 4,
  kAclList = 1u << 5,
  kAclHash = 1u << 6,
  kAclString = 1u << 7,
  kAclBitmap = 1u << 8,
  kAclHyperLogLog = 1u << 9,
  kAclGeo = 1u << 10,
  kAclStream = 1u << 11,
  kAclPubsub = 1u << 12,
  kAclAdmin = 1u << 13,
  kAclFast = 1u << 14,
  kAclSlow = 1u << 15,
  kAclBlocking = 1u << 16,
  kAclDangerous = 1u << 17,
  kAclConnection = 1u << 18,
  kAclTransaction = 1u << 19,
  kAclScripting = 1u << 20,
};

/// The permissions a key pattern grants (%R~, %W~, ~); what a key needs follows from the key-spec
/// flags it was found with (key_finder.h: access -> read; insert, delete, update -> write).
enum AclKeyAccess : std::uint8_t { kAclKeyRead = 1, kAclKeyWrite = 2 };

struct AclCategoryName {
  std::string_view name;
  std::uint32_t flag;
};

/// One generated row: a command's full name ("config|get") and its categories.
struct AclCommandCategories {
  std::string_view name;
  std::uint32_t categories;
};

/// The generated rows, sorted by name (src/server/acl_command_categories.cpp).
extern const AclCommandCategories kAclCommandCategoryTable[];
extern const std::size_t kAclCommandCategoryCount;

/// Every category in ACL CAT order.
std::span<const AclCategoryName> acl_category_names() noexcept;
/// The flag of category `name` (case-insensitive, without '@'); 0 if unknown.
std::uint32_t acl_category_flag(std::string_view name) noexcept;
/// The categories Redis derives from the command flags alone.
std::uint32_t acl_implicit_categories(std::uint32_t command_flags) noexcept;

/// Per command slot: its categories, computed once from the table.
struct AclCommandInfo {
  std::uint32_t categories = 0;
};
std::vector<AclCommandInfo> acl_command_info(const CommandTable& table);
/// The generated row of `full_name`, or null.
const AclCommandCategories* acl_command_row(std::string_view full_name) noexcept;

}  // namespace listd::server
