#!/usr/bin/env bash
# Start private reference servers, compare every golden transcript with the one its
# "# oracle:" header names, stop them.
#
#   tests/oracle/check.sh [PORT] [FILE...]     (default port 16379, all files)
#
# Redis 8.2 listens on PORT, Redis 7.4 on PORT+1 and Valkey 9 on PORT+2; a kind whose
# binary is not installed (see redis.sh) is not started and its transcripts are skipped.
# Prints compare.py's report; the exit status is compare.py's.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
port=${1:-16379}
shift || true
if [[ $# -eq 0 ]]; then
    set -- "$here"/../transcripts/*.txt
fi

started=()
stop_all() {
    for p in "${started[@]}"; do
        "$here/redis.sh" stop "$p" >/dev/null || true
    done
}
trap stop_all EXIT

"$here/redis.sh" start "$port" redis-8.2 >/dev/null
started+=("$port")
extra=()
offset=1
for kind in redis-7.4 valkey-9; do
    p=$((port + offset))
    offset=$((offset + 1))
    if "$here/redis.sh" find "$kind" >/dev/null 2>&1; then
        "$here/redis.sh" start "$p" "$kind" >/dev/null
        started+=("$p")
        extra+=(--server "$kind=$p")
    fi
done
python3 "$here/compare.py" --port "$port" "${extra[@]}" "$@"
