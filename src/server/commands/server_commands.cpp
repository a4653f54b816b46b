// server commands: registered in register_server_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_server_commands(CommandTable&) {}

}  // namespace listd::server
