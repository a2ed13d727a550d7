#!/usr/bin/env bash
# Compares this checkout with another commit by CPU per request (bench/inproc.ts):
#   bash bench/ab.sh <commit> [bench/inproc.ts options, e.g. --only 0,6,9 --rounds 5]
# Both run at the same time, each pinned to one core, then again with the cores swapped, so a
# core that is faster or busier than the other counts for both. The other commit is checked out
# in a temporary worktree with this checkout's node_modules and its own generated clients, and
# runs this checkout's bench/ (the same requests and measurement on both sides). Needs 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: bench/ab.sh <commit> [inproc options]}"
shift
root="$PWD"
tmp="$(mktemp -d)"
other="$tmp/other"
cleanup() { git -C "$root" worktree remove --force "$other" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
git worktree add --detach "$other" "$rev" >/dev/null
ln -s "$root/node_modules" "$other/node_modules"
cp -r "$root/bench/." "$other/bench/"
(cd "$other" && npx tsx src/cli.ts generate >"$tmp/generate.log" 2>&1) || { cat "$tmp/generate.log" >&2; exit 1; }

if [ "$(nproc)" -lt 2 ]; then echo "bench/ab.sh needs 2 cores" >&2; exit 1; fi
run() { # run <dir> <core> <log>
  (cd "$1" && taskset -c "$2" npx tsx bench/inproc.ts "${@:4}" >"$3" 2>&1)
}
for pass in 1 2; do
  if [ "$pass" = 1 ]; then a=0; b=1; else a=1; b=0; fi
  run "$other" "$a" "$tmp/other-$pass.log" "$@" &
  run "$root" "$b" "$tmp/this-$pass.log" "$@"
  wait
  echo "$rev @core $a:"; sed 's/^/  /' "$tmp/other-$pass.log"
  echo "this checkout @core $b:"; sed 's/^/  /' "$tmp/this-$pass.log"
done
