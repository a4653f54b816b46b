#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz/ for a bounded time: scripts/fuzz.sh <target> [minutes]
#   targets: request_parser config_file rdb_loader acl_rules aof_loader aof_manifest lua_convert
# Configures its own clang build (build/fuzz, or $LISTD_FUZZ_BUILD_DIR) once, builds only
# fuzz_<target>, fuzzes a copy of the committed seeds (tests/fuzz/corpus/<name>/) in one process
# (the machine is shared: one core), and prints the executions, libFuzzer's last coverage line
# and the crash, leak or sanitizer reports found. Exits 1 when there is one: the input is in
# <run dir>/artifacts/ (add it to the corpus once the bug is fixed, so the replay keeps it fixed).
# The run dir (corpus grown by libFuzzer, log) is build/fuzz/runs/<target>/, emptied first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:?usage: scripts/fuzz.sh <target> [minutes]}
minutes=${2:-5}
build=${LISTD_FUZZ_BUILD_DIR:-$root/build/fuzz}

case $target in
  request_parser) corpus= ;;  # its harness makes its own inputs: libFuzzer starts empty
  config_file) corpus=config ;;
  rdb_loader) corpus=rdb ;;
  acl_rules) corpus=acl ;;
  aof_loader) corpus=aof ;;
  aof_manifest) corpus=manifest ;;
  lua_convert) corpus=lua ;;
  *) echo "unknown fuzz target '$target'" >&2; exit 2 ;;
esac

if [[ ! -f $build/CMakeCache.txt ]]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLISTD_BUILD_BENCH=OFF -DLISTD_NODE_MODULES_DIR="$build/frameworks-node" "${launcher[@]}" \
    >/dev/null
fi
if ! grep -q '^CMAKE_CXX_COMPILER_ID:.*Clang\|CMAKE_CXX_COMPILER:.*clang' "$build/CMakeCache.txt"; then
  echo "$build is not a clang build: remove it or set LISTD_FUZZ_BUILD_DIR" >&2
  exit 2
fi
cmake --build "$build" -j"${JOBS:-2}" --target "fuzz_$target"

run=$build/runs/$target
rm -rf "$run"
mkdir -p "$run/corpus" "$run/artifacts"
if [[ -n $corpus ]]; then cp "$root/tests/fuzz/corpus/$corpus/"* "$run/corpus/"; fi
status=0
# -rss_limit_mb: a growth past 2 GB is a finding too; -timeout: one input taking 10 s is a hang.
"$build/tests/fuzz/fuzz_$target" -max_total_time=$((minutes * 60)) -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$run/artifacts/" "$run/corpus" \
  >"$run/log" 2>&1 || status=$?

echo "== fuzz_$target, $minutes min (log: $run/log)"
grep -E '^#[0-9]+' "$run/log" | tail -1 || true
grep -E '^stat::number_of_executed_units' "$run/log" || true
echo "corpus: $(ls "$run/corpus" | wc -l) inputs"
found=$(ls "$run/artifacts" | wc -l)
echo "crashes/leaks/timeouts: $found"
if ((found > 0)) || ((status != 0)); then
  grep -E 'ERROR: |runtime error|invariant violated|SUMMARY' "$run/log" | head -20 || true
  ls "$run/artifacts"
  exit 1
fi
