#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the Krylov example's GPU tests and experiment suites with already-built binaries and
# leaves two files in OUTDIR: summary.txt and krylov-results.tar.gz (the logs, the suites'
# JSON, context.txt and summary.txt; unpack and run examples/krylov/report.py on the folder).
# Each suite has a time limit (a suite stopped by it keeps its finished runs), so the whole
# script stays under 4 minutes (the limits add up to 210 s).
#   examples/krylov/gpu-run.sh OUTDIR
# Binaries (defaults: the build-krylov tree next to this checkout):
#   KRYLOV_BIN=.../tcr_krylov   KRYLOV_TEST_BIN=.../tcr_test_krylov
# Optional: KRYLOV_SUITES="smoke accuracy timing" (the suites to run, in order).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: gpu-run.sh OUTDIR}
mkdir -p "$out"
bin=${KRYLOV_BIN:-$root/build-krylov/examples/krylov/tcr_krylov}
test_bin=${KRYLOV_TEST_BIN:-$root/build-krylov/examples/krylov/tcr_test_krylov}
suites=${KRYLOV_SUITES:-smoke accuracy timing}
for b in "$bin" "$test_bin"; do
  [ -x "$b" ] || { echo "gpu-run.sh: $b is not an executable (set KRYLOV_BIN / KRYLOV_TEST_BIN)"; exit 2; }
done

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  (cd "$root" && git rev-parse HEAD 2>/dev/null) || echo "commit unknown"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv 2>&1
  "$bin" --help | head -1
} > "$out/context.txt"

status=0
run() { # name timeout command...
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%-16s rc=%-3d %4ds  %s\n' "$name" "$rc" $((SECONDS - t0)) "$out/$name.log" | tee -a "$out/summary.txt"
  [ "$rc" -eq 0 ] || status=1
  return 0
}

: > "$out/summary.txt"
run test-host 15 "$test_bin" --test-suite-exclude=gpu
run test-gpu 30 "$test_bin" --test-suite=gpu
for s in $suites; do
  repeat=1 limit=60
  [ "$s" = smoke ] && repeat=2 limit=15 # every solve twice: bitwise identical histories, iterates
  [ "$s" = timing ] && limit=90         # 49 s on an H200 before df32 BiCGStab / IDR(4) joined
  run "suite-$s" "$limit" "$bin" --suite "$s" --repeat "$repeat" --json "$out/$s.json"
done

{
  echo
  echo "== gpu test failures (none if empty)"
  grep -E "ERROR|FAILED|error:" "$out/test-gpu.log" | head -20
  grep -E "^\[doctest\] (test cases|assertions)" "$out/test-gpu.log"
  echo
  echo "== gpu test messages (recorded, not asserted)"
  grep -E "MESSAGE: " "$out/test-gpu.log" | sed 's/.*MESSAGE: //' | head -60
  for s in $suites; do
    [ -f "$out/suite-$s.log" ] || continue
    echo
    echo "== suite $s: runs per precision, status and tolerance (tol 1e-30: fixed-count timing runs)"
    awk '$1 != "problem" && NF > 9 && $1 !~ /^[0-9]+$/ {c[sprintf("%-9s %-15s tol %s", $4, $5, $6)]++}
         END {for (k in c) print "  " k, c[k]}' "$out/suite-$s.log" | sort
    grep -E "FALSE CONVERGENCE|NOT REPRODUCIBLE|run\(s\) of tcr|error:" "$out/suite-$s.log" | head -20
  done
} | tee -a "$out/summary.txt"

# One archive for the transfer back; the loose files go, summary.txt stays beside it.
(cd "$out" && tar -czf krylov-results.tar.gz --exclude=krylov-results.tar.gz -- * &&
  find . -maxdepth 1 -type f ! -name krylov-results.tar.gz ! -name summary.txt -delete) ||
  { echo "gpu-run.sh: packing $out failed"; status=1; }
ls -l "$out"
exit $status
