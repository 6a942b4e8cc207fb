#!/usr/bin/env bash
# Issue 13's measurement of the current exact modes (prepared in session 30): tcr_device_bench
# (built at 7b3dcb3; its library code is main's) for Accuracy::correctly_rounded against CUB 3.0.1
# and cuBLAS, and tcr_bench_cub35 (CCCL 3.5.0's gpu_to_gpu), cold L2, one process per group so a
# time limit loses only the last group; then the tensor-core rows against the CUDA cores
# (segmented f16, Engine::automatic's range). At most about 9.5 minutes (the limits add up to 555 s): call with timeout_s 600.
#   bash out/s31/exact.sh   (carry out/s31)
cd "$(dirname "$0")/../.."
B=out/s31; R=$OUT/exact; mkdir -p $R
export LD_LIBRARY_PATH=$PWD/$B
xz -dc $B/devbench.xz > /tmp/devbench && xz -dc $B/cub35.xz > /tmp/cub35 && chmod +x /tmp/devbench /tmp/cub35
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $R/gpu.txt
T0=$(date +%s)
S=10,12,14,16,18,20,22,24,28,30
run() {  # name limit binary args...
  local n=$1 l=$2; shift 2
  timeout $l "$@" --tcr_l2=cold --benchmark_out=$R/$n.json --benchmark_out_format=json > $R/$n.txt 2>&1
  echo "$n rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
}
F='--benchmark_filter=/(cub|cublas|tcr\.correctly_rounded\.automatic)/cold/'
run e4m3 80 /tmp/devbench --tcr_sizes=$S --tcr_types=e4m3 --tcr_ops=sum,dot,nrm2 "$F"
run f64 110 /tmp/devbench --tcr_sizes=$S --tcr_types=f64 --tcr_ops=sum,dot,nrm2 "$F"
run g2g 90 /tmp/cub35 --tcr_sizes=$S --tcr_types=f32,f64,f16,bf16 --tcr_ops=sum '--benchmark_filter=/cub35.gpu_to_gpu/cold/'
run f32 90 /tmp/devbench --tcr_sizes=$S --tcr_types=f32 --tcr_ops=sum,dot,nrm2 "$F"
run h16 100 /tmp/devbench --tcr_sizes=$S --tcr_types=f16,bf16 --tcr_ops=sum,dot,nrm2 "$F"
# bf16 Sum: the default bins against the float bins (fbins), an open question on the H200.
run fbins 40 /tmp/devbench --tcr_full --tcr_sizes=20,24,28,30 --tcr_types=bf16 --tcr_ops=sum \
  '--benchmark_filter=sum/bf16/(cub|tcr\.correctly_rounded\.(automatic|fbins))/cold/'
# Engine::automatic's row range for __half (rows_automatic_max): the tensor-core rows against the
# CUDA cores, f16 Accuracy::fast, fixed sizes (tcr_bench_segmented of 7b3dcb3).
xz -dc $B/seg_main.xz > /tmp/seg_main && chmod +x /tmp/seg_main && mkdir -p $R/rows
timeout 45 /tmp/seg_main '--benchmark_filter=seg/(tcr\.fixed\.fast\.cc|tcr\.fixed\.tc|tcr\.fixed\.fast|read)/f16/sum/' \
  --benchmark_out=$R/rows/segmented.json --benchmark_out_format=json > $R/rows/seg.txt 2>&1
echo "rows rc $? $(( $(date +%s) - T0 )) s" >> $R/times.txt
python3 bench/segmented_report.py $R/rows --no-plot > $R/rows/report.txt 2>&1
python3 bench/exact_ratios.py $R/e4m3.json $R/f64.json $R/f32.json $R/h16.json $R/g2g.json \
  --methods tcr.correctly_rounded.automatic > $R/ratios.txt 2>&1
python3 bench/exact_ratios.py $R/fbins.json --methods tcr.correctly_rounded.automatic,tcr.correctly_rounded.fbins > $R/fbins-ratios.txt 2>&1
{ cat $R/gpu.txt $R/times.txt; grep -A14 'Tensor-core row path' $R/rows/report.txt; cat $R/ratios.txt $R/fbins-ratios.txt; } | tee $R/summary.txt
gzip -f $R/*.json $R/rows/*.json
