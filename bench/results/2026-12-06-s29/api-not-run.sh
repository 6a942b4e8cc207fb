#!/usr/bin/env bash
# session 29: the two-streams case of device_api under racecheck alone (it crashed with SIGSEGV on
# the host under racecheck with 11 other sanitizer processes beside it), three at once, then one alone.
cd "$(dirname "$0")/../.."
xz -dc out/s29/api.xz > /tmp/api && chmod +x /tmp/api
R=$OUT/api; mkdir -p $R
C='two streams at once*'
for i in 1 2 3; do
  ( timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/api --test-suite=gpu --test-case="$C" > $R/race-par-$i.txt 2>&1; echo "exit $?" >> $R/race-par-$i.txt ) &
done
wait
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/api --test-suite=gpu --test-case="$C" > $R/race-alone.txt 2>&1; echo "exit $?" >> $R/race-alone.txt
for i in 1 2 3 4 5; do /tmp/api --test-suite=gpu --test-case="$C" > $R/plain-$i.txt 2>&1; echo "exit $?" >> $R/plain-$i.txt; done
for f in $R/*.txt; do echo "$(basename $f): $(grep -E 'test cases:|RACECHECK SUMMARY|CRASHED|^exit' $f | tr '\n' ' ')"; done
