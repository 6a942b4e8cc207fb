#!/usr/bin/env bash
# Session 30's first call: out/c1/ab.sh (segmented A/B, device_api two-streams racecheck; Q5's
# tests only where testsQ5.tar.xz is carried); then main's whole segmented benchmark and CCCL
# 3.5's (tcr_bench_segmented_cub35) for the report and plot; on an H200 also the exact modes of
# tcr_device_bench against CUB 3.0.1 (issue 13). Later steps are skipped when time runs short.
cd "$(dirname "$0")/../.."
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
bash out/c1/ab.sh
echo "ab done $(el) s"
export LD_LIBRARY_PATH=$PWD/out/c1
S=$OUT/seg; mkdir -p $S
xz -dc out/c1/seg35.xz > /tmp/seg35 && chmod +x /tmp/seg35
timeout 120 out/c1/seg_main --benchmark_out=$S/segmented.json --benchmark_out_format=json > $S/seg.txt 2>&1; echo "seg main rc $? $(el) s"
timeout 90 /tmp/seg35 --benchmark_out=$S/segmented_cub35.json --benchmark_out_format=json > $S/seg35.txt 2>&1; echo "seg35 rc $? $(el) s"
python3 bench/segmented_report.py $S --write > $S/report.txt 2>&1; head -50 $S/report.txt
gzip -f $S/*.json
if [ $(el) -lt 330 ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  xz -dc out/c1/devbench.xz > /tmp/devbench && chmod +x /tmp/devbench
  timeout $(( 520 - $(el) )) /tmp/devbench --tcr_l2=cold --tcr_sizes=10,14,17,20,22,24,28,30 \
    --tcr_types=f32,f64,f16,bf16,e4m3 --tcr_ops=sum,dot \
    '--benchmark_filter=/(cub|tcr\.correctly_rounded\.automatic)/cold/' \
    --benchmark_out=$OUT/dev-h200.json --benchmark_out_format=json > $OUT/dev-h200.txt 2>&1
  echo "devbench exit $? $(el) s"
  python3 bench/exact_ratios.py $OUT/dev-h200.json --methods tcr.correctly_rounded.automatic 2>&1 | tee $OUT/dev-h200-ratios.txt | tail -40
  gzip -f $OUT/dev-h200.json
fi
