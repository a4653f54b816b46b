// The COMMAND INFO and COMMAND DOCS entries of one command, in Redis 7.0's shapes: behaviour
// (arity, flags, subcommands) from listd's command table, what Redis reports beyond it (key specs,
// tips, the legacy key range, docs) from the command's reference row (command_reference.h).
#pragma once

#include <cstdint>

#include "listd/protocol/reply_writer.h"

namespace listd::server {

struct CommandSpec;

/// The ACL categories of `spec` (AclCategory bits): its generated row's, else derived from flags.
std::uint32_t command_acl_categories(const CommandSpec& spec);
/// One COMMAND INFO entry: the 10-element array, subcommands included.
void write_command_info(protocol::ReplyWriter& r, const CommandSpec& spec);
/// One COMMAND DOCS value: the docs map, subcommands included.
void write_command_docs(protocol::ReplyWriter& r, const CommandSpec& spec);
/// Key-spec flags as Redis prints them: a set of simple strings ("RW", "access", ...).
void write_key_spec_flags(protocol::ReplyWriter& r, std::uint16_t flags);

}  // namespace listd::server
