#!/usr/bin/env bash
# session 28 call 1: A/B M0 (HEAD 5c7fa1d) / C1 (no second claim of an entry whose last chunk the
# block took) / C2 (C1 + the next claim made ahead, during the fold); tests of C2's code
# F: C2 + the fixed-size kernel's tier 5 with one segment a warp and an uncapped grid.
# (segmented sum, api, chunks, teams, batched) with memcheck and racecheck of sum, chunks, batched.
cd "$(dirname "$0")/../.."
B=out/s28
for v in M0 C1 C2 F; do xz -dkf $B/seg_$v.xz && chmod +x $B/seg_$v; done
tar -xJf $B/tests1.tar.xz
export LD_LIBRARY_PATH=$PWD/$B
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $R/gpu.txt
T0=$(date +%s)
TB=build/test/reduce
F='seg/(tcr\.offsets|tcr\.fixed|read|tcr\.pointers|tcr\.strided|cub\.offsets)/(f32|f16|bf16)/'
for v in M0 C1 C2 F M0 C2 C1 F; do
  n=$v; [ -f $R/seg-$v.json ] && n=$v-2
  timeout 60 $B/seg_$v --benchmark_filter="$F" --benchmark_out=$R/seg-$n.json --benchmark_out_format=json > $R/bench-$n.txt 2>&1
  echo "bench $n rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
done
TESTS="segmented_sum segmented_api segmented_chunks segmented_teams"
for t in $TESTS; do
  ( timeout 200 $TB/tcr_test_$t > $R/test-$t.txt 2>&1; echo "exit $?" >> $R/test-$t.txt ) &
done
wait
echo "tests $(( $(date +%s) - T0 )) s" >> $R/times.txt
for t in segmented_sum segmented_chunks; do
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $TB/tcr_test_$t "--test-case-exclude=*(large)*" > $R/$tool-$t.txt 2>&1 &
  done
done
wait
echo "sanitizers $(( $(date +%s) - T0 )) s" >> $R/times.txt
{ cat $R/gpu.txt
  for f in $R/test-*.txt; do echo "$(basename $f): $(grep -E 'test cases:|^exit' $f | tr '\n' ' ')"; done
  for f in $R/memcheck-* $R/racecheck-*; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases:|CRASHED' $f | tr '\n' ' ')"; done
  cat $R/times.txt; } | tee $R/summary.txt
python3 bench/segmented_ab.py $R/seg-M0.json $R/seg-C2.json > $R/ab-C2.txt 2>&1
python3 bench/segmented_ab.py $R/seg-M0.json $R/seg-C1.json > $R/ab-C1.txt 2>&1
python3 bench/segmented_ab.py $R/seg-M0.json $R/seg-F.json > $R/ab-F.txt 2>&1
tar -czf $OUT/r.tgz -C $OUT r; rm -rf $R
