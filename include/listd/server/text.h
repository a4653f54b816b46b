// Small text helpers shared by command families (option keywords, client names).
#pragma once

#include <string>
#include <string_view>

#include "listd/base/redis_text.h"

namespace listd::server {

/// The part of `s` before its first NUL byte: what Redis prints when it formats an argument
/// with "%s" into an error message (the C string stops there).
inline std::string_view until_nul(std::string_view s) noexcept { return s.substr(0, s.find('\0')); }

/// addReplySubcommandSyntaxError's text: the subcommand as "%.128s" prints it, the command
/// upper-cased (`command` is the command's own name as the client sent it, e.g. argv[0]).
inline std::string subcommand_syntax_error(std::string_view command, std::string_view subcommand) {
  std::string text = "ERR unknown subcommand or wrong number of arguments for '";
  text.append(until_nul(subcommand).substr(0, 128));
  text += "'. Try ";
  for (char ch : command) text += (ch >= 'a' && ch <= 'z') ? static_cast<char>(ch - 32) : ch;
  text += " HELP.";
  return text;
}

/// True when `s` holds a NUL or a whitespace byte: ACL user names and key/channel patterns may
/// not (ACLSetUser, ACLLoadConfiguredUsers).
inline bool has_space_or_nul(std::string_view s) noexcept {
  for (char c : s)
    if (c == 0 || c == ' ' || (c >= '\t' && c <= '\r')) return true;
  return false;
}

/// Redis' rule for CLIENT SETNAME: printable ASCII, no spaces.
inline bool valid_client_name(std::string_view name) noexcept {
  for (unsigned char c : name)
    if (c < '!' || c > '~') return false;
  return true;
}

}  // namespace listd::server
