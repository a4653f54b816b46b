// A small raw-socket RESP client for byte-exact integration tests: sends exactly the bytes a test
// gives (malformed requests, inline commands, 1-byte writes) and returns replies as the raw bytes
// the server wrote, one complete RESP2/RESP3 reply at a time.
//
//   RespClient c(server.port());
//   EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
//   c.send("*a\r\n");
//   EXPECT_EQ(c.read_reply(), "-ERR Protocol error: invalid multibulk length\r\n");
//   EXPECT_TRUE(c.wait_closed());
//
// Every read is bounded by a timeout (default 10 s): a server that never answers fails the test
// with an exception instead of hanging it. Not thread-safe; one client per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace listd::testing {

/// `*<n>\r\n$<len>\r\n<arg>\r\n...`: the RESP2 multibulk encoding of a command.
inline std::string encode_command(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out += a;
    out += "\r\n";
  }
  return out;
}

/// Length of the first complete RESP2/RESP3 reply in buf, or 0 if buf holds only part of one.
/// Throws std::runtime_error on bytes that cannot start a reply.
inline std::size_t complete_reply_length(std::string_view buf, std::size_t pos = 0) {
  if (pos >= buf.size()) return 0;
  const std::size_t eol = buf.find("\r\n", pos);
  if (eol == std::string_view::npos) return 0;
  const char type = buf[pos];
  const std::string_view head = buf.substr(pos + 1, eol - pos - 1);
  const std::size_t after_line = eol + 2;
  auto number = [&]() -> long long {
    try {
      return std::stoll(std::string(head));
    } catch (...) {
      throw std::runtime_error("malformed RESP length line: " +
                               std::string(buf.substr(pos, eol - pos)));
    }
  };
  switch (type) {
    case '+':
    case '-':
    case ':':
    case ',':
    case '_':
    case '#':
    case '(': return after_line - pos;
    case '$':
    case '!':
    case '=': {
      const long long len = number();
      if (len < 0) return after_line - pos;  // $-1 null bulk
      const std::size_t end = after_line + static_cast<std::size_t>(len) + 2;
      return end <= buf.size() ? end - pos : 0;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const long long n = number();
      if (n < 0) return after_line - pos;  // *-1 null array
      const long long items = (type == '%' || type == '|') ? 2 * n : n;
      std::size_t at = after_line;
      for (long long i = 0; i < items; ++i) {
        const std::size_t len = complete_reply_length(buf, at);
        if (len == 0) return 0;
        at += len;
      }
      if (type == '|') {  // an attribute precedes the reply it describes
        const std::size_t len = complete_reply_length(buf, at);
        if (len == 0) return 0;
        at += len;
      }
      return at - pos;
    }
    default:
      throw std::runtime_error(
          "not a RESP reply at byte " + std::to_string(pos) + ": '" +
          std::string(buf.substr(pos, std::min<std::size_t>(40, buf.size() - pos))) + "'");
  }
}

class RespClient {
 public:
  using Ms = std::chrono::milliseconds;
  static constexpr Ms kDefaultTimeout{10000};

  explicit RespClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("socket() failed");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  RespClient(const RespClient&) = delete;
  RespClient& operator=(const RespClient&) = delete;
  ~RespClient() {
    if (fd_ >= 0) ::close(fd_);
  }

  int fd() const { return fd_; }

  /// Writes all of bytes (one write() call when the socket takes it). False if the peer is gone.
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  /// Sends bytes one byte per write, with TCP_NODELAY, so the server sees many short reads.
  bool send_bytewise(std::string_view bytes) {
    for (char ch : bytes) {
      if (!send(std::string_view(&ch, 1))) return false;
    }
    return true;
  }

  bool send_command(const std::vector<std::string>& args) { return send(encode_command(args)); }

  /// Sends a command and returns its raw reply bytes.
  std::string call(const std::vector<std::string>& args, Ms timeout = kDefaultTimeout) {
    if (!send_command(args)) throw std::runtime_error("send failed: connection closed");
    return read_reply(timeout);
  }

  /// The next complete reply (raw bytes). Throws on timeout or if the server closes first.
  std::string read_reply(Ms timeout = kDefaultTimeout) {
    std::optional<std::string> r = try_read_reply(timeout);
    if (!r) {
      throw std::runtime_error(closed_
                                   ? "connection closed before a complete reply; got '" + buf_ + "'"
                                   : "timed out waiting for a reply; got '" + buf_ + "'");
    }
    return *r;
  }

  /// The next complete reply, or nullopt on timeout / close (buffered partial bytes are kept).
  std::optional<std::string> try_read_reply(Ms timeout = kDefaultTimeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const std::size_t len = complete_reply_length(buf_);
      if (len > 0) {
        std::string reply = buf_.substr(0, len);
        buf_.erase(0, len);
        return reply;
      }
      if (!fill(deadline)) return std::nullopt;
    }
  }

  /// Exactly n bytes (e.g. 10,000 pipelined replies at once). Throws on timeout or close.
  std::string read_exact(std::size_t n, Ms timeout = kDefaultTimeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (buf_.size() < n) {
      if (!fill(deadline)) {
        throw std::runtime_error("got " + std::to_string(buf_.size()) + " of " + std::to_string(n) +
                                 " bytes (" + (closed_ ? "closed" : "timeout") + ")");
      }
    }
    std::string out = buf_.substr(0, n);
    buf_.erase(0, n);
    return out;
  }

  /// Everything that arrives within `quiet` (reading stops at close). For "no reply" checks.
  std::string read_for(Ms quiet) {
    const auto deadline = std::chrono::steady_clock::now() + quiet;
    while (fill(deadline)) {
    }
    std::string out;
    out.swap(buf_);
    return out;
  }

  /// True once the server has closed the connection (EOF or reset) within timeout; any bytes
  /// that arrive first are kept in unread().
  bool wait_closed(Ms timeout = kDefaultTimeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!closed_) {
      if (!fill(deadline) && !closed_) return false;
    }
    return true;
  }

  /// Bytes received but not yet returned by a read_* call.
  const std::string& unread() const { return buf_; }
  bool closed() const { return closed_; }

 private:
  // One poll + recv. False on timeout or once the peer has closed.
  bool fill(std::chrono::steady_clock::time_point deadline) {
    if (closed_) return false;
    for (;;) {
      const auto left = std::chrono::duration_cast<Ms>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      char tmp[64 * 1024];
      const ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {  // EOF, or ECONNRESET when the server closed with unread input
        closed_ = true;
        return false;
      }
      buf_.append(tmp, static_cast<std::size_t>(n));
      return true;
    }
  }

  int fd_ = -1;
  std::string buf_;
  bool closed_ = false;
};

}  // namespace listd::testing

namespace listd::testing {

/// Printable form of raw bytes for failure messages: CR/LF and non-printables as escapes.
inline std::string escape_bytes(std::string_view s, std::size_t max = 400) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max) {
      out += "...(" + std::to_string(s.size()) + " bytes)";
      break;
    }
    const auto ch = static_cast<unsigned char>(s[i]);
    switch (ch) {
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (ch >= 0x20 && ch < 0x7f) {
          out += static_cast<char>(ch);
        } else {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[ch >> 4];
          out += kHex[ch & 15];
        }
    }
  }
  return out;
}

/// True if the server at port knows the command: COMMAND INFO returns an entry for it (an unknown
/// name gives a one-element array holding a null). Never runs the command itself.
inline bool server_has_command(int port, const std::string& name) {
  RespClient c(port);
  const std::string r = c.call({"COMMAND", "INFO", name});
  return r.rfind("*1\r\n*", 0) == 0 && r.rfind("*1\r\n*-1\r\n", 0) != 0;
}

}  // namespace listd::testing
