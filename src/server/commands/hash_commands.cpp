// hash commands: registered in register_hash_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_hash_commands(CommandTable&) {}

}  // namespace listd::server
