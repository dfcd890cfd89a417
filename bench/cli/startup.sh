#!/usr/bin/env bash
# Wall and CPU time of the built CLI's quick commands, median of RUNS (5) runs each, in milliseconds.
# Needs DATABASE_URL naming a database svc has prepared (run `svc keys list` once against it first).
#   DATABASE_URL=postgres://… bash bench/cli/startup.sh [path/to/svc.js]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-5}
cli=${1:-apps/cli/dist/svc.js}
times=$(mktemp)
trap 'rm -f "$times"' EXIT
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for command in "--help" "keys list" "pairs list"; do
  walls=()
  cpus=()
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    /usr/bin/time -o "$times" -f '%U %S' node "$cli" $command > /dev/null
    cpu=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$times")
    walls+=($(( ($(date +%s%N) - start) / 1000000 )))
    cpus+=("$cpu")
  done
  printf 'svc %-11s wall median %5s ms (%s)   cpu median %5s ms\n' "$command" \
    "$(printf '%s\n' "${walls[@]}" | median)" "${walls[*]}" "$(printf '%s\n' "${cpus[@]}" | median)"
done
