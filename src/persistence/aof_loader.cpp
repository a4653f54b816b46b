#include "listd/persistence/aof_loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "listd/base/redis_text.h"

namespace listd::persistence {
namespace {

using base::iequals;

constexpr std::size_t kChunk = 1 << 20;

// A window on the bytes: avail() starts at the current position; fill(n) tries to make n bytes
// available (false at end of input); consume(n) moves on.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::string_view avail() const = 0;
  virtual bool fill(std::size_t n) = 0;
  virtual void consume(std::size_t n) = 0;
  virtual std::uint64_t offset() const = 0;
  virtual bool failed(std::string& err) const { return false; }
};

class BytesSource final : public Source {
 public:
  BytesSource(std::string_view d, std::uint64_t base) : d_(d), base_(base) {}
  std::string_view avail() const override { return d_.substr(pos_); }
  bool fill(std::size_t n) override { return d_.size() - pos_ >= n; }
  void consume(std::size_t n) override { pos_ += n; }
  std::uint64_t offset() const override { return base_ + pos_; }

 private:
  std::string_view d_;
  std::uint64_t base_;
  std::size_t pos_ = 0;
};

class FileSource final : public Source {
 public:
  FileSource(int fd, std::uint64_t start) : fd_(fd), off_(start) {}
  std::string_view avail() const override {
    return std::string_view(buf_.data() + pos_, end_ - pos_);
  }
  bool fill(std::size_t n) override {
    while (end_ - pos_ < n) {
      if (eof_ || io_error_) return false;
      if (pos_ > 0) {  // compact
        std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
        end_ -= pos_;
        pos_ = 0;
      }
      const std::size_t want = std::max(kChunk, n - (end_ - pos_));
      if (buf_.size() < end_ + want) buf_.resize(end_ + want);
      const ssize_t r = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
      if (r < 0) {
        if (errno == EINTR) continue;
        io_error_ = errno;
        return false;
      }
      if (r == 0) eof_ = true;
      end_ += static_cast<std::size_t>(r);
    }
    return true;
  }
  void consume(std::size_t n) override {
    pos_ += n;
    off_ += n;
  }
  std::uint64_t offset() const override { return off_; }
  bool failed(std::string& err) const override {
    if (!io_error_) return false;
    err = std::strerror(io_error_);
    return true;
  }

 private:
  int fd_;
  std::uint64_t off_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  int io_error_ = 0;
};

enum class Step { kCommand, kComment, kIncomplete, kFormatError };

// Parses a non-negative decimal after the prefix of a header line [p, line_end): Redis uses
// atoi/strtol, which stop at the first non-digit; listd wants digits then CR.
bool parse_header_number(std::string_view line, long long& out) {
  // line excludes '\n'; allow an optional trailing '\r'
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line.size() > 18) return false;
  long long v = 0;
  for (char c : line) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

// One step at the current position. On kCommand, `consumed` bytes form the command and argv
// views point into the source window.
Step parse_step(Source& src, std::vector<std::string_view>& argv, std::size_t& consumed,
                std::string& err) {
  argv.clear();
  // Lines are searched in the window; widen it until the line ends.
  auto find_line = [&](std::size_t from, std::size_t& nl) -> bool {
    for (;;) {
      const std::string_view a = src.avail();
      const std::size_t p = a.find('\n', from);
      if (p != std::string_view::npos) {
        nl = p;
        return true;
      }
      if (!src.fill(a.size() + 1)) return false;
    }
  };
  if (!src.fill(1)) return Step::kIncomplete;
  std::size_t nl = 0;
  const char first = src.avail()[0];
  if (first == '#') {
    if (!find_line(0, nl)) return Step::kIncomplete;
    consumed = nl + 1;
    return Step::kComment;
  }
  if (first != '*') {
    err = "Bad file format (expected '*')";
    return Step::kFormatError;
  }
  if (!find_line(0, nl)) return Step::kIncomplete;
  long long argc = 0;
  if (!parse_header_number(src.avail().substr(1, nl - 1), argc) || argc < 1) {
    err = "Bad file format (invalid multibulk length)";
    return Step::kFormatError;
  }
  std::size_t p = nl + 1;
  // Offsets first: the window may move while filling, so views are made at the end.
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  spans.reserve(static_cast<std::size_t>(std::min<long long>(argc, 1024)));
  for (long long j = 0; j < argc; ++j) {
    if (!src.fill(p + 1)) return Step::kIncomplete;
    if (src.avail()[p] != '$') {
      err = "Bad file format (expected '$')";
      return Step::kFormatError;
    }
    if (!find_line(p, nl)) return Step::kIncomplete;
    long long len = 0;
    if (!parse_header_number(src.avail().substr(p + 1, nl - p - 1), len)) {
      err = "Bad file format (invalid bulk length)";
      return Step::kFormatError;
    }
    p = nl + 1;
    const std::size_t ulen = static_cast<std::size_t>(len);
    if (!src.fill(p + ulen + 2)) return Step::kIncomplete;
    const std::string_view a = src.avail();
    if (a[p + ulen] != '\r' || a[p + ulen + 1] != '\n') {
      err = "Bad file format (bulk not followed by CRLF)";
      return Step::kFormatError;
    }
    spans.emplace_back(p, ulen);
    p += ulen + 2;
  }
  const std::string_view a = src.avail();
  for (auto [off, len] : spans) argv.push_back(a.substr(off, len));
  consumed = p;
  return Step::kCommand;
}

AofLoadResult run(Source& src, const AofCommandSink& sink, const AofProgress& progress) {
  AofLoadResult r;
  const std::uint64_t start = src.offset();
  r.valid_up_to = start;
  std::uint64_t before_multi = start;
  bool in_multi = false;
  std::vector<std::string_view> argv;
  std::string err;
  for (;;) {
    std::size_t consumed = 0;
    const std::uint64_t at = src.offset();
    const Step s = parse_step(src, argv, consumed, err);
    if (s == Step::kIncomplete) {
      std::string ioerr;
      if (src.failed(ioerr)) {
        r.status = AofLoadStatus::kFailed;
        r.error = "Unrecoverable error reading the append only file: " + ioerr;
        r.error_offset = at;
        r.end_offset = at;
        return r;
      }
      const std::uint64_t total = at + src.avail().size();
      r.end_offset = total;
      if (total == start) {
        r.status = AofLoadStatus::kEmpty;
        return r;
      }
      if (in_multi) {
        r.reverted_multi = true;
        r.valid_up_to = before_multi;
      }
      r.status = (total == r.valid_up_to) ? AofLoadStatus::kOk : AofLoadStatus::kTruncated;
      return r;
    }
    if (s == Step::kFormatError) {
      r.status = AofLoadStatus::kFailed;
      r.error = err;
      r.error_offset = at;
      r.end_offset = at;
      return r;
    }
    if (s == Step::kCommand) {
      if (iequals(argv[0], "multi")) {
        // A MULTI inside an open one does not start a transaction (the client stays in the
        // first): the cut goes before the first, or the repaired file ends inside it.
        if (!in_multi) before_multi = at;
        in_multi = true;
      } else if (iequals(argv[0], "exec") || iequals(argv[0], "discard")) {
        in_multi = false;
      }
      if (!sink(argv, err)) {
        r.status = AofLoadStatus::kFailed;
        r.error = err;
        r.error_offset = at;
        r.end_offset = at;
        return r;
      }
      ++r.commands;
    }
    src.consume(consumed);
    r.valid_up_to = src.offset();
    if (s == Step::kCommand && progress && r.commands % kAofProgressCommands == 0 &&
        !progress(src.offset())) {
      r.status = AofLoadStatus::kFailed;
      r.interrupted = true;
      r.error = "Loading interrupted";
      r.error_offset = r.end_offset = src.offset();
      return r;
    }
  }
}

}  // namespace

AofLoadResult load_aof_bytes(std::string_view data, const AofCommandSink& sink,
                             std::uint64_t base_offset, const AofProgress& progress) {
  BytesSource src(data, base_offset);
  return run(src, sink, progress);
}

AofLoadResult load_aof_file(const std::string& path, const AofCommandSink& sink,
                            std::uint64_t start_offset, const AofProgress& progress) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    AofLoadResult r;
    r.status = AofLoadStatus::kFailed;
    r.error = std::string("Can't open the append-only file: ") + std::strerror(errno);
    return r;
  }
  if (start_offset > 0 && ::lseek(fd, static_cast<off_t>(start_offset), SEEK_SET) < 0) {
    AofLoadResult r;
    r.status = AofLoadStatus::kFailed;
    r.error = std::string("Can't seek in the append-only file: ") + std::strerror(errno);
    ::close(fd);
    return r;
  }
  FileSource src(fd, start_offset);
  AofLoadResult r = run(src, sink, progress);
  ::close(fd);
  return r;
}

}  // namespace listd::persistence
