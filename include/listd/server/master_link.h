// The outgoing connection to our master, as the replica's protocol state machine
// (ReplicationReplica) sees it. net implements it (net::ReplicaLink) and reports back through
// ReplicationReplica::on_connected / on_bytes / on_link_closed; the server part never sees a
// socket, so a unit test can play the master by feeding bytes and reading what was sent.
#pragma once

#include <string>
#include <string_view>

namespace listd::server {

class MasterLinkTransport {
 public:
  virtual ~MasterLinkTransport() = default;
  /// Drops any current connection (without a callback), then starts connecting to host:port.
  /// The outcome comes back as on_connected, or on_link_closed when it failed.
  virtual void connect(const std::string& host, int port) = 0;
  /// Queues bytes for the master; they are written at the end of the loop turn at the latest.
  virtual void send(std::string_view bytes) = 0;
  /// Closes the current connection, if any (no callback).
  virtual void close() = 0;
};

}  // namespace listd::server
