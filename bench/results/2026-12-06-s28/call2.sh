#!/usr/bin/env bash
# session 28 call 2: A/B M0 (HEAD 5c7fa1d) / C1 (no second claim of an entry whose last chunk the
# block took) / T (C1 + fixed tier 5 one segment a warp, uncapped grid + later rounds' tiles
# spread over the blocks) / P (T + helpers probe 8 entries' counts at once). Tests of P's code
# (segmented sum, api, chunks, teams), memcheck and racecheck of sum and chunks.
cd "$(dirname "$0")/../.."
B=out/s28b
for v in M0 C1 T P; do xz -dkf $B/seg_$v.xz && chmod +x $B/seg_$v; done
export LD_LIBRARY_PATH=$PWD/$B
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $R/gpu.txt
T0=$(date +%s)
F='seg/(tcr\.offsets|tcr\.fixed|read|tcr\.pointers|tcr\.strided|cub\.offsets)/(f32|f16|bf16)/'
for v in M0 C1 T P M0 P T C1; do
  n=$v; [ -f $R/seg-$v.json ] && n=$v-2
  timeout 60 $B/seg_$v --benchmark_filter="$F" --benchmark_out=$R/seg-$n.json --benchmark_out_format=json > $R/bench-$n.txt 2>&1
  echo "bench $n rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
done
tar -xJf $B/tests2.tar.xz
TB=build/test/reduce
TESTS="segmented_sum segmented_api segmented_chunks segmented_teams"
for t in $TESTS; do
  ( timeout 200 $TB/tcr_test_$t > $R/test-$t.txt 2>&1; echo "exit $?" >> $R/test-$t.txt ) &
done
wait
echo "tests $(( $(date +%s) - T0 )) s" >> $R/times.txt
for t in segmented_sum segmented_chunks; do
  for tool in memcheck racecheck; do
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $TB/tcr_test_$t "--test-case-exclude=*(large)*" > $R/$tool-$t.txt 2>&1 &
  done
done
wait
echo "sanitizers $(( $(date +%s) - T0 )) s" >> $R/times.txt
for v in C1 T P; do python3 bench/segmented_ab.py $R/seg-M0.json $R/seg-$v.json > $R/ab-$v.txt 2>&1; done
python3 bench/segmented_ab.py $R/seg-M0.json $R/seg-C1.json $R/seg-T.json $R/seg-P.json $R/seg-M0-2.json $R/seg-C1-2.json $R/seg-T-2.json $R/seg-P-2.json > $R/ab-all.txt 2>&1
{ cat $R/gpu.txt
  for f in $R/test-*.txt; do echo "$(basename $f): $(grep -E 'test cases:|^exit' $f | tr '\n' ' ')"; done
  for f in $R/memcheck-* $R/racecheck-*; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases:|CRASHED' $f | tr '\n' ' ')"; done
  cat $R/times.txt; } | tee $R/summary.txt
tar -czf $OUT/r.tgz -C $OUT r; rm -rf $R
