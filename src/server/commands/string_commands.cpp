// string commands: registered in register_string_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_string_commands(CommandTable&) {}

}  // namespace listd::server
