// epoll_floor: the machine's floor for request/response over loopback.
//
// A trivial single-threaded epoll server that does no real work per request: it counts complete
// RESP requests (multibulk `*N` + N bulks, or inline lines) and answers each with a canned reply
// of the size Redis sends for the commands redis-benchmark's list tests use, so that the floor
// pays for the same bytes on the wire:
//   - LPUSH/RPUSH: `:<length>` (the floor keeps one element counter, not the elements);
//   - LPOP/RPOP: a bulk of the last pushed element's size (`$3\r\nxxx\r\n`, 9 bytes, at
//     redis-benchmark's default -d 3), or `$-1` when the counter is 0;
//   - LRANGE k start stop: an array of min(counter, stop - start + 1) such bulks (906 bytes for
//     redis-benchmark's `LRANGE mylist 0 99`, as Redis 7.0 sends);
//   - PING `+PONG`, the `CONFIG GET save`/`appendonly` replies redis-benchmark asks for at
//     start-up, and `INFO` with `process_id` (the harness checks it owns the port);
//   - anything else `:1`.
// Its CPU time per request is what the I/O alone costs on this machine; listd and redis-server
// are reported as ratios to it.
//
// Shape (kept deliberately minimal, the cheapest one measured in shared/PERF-NOTES.md):
//   - level-triggered epoll, one `read` per readiness event into a per-connection buffer;
//   - every complete request in the buffer is answered, then one `write` per batch;
//   - what the socket does not take is kept and sent on EPOLLOUT (no reply is ever dropped).
//
// Usage: epoll_floor --port N [--bind 127.0.0.1]
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr std::string_view kReplyOne = ":1\r\n";
constexpr std::string_view kReplyPong = "+PONG\r\n";
constexpr std::string_view kReplySave = "*2\r\n$4\r\nsave\r\n$0\r\n\r\n";
constexpr std::string_view kReplyAppendonly = "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n";
constexpr std::string_view kReplyProtocolError = "-ERR Protocol error\r\n";

struct Connection {
  int fd = -1;
  std::string in;   // leftover bytes of an incomplete request (usually empty)
  std::string out;  // bytes the socket did not take yet
  bool want_write = false;
  bool closing = false;  // protocol error: flush and close
};

// The one list redis-benchmark's list tests use (`mylist`), as far as reply sizes go: its length
// and the size of its elements (every push of one redis-benchmark run has the same size). No
// elements are stored: the replies are canned bytes of the right size.
struct FakeList {
  long long len = 0;
  size_t elem_size = 0;
  std::string elem;            // one element's bulk reply: "$<size>\r\n" + size bytes + "\r\n"
  long long range_count = -1;  // the cached LRANGE reply below has this many elements
  std::string range;
};
FakeList g_list;

void set_elem_size(size_t n) {
  if (n == g_list.elem_size && !g_list.elem.empty()) return;
  g_list.elem_size = n;
  g_list.elem = "$" + std::to_string(n) + "\r\n" + std::string(n, 'x') + "\r\n";
  g_list.range_count = -1;
}

void append_integer(std::string& out, char type, long long v) {
  char buf[32];
  buf[0] = type;
  auto r = std::to_chars(buf + 1, buf + sizeof(buf) - 2, v);
  *r.ptr++ = '\r';
  *r.ptr++ = '\n';
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

long long to_ll(std::string_view v) {
  long long x = 0;
  std::from_chars(v.data(), v.data() + v.size(), x);
  return x;
}

// LRANGE start stop over g_list.len elements, with Redis' index rules.
void append_lrange(std::string& out, long long start, long long stop) {
  long long len = g_list.len;
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  long long count = (start > stop || start >= len) ? 0 : std::min(stop, len - 1) - start + 1;
  if (count != g_list.range_count) {
    g_list.range.clear();
    append_integer(g_list.range, '*', count);
    for (long long i = 0; i < count; ++i) g_list.range.append(g_list.elem);
    g_list.range_count = count;
  }
  out.append(g_list.range);
}

bool equals_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// Parses a decimal integer in [p, end) that is terminated by "\r\n"; returns the position after
// the "\r\n", or nullptr when the line is not complete yet. Sets *bad on a malformed line.
const char* parse_line_int(const char* p, const char* end, long* value, bool* bad) {
  const char* cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<size_t>(end - p)));
  if (cr == nullptr || cr + 1 >= end) return nullptr;
  if (cr[1] != '\n') {
    *bad = true;
    return nullptr;
  }
  long v = 0;
  bool neg = false;
  const char* q = p;
  if (q < cr && *q == '-') {
    neg = true;
    ++q;
  }
  if (q == cr) {
    *bad = true;
    return nullptr;
  }
  for (; q < cr; ++q) {
    if (*q < '0' || *q > '9' || v > (1L << 40)) {
      *bad = true;
      return nullptr;
    }
    v = v * 10 + (*q - '0');
  }
  *value = neg ? -v : v;
  return cr + 2;
}

// Parses every complete request in [data, data + len), appending one reply per request to
// `reply`; returns how many bytes were consumed (the rest is an incomplete request).
size_t parse_requests(Connection& c, const char* data, size_t len, std::string& reply) {
  const char* base = data;
  const char* p = base;
  const char* end = base + len;
  while (p < end) {
    if (*p == '*') {
      long argc = 0;
      bool bad = false;
      const char* q = parse_line_int(p + 1, end, &argc, &bad);
      if (bad || (q != nullptr && argc > 1024 * 1024)) {
        reply.append(kReplyProtocolError);
        c.closing = true;
        return len;
      }
      if (q == nullptr) break;
      std::string_view argv[4];
      long i = 0;
      for (; i < argc; ++i) {
        if (q >= end) break;
        if (*q != '$') {
          bad = true;
          break;
        }
        long blen = 0;
        const char* arg = parse_line_int(q + 1, end, &blen, &bad);
        if (bad || arg == nullptr) break;
        if (blen < 0 || blen > 512L * 1024 * 1024) {
          bad = true;
          break;
        }
        if (end - arg < blen + 2) break;
        if (i < 4) argv[i] = std::string_view(arg, static_cast<size_t>(blen));
        q = arg + blen + 2;
      }
      if (bad) {
        reply.append(kReplyProtocolError);
        c.closing = true;
        return len;
      }
      if (i < argc) break;  // incomplete: wait for more bytes
      p = q;
      if (argc <= 0) continue;  // `*0` / `*-1`: nothing to answer, as Redis does
      std::string_view cmd = argv[0];
      if (cmd.size() == 4 && equals_nocase(cmd, "ping")) {
        reply.append(kReplyPong);
      } else if (argc >= 3 && cmd.size() == 5 &&
                 (equals_nocase(cmd, "lpush") || equals_nocase(cmd, "rpush"))) {
        set_elem_size(argv[2].size());
        g_list.len += argc - 2;
        append_integer(reply, ':', g_list.len);
      } else if (argc == 2 && cmd.size() == 4 &&
                 (equals_nocase(cmd, "lpop") || equals_nocase(cmd, "rpop"))) {
        if (g_list.len > 0) {
          --g_list.len;
          reply.append(g_list.elem);
        } else {
          reply.append("$-1\r\n");
        }
      } else if (argc == 4 && cmd.size() == 6 && equals_nocase(cmd, "lrange")) {
        append_lrange(reply, to_ll(argv[2]), to_ll(argv[3]));
      } else if (cmd.size() == 4 && equals_nocase(cmd, "info")) {
        std::string body = "# Server\r\nprocess_id:" + std::to_string(::getpid()) + "\r\n";
        reply.append("$" + std::to_string(body.size()) + "\r\n" + body + "\r\n");
      } else if (argc == 3 && argv[0].size() == 6 && equals_nocase(argv[0], "config") &&
                 equals_nocase(argv[1], "get")) {
        if (equals_nocase(argv[2], "save")) {
          reply.append(kReplySave);
        } else if (equals_nocase(argv[2], "appendonly")) {
          reply.append(kReplyAppendonly);
        } else {
          reply.append("*0\r\n");
        }
      } else {
        reply.append(kReplyOne);
      }
    } else {
      // Inline request: one line; an empty line gets no reply (Redis does the same).
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (nl == nullptr) {
        if (end - p > 64 * 1024) {
          reply.append(kReplyProtocolError);
          c.closing = true;
          return len;
        }
        break;
      }
      std::string_view line(p, static_cast<size_t>(nl - p));
      p = nl + 1;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      if (line.empty()) continue;
      std::string_view first = line.substr(0, line.find(' '));
      reply.append(equals_nocase(first, "ping") ? kReplyPong : kReplyOne);
    }
  }
  return static_cast<size_t>(p - base);
}

class FloorServer {
 public:
  explicit FloorServer(int listen_fd) : listen_fd_(listen_fd) {}

  int run() {
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epfd_ < 0) {
      std::perror("epoll_create1");
      return 1;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = listen_fd_;
    if (epoll_ctl(epfd_, EPOLL_CTL_ADD, listen_fd_, &ev) != 0) {
      std::perror("epoll_ctl");
      return 1;
    }
    std::vector<epoll_event> events(1024);
    for (;;) {
      int n = epoll_wait(epfd_, events.data(), static_cast<int>(events.size()), -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::perror("epoll_wait");
        return 1;
      }
      for (int i = 0; i < n; ++i) {
        int fd = events[static_cast<size_t>(i)].data.fd;
        uint32_t what = events[static_cast<size_t>(i)].events;
        if (fd == listen_fd_) {
          accept_all();
          continue;
        }
        auto it = conns_.find(fd);
        if (it == conns_.end()) continue;
        Connection& c = *it->second;
        if (what & EPOLLOUT) {
          if (!flush_pending(c)) {
            close_conn(fd);
            continue;
          }
        }
        if (what & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
          if (!on_readable(c)) close_conn(fd);
        }
      }
    }
  }

 private:
  void accept_all() {
    for (;;) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) std::perror("accept4");
        return;
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        ::close(fd);
        continue;
      }
      conns_.emplace(fd, std::move(c));
    }
  }

  // One read per readiness event; answers what is complete with one write. The read goes into a
  // shared scratch buffer when the connection has no leftover bytes (the common case), so idle
  // connections cost no buffer memory; an incomplete request is kept in the connection's own
  // buffer and the next read appends to it.
  bool on_readable(Connection& c) {
    ssize_t r;
    reply_.clear();
    if (c.in.empty()) {
      r = ::read(c.fd, scratch_.get(), kReadChunk);
      if (r <= 0) return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
      size_t n = static_cast<size_t>(r);
      size_t used = parse_requests(c, scratch_.get(), n, reply_);
      if (used < n) c.in.assign(scratch_.get() + used, n - used);
    } else {
      size_t old = c.in.size();
      c.in.resize(old + kReadChunk);
      r = ::read(c.fd, c.in.data() + old, kReadChunk);
      if (r <= 0) {
        c.in.resize(old);
        return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
      }
      c.in.resize(old + static_cast<size_t>(r));
      size_t used = parse_requests(c, c.in.data(), c.in.size(), reply_);
      c.in.erase(0, used);
    }
    if (reply_.empty()) return !c.closing;
    if (c.want_write) {
      c.out.append(reply_);  // earlier output still queued: keep the order
      return true;
    }
    ssize_t w = ::write(c.fd, reply_.data(), reply_.size());
    if (w < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
      w = 0;
    }
    if (static_cast<size_t>(w) < reply_.size()) {
      c.out.assign(reply_, static_cast<size_t>(w), std::string::npos);
      set_want_write(c, true);
      return true;
    }
    return !c.closing;
  }

  bool flush_pending(Connection& c) {
    while (!c.out.empty()) {
      ssize_t w = ::write(c.fd, c.out.data(), c.out.size());
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        return false;
      }
      c.out.erase(0, static_cast<size_t>(w));
    }
    set_want_write(c, false);
    return !c.closing;
  }

  void set_want_write(Connection& c, bool on) {
    if (c.want_write == on) return;
    c.want_write = on;
    epoll_event ev{};
    ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
    ev.data.fd = c.fd;
    epoll_ctl(epfd_, EPOLL_CTL_MOD, c.fd, &ev);
  }

  void close_conn(int fd) {
    epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns_.erase(fd);
  }

  int listen_fd_;
  int epfd_ = -1;
  std::unordered_map<int, std::unique_ptr<Connection>> conns_;
  std::string reply_;
  std::unique_ptr<char[]> scratch_ = std::make_unique<char[]>(kReadChunk);
};

void usage() { std::fprintf(stderr, "usage: epoll_floor --port N [--bind ADDR]\n"); }

}  // namespace

int main(int argc, char** argv) {
  int port = -1;
  const char* bind_addr = "127.0.0.1";
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--port" && i + 1 < argc) {
      port = std::atoi(argv[++i]);
    } else if (a == "--bind" && i + 1 < argc) {
      bind_addr = argv[++i];
    } else {
      usage();
      return 2;
    }
  }
  if (port <= 0 || port > 65535) {
    usage();
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  // Many idle connections in the scale test: take every descriptor the hard limit allows.
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }

  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    std::perror("socket");
    return 1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, bind_addr, &addr.sin_addr) != 1) {
    std::fprintf(stderr, "epoll_floor: bad bind address %s\n", bind_addr);
    return 2;
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    std::perror("bind");
    return 1;
  }
  if (listen(fd, 4096) != 0) {
    std::perror("listen");
    return 1;
  }
  std::fprintf(stderr, "epoll_floor: listening on %s:%d\n", bind_addr, port);
  FloorServer server(fd);
  return server.run();
}
