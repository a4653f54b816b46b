#include "listd/persistence/manifest_transitions.h"

#include <algorithm>

namespace listd::persistence {
namespace {

void add_history(AofManifest& m, AofFileInfo f) {
  f.type = AofFileType::kHistory;
  m.history.push_back(std::move(f));
}

}  // namespace

AofManifest with_next_incr(const AofManifest& m, std::string_view prefix) {
  AofManifest next = m;
  const long long seq = m.curr_incr_seq + 1;
  next.incrs.push_back({incr_file_name(prefix, seq), seq, AofFileType::kIncr});
  next.curr_incr_seq = seq;
  return next;
}

AofManifest with_new_base(const AofManifest& m, std::string_view prefix, long long base_seq,
                          std::size_t replaced_incrs) {
  AofManifest next = m;
  if (m.base) add_history(next, *m.base);
  const auto replaced = static_cast<std::ptrdiff_t>(std::min(replaced_incrs, m.incrs.size()));
  for (auto i = m.incrs.begin(); i != m.incrs.begin() + replaced; ++i) add_history(next, *i);
  next.incrs.erase(next.incrs.begin(), next.incrs.begin() + replaced);
  next.base = AofFileInfo{base_file_name(prefix, base_seq, true), base_seq, AofFileType::kBase};
  next.curr_base_seq = base_seq;
  return next;
}

AofManifest with_fresh_files(const AofManifest& m, std::string_view prefix) {
  return with_next_incr(with_new_base(m, prefix, m.curr_base_seq + 1, m.incrs.size()), prefix);
}

}  // namespace listd::persistence
