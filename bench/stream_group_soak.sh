#!/usr/bin/env bash
# The consumer-group soak at issue 15's size, run by hand (ctest runs the same script at 5
# consumers and 5,000 messages as integration.stream_group_soak, to keep CI short):
# 20 redis-py consumer processes in one group, 5 killed holding messages, an XAUTOCLAIM reaper,
# 100,000 messages each acknowledged exactly once (tests/integration/stream_group_soak_test.py).
#
#   bench/stream_group_soak.sh <listd binary> [consumers] [messages] [killed]
#   bench/stream_group_soak.sh build/dev/listd
set -euo pipefail

if (($# < 1)); then
  sed -n '2,9p' "$0"
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
exec /usr/bin/python3 "$here/../tests/integration/stream_group_soak_test.py" "$1" \
  --consumers "${2:-20}" --messages "${3:-100000}" --doomed "${4:-5}" --deadline 900
