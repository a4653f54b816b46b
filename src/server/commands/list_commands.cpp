// list commands: registered in register_list_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_list_commands(CommandTable&) {}

}  // namespace listd::server
