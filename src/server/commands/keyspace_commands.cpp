// keyspace commands: registered in register_keyspace_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_keyspace_commands(CommandTable&) {}

}  // namespace listd::server
