// set commands: registered in register_set_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_set_commands(CommandTable&) {}

}  // namespace listd::server
