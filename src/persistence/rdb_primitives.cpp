// RDB primitives: see rdb_primitives.h.
#include "rdb_primitives.h"

#include <algorithm>

#include "listd/base/lzf.h"

namespace listd::persistence::rdb {
namespace {

// Redis rdbSaveRawString: at 20 bytes or less LZF cannot save the 4 bytes
// rdbSaveLzfStringObject requires (not even of "aaaaaaaaaaaaaaaaaaaa").
constexpr std::size_t kLzfMinInput = 21;
constexpr std::size_t kLzfMinSaving = 4;
// The largest compression scratch kept between strings (a thread holds at most this much
// after a DUMP); a longer string's is allocated for it and freed after it.
constexpr std::size_t kLzfScratchKept = 64 * 1024;

// Appends `s` as RDB_ENC_LZF if it compresses to at most s.size() - 4 bytes; false otherwise
// (nothing appended).
bool append_lzf(std::string& buf, std::string_view s) {
  // One scratch buffer a thread (the fork child's writer, the main thread's DUMP), grown up to
  // kLzfScratchKept and never shrunk, so a string costs no allocation and no zero-fill.
  thread_local std::string scratch;
  const std::size_t cap = s.size() - kLzfMinSaving;
  std::string large;
  std::string& out = cap <= kLzfScratchKept ? scratch : large;
  if (out.size() < cap) out.resize(cap);
  const std::size_t clen = base::lzf_compress(s.data(), s.size(), out.data(), cap);
  if (clen == 0) return false;
  buf.push_back(static_cast<char>(0xC0 | 3));  // RDB_ENCVAL << 6 | RDB_ENC_LZF
  append_len(buf, clen);
  append_len(buf, s.size());
  buf.append(out.data(), clen);
  return true;
}

}  // namespace

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

void append_string(std::string& buf, std::string_view s, bool compress) {
  if (compress && s.size() >= kLzfMinInput && append_lzf(buf, s)) return;
  append_len(buf, s.size());
  buf.append(s);
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
