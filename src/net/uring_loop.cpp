#include "listd/net/uring_loop.h"

#include <liburing.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace listd::net {
namespace {

// Submission queue entries: a turn's sends and re-arms; when a burst needs more, the queue is
// submitted early (next_sqe) and refilled.
constexpr unsigned kUringEntries = 1024;
// The provided buffers every multishot receive takes from: 256 x 16 KB (4 MB of address space,
// touched only as used). Each is given back as soon as its bytes were handed over, so a buffer
// is held only between the kernel's receive and the next dispatch.
constexpr unsigned kBufferCount = 256;  // a power of two (the ring's mask)
constexpr unsigned kBufferSize = 16 * 1024;
constexpr int kBufferGroup = 0;
// Completions dispatched per wait; the rest stay in the ring for the next one.
constexpr unsigned kMaxCompletionsPerWait = 512;
// A send buffer larger than this is not kept for the socket's next send.
constexpr std::size_t kKeptSendCapacity = 64 * 1024;

// user_data's low 6 bits (a Slot is 64-byte aligned): the operation's kind, and for a poll its
// generation, so the completion of a poll replaced by an interest change is told from the
// current one. (An in-place poll update, IORING_POLL_UPDATE_EVENTS, posted no completion here
// when the new interest was ready at once.)
enum : unsigned { kRecv = 1, kSend = 2, kPoll = 3, kControl = 4, kKindMask = 7 };
constexpr unsigned kGenShift = 3;
constexpr unsigned kGenMask = 7;
constexpr std::uint64_t kSlotMask = ~std::uint64_t{63};

std::string uring_error(const char* what, int negative_errno) {
  return std::string(what) + ": " + std::strerror(-negative_errno);
}

}  // namespace

struct alignas(64) UringLoop::Slot {
  explicit Slot(int descriptor) : fd(descriptor) {}
  std::uint64_t user_data(unsigned kind, unsigned gen = 0) const {
    return reinterpret_cast<std::uintptr_t>(this) | kind | (gen << kGenShift);
  }
  int fd;
  IoHandler* ready = nullptr;       // registered for readiness (add)
  StreamHandler* stream = nullptr;  // a byte stream (open)
  unsigned poll_mask = 0;
  unsigned poll_gen = 0;  // of the poll armed last
  unsigned inflight = 0;  // operations whose last completion has not arrived
  bool poll_armed = false;
  bool recv_armed = false;
  bool receiving = false;
  bool send_armed = false;
  bool detached = false;
  std::string out;  // the send in flight: the kernel reads it until its completion
  std::size_t sent = 0;
};

UringLoop::UringLoop() = default;

std::unique_ptr<IoLoop> UringLoop::open(std::string& error) {
  std::unique_ptr<UringLoop> loop(new UringLoop());
  if (!loop->init(error)) return nullptr;
  return loop;
}

bool UringLoop::init(std::string& error) {
  auto ring = std::make_unique<io_uring>();
  // Completions are posted only inside our own io_uring_enter (DEFER_TASKRUN, 6.1+): without
  // it each multishot receive's and each send's completion interrupted the loop's thread with
  // task work (a signal-like wake-up per completion, the CPU issue 19 measured).
  // COOP_TASKRUN (5.19+) at least stops the interrupting; a plain ring is the last resort.
  io_uring_params params{};
  int rc = -EINVAL;
  for (unsigned flags :
       {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_COOP_TASKRUN, 0u}) {
    params = io_uring_params{};
    params.flags = flags;
    rc = io_uring_queue_init_params(kUringEntries, ring.get(), &params);
    if (rc != -EINVAL) break;
  }
  if (rc < 0) {
    error = uring_error("io_uring_queue_init", rc);
    return false;
  }
  ring_ = std::move(ring);
  io_uring_probe* probe = io_uring_get_probe_ring(ring_.get());
  // IORING_OP_SEND_ZC came with multishot receive (6.0): the probe has no flag for the latter.
  bool have_ops = probe != nullptr;
  for (int op : {IORING_OP_RECV, IORING_OP_SEND, IORING_OP_POLL_ADD, IORING_OP_POLL_REMOVE,
                 IORING_OP_ASYNC_CANCEL, IORING_OP_SEND_ZC})
    have_ops = have_ops && io_uring_opcode_supported(probe, op);
  if (probe) io_uring_free_probe(probe);
  if (!have_ops || !(params.features & IORING_FEAT_EXT_ARG)) {
    error = "io_uring: the kernel lacks multishot receive or waits with a timeout (Linux 6.0+)";
    return false;
  }
  const std::size_t ring_bytes = kBufferCount * sizeof(io_uring_buf);
  void* br =
      ::mmap(nullptr, ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* bufs = ::mmap(nullptr, std::size_t{kBufferCount} * kBufferSize, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (br == MAP_FAILED || bufs == MAP_FAILED) {
    if (br != MAP_FAILED) ::munmap(br, ring_bytes);
    if (bufs != MAP_FAILED) ::munmap(bufs, std::size_t{kBufferCount} * kBufferSize);
    error = std::string("io_uring buffers: ") + std::strerror(errno);
    return false;
  }
  buf_ring_ = static_cast<io_uring_buf_ring*>(br);
  buffers_ = static_cast<char*>(bufs);
  // A snapshot or rewrite child (fork) needs neither, and the kernel holds the ring's pages.
  ::madvise(br, ring_bytes, MADV_DONTFORK);
  ::madvise(bufs, std::size_t{kBufferCount} * kBufferSize, MADV_DONTFORK);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<std::uintptr_t>(br);
  reg.ring_entries = kBufferCount;
  reg.bgid = kBufferGroup;
  rc = io_uring_register_buf_ring(ring_.get(), &reg, 0);
  if (rc < 0) {
    error = uring_error("io_uring_register_buf_ring", rc);
    return false;
  }
  io_uring_buf_ring_init(buf_ring_);
  for (unsigned id = 0; id < kBufferCount; ++id)
    io_uring_buf_ring_add(buf_ring_, buffers_ + std::size_t{id} * kBufferSize, kBufferSize, id,
                          io_uring_buf_ring_mask(kBufferCount), static_cast<int>(id));
  io_uring_buf_ring_advance(buf_ring_, kBufferCount);
  io_uring_register_ring_fd(ring_.get());  // saves a descriptor lookup per enter; optional
  return true;
}

UringLoop::~UringLoop() {
  // The ring goes first: the kernel drops every operation (and its use of a slot's buffer).
  if (ring_) io_uring_queue_exit(ring_.get());
  if (event_fd_ >= 0) ::close(event_fd_);
  for (Slot* slot : slots_) delete slot;
  if (buf_ring_) ::munmap(buf_ring_, kBufferCount * sizeof(io_uring_buf));
  if (buffers_) ::munmap(buffers_, std::size_t{kBufferCount} * kBufferSize);
}

int UringLoop::fd() const {
  // With DEFER_TASKRUN the ring's own descriptor never polls readable for pending completions
  // (they are posted only inside an enter), so the kernel signals an eventfd instead. Made on
  // first use (a replica's link), so a master's turn pays no eventfd signal.
  if (event_fd_ < 0) {
    const int efd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (efd >= 0 && io_uring_register_eventfd(ring_.get(), efd) == 0) {
      event_fd_ = efd;
    } else {
      if (efd >= 0) ::close(efd);
      return ring_->ring_fd;  // no eventfd: asio's wait then ends at its timeout
    }
  }
  return event_fd_;
}

void UringLoop::drain_event_fd() {
  if (event_fd_ < 0) return;
  std::uint64_t count = 0;
  // Before the enter that posts the completions: a completion after it signals again.
  [[maybe_unused]] const ssize_t n = ::read(event_fd_, &count, sizeof count);
}

UringLoop::Slot* UringLoop::slot_of(int fd) const {
  return fd >= 0 && static_cast<std::size_t>(fd) < by_fd_.size() ? by_fd_[fd] : nullptr;
}

UringLoop::Slot* UringLoop::new_slot(int fd) {
  if (static_cast<std::size_t>(fd) >= by_fd_.size()) by_fd_.resize(fd + 1, nullptr);
  if (by_fd_[fd]) forget(fd);
  Slot* slot = new Slot(fd);
  slots_.insert(slot);
  by_fd_[fd] = slot;
  return slot;
}

io_uring_sqe* UringLoop::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  while (!sqe) {  // the queue is full: hand it to the kernel early
    io_uring_submit(ring_.get());
    sqe = io_uring_get_sqe(ring_.get());
  }
  return sqe;
}

void UringLoop::arm_poll(Slot* slot) {
  io_uring_sqe* sqe = next_sqe();
  slot->poll_gen = (slot->poll_gen + 1) & kGenMask;
  io_uring_prep_poll_add(sqe, slot->fd, slot->poll_mask);
  io_uring_sqe_set_data64(sqe, slot->user_data(kPoll, slot->poll_gen));
  slot->poll_armed = true;
  ++slot->inflight;
}

void UringLoop::arm_recv(Slot* slot) {
  if (slot->recv_armed || !slot->stream || !slot->receiving) return;
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_recv_multishot(sqe, slot->fd, nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(sqe, slot->user_data(kRecv));
  slot->recv_armed = true;
  ++slot->inflight;
}

void UringLoop::queue_send(Slot* slot) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_send(sqe, slot->fd, slot->out.data() + slot->sent, slot->out.size() - slot->sent,
                     MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, slot->user_data(kSend));
  slot->send_armed = true;
  ++slot->inflight;
  ++sends_in_flight_;
}

void UringLoop::cancel(Slot* slot, unsigned kind) {
  io_uring_sqe* sqe = next_sqe();
  if (kind == kPoll) {
    io_uring_prep_poll_remove(sqe, slot->user_data(kPoll, slot->poll_gen));
  } else {
    io_uring_prep_cancel64(sqe, slot->user_data(kind), 0);
  }
  io_uring_sqe_set_data64(sqe, slot->user_data(kControl));
  ++slot->inflight;
}

// ---- Readiness (listening sockets) ------------------------------------------------------------

bool UringLoop::add(int fd, IoHandler* handler, bool read, bool write) {
  if (fd < 0 || slot_of(fd)) return false;  // registered once, as with epoll
  Slot* slot = new_slot(fd);
  slot->ready = handler;
  slot->poll_mask = (read ? POLLIN : 0u) | (write ? POLLOUT : 0u);
  arm_poll(slot);
  return true;
}

bool UringLoop::modify(int fd, IoHandler* handler, bool read, bool write) {
  Slot* slot = slot_of(fd);
  if (!slot) return false;
  slot->ready = handler;
  const unsigned mask = (read ? POLLIN : 0u) | (write ? POLLOUT : 0u);
  if (mask == slot->poll_mask) return true;
  slot->poll_mask = mask;
  // Inside its own report the poll is re-armed afterwards with the new mask; else it is
  // replaced: removed, and a poll of the next generation armed (it reports at once if ready).
  if (slot->poll_armed) {
    cancel(slot, kPoll);
    arm_poll(slot);
  }
  return true;
}

void UringLoop::remove(int fd) { forget(fd); }

void UringLoop::forget(int fd) {
  Slot* slot = slot_of(fd);
  if (!slot) return;
  slot->ready = nullptr;
  slot->stream = nullptr;
  if (slot->poll_armed) cancel(slot, kPoll);
  if (slot->recv_armed) cancel(slot, kRecv);
  if (slot->send_armed) cancel(slot, kSend);
  detach(slot);
}

void UringLoop::detach(Slot* slot) {
  by_fd_[slot->fd] = nullptr;
  slot->detached = true;
  // The caller closes the descriptor next; its number may be reused by the next accept.
  if (io_uring_sq_ready(ring_.get()) > 0) io_uring_submit(ring_.get());
  release_if_done(slot);
}

void UringLoop::release_if_done(Slot* slot) {
  if (!slot->detached || slot->inflight != 0) return;
  slots_.erase(slot);
  delete slot;
}

// ---- Byte streams (plain client sockets) ------------------------------------------------------

bool UringLoop::open(int fd, StreamHandler* handler) {
  if (fd < 0 || slot_of(fd)) return false;
  Slot* slot = new_slot(fd);
  slot->stream = handler;
  slot->receiving = true;
  arm_recv(slot);
  return true;
}

void UringLoop::set_receiving(int fd, bool on) {
  Slot* slot = slot_of(fd);
  if (!slot || slot->receiving == on) return;
  slot->receiving = on;
  if (on) {
    arm_recv(slot);  // if the cancel has not landed yet, its completion re-arms
  } else if (slot->recv_armed) {
    cancel(slot, kRecv);
  }
}

bool UringLoop::sending(int fd) const {
  const Slot* slot = slot_of(fd);
  return slot && slot->send_armed;
}

void UringLoop::send(int fd, std::string& bytes) {
  Slot* slot = slot_of(fd);
  if (!slot || slot->send_armed || bytes.empty()) return;
  slot->out.swap(bytes);
  slot->sent = 0;
  queue_send(slot);
}

std::size_t UringLoop::unsent(int fd) const {
  const Slot* slot = slot_of(fd);
  return slot ? slot->out.size() - slot->sent : 0;
}

void UringLoop::close(int fd) { forget(fd); }

void UringLoop::finish_sends(int timeout_ms) {
  draining_ = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (sends_in_flight_ > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    enter(static_cast<int>(left.count()));
    run_completions();
  }
  draining_ = false;
}

// ---- The wait and the completions ------------------------------------------------------------

void UringLoop::submit_queued() {
  if (io_uring_sq_ready(ring_.get()) > 0) io_uring_submit(ring_.get());
}

int UringLoop::enter(int timeout_ms) {
  // Every SQE of the turn and the wait for completions: one io_uring_enter.
  io_uring* ring = ring_.get();
  // Without a wait this still enters: deferred completions are posted only by an enter.
  if (timeout_ms == 0) return io_uring_submit_and_get_events(ring);
  if (timeout_ms < 0) return io_uring_submit_and_wait(ring, 1);
  __kernel_timespec ts{};
  ts.tv_sec = timeout_ms / 1000;
  ts.tv_nsec = static_cast<long long>(timeout_ms % 1000) * 1'000'000;
  io_uring_cqe* cqe = nullptr;
  return io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, nullptr);
}

int UringLoop::wait_and_dispatch(int timeout_ms) {
  drain_event_fd();
  enter(timeout_ms);  // -ETIME, or -EINTR for a signal (asio's): no completions then
  // A retired handler's descriptor was removed, which cleared its slot: no completion reaches
  // it; the scope only keeps it alive until the outermost wait ends.
  const DispatchScope scope(*this);
  return static_cast<int>(run_completions());
}

unsigned UringLoop::run_completions() {
  // One completion at a time, never a batch taken ahead: a handler may run a busy script whose
  // hook waits again (nested), and that wait must see every completion not yet dispatched (a
  // batch held on this frame would wait for the script's end; epoll's level-triggered reports
  // are simply repeated instead).
  unsigned events = 0;
  for (unsigned i = 0; i < kMaxCompletionsPerWait; ++i) {
    io_uring_cqe* cqe = nullptr;  // inline peek: a library call per completion costs ~90 insns
    if (io_uring_peek_cqe(ring_.get(), &cqe) != 0 || !cqe) break;
    const Completion c{cqe->user_data, cqe->res, cqe->flags};
    io_uring_cq_advance(ring_.get(), 1);
    events += dispatch(c) ? 1 : 0;
  }
  return events;
}

bool UringLoop::dispatch(const Completion& c) {
  Slot* slot = reinterpret_cast<Slot*>(c.user_data & kSlotMask);
  switch (c.user_data & kKindMask) {
    case kRecv: return on_recv(slot, c);
    case kSend: return on_send(slot, c);
    case kPoll: return on_poll(slot, c);
    default:  // a cancel or a poll update: only its count
      --slot->inflight;
      release_if_done(slot);
      return false;
  }
}

bool UringLoop::on_poll(Slot* slot, const Completion& c) {
  // A replaced poll's completion (cancelled, or it fired before its removal) re-arms nothing.
  const bool current = ((c.user_data >> kGenShift) & kGenMask) == slot->poll_gen;
  if (current) slot->poll_armed = false;
  // Only what is asked for now: the interest may have changed after this poll was armed.
  const unsigned events =
      c.res >= 0 ? static_cast<unsigned>(c.res) & (slot->poll_mask | POLLHUP | POLLERR) : 0;
  const bool reported = events != 0 && slot->ready && !draining_;
  if (reported) {
    slot->ready->on_io((events & POLLIN) != 0, (events & POLLOUT) != 0,
                       (events & (POLLHUP | POLLERR)) != 0);
  }
  // One-shot and re-armed: what is still ready is reported again, as level-triggered epoll.
  if (current && slot->ready && !slot->poll_armed) arm_poll(slot);
  --slot->inflight;
  release_if_done(slot);
  return reported;
}

bool UringLoop::on_recv(Slot* slot, const Completion& c) {
  const bool more = (c.flags & IORING_CQE_F_MORE) != 0;
  const bool reported = slot->stream && !draining_ && c.res != -ENOBUFS && c.res != -ECANCELED;
  bool ended = false;
  if (c.res > 0 && (c.flags & IORING_CQE_F_BUFFER)) {
    const unsigned id = c.flags >> IORING_CQE_BUFFER_SHIFT;
    if (slot->stream && !draining_)
      slot->stream->on_received(buffers_ + std::size_t{id} * kBufferSize,
                                static_cast<std::size_t>(c.res));
    give_back_buffer(id);
  } else if (c.res != -ENOBUFS && c.res != -ECANCELED) {
    ended = true;  // 0: end of file; else the socket's error
    if (slot->stream && !draining_) slot->stream->on_receive_end(c.res <= 0 ? c.res : -EIO);
  }
  if (!more) {
    // The kernel ended this receive: out of buffers (they are back now), a pause's cancel, or
    // the end of the stream.
    slot->recv_armed = false;
    if (!ended) arm_recv(slot);
    --slot->inflight;
    release_if_done(slot);
  }
  return reported;
}

bool UringLoop::on_send(Slot* slot, const Completion& c) {
  --sends_in_flight_;
  slot->send_armed = false;
  long result = c.res;
  if (result == 0 && slot->sent < slot->out.size()) result = -EPIPE;  // took nothing: gone
  bool done = true;
  if (result > 0) {
    slot->sent += static_cast<std::size_t>(result);
    if (slot->sent < slot->out.size() && !slot->detached) {
      queue_send(slot);  // a short send: the rest, from the same buffer
      done = false;
    }
  }
  if (done) {
    slot->out.clear();
    slot->sent = 0;
    if (slot->out.capacity() > kKeptSendCapacity) std::string().swap(slot->out);
  }
  const bool reported = slot->stream != nullptr;
  if (reported) slot->stream->on_sent(result, done);
  --slot->inflight;
  release_if_done(slot);
  return reported;
}

void UringLoop::give_back_buffer(unsigned id) {
  io_uring_buf_ring_add(buf_ring_, buffers_ + std::size_t{id} * kBufferSize, kBufferSize, id,
                        io_uring_buf_ring_mask(kBufferCount), 0);
  io_uring_buf_ring_advance(buf_ring_, 1);
}

}  // namespace listd::net
