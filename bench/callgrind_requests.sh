#!/usr/bin/env bash
# Instructions a server executes (user space, counted by valgrind's callgrind) for one
# redis-benchmark run: repeatable for the same binary and inputs whatever else the machine is
# doing, so two builds can be compared on a noisy machine (docs/BENCHMARKS.md, "Instruction
# counts"). Kernel time (system calls) is not counted: pair it with bench/side_by_side.py.
#
#   bench/callgrind_requests.sh <server binary> <tests> <pipeline> <requests> [port]
#   bench/callgrind_requests.sh build-bench/listd lrange_100 32 200000
#   bench/callgrind_requests.sh /usr/bin/redis-server lpush,rpush,lpop,rpop 32 200000
#
# Prints "<binary> <tests> -P <pipeline> -n <requests>: <instructions> instructions" (the whole
# run: start-up, and for lrange_100 the LPUSHes redis-benchmark sends first, included).
# CALLGRIND_KEEP=<file> also keeps the profile for callgrind_annotate. CALLGRIND_TLS=1 runs
# redis-benchmark over TLS (tls-port, certificates from tests/support/make-test-certs.sh, a
# client certificate as tls-auth-clients yes wants): the same for listd and redis-server.
# CALLGRIND_SERVER_ARGS="--io-backend epoll" adds arguments to the server's command line,
# CALLGRIND_BENCH_ARGS="-d 120" to redis-benchmark's.
set -euo pipefail

if (($# < 4)); then
  sed -n '2,12p' "$0"
  exit 2
fi
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
bin=$1 tests=$2 pipeline=$3 requests=$4 port=${5:-$(free_port)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

server_tls=() client_tls=() bench_port=$port
if [[ ${CALLGRIND_TLS:-} == 1 ]]; then
  "$(dirname "$0")/../tests/support/make-test-certs.sh" "$work/certs"
  bench_port=$(free_port)
  server_tls=(--tls-port "$bench_port" --tls-cert-file "$work/certs/server.crt"
              --tls-key-file "$work/certs/server.key" --tls-ca-cert-file "$work/certs/ca.crt")
  client_tls=(--tls --cacert "$work/certs/ca.crt" --cert "$work/certs/client.crt"
              --key "$work/certs/client.key")
fi
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$bin" --port "$port" \
  --bind 127.0.0.1 --save "" --appendonly no --dir "$work" "${server_tls[@]}" ${CALLGRIND_SERVER_ARGS:-} \
  >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 300); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
redis-benchmark -p "$bench_port" "${client_tls[@]}" -n "$requests" -P "$pipeline" -t "$tests" \
  ${CALLGRIND_BENCH_ARGS:-} -q >/dev/null
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
wait "$server" || true
total=$(sed -n 's/^summary: //p' "$work/callgrind.out")
[[ -n $total ]] || { echo "no callgrind summary; server log:" >&2; cat "$work/server.log" >&2; exit 1; }
[[ -n ${CALLGRIND_KEEP:-} ]] && cp "$work/callgrind.out" "$CALLGRIND_KEEP"
echo "$bin $tests -P $pipeline -n $requests${server_tls[*]:+ (TLS)}: $total instructions"
