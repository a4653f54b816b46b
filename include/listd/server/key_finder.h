// Finding a command's keys and what it does to each, as Redis 7.0's getKeysFromCommandWithSpecs:
// the key specs of its reference row (command_reference.h) first; when a spec cannot be followed
// (incomplete, a bad key count) or its flags vary with the arguments, the command's own key
// function (Redis' getkeys_proc). Drives COMMAND GETKEYS / GETKEYSANDFLAGS and the ACL key checks.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace listd::server {

struct CommandSpec;

/// One key found: its index in argv and the key-spec flags it was found with (KeySpecFlag).
struct KeyReference {
  int pos = 0;
  std::uint16_t flags = 0;
};

/// The keys of `argv` (argv[0] the command name, a subcommand's argv[1] its name), in Redis'
/// order; empty when the arguments name none. A command without a reference row (listd's own)
/// finds them by its table KeySpec, each read and written (RW, access, update).
std::vector<KeyReference> find_command_keys(const CommandSpec& spec,
                                            std::span<const std::string_view> argv);

/// Redis doesCommandHaveKeys: a key spec that is not NOT_KEY, or a key function.
bool command_has_keys(const CommandSpec& spec);

/// Redis' NO_MANDATORY_KEYS (EVAL, FCALL and their forms): finding no key is no error.
bool command_keys_optional(const CommandSpec& spec);

}  // namespace listd::server
