// expire commands: registered in register_expire_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_expire_commands(CommandTable&) {}

}  // namespace listd::server
