// Fuzz target for the multi-part AOF manifest parser (listd::persistence::parse_manifest,
// AofManifest::to_string: Redis 7.0's line rules, quoting, types and sequence checks).
//
// Invariants checked for every input:
//  - parsing never crashes; a refusal carries Redis' message, and its line number is within
//    the text;
//  - an accepted manifest, written again (to_string, what listd saves after a rewrite), parses
//    to the same manifest, and writes the same text again (a fixed point: a restart reads back
//    exactly the files listd wrote down), when it names a file at all (a manifest of comments
//    only is accepted as empty, as Redis does, and listd never writes one).
// Seeds: tests/fuzz/corpus/manifest/ (the manifest unit tests' shapes).
//
// Built as a libFuzzer target with clang; with LISTD_FUZZ_REPLAY it gets a main() (fuzz_replay.h)
// that runs the committed seeds and a fixed number of their mutations, for CI's gcc builds.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "listd/base/redis_text.h"
#include "listd/persistence/aof_manifest.h"

namespace {

using namespace listd::persistence;

[[noreturn]] void die(const char* what, std::string_view input, std::string_view detail) {
  std::fprintf(stderr, "aof_manifest invariant violated: %s\n%.*s\ninput: %s\n", what,
               static_cast<int>(detail.size()), detail.data(),
               listd::base::repr(input.substr(0, 512)).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  AofManifest m;
  ManifestError error;
  if (!parse_manifest(text, m, error)) {
    const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
    if (error.message.empty()) die("a refusal without a message", text, "");
    if (error.line < 0 || error.line > lines) die("an error line past the text", text, "");
    return 0;
  }
  // Only comments: Redis accepts it as a manifest of no files (lines counts comments); listd
  // never writes one (it writes a manifest when it has a base), and "" would be refused.
  if (!m.base && m.history.empty() && m.incrs.empty()) return 0;
  const std::string written = m.to_string();
  // A name whose quoted form (sdscatrepr's \xNN) makes a line longer than the parser reads
  // (1024 bytes) does not read back, in redis-server 7.0.15 either; not asked of it
  // (docs/FUZZING.md: found, left as Redis has it).
  for (std::size_t at = 0; at < written.size();) {
    const std::size_t end = written.find('\n', at);
    if (end - at + 1 > 1024) return 0;  // the line and its newline
    at = end + 1;
  }
  AofManifest again;
  ManifestError again_error;
  if (!parse_manifest(written, again, again_error))
    die("listd's own manifest is refused", text, written + "\n" + again_error.message);
  if (!(again == m)) die("the manifest read back differs", text, written);
  if (again.to_string() != written) die("the manifest text changes on reload", text, written);
  return 0;
}

#ifdef LISTD_FUZZ_REPLAY
#include "fuzz_replay.h"
int main(int argc, char** argv) { return listd::fuzz::replay_main(argc, argv, "aof_manifest"); }
#endif
