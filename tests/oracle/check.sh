#!/usr/bin/env bash
# Start a private Redis 8.2.3, compare every golden transcript with it, stop it.
#
#   tests/oracle/check.sh [PORT] [FILE...]     (default port 16379, all files)
#
# Prints compare.py's report; the exit status is compare.py's.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
port=${1:-16379}
shift || true
if [[ $# -eq 0 ]]; then
    set -- "$here"/../transcripts/*.txt
fi

"$here/redis.sh" start "$port" >/dev/null
trap '"$here/redis.sh" stop "$port" >/dev/null' EXIT
python3 "$here/compare.py" --port "$port" "$@"
