#!/usr/bin/env bash
# System calls a server makes per request during one redis-benchmark run, counted by
# `perf stat -e 'syscalls:sys_enter_*'` attached to the server (all its threads): a count, so it
# does not depend on how loaded the machine is (docs/BENCHMARKS.md, "The I/O layer").
#
#   bench/syscalls_per_request.sh <server binary> <pipeline> <requests per test> [server args...]
#   bench/syscalls_per_request.sh build/dev/listd 1 20000 --io-backend epoll
#   bench/syscalls_per_request.sh /usr/bin/redis-server 1 20000
#
# 50 clients, tests lpush,rpush,lpop,rpop. Prints the total per request and the calls that make
# up at least 0.01 per request. Needs perf (linux-perf) and the right to trace (root, or
# kernel.perf_event_paranoid <= 1).
set -euo pipefail

if (($# < 3)); then
  sed -n '2,12p' "$0"
  exit 2
fi
bin=$1 pipeline=$2 requests=$3
shift 3
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

"$bin" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" "$@" \
  >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
perf stat -e 'syscalls:sys_enter_*' -p "$server" -o "$work/perf.txt" &
perf=$!
sleep 1  # perf attaches to every thread before the run starts
redis-benchmark -p "$port" -c 50 -n "$requests" -P "$pipeline" -t lpush,rpush,lpop,rpop -q \
  >/dev/null
kill -INT "$perf"
wait "$perf" || true
total_requests=$((4 * requests))
awk -v n="$total_requests" -v name="$(basename "$bin") $* -P $pipeline" '
  $2 ~ /^syscalls:sys_enter_/ {
    gsub(",", "", $1)
    if ($1 + 0 > 0) { calls[substr($2, 20)] = $1; total += $1 }
  }
  END {
    printf "%s: %.3f system calls per request (%d requests)\n", name, total / n, n
    for (c in calls) if (calls[c] / n >= 0.01) printf "  %-24s %.3f\n", c, calls[c] / n
  }' "$work/perf.txt"
