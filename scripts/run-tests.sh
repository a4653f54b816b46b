#!/usr/bin/env bash
# Builds listd and runs every test: unit, integration (real listd + redis-server + redis-cli +
# redis-py); the C++ unit and integration suites and the worker soak run again against an
# ASan/UBSan build first. Ends with ctest's summary. ctest counts a skipped test as passed, so
# each pass writes JUnit and the run fails when a test was skipped that is not in SKIP_ALLOWED.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

# Tests skipped by design, one exact ctest name each (anything else skipped fails the run):
#  - integration.OracleReplay.SeedFromEnvironment replays ORACLE_SEED, set by hand only.
SKIP_ALLOWED=(
  integration.OracleReplay.SeedFromEnvironment
)

echo "== build (RelWithDebInfo) =="
cmake -S . -B build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/test -j"$JOBS"

echo "== build (ASan/UBSan) =="
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DLISTD_SANITIZE=ON -DLISTD_BUILD_BENCH=OFF >/dev/null
cmake --build build/asan -j"$JOBS"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Fails (returns 1) when the JUnit file names a skipped or not-run test outside SKIP_ALLOWED.
check_skips() {
  /usr/bin/python3 - "$1" "${SKIP_ALLOWED[@]}" <<'PY'
import sys
import xml.etree.ElementTree as ET
allowed = set(sys.argv[2:])
skipped = [tc.get("name") for tc in ET.parse(sys.argv[1]).getroot().iter("testcase")
           if tc.get("status") in ("notrun", "disabled") or tc.find("skipped") is not None]
unexpected = sorted(n for n in skipped if n not in allowed)
for n in sorted(set(skipped) & allowed):
    print(f"skipped by design: {n}")
for n in unexpected:
    print(f"UNEXPECTED SKIP: {n}")
sys.exit(1 if unexpected else 0)
PY
}

status=0
echo "== tests, sanitizer build (C++ unit and integration suites, the worker soak) =="
# The redis-cli/redis-benchmark/redis-py suites exercise the same server paths as the
# integration suites and run in the optimized pass below; skipping them here keeps CI short.
# The crash harness LD_PRELOADs an fsync shim, which the ASan runtime refuses to follow (it must
# come first in the library list), so it runs in the optimized pass only. The sanitizer build
# is slower: LISTD_TEST_SLOWDOWN scales the few generous wall-clock upper bounds.
LISTD_TEST_SLOWDOWN=${LISTD_TEST_SLOWDOWN:-3} \
  ctest --test-dir build/asan --output-on-failure -j2 --timeout 600 -E '^(python|tools|crash)\.' \
  --output-junit "$PWD/build/asan/junit.xml" || status=1
check_skips "$PWD/build/asan/junit.xml" || status=1
echo "== tests, optimized build =="
ctest --test-dir build/test --output-on-failure -j2 --timeout 600 \
  --output-junit "$PWD/build/test/junit.xml" || status=1
check_skips "$PWD/build/test/junit.xml" || status=1
exit $status
