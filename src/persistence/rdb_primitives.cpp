// RDB primitives: see rdb_primitives.h.
#include "rdb_primitives.h"

#include <algorithm>

#include "listd/base/lzf.h"

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
  // out_len is untrusted (a RESTORE payload): refuse what `in` cannot expand to before
  // allocating it.
  if (out_len / base::kLzfMaxExpansion > in.size())
    throw ParseError{"Invalid LZF compressed string"};
  std::string out(out_len, '\0');
  if (!base::lzf_decompress(in.data(), in.size(), out.data(), out_len))
    throw ParseError{"Invalid LZF compressed string"};
  return out;
}

}  // namespace listd::persistence::rdb
