// Fuzz target for the redis.conf parser (listd::config::load_config_text: quoting, comments,
// line numbers, every option's codec) and CONFIG REWRITE's text transformation.
//
// Invariants checked for every input:
//  - loading never crashes; a refusal is one of Redis' fatal texts ("*** FATAL CONFIG FILE
//    ERROR (listd) ***" and the line);
//  - a text that loads, rewritten (rewrite_config_content), loads again into a fresh Config and
//    gives the same CONFIG GET * (the rewrite writes what was set, in a form that reads back).
// Inputs naming `include` are skipped (they would read files of this machine).
//
// Built as a libFuzzer target with clang; with LISTD_FUZZ_REPLAY it gets a main() (fuzz_replay.h)
// that runs the committed seeds and a fixed number of their mutations, for CI's gcc builds.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "listd/base/redis_text.h"
#include "listd/config/config.h"
#include "listd/config/config_file.h"

namespace {

[[noreturn]] void die(const char* what, std::string_view input, std::string_view detail) {
  std::fprintf(stderr, "config_file invariant violated: %s\n%.*s\ninput (%zu bytes): %s\n", what,
               static_cast<int>(detail.size()), detail.data(), input.size(),
               listd::base::repr(input.substr(0, 512)).c_str());
  std::abort();
}

bool names_include(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("include") != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (names_include(text)) return 0;
  listd::config::Config cfg;
  if (const auto err = listd::config::load_config_text(text, cfg)) {
    if (err->find("*** FATAL CONFIG FILE ERROR (listd) ***") == std::string::npos)
      die("a refusal without Redis' fatal header", text, *err);
    return 0;
  }
  const std::string rewritten = listd::config::rewrite_config_content(text, cfg);
  listd::config::Config again;
  if (const auto err = listd::config::load_config_text(rewritten, again))
    die("the rewritten file does not load", text, *err + "\nrewritten:\n" + rewritten);
  if (again.get("*") != cfg.get("*")) die("the rewritten file loads other values", text, rewritten);
  return 0;
}

#ifdef LISTD_FUZZ_REPLAY
#include "fuzz_replay.h"
int main(int argc, char** argv) { return listd::fuzz::replay_main(argc, argv, "config_file"); }
#endif
