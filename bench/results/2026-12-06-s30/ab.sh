#!/usr/bin/env bash
# Next session's first call (prepared in session 29): main's segmented benchmark (HEAD's library
# code = bdcdc5a's device code) against Q3 (wip/s28-turned: the last partial round of warp tiles
# turned in one-wave launches), Q4 (Q3 without the turn for pointer-array batches) and Q5
# (wip/s29-tail, 2b527fe: the last partial round handed out by a counter), alternated twice; then
# Q5's tests (segmented sum, chunks, batched) with memcheck and racecheck where testsQ5.tar.xz is
# carried; then device_api's two-streams case under racecheck (it crashed on the host under
# racecheck in session 29's call 3), three at once and once alone.
#   bash out/s30/ab.sh   (carry out/s30/ab.sh, seg_main.xz, seg_Q3.xz, seg_Q4.xz, seg_Q5.xz,
#                         libbenchmark.so.1debian, api.xz [, testsQ5.tar.xz])
cd "$(dirname "$0")/../.."
B=out/$(basename "$(dirname "$0")")
for v in main Q3 Q4 Q5; do xz -dkf $B/seg_$v.xz && chmod +x $B/seg_$v; done
export LD_LIBRARY_PATH=$PWD/$B
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $R/gpu.txt
T0=$(date +%s)
F='seg/(tcr\.offsets|tcr\.fixed|read|tcr\.pointers|tcr\.strided|cub\.offsets)/(f32|f16|bf16)/'
for v in main Q3 Q4 Q5 main Q5 Q4 Q3; do
  n=$v; [ -f $R/seg-$v.json ] && n=$v-2
  timeout 90 $B/seg_$v --benchmark_filter="$F" --benchmark_out=$R/seg-$n.json --benchmark_out_format=json > $R/bench-$n.txt 2>&1
  echo "bench $n rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
done
for v in Q3 Q4 Q5; do for k in "" -2; do
  python3 bench/segmented_ab.py $R/seg-main$k.json $R/seg-$v$k.json > $R/ab-$v$k.txt 2>&1
done; done
if [ -f $B/testsQ5.tar.xz ]; then
  mkdir -p /tmp/q5 && tar -xJf $B/testsQ5.tar.xz -C /tmp/q5
  for t in segmented_sum segmented_chunks batched; do
    ( timeout 150 /tmp/q5/tcr_test_$t > $R/q5-test-$t.txt 2>&1; echo "exit $?" >> $R/q5-test-$t.txt ) &
  done
  wait
  for tool in memcheck racecheck; do for t in segmented_sum segmented_chunks batched; do
    ( timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/q5/tcr_test_$t "--test-case-exclude=*(large)*" > $R/q5-$tool-$t.txt 2>&1; echo "exit $?" >> $R/q5-$tool-$t.txt ) &
  done; done
  wait
  echo "q5 tests $(( $(date +%s) - T0 )) s" >> $R/times.txt
fi
xz -dc $B/api.xz > /tmp/api && chmod +x /tmp/api
C='two streams at once*'
for i in 1 2 3; do
  ( timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/api --test-suite=gpu --test-case="$C" > $R/race-par-$i.txt 2>&1; echo "exit $?" >> $R/race-par-$i.txt ) &
done
wait
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/api --test-suite=gpu --test-case="$C" > $R/race-alone.txt 2>&1; echo "exit $?" >> $R/race-alone.txt
{ cat $R/gpu.txt $R/times.txt
  for f in $R/q5-*.txt; do [ -f $f ] && echo "$(basename $f): $(grep -E 'test cases:|ERROR SUMMARY|RACECHECK SUMMARY|CRASHED|^exit' $f | tr '\n' ' ')"; done
  for f in $R/race-*.txt; do echo "$(basename $f): $(grep -E 'test cases:|RACECHECK SUMMARY|CRASHED|^exit' $f | tr '\n' ' ')"; done
  grep -hE "offsets f32 sum (8|16384|65536) |powerlaw|pointers|strided|offsets bf16 sum 16384 " $R/ab-Q3.txt $R/ab-Q4.txt $R/ab-Q5.txt; } | tee $R/summary.txt
gzip -f $R/seg-*.json
tar -czf $OUT/r.tgz -C $OUT r && rm -rf $R
