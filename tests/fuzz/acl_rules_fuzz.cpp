// Fuzz target for the ACL rule language and the aclfile loader (listd::server::Acl::set_user,
// AclUser / AclSelector rules, parse_acl_file).
//
// Input: byte 0 picks the mode: even, the rest is an aclfile's text; odd, it is one ACL SETUSER
// (rules split on spaces, a rule "(...)" spanning spaces merged as Redis merges selectors).
// Invariants checked for every input:
//  - neither path crashes; a refused SETUSER leaves the user as it was (all or nothing);
//  - an accepted user, described as ACL LIST does (describe()), is accepted again from that
//    description, and describes itself the same way (the description is a fixed point, so
//    ACL SAVE then ACL LOAD keeps every user).
//
// Built as a libFuzzer target with clang; with LISTD_FUZZ_REPLAY it gets a main() (fuzz_replay.h)
// that runs the committed seeds and a fixed number of their mutations, for CI's gcc builds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/acl.h"
#include "listd/server/acl_file.h"
#include "listd/server/acl_user.h"
#include "listd/server/command_table.h"

namespace {

using namespace listd::server;

[[noreturn]] void die(const char* what, std::string_view input, std::string_view detail) {
  std::fprintf(stderr, "acl invariant violated: %s\n%.*s\ninput: %s\n", what,
               static_cast<int>(detail.size()), detail.data(),
               listd::base::repr(input.substr(0, 512)).c_str());
  std::abort();
}

const CommandTable& table() {
  static const CommandTable t = CommandTable::with_all_commands();
  return t;
}

std::vector<std::string_view> split_rules(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// A selector whose inner rule ends in ")" ("(+set ~w*erous))"): its description does not read
// back in redis-server 7.0.15 either (unit test AclRules.PatternEndingInParenthesis...), so the
// round trip is not asked of it.
bool selector_pattern_ends_in_parenthesis(const std::vector<std::string>& merged) {
  for (const std::string& rule : merged) {
    if (rule.size() < 2 || rule.front() != '(' || rule.back() != ')') continue;
    for (std::string_view inner : split_rules(std::string_view(rule).substr(1, rule.size() - 2)))
      if (inner.back() == ')') return true;
  }
  return false;
}

// SETUSER, then the description round trip.
void check_setuser(std::string_view input) {
  Acl acl(table());
  std::string merge_error;
  const std::vector<std::string> merged = merge_selector_arguments(split_rules(input), merge_error);
  if (!merge_error.empty()) return;
  const std::vector<std::string_view> rules(merged.begin(), merged.end());
  std::unique_ptr<AclUser> previous;
  if (!acl.set_user("fuzz", rules, previous).empty()) {
    if (acl.find("fuzz")) die("a refused SETUSER created the user", input, "");
    return;
  }
  const std::string described = acl.find("fuzz")->describe();
  if (selector_pattern_ends_in_parenthesis(merged)) return;
  // A NUL byte in a selector's rule: Redis 7.0.15 describes the selector only up to it (its
  // patterns are printed as C strings), so that description does not read back there either.
  if (input.find('\0') != std::string_view::npos) return;
  Acl fresh(table());
  std::string again_error;
  const std::vector<std::string> again_merged =
      merge_selector_arguments(split_rules(described), again_error);
  if (!again_error.empty()) die("the description does not split", input, described);
  const std::vector<std::string_view> again(again_merged.begin(), again_merged.end());
  if (const std::string err = fresh.set_user("fuzz", again, previous); !err.empty())
    die("the description is refused", input, described + "\n" + err);
  if (fresh.find("fuzz")->describe() != described)
    die("the description changes on reload", input,
        described + "\n" + fresh.find("fuzz")->describe());
}

void check_aclfile(std::string_view input) {
  Acl acl(table());
  AclUserSet users;
  const std::string err = parse_acl_file(acl, input, "fuzz.acl", users);
  if (err.empty() && users.find("default") == users.end())
    die("a loaded aclfile has no default user", input, "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1)
    check_setuser(input);
  else
    check_aclfile(input);
  return 0;
}

#ifdef LISTD_FUZZ_REPLAY
#include "fuzz_replay.h"
int main(int argc, char** argv) { return listd::fuzz::replay_main(argc, argv, "acl_rules"); }
#endif
