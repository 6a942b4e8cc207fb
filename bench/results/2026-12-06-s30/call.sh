#!/usr/bin/env bash
# one chunk of the whole GPU suite from binaries built here (HEAD's code), ctest of the
# chunk's GPU entries alongside memcheck + racecheck per test case ((large) excluded); device_large's
# cases as processes of their own; chunk X first runs the segmented benchmark (HEAD, and the Q3
# variant when carried) before the tests.
#   out/s29/call.sh CHUNK REGEX
cd "$(dirname "$0")/../.."
C=$1; RE=$2
T0=$(date +%s)
R=$OUT/r-$C; mkdir -p $R
scripts/unpack-build out/s30/$C.tar.xz > $R/unpack.txt 2>&1
export LD_LIBRARY_PATH=$PWD/build/prebuilt-lib NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $R/gpu.txt
if [ -x build/bench/tcr_bench_segmented ]; then
  F='seg/(tcr\.offsets|tcr\.fixed|read|tcr\.pointers|tcr\.strided|cub\.offsets|warp_plain)/(f32|f16|bf16)/'
  vs="head"
  for v in $vs; do
    b=build/bench/tcr_bench_segmented; [ $v = Q3 ] && b=out/s28c/seg_Q3
    n=$v; [ -f $R/seg-$v.json ] && n=$v-2
    timeout 90 $b --benchmark_filter="$F" --benchmark_out=$R/seg-$n.json --benchmark_out_format=json > $R/bench-$n.txt 2>&1
    echo "bench $n rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
  done
  gzip -f $R/seg-*.json
fi
if [ -x build/test/reduce/tcr_test_device_large ]; then
  mkdir -p $R/large
  build/test/reduce/tcr_test_device_large --list-test-cases 2>/dev/null | awk '/^=====/ {s++; next} s == 1' | sed 's/,/?/g' > $R/large/cases.txt
  i=0
  while read -r c; do i=$((i+1))
    ( timeout 480 build/test/reduce/tcr_test_device_large --test-case="$c" > $R/large/case-$i.txt 2>&1; echo "exit $?" >> $R/large/case-$i.txt ) &
  done < $R/large/cases.txt
fi
TCR_BUILD_DIR=$PWD/build TCR_COMMIT=$(cat out/s30/COMMIT) TCR_SANITIZE_TIMEOUT=${SAN_T:-200} \
TCR_SANITIZE_JOBS=${SAN_J:-12} TCR_CTEST_EXCLUDE='device_large|\.host$' \
TCR_SANITIZE_ARGS="--kernel-name-exclude kns=cusparse" \
  timeout -k 5 ${LIMIT:-500} scripts/gpu-check $R --no-build --no-bench --overlap --tests "$RE" \
  --sanitize-tools "memcheck racecheck" > $R/gpu-check.txt 2>&1
echo "gpu-check rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
wait
{ cat $R/gpu.txt; cat $R/summary.txt 2>/dev/null
  for f in $R/large/case-*.txt; do [ -f $f ] && echo "large $(basename $f): $(grep -E 'test cases:|^exit' $f | tr '\n' ' ')"; done
  echo "sanitizer runs not exit 0: $(grep -L '^exit 0$' $R/sanitize/*.log 2>/dev/null | wc -l) of $(ls $R/sanitize/*.log 2>/dev/null | wc -l)"
  for f in $(grep -L '^exit 0$' $R/sanitize/*.log 2>/dev/null); do echo "  $(head -1 $f) | $(tail -1 $f)"; done
  grep -h "Test time\|Passed\|Failed\|Not Run" $R/ctest.log 2>/dev/null | grep -E "\.gpu" | sed 's/^ *//' 
  cat $R/times.txt; } > $R/final.txt
cat $R/final.txt
tar -czf $OUT/r-$C.tgz -C $OUT r-$C && rm -rf $R
