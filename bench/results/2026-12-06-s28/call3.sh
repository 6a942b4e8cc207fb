#!/usr/bin/env bash
# session 28 call 3: A/B M0 (HEAD 5c7fa1d) / P (call 2's: C1 + fixed tier 5 + every later round's
# tiles turned + helpers probing 8 entries) / Q (P with the tile order of M0) / Q2 (P with only a
# last, partial round turned). Tests of Q2's code (segmented sum, chunks, batched), memcheck and
# racecheck of them ((large) cases excluded).
cd "$(dirname "$0")/../.."
B=out/s28c
for v in M0 P Q Q2; do xz -dkf $B/seg_$v.xz && chmod +x $B/seg_$v; done
export LD_LIBRARY_PATH=$PWD/$B
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $R/gpu.txt
T0=$(date +%s)
F='seg/(tcr\.offsets|tcr\.fixed|read|tcr\.pointers|tcr\.strided|cub\.offsets)/(f32|f16|bf16)/'
for v in M0 P Q Q2 M0 Q2 Q P; do
  n=$v; [ -f $R/seg-$v.json ] && n=$v-2
  timeout 60 $B/seg_$v --benchmark_filter="$F" --benchmark_out=$R/seg-$n.json --benchmark_out_format=json > $R/bench-$n.txt 2>&1
  echo "bench $n rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
done
tar -xJf $B/tests3.tar.xz
TB=build/test/reduce
for t in segmented_sum segmented_chunks batched; do
  ( timeout 120 $TB/tcr_test_$t > $R/test-$t.txt 2>&1; echo "exit $?" >> $R/test-$t.txt ) &
done
wait
echo "tests $(( $(date +%s) - T0 )) s" >> $R/times.txt
for tool in memcheck racecheck; do
  for t in segmented_sum segmented_chunks batched; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $TB/tcr_test_$t "--test-case-exclude=*(large)*" > $R/$tool-$t.txt 2>&1 &
  done
done
wait
echo "sanitizers $(( $(date +%s) - T0 )) s" >> $R/times.txt
for v in P Q Q2; do python3 bench/segmented_ab.py $R/seg-M0.json $R/seg-$v.json > $R/ab-$v.txt 2>&1; done
python3 bench/segmented_ab.py $R/seg-M0.json $R/seg-P.json $R/seg-Q.json $R/seg-Q2.json $R/seg-M0-2.json $R/seg-P-2.json $R/seg-Q-2.json $R/seg-Q2-2.json > $R/ab-all.txt 2>&1
{ cat $R/gpu.txt
  for f in $R/test-*.txt; do echo "$(basename $f): $(grep -E 'test cases:|^exit' $f | tr '\n' ' ')"; done
  for f in $R/memcheck-* $R/racecheck-*; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases:|CRASHED' $f | tr '\n' ' ')"; done
  cat $R/times.txt; } | tee $R/summary.txt
tar -czf $OUT/r.tgz -C $OUT r; rm -rf $R
