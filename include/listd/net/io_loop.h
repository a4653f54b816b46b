// The seam between the network front (Server, Connection) and an I/O backend: the readiness
// interface every backend has (listening sockets), and the byte streams only a completion
// backend has (client sockets, plain or TLS, whose bytes the kernel moves itself).
//
// Two backends implement it, neither knowing the other: EpollLoop (readiness only: its
// connections read and write with recv/send on readiness) and UringLoop (io_uring: multishot
// receive into provided buffers, sends gathered per turn, one io_uring_enter per wait). The
// Server holds one, chosen at start-up (io_backend.h).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace listd::net {

/// Something registered for readiness: told which events are ready on its descriptor.
class IoHandler {
 public:
  virtual ~IoHandler() = default;
  /// `readable` / `writable` as reported; `hangup` for a hang-up or an error on the socket.
  virtual void on_io(bool readable, bool writable, bool hangup) = 0;
};

/// The owner of a byte stream (ByteStreams): what the backend tells it.
class StreamHandler {
 public:
  virtual ~StreamHandler() = default;
  /// `n` (> 0) bytes arrived; `data` is valid only during the call.
  virtual void on_received(const char* data, std::size_t n) = 0;
  /// Nothing more will arrive: 0 for end of file, else a negative errno.
  virtual void on_receive_end(int error) = 0;
  /// A send completed: `result` bytes taken (>= 0) or a negative errno; `done` once everything
  /// handed to ByteStreams::send is out (a short send's rest is resubmitted by the backend).
  virtual void on_sent(long result, bool done) = 0;
};

/// Sockets whose bytes the backend moves (a completion backend). One send in flight per socket
/// keeps the byte order; a socket's buffers stay with the backend until its last completion, so
/// its handler may be freed right after close().
class ByteStreams {
 public:
  virtual ~ByteStreams() = default;
  /// Starts receiving on the connected socket `fd`; false when the backend refused it.
  virtual bool open(int fd, StreamHandler* handler) = 0;
  /// Pauses (false) or resumes (true) receiving; what was already received is still delivered.
  virtual void set_receiving(int fd, bool on) = 0;
  /// A send is in flight on `fd`.
  virtual bool sending(int fd) const = 0;
  /// Queues `bytes` for sending (swapped in: `bytes` comes back empty, with the capacity of the
  /// previous send's buffer). Only when nothing is in flight. Submitted with the next wait.
  virtual void send(int fd, std::string& bytes) = 0;
  /// Bytes handed to send that the socket has not taken yet.
  virtual std::size_t unsent(int fd) const = 0;
  /// Forgets `fd`'s handler (no callback after this) and cancels its operations; the caller
  /// shuts the socket down and closes it afterwards.
  virtual void close(int fd) = 0;
  /// At shutdown: waits (at most `timeout_ms`) until no send is in flight, running only the
  /// send completions (their handlers may queue more output).
  virtual void finish_sends(int timeout_ms) = 0;
};

class IoLoop {
 public:
  virtual ~IoLoop() = default;
  /// The multiplexing API, as INFO's multiplexing_api and the start-up log name it.
  virtual const char* name() const = 0;
  /// A descriptor that polls readable when events are ready (asio waits on it while a replica
  /// link is open).
  virtual int fd() const = 0;
  /// Registers `fd` for readiness; `read`/`write` say which to report. False on failure.
  virtual bool add(int fd, IoHandler* handler, bool read, bool write) = 0;
  /// Changes what is reported for a registered `fd`.
  virtual bool modify(int fd, IoHandler* handler, bool read, bool write) = 0;
  /// Unregisters `fd` (call before closing it).
  virtual void remove(int fd) = 0;
  /// Hands queued work to the kernel without waiting (before blocking elsewhere, in asio).
  virtual void submit_queued() = 0;
  /// One wait of at most `timeout_ms` (-1: no limit, 0: do not block), then the handler of every
  /// event. Returns how many events there were (0 on timeout or a signal). Re-entrant: a busy
  /// script's hook calls it from inside a handler.
  virtual int wait_and_dispatch(int timeout_ms) = 0;
  /// The byte streams of a completion backend; nullptr for a readiness backend, whose
  /// connections read and write their sockets themselves.
  virtual ByteStreams* streams() noexcept { return nullptr; }

  /// Takes a handler whose descriptor was removed and frees it once no wait_and_dispatch is
  /// running (at once outside one): a handler may close itself or another from inside a wait,
  /// and the events of a running wait may still name it; those are not delivered to it.
  void retire(std::unique_ptr<IoHandler> handler) {
    if (dispatch_depth_ != 0) retired_.push_back(std::move(handler));
  }

 protected:
  /// Held by each backend's wait_and_dispatch while it runs handlers (a busy script nests one):
  /// the retired handlers are freed when the outermost ends.
  class DispatchScope {
   public:
    explicit DispatchScope(IoLoop& loop) noexcept : loop_(loop) { ++loop_.dispatch_depth_; }
    ~DispatchScope() {
      if (--loop_.dispatch_depth_ == 0) loop_.retired_.clear();
    }
    DispatchScope(const DispatchScope&) = delete;
    DispatchScope& operator=(const DispatchScope&) = delete;

   private:
    IoLoop& loop_;
  };
  bool is_retired(const IoHandler* handler) const noexcept {
    for (const auto& r : retired_)
      if (r.get() == handler) return true;
    return false;
  }
  bool any_retired() const noexcept { return !retired_.empty(); }

 private:
  int dispatch_depth_ = 0;
  std::vector<std::unique_ptr<IoHandler>> retired_;
};

}  // namespace listd::net
