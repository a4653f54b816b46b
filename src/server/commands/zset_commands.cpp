// zset commands: registered in register_zset_commands (none yet).
#include "listd/server/command_table.h"

namespace listd::server {

void register_zset_commands(CommandTable&) {}

}  // namespace listd::server
