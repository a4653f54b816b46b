// How the multi-part AOF manifest changes, as pure functions: the rewrite code computes the next
// manifest with these, makes the files match, and only then persists it (the switch point).
// Unit-tested without files or children (tests/unit/persistence/manifest_transitions_test.cpp).
//
// Every new file takes the next sequence number of its kind (curr_base_seq / curr_incr_seq + 1);
// files that leave the manifest become history (deleted once the new manifest is durable).
#pragma once

#include <cstddef>
#include <string_view>

#include "listd/persistence/aof_manifest.h"

namespace listd::persistence {

/// `m` with the next incr file appended: where commands go from now on.
AofManifest with_next_incr(const AofManifest& m, std::string_view prefix);

/// `m` once base `base_seq` (an RDB base, `<prefix>.<seq>.base.rdb`) holds the data: the old
/// base and the first `replaced_incrs` incr files (all of them if there are fewer) become
/// history; later incr files stay (they hold what ran after the base was taken).
AofManifest with_new_base(const AofManifest& m, std::string_view prefix, long long base_seq,
                          std::size_t replaced_incrs);

/// A new AOF from the current data (start-up without a usable AOF): the next base and the next
/// incr file; every file of `m` becomes history.
AofManifest with_fresh_files(const AofManifest& m, std::string_view prefix);

}  // namespace listd::persistence
