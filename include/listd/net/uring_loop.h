// The io_uring backend (liburing): one ring, one provided-buffer ring, and per socket a slot that
// outlives its handler until the slot's last completion.
//
// Plain client sockets are byte streams (ByteStreams): one multishot receive per socket, armed
// at accept and re-armed only when the kernel ends it (ENOBUFS, a pause), takes its bytes into
// buffers of the provided-buffer ring; each completion's bytes are handed to the handler and the
// buffer goes back to the ring at once. Sends are queued as SQEs during the turn (at most one in
// flight per socket, the buffer owned by the slot until its completion, a short send's rest
// queued again), and every SQE of the turn goes to the kernel with the next wait's one
// io_uring_enter, which also waits for completions (bounded by the wait's timeout).
//
// Listening sockets use readiness (IoLoop::add): a one-shot poll, re-armed
// after each report, so the reports are level-triggered as epoll's (a re-arm is an SQE of the
// next enter, not a system call).
//
// user_data is a slot's address with the operation's kind in its low bits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "listd/net/io_loop.h"

struct io_uring;
struct io_uring_buf_ring;
struct io_uring_sqe;

namespace listd::net {

class UringLoop final : public IoLoop, public ByteStreams {
 public:
  /// A ring with its buffer ring registered, or nullptr with the reason (ENOSYS on old kernels,
  /// EPERM under seccomp or kernel.io_uring_disabled, an operation the kernel lacks).
  static std::unique_ptr<IoLoop> open(std::string& error);
  ~UringLoop() override;
  UringLoop(const UringLoop&) = delete;
  UringLoop& operator=(const UringLoop&) = delete;

  // IoLoop
  const char* name() const override { return "io_uring"; }
  int fd() const override;
  bool add(int fd, IoHandler* handler, bool read, bool write) override;
  bool modify(int fd, IoHandler* handler, bool read, bool write) override;
  void remove(int fd) override;
  void submit_queued() override;
  int wait_and_dispatch(int timeout_ms) override;
  ByteStreams* streams() noexcept override { return this; }

  // ByteStreams
  bool open(int fd, StreamHandler* handler) override;
  void set_receiving(int fd, bool on) override;
  bool sending(int fd) const override;
  void send(int fd, std::string& bytes) override;
  std::size_t unsent(int fd) const override;
  void close(int fd) override;
  void finish_sends(int timeout_ms) override;

 private:
  struct Slot;
  struct Completion {
    std::uint64_t user_data;
    int res;
    unsigned flags;
  };
  UringLoop();
  bool init(std::string& error);
  Slot* slot_of(int fd) const;
  Slot* new_slot(int fd);
  /// The slot leaves the descriptor table: no handler is called again; freed after its last
  /// completion. Whatever was queued for the descriptor is submitted first, so no SQE of the
  /// old socket reaches the kernel after the number is closed and reused.
  void detach(Slot* slot);
  io_uring_sqe* next_sqe();
  void arm_recv(Slot* slot);
  void arm_poll(Slot* slot);
  void queue_send(Slot* slot);
  void cancel(Slot* slot, unsigned kind);
  int enter(int timeout_ms);
  /// Runs up to a batch of completions, taken one by one; returns how many reached a handler.
  unsigned run_completions();
  /// True when the completion reached a handler (a cancel's or an update's never does).
  bool dispatch(const Completion& c);
  /// Both close() and remove(): no handler any more, the armed operations cancelled.
  void forget(int fd);
  bool on_recv(Slot* slot, const Completion& c);
  bool on_send(Slot* slot, const Completion& c);
  bool on_poll(Slot* slot, const Completion& c);
  void give_back_buffer(unsigned id);
  void drain_event_fd();
  void release_if_done(Slot* slot);

  std::unique_ptr<io_uring> ring_;
  io_uring_buf_ring* buf_ring_ = nullptr;
  char* buffers_ = nullptr;
  std::vector<Slot*> by_fd_;         // live slots by descriptor
  std::unordered_set<Slot*> slots_;  // live and detached (waiting for their last completion)
  unsigned sends_in_flight_ = 0;
  mutable int event_fd_ = -1;  // registered by the first fd(): see there
  bool draining_ = false;      // finish_sends: only send completions reach their handlers
};

}  // namespace listd::net
