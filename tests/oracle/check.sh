#!/usr/bin/env bash
# Start private reference servers, compare every golden transcript and every lesson's golden
# trace with the server its "# oracle:" header names, stop them.
#
#   tests/oracle/check.sh [PORT] [FILE...]     (default port 16379; tests/transcripts/*.txt
#                                              and lessons/golden/*.txt)
#
# Redis 8.2 listens on PORT, Redis 7.4 on PORT+1 and Valkey 9 on PORT+2; a kind whose
# binary is not installed (see redis.sh) is not started and its files are skipped.
# The servers run under faketime (redis.sh's ORACLE_FAKETIME=1: a frozen clock that
# `:clock` moves), which a lesson's minutes of `:clock` need. ORACLE_FAKETIME=0 runs them on
# the real clock instead (record.py then sleeps through every `:clock`; compare.py refuses
# files with more than two minutes of it); without libfaketime that is the default, with a
# warning. Prints compare.py's report; the exit status is compare.py's.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
port=${1:-16379}
shift || true
if [[ $# -eq 0 ]]; then
    set -- "$here"/../transcripts/*.txt "$here"/../../lessons/golden/*.txt
fi

if [[ -z "${ORACLE_FAKETIME:-}" ]]; then
    if compgen -G "/usr/lib/*/faketime/libfaketime.so.1" >/dev/null ||
        [[ -f /usr/lib/faketime/libfaketime.so.1 || -n "${ORACLE_FAKETIME_LIB:-}" ]]; then
        ORACLE_FAKETIME=1
    else
        echo "check.sh: libfaketime not found (apt-get install faketime): servers run on the real clock" >&2
        ORACLE_FAKETIME=0
    fi
fi
export ORACLE_FAKETIME

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
