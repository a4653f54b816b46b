// One client connection: its socket, read buffer, request parser and write path, on the Server's
// I/O backend (io_loop.h). On a readiness backend (EpollLoop) the connection reads and writes
// its socket itself, as below; on a completion backend (UringLoop) its bytes arrive in
// on_received and its replies are handed to ByteStreams::send (src/net/connection_stream.cpp),
// with the same parse/execute/flush logic. Both carry the TLS port's connections.
//
// A readiness report reads into the buffer (again only while a read fills the room it had, at
// most a few times: the rest is reported on the next wait), parses and executes every complete
// request (stopping while the client is blocked), and leaves the replies in Client::out for the
// Server's end-of-turn flush: one send per client. Only what the socket does not take is kept
// (writing_) and sent when epoll reports room, the one time the interest changes.
//
// The byte seam (for a filter such as TLS between the socket and the protocol): every byte read
// from the socket enters in `read_from_socket`, and every byte written leaves through
// `send_bytes`; the parser only sees `in_` and the executor only `Client::out`.
// On the TLS port a TlsSession sits in that seam (src/net/connection_tls.cpp): ciphertext read
// from the socket (or received from the completion backend) goes through TlsSession::feed/read
// into in_, replies through TlsSession::write into tls_out_, which takes Client::out's place on
// the write path (send_bytes, or ByteStreams::send).
// The object is freed by the Server at the end of the turn in which it closed.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "listd/net/io_loop.h"
#include "listd/protocol/request_parser.h"
#include "listd/server/client.h"

namespace listd::server {
class Executor;
}

namespace listd::net {

/// The read buffer's allocator: whole pages, page-aligned. A 16 KiB buffer from malloc shares
/// its first and last page with its neighbours (the Client and Connection objects around it), so
/// freeing an idle client's buffer gave back only the pages strictly inside it; aligned, all
/// four go back to the system at the cron's malloc_trim.
template <class T>
struct PageAlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t kPage{4096};
  PageAlignedAllocator() noexcept = default;
  template <class U>
  PageAlignedAllocator(const PageAlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kPage)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kPage); }
  template <class U>
  bool operator==(const PageAlignedAllocator<U>&) const noexcept {
    return true;
  }
};
using ReadBuffer = std::vector<char, PageAlignedAllocator<char>>;

class Server;
class TlsSession;

class Connection final : public server::ClientTransport, public IoHandler, public StreamHandler {
 public:
  /// Takes ownership of the connected, non-blocking socket `fd`. `tls`: a server session for a
  /// connection accepted on the TLS port, else nullptr.
  Connection(Server& server, int fd, const std::string& remote, const std::string& local,
             std::unique_ptr<TlsSession> tls);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Registers the socket with the loop; false if the loop refused it (the caller drops it).
  bool start();
  bool closed() const noexcept { return closed_; }
  bool tls() const noexcept { return tls_ != nullptr; }
  /// Best-effort synchronous flush used at shutdown.
  void flush_for_shutdown();
  /// Cron: gives back the read buffer's unused room and any idle output storage of a client
  /// idle for more than 2 s (Redis' clientsCronResizeQueryBuffer); buffered bytes are kept.
  /// Returns the bytes of capacity freed.
  std::size_t release_idle_buffers(std::uint64_t now_ms);

  // IoHandler (a readiness backend)
  void on_io(bool readable, bool writable, bool hangup) override;
  // StreamHandler (a completion backend; src/net/connection_stream.cpp)
  void on_received(const char* data, std::size_t n) override;
  void on_receive_end(int error) override;
  void on_sent(long result, bool done) override;

  // server::ClientTransport
  bool peer_gone() override;
  std::size_t query_buffer_bytes() const override { return in_end_ - in_begin_; }
  std::size_t query_buffer_free() const override { return in_.size() - in_end_; }
  std::size_t pending_output_bytes() const override {
    return writing_.size() - written_ + tls_out_.size() +
           (streams_ && !closed_ ? streams_->unsent(fd_) : 0);
  }
  /// TLS wraps every byte in its records: only a plain socket is handed to a diskless child.
  int raw_socket() const override { return tls_ || closed_ ? -1 : fd_; }
  /// Writes the client's pending output; closes afterwards if the client asked for it.
  void flush() override;
  /// Runs the requests already buffered (after the client was unblocked).
  void resume() override {
    if (!closed_) process_input();
  }
  /// Closes the socket and leaves the executor; the Server frees the object after the turn.
  void close() override;

 private:
  void read_ready();
  /// One read into the free room of in_; false when the connection closed. `filled`: the read
  /// took all the room it had (more may be waiting).
  bool read_from_socket(bool& filled);
  void make_room();
  /// After bytes were added to in_: runs the complete requests and applies the query-buffer
  /// limit; false once the connection closed.
  bool run_input();
  void process_input();
  void continue_write();
  /// Just before Client::out is consumed: sync-replicas' held output (sync_replication.h).
  void release_output();
  /// One send of `bytes`; returns how many the socket took, or -1 after closing on an error.
  long send_bytes(std::string_view bytes);
  /// INFO's output counters: a replica's bytes are the replication stream's (Redis counts apart).
  void count_output(std::size_t n) noexcept;
  /// Tells the loop whether to report readability (writability follows a pending write).
  void set_interest(bool read);
  // TLS (src/net/connection_tls.cpp): `n` bytes of ciphertext into plaintext in in_ (false
  // once the connection failed or closed), and the replies into tls_out_.
  bool decrypt_input(const char* data, std::size_t n);
  void encrypt_output();
  void protocol_error(std::string_view message);
  // The completion backend's halves of flush, flush_for_shutdown and finish_protected_batch,
  // and what on_received does with bytes it does not hold back.
  void flush_stream();
  void take_received(const char* data, std::size_t n);
  void resume_stream_input();
  /// After a batch whose script went busy: the close or read it put off (Client::script_running).
  void finish_protected_batch();

  Server& server_;
  int fd_;
  ByteStreams* streams_;  // the backend moves this socket's bytes; nullptr: readiness
  server::Client* client_ = nullptr;
  protocol::RequestParser parser_;
  ReadBuffer in_;
  std::size_t in_begin_ = 0;
  std::size_t in_end_ = 0;
  std::string writing_;      // bytes the socket did not take yet
  std::size_t written_ = 0;  // of writing_
  bool reading_ = true;      // the loop reports readability
  std::unique_ptr<TlsSession> tls_;
  ReadBuffer tls_in_;    // ciphertext read from the socket (readiness backend)
  std::string tls_out_;  // ciphertext to send (handshake, replies, alerts)
  bool closed_ = false;
  bool eof_ = false;
  // While this client's script is busy: readability was reported but not read, a close was asked
  // for; both are done once the script has ended.
  bool read_paused_ = false;
  bool close_deferred_ = false;
  // Received while this client's script was busy (completion backend; ciphertext on TLS).
  std::string held_input_;
};

}  // namespace listd::net
