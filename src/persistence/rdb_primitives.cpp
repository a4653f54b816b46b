// RDB primitives: see rdb_primitives.h.
#include "rdb_primitives.h"

#include <algorithm>

namespace listd::persistence::rdb {

void append_len(std::string& buf, std::uint64_t n) {
  if (n < (1u << 6)) {
    buf.push_back(static_cast<char>(n));
  } else if (n < (1u << 14)) {
    buf.push_back(static_cast<char>(0x40 | (n >> 8)));
    buf.push_back(static_cast<char>(n & 0xff));
  } else if (n <= 0xffffffffull) {
    buf.push_back(static_cast<char>(0x80));
    for (int i = 3; i >= 0; --i) buf.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  } else {
    buf.push_back(static_cast<char>(0x81));
    for (int i = 7; i >= 0; --i) buf.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  }
}

std::string lzf_decompress(std::string_view in, std::size_t out_len) {
  std::string out;
  // out_len is untrusted (a RESTORE payload): reserve no more than LZF can expand `in` to.
  out.reserve(std::min(out_len, in.size() * 4));
  std::size_t ip = 0;
  while (ip < in.size()) {
    unsigned ctrl = static_cast<unsigned char>(in[ip++]);
    if (ctrl < 32) {
      ++ctrl;
      if (ip + ctrl > in.size() || out.size() + ctrl > out_len)
        throw ParseError{"Invalid LZF compressed string"};
      out.append(in.substr(ip, ctrl));
      ip += ctrl;
    } else {
      std::size_t l = ctrl >> 5;
      if (ip >= in.size()) throw ParseError{"Invalid LZF compressed string"};
      if (l == 7) {
        l += static_cast<unsigned char>(in[ip++]);
        if (ip >= in.size()) throw ParseError{"Invalid LZF compressed string"};
      }
      const std::size_t back = ((ctrl & 0x1f) << 8) + static_cast<unsigned char>(in[ip++]) + 1;
      l += 2;
      if (back > out.size() || out.size() + l > out_len)
        throw ParseError{"Invalid LZF compressed string"};
      std::size_t ref = out.size() - back;
      for (std::size_t i = 0; i < l; ++i) out.push_back(out[ref + i]);
    }
  }
  if (out.size() != out_len) throw ParseError{"Invalid LZF compressed string"};
  return out;
}

}  // namespace listd::persistence::rdb
