// Reply encoding for RESP2 and RESP3 through one writer that knows the connection's protocol.
//
// API: ReplyWriter appends encoded replies to a caller-owned std::string (the client's output
// buffer). Each method encodes one value; aggregate headers (array/map/set/push) are followed by
// their elements. Types RESP2 lacks are downgraded exactly as Redis 7 does: null -> `$-1`, null
// array -> `*-1`, map -> flat array of 2n, set -> array, double -> bulk string, verbatim -> bulk,
// boolean -> integer.
// Invariant: error texts never contain CR or LF (they are replaced by spaces, as Redis does).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace listd::protocol {

enum class RespVersion : std::uint8_t { kResp2 = 2, kResp3 = 3 };

class ReplyWriter {
 public:
  ReplyWriter(std::string& out, RespVersion version) noexcept : out_(&out), version_(version) {}

  RespVersion version() const noexcept { return version_; }
  bool resp3() const noexcept { return version_ == RespVersion::kResp3; }

  /// `+text`: text must not contain CR/LF.
  void simple(std::string_view text);
  /// `-text`: text is the whole message including its code, e.g. "ERR syntax error".
  void error(std::string_view text);
  void integer(long long value);
  void bulk(std::string_view bytes);
  /// Null bulk in RESP2 (`$-1`), `_` in RESP3.
  void null();
  /// Null array in RESP2 (`*-1`), `_` in RESP3.
  void null_array();
  void array_header(std::size_t count);
  /// A map of `pairs` key/value pairs (RESP2: array of 2*pairs).
  void map_header(std::size_t pairs);
  void set_header(std::size_t count);
  /// Out-of-band push (RESP3 `>`, RESP2 array).
  void push_header(std::size_t count);
  /// A double formatted as Redis 7 formats doubles (RESP3 `,`, RESP2 bulk).
  void double_value(double value);
  /// Verbatim text (RESP3 `=len\r\ntxt:...`, RESP2 bulk).
  void verbatim(std::string_view text);
  void boolean(bool value);
  /// Bytes already encoded by the caller.
  void raw(std::string_view bytes) { out_->append(bytes); }

  /// `"OK"` as a simple string, the most common reply.
  void ok() { out_->append("+OK\r\n", 5); }

 private:
  void header(char type, long long n);
  std::string* out_;
  RespVersion version_;
};

/// Formats a double as Redis 7.0 does in replies (`%.17g`, `inf`, `-inf`, `nan`).
std::string format_double(double value);

/// Appends the decimal form of `value` to `out` without allocating a temporary.
void append_integer(std::string& out, long long value);

}  // namespace listd::protocol
