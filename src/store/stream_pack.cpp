#include "listd/store/stream_pack.h"

#include "listpack_codec.h"

namespace listd::store {

namespace {

// What an element of `len` bytes (encoding + data) takes in Redis' listpack.
std::size_t redis_element_bytes(std::size_t len) noexcept {
  return len + lp_codec::backlen_size(len);
}

}  // namespace

StreamPack::StreamPack() {
  buf_.assign(kHeaderSize, '\0');
  set_bytes(kHeaderSize + 1);  // Redis' empty listpack: the header and the terminator
}

std::size_t StreamPack::bytes() const noexcept {
  return lp_codec::read_le(reinterpret_cast<const unsigned char*>(buf_.data()), 4);
}

void StreamPack::set_bytes(std::size_t redis_bytes) noexcept {
  lp_codec::write_header(buf_, redis_bytes, count_);
}

StreamPack StreamPack::from_listpack(const Listpack& lp) {
  StreamPack out;
  const std::string_view raw = lp.raw();
  out.buf_.assign(raw.substr(0, kHeaderSize));
  out.buf_.reserve(raw.size());
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  for (std::size_t pos = lp.first(); pos != Listpack::kNone; pos = lp.next(pos))
    out.buf_.append(raw.substr(pos, lp_codec::element_size(p + pos, raw.size() - pos)));
  out.count_ = lp.count();
  out.buf_.shrink_to_fit();
  return out;
}

std::string StreamPack::to_listpack() const {
  std::string out;
  out.reserve(bytes());
  out.assign(buf_, 0, kHeaderSize);
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data());
  for (std::size_t pos = first(); pos != kNone; pos = next(pos)) {
    const std::size_t len = lp_codec::element_size(p + pos, buf_.size() - pos);
    out.append(buf_, pos, len);
    lp_codec::put_backlen(out, len);
  }
  out.push_back(static_cast<char>(lp_codec::kEof));
  return out;
}

void StreamPack::append_encoded(const unsigned char* enc, std::size_t enc_len,
                                std::string_view data) {
  const std::size_t redis = bytes() + redis_element_bytes(enc_len + data.size());
  buf_.append(reinterpret_cast<const char*>(enc), enc_len);
  buf_.append(data);
  ++count_;
  set_bytes(redis);
}

void StreamPack::append_int(std::int64_t v) {
  unsigned char enc[9];
  append_encoded(enc, lp_codec::encode_int(v, enc), {});
}

void StreamPack::append_string(std::string_view s) {
  std::int64_t v = 0;
  if (lp_string_to_int64(s, v)) {
    append_int(v);
    return;
  }
  unsigned char enc[5];
  append_encoded(enc, lp_codec::encode_string_header(s.size(), enc), s);
}

void StreamPack::replace_int(std::size_t pos, std::int64_t v) {
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data()) + pos;
  const std::size_t old_len = lp_codec::element_size(p, buf_.size() - pos);
  unsigned char enc[9];
  const std::size_t n = lp_codec::encode_int(v, enc);
  const std::size_t redis = bytes() - redis_element_bytes(old_len) + redis_element_bytes(n);
  buf_.replace(pos, old_len, reinterpret_cast<const char*>(enc), n);
  if (last_entry_ != kNone && pos < last_entry_) last_entry_ = last_entry_ + n - old_len;
  set_bytes(redis);
}

// Past the end (kNone included) stays past the end, and at() there is an empty element: a node
// loaded from an RDB or a DUMP may hold fewer elements than its entries claim (the listpack
// itself is checked, its stream structure is not), and append_node walks it.
std::size_t StreamPack::next(std::size_t pos) const noexcept {
  if (pos >= buf_.size()) return kNone;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data());
  const std::size_t len = lp_codec::element_size(p + pos, buf_.size() - pos);
  if (len == kNone) return kNone;
  const std::size_t after = pos + len;
  return after >= buf_.size() ? kNone : after;
}

LpItem StreamPack::at(std::size_t pos) const noexcept {
  if (pos >= buf_.size()) return {};
  return lp_codec::decode(reinterpret_cast<const unsigned char*>(buf_.data()) + pos);
}

std::int64_t StreamPack::int_at(std::size_t pos) const noexcept {
  const LpItem it = at(pos);
  if (it.is_int) return it.integer;
  std::int64_t v = 0;
  return lp_string_to_int64(it.str, v) ? v : 0;
}

}  // namespace listd::store
