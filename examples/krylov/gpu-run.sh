#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the Krylov example's GPU tests and experiment suites with already-built binaries and
# leaves two files in OUTDIR: summary.txt and krylov-results.tar.gz (the logs, the suites'
# JSON, context.txt and summary.txt; unpack and run examples/krylov/report.py on the folder).
# Each step has a time limit (a suite stopped by it keeps its finished runs), and no step runs
# past KRYLOV_DEADLINE_S seconds from the start (default 330: the limits are cut to what is
# left, a step with under 5 s left is skipped), so the script ends within about 5.5 minutes.
#   examples/krylov/gpu-run.sh OUTDIR
# Binaries (defaults: the build-krylov tree next to this checkout):
#   KRYLOV_BIN=.../tcr_krylov   KRYLOV_TEST_BIN=.../tcr_test_krylov
# Optional: KRYLOV_SUITES="smoke mtx sizes timing accuracy" (the suites to run, in order; the
# default), KRYLOV_DEADLINE_S=330, KRYLOV_COMMIT (recorded in context.txt), KRYLOV_MATCH_<suite>
# (a regex passed as --match: only that suite's runs whose "PROBLEM METHOD PRECISION TOL"
# matches, e.g. KRYLOV_MATCH_sizes='^poisson3d27:(46|100|215) (cg|bicgstab) .* 1e-30$'). The
# mtx suite writes its .mtx files to a temporary folder that is removed afterwards.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: gpu-run.sh OUTDIR}
mkdir -p "$out"
bin=${KRYLOV_BIN:-$root/build-krylov/examples/krylov/tcr_krylov}
test_bin=${KRYLOV_TEST_BIN:-$root/build-krylov/examples/krylov/tcr_test_krylov}
suites=${KRYLOV_SUITES:-smoke mtx sizes timing accuracy}
deadline=${KRYLOV_DEADLINE_S:-330}
for b in "$bin" "$test_bin"; do
  [ -x "$b" ] || { echo "gpu-run.sh: $b is not an executable (set KRYLOV_BIN / KRYLOV_TEST_BIN)"; exit 2; }
done

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  # KRYLOV_COMMIT: the binaries' commit, for a runner that is not a git checkout of it.
  [ -n "${KRYLOV_COMMIT:-}" ] && echo "binaries of $KRYLOV_COMMIT" ||
    (cd "$root" && git rev-parse HEAD 2>/dev/null) || echo "commit unknown"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv 2>&1
  "$bin" --help | head -1
} > "$out/context.txt"

status=0
run() { # name timeout command...
  local name=$1 limit=$2
  shift 2
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 5 ]; then
    printf '%-16s skipped: %ds left of KRYLOV_DEADLINE_S=%d\n' "$name" "$left" "$deadline" |
      tee -a "$out/summary.txt"
    status=1
    return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%-16s rc=%-3d %4ds  %s\n' "$name" "$rc" $((SECONDS - t0)) "$out/$name.log" | tee -a "$out/summary.txt"
  [ "$rc" -eq 0 ] || status=1
  return 0
}

: > "$out/summary.txt"
run test-host 15 "$test_bin" --test-suite-exclude=gpu
run test-gpu 120 "$test_bin" --test-suite=gpu
mtx_dir=$(mktemp -d "${TMPDIR:-/tmp}/tcr-krylov-mtx.XXXXXX")
for s in $suites; do
  repeat=1 limit=60 extra=()
  [ "$s" = smoke ] && repeat=2 limit=15 # every solve twice: bitwise identical histories, iterates
  [ "$s" = timing ] && limit=90         # 46 s on an H200 before the device-scalar peer joined
  [ "$s" = sizes ] && limit=100         # its 1e7 problem: generation, and 28 uploads of 3 GB
  [ "$s" = mtx ] && limit=30 extra=(--mtx-dir "$mtx_dir")
  match_var=KRYLOV_MATCH_$s
  [ -n "${!match_var:-}" ] && extra+=(--match "${!match_var}")
  run "suite-$s" "$limit" "$bin" --suite "$s" --repeat "$repeat" --json "$out/$s.json" ${extra[@]+"${extra[@]}"}
done
rm -rf -- "$mtx_dir"

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
    awk '$1 != "problem" && $1 != "wrote" && $1 != "error:" && NF > 9 && $1 !~ /^[0-9]+$/ {c[sprintf("%-13s %-15s tol %s", $4, $5, $6)]++}
         END {for (k in c) print "  " k, c[k]}' "$out/suite-$s.log" | sort
    grep -E "FALSE CONVERGENCE|NOT REPRODUCIBLE|DIFFERS FROM|run\(s\) of tcr|error:" "$out/suite-$s.log" | head -20
    [ "$s" = mtx ] && echo "  runs bitwise as their generated twin: $(grep -c '(bitwise as ' "$out/suite-$s.log")"
  done
} | tee -a "$out/summary.txt"

# One archive for the transfer back; the loose files go, summary.txt stays beside it.
(cd "$out" && tar -czf krylov-results.tar.gz --exclude=krylov-results.tar.gz -- * &&
  find . -maxdepth 1 -type f ! -name krylov-results.tar.gz ! -name summary.txt -delete) ||
  { echo "gpu-run.sh: packing $out failed"; status=1; }
ls -l "$out"
exit $status
