#!/usr/bin/env bash
# Checks that every C++ file under src/, include/, tests/ and bench/ is laid out as .clang-format
# says (Debian 12's clang-format 14). Registered in ctest as `architecture.format`.
#
#   tests/check_format.sh <source_dir>         # exit 1 and clang-format's diagnostics if not
#   tests/check_format.sh --fix <source_dir>   # rewrites the files in place
set -euo pipefail
fix=0
if [[ ${1:-} == --fix ]]; then fix=1; shift; fi
root=${1:?usage: check_format.sh [--fix] <source_dir>}
cd "$root"
command -v clang-format >/dev/null || { echo "clang-format not found (apt-get install clang-format)"; exit 1; }
mapfile -t files < <(find src include tests bench -name '*.cpp' -o -name '*.h' -o -name '*.h.in' | sort)
if ((fix)); then
  clang-format -i "${files[@]}"
  exit 0
fi
if clang-format --dry-run --Werror "${files[@]}" 2>/tmp/check_format.$$; then
  rm -f /tmp/check_format.$$
  echo "format: ${#files[@]} files as .clang-format says"
  exit 0
fi
head -60 /tmp/check_format.$$
echo "format: $(grep -c 'error:' /tmp/check_format.$$) places differ; run tests/check_format.sh --fix ."
rm -f /tmp/check_format.$$
exit 1
