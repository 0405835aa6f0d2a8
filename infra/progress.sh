#!/usr/bin/env bash
# progress.sh LABEL ESTIMATE -- COMMAND...: run COMMAND, passing its output through, and print
# "… LABEL: still running, N s elapsed (ESTIMATE)" every PROGRESS_EVERY seconds (default 15)
# while it runs, then one line with the elapsed time. Long steps (a cold go build, go vet, npm ci)
# are otherwise silent for minutes, which reads as a hang. The exit status is COMMAND's.
set -u
if [ $# -lt 3 ] || [ "$3" != "--" ]; then
  echo "usage: progress.sh LABEL ESTIMATE -- COMMAND [ARG...]" >&2
  exit 2
fi
label=$1 estimate=$2
shift 3
every=${PROGRESS_EVERY:-15}
start=$(date +%s)
echo "   $label ($estimate)"
"$@" &
pid=$!
# The heartbeat is a child of this script; it stops when the command does. Its sleep, which
# outlives the kill, must not hold this script's output open: a reader through a pipe (CI,
# `make test | tee`) would otherwise wait up to PROGRESS_EVERY seconds after every step.
(
  while sleep "$every" </dev/null >/dev/null 2>&1; do
    echo "   … $label: still running, $(( $(date +%s) - start )) s elapsed ($estimate)"
  done
) &
beat=$!
trap 'kill "$pid" "$beat" 2>/dev/null' INT TERM
wait "$pid"
rc=$?
kill "$beat" 2>/dev/null
wait "$beat" 2>/dev/null
if [ "$rc" -eq 0 ]; then
  echo "   $label: done in $(( $(date +%s) - start )) s"
else
  echo "   $label: FAILED (exit $rc) after $(( $(date +%s) - start )) s"
fi
exit "$rc"
