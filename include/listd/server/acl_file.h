// ACL users as text (Redis 7.0 acl.c): selector arguments split over several words merged back
// (ACLMergeSelectorArguments), an aclfile parsed into a new user set all or nothing
// (ACLLoadFromFile, with its error texts), the file ACL SAVE writes, and the config file's
// `user` lines (ACLLoadConfiguredUsers).
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/config/config.h"
#include "listd/server/acl.h"

namespace listd::server {

/// "(~a" "+get)" -> "(~a +get)"; other words as they are. `error` gets Redis' text on an
/// unmatched parenthesis.
std::vector<std::string> merge_selector_arguments(std::span<const std::string_view> args,
                                                  std::string& error);

using AclUserSet = std::map<std::string, std::unique_ptr<AclUser>>;

/// Parses an aclfile's text. Returns Redis' error text (several errors joined, ending in
/// "WARNING: ACL errors detected, ...") or "" with `users` filled; a file without `default`
/// gets Redis' default user.
std::string parse_acl_file(const Acl& acl, std::string_view text, std::string_view filename,
                           AclUserSet& users);
/// The aclfile ACL SAVE writes: one "user <name> <rules>" line per user, in name order.
std::string acl_file_text(const Acl& acl);
/// Reads `path` whole; false with Redis' "Error loading ACLs, opening file ..." in `error`.
bool read_acl_file(const std::string& path, std::string& text, std::string& error);
/// Writes `text` to `path` through a temp file and rename; false on any failure.
bool write_acl_file(const std::string& path, std::string_view text);
/// The config file's `user` lines applied to `acl` at start-up (a `default` line resets it
/// first). Returns Redis' log text for the first bad rule, or "".
std::string load_configured_users(Acl& acl, const std::vector<std::vector<std::string>>& lines);

/// Redis ACLLoadUsersAtStartup: the config file's `user` lines, then the aclfile (not both).
/// False with the text Redis logs before it exits.
bool load_users_at_startup(Acl& acl, const config::ServerSettings& settings, std::string& error);

}  // namespace listd::server
