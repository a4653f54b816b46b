// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO: registered into the CLIENT container by
// register_client_commands (client_commands.cpp).
#pragma once

namespace listd::server {

class CommandFamily;
struct CommandSpec;

/// Adds the tracking subcommands to `client`.
void add_client_tracking_subcommands(CommandFamily& family, CommandSpec& client);

}  // namespace listd::server
