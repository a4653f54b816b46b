// Fuzz target for the AOF loader (listd::persistence::load_aof_bytes: RESP commands, `#`
// annotations, torn tails, unfinished MULTI), with an RDB preamble when the file starts with
// "REDIS" (load_rdb, then the commands after it, as DataLoader::replay reads a base file).
//
// Invariants checked for every input:
//  - loading never crashes or reads out of bounds; offsets stay within the input
//    (valid_up_to <= end_offset <= size); a refusal carries an error text;
//  - what loads is re-encoded (append_resp_command) and loads again as the same commands;
//  - a torn tail cut at valid_up_to (what DataLoader does when aof-load-truncated allows it)
//    loads cleanly, as the commands seen before the cut (all of them, or those before the
//    reverted MULTI): repairing never loses or adds a command.
// Seeds: tests/fuzz/corpus/aof/ (the aof_loader unit tests' shapes, an RDB-preamble file).
//
// Built as a libFuzzer target with clang; with LISTD_FUZZ_REPLAY it gets a main() (fuzz_replay.h)
// that runs the committed seeds and a fixed number of their mutations, for CI's gcc builds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "listd/persistence/aof_encoder.h"
#include "listd/persistence/aof_loader.h"
#include "listd/persistence/rdb.h"
#include "listd/store/database.h"

namespace {

using namespace listd::persistence;
using Commands = std::vector<std::vector<std::string>>;

[[noreturn]] void die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "aof_loader invariant violated: %s: %.*s\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

AofLoadResult load(std::string_view bytes, Commands& seen) {
  const AofCommandSink sink = [&seen](std::span<const std::string_view> argv, std::string&) {
    seen.emplace_back(argv.begin(), argv.end());
    return true;
  };
  return load_aof_bytes(bytes, sink);
}

bool is_prefix(const Commands& part, const Commands& whole) {
  if (part.size() > whole.size()) return false;
  for (std::size_t i = 0; i < part.size(); ++i)
    if (part[i] != whole[i]) return false;
  return true;
}

void check_commands(std::string_view bytes) {
  Commands seen;
  const AofLoadResult r = load(bytes, seen);
  if (r.valid_up_to > r.end_offset || r.end_offset > bytes.size())
    die("an offset past the input",
        std::to_string(r.valid_up_to) + " " + std::to_string(r.end_offset));
  if (r.commands != seen.size()) die("commands does not count the sink's calls", "");
  if ((r.status == AofLoadStatus::kEmpty) != bytes.empty()) die("kEmpty with bytes", "");
  if (r.status == AofLoadStatus::kFailed) {
    if (r.error.empty()) die("a refusal without an error", "");
    return;
  }
  std::string encoded;
  for (const auto& cmd : seen) {
    const std::vector<std::string_view> argv(cmd.begin(), cmd.end());
    append_resp_command(encoded, argv);
  }
  Commands again;
  const AofLoadResult second = load(encoded, again);
  if (second.status == AofLoadStatus::kFailed) die("re-encoded commands refused", second.error);
  if (r.status == AofLoadStatus::kOk && again != seen) die("re-encoded commands differ", "");
  if (r.status != AofLoadStatus::kTruncated) return;
  Commands kept;
  const AofLoadResult cut = load(bytes.substr(0, r.valid_up_to), kept);
  if (cut.status != AofLoadStatus::kOk && cut.status != AofLoadStatus::kEmpty)
    die("the repaired file does not load", cut.error);
  if (r.reverted_multi ? !is_prefix(kept, seen) : kept != seen)
    die("the repaired file has other commands", "");
}

// DataLoader::replay's base-file path: the RDB part, then commands after it.
void check_preamble(std::string_view bytes) {
  listd::store::Keyspace keyspace(16);
  RdbLoadOptions options;
  options.now_ms = 0;
  options.skip_expired = false;
  const RdbLoadResult rdb = load_rdb(bytes, keyspace, options);
  if (!rdb.ok) {
    if (rdb.error.empty()) die("an RDB refusal without an error", "");
    return;
  }
  if (rdb.consumed > bytes.size()) die("the preamble ends past the input", "");
  check_commands(bytes.substr(rdb.consumed));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.starts_with("REDIS"))
    check_preamble(bytes);
  else
    check_commands(bytes);
  return 0;
}

#ifdef LISTD_FUZZ_REPLAY
#include "fuzz_replay.h"
int main(int argc, char** argv) { return listd::fuzz::replay_main(argc, argv, "aof_loader"); }
#endif
