#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tcr benchmarks: the FP32 GEMM report (issue 15).

    bench/gemm_report.py JSON OUTDIR [--write] [--no-plot]

JSON is the Google Benchmark output of tcr_bench_gemm (bench/gemm_bench.cu; or JSON.gz), with
benchmarks named gemm/<method>/<data>/<M>x<N>x<K> and gemm.ksweep/<method>/<data>/<M>x<N>x<K>.
Values are the median aggregate of the repetitions (or, with one repetition, the single run).

Prints Markdown tables, one per data set and shape: per method TFLOP/s (2 M N K over the median
time per call), the time ratio SGEMM / method (> 1: faster than cuBLAS SGEMM, same data and
shape) and the error max |C - D| / max |D| against cuBLAS DGEMM; then the error-vs-K sweep
(M = N = 1024), one table per data set. A * marks a value where the SM clock ran below 75% of
the default (throttled); "non-finite" marks a C with Inf or NaN (the fp16 methods on spread
data); "skipped: ..." a case that did not run (e.g. BF16x9 that cuBLAS refuses on this GPU).
Writes OUTDIR/gemm_error_vs_k.png (error against K, log-log, one panel per data set, from the
sweep and the M = N = 1024 speed points of the swept methods) when matplotlib is there; --write
also writes OUTDIR/gemm_report.md.
"""
import argparse
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import load, median_records  # noqa: E402  (reads a JSON file cut short, or its .gz)

THROTTLE = 0.75
METHODS = [
    ("tcr", "tcr sgemm<> (Chain 8)"),
    ("tcr.c4", "tcr sgemm<4>"),
    ("tcr.c16", "tcr sgemm<16>"),
    ("tcr.c4.nocross", "tcr sgemm<4>, one accumulator"),
    ("tcr.c8.nocross", "tcr sgemm<8>, one accumulator"),
    ("tcr.rowstats", "tcr sgemm<> + row stats"),
    ("cublas.sgemm", "cuBLAS SGEMM"),
    ("cublas.tf32", "cuBLAS TF32"),
    ("cublas.f16", "cuBLAS FP16 (fp16 inputs)"),
    ("cublas.3xf16", "3 x fp16 GemmEx"),
    ("cublas.bf16x9", "cuBLAS BF16x9"),
]
LABEL = dict(METHODS)


def parse_name(name):
    """gemm[.ksweep]/method/data/MxNxK[/...] -> (sweep, method, data, (M, N, K)) or None."""
    parts = name.split("/")
    if len(parts) < 4 or parts[0] not in ("gemm", "gemm.ksweep"):
        return None
    try:
        shape = tuple(int(v) for v in parts[3].split("x"))
    except ValueError:
        return None
    if len(shape) != 3:
        return None
    return parts[0] == "gemm.ksweep", parts[1], parts[2], shape


def results(doc):
    """{key: {"tflops", "ms", "error", "nonfinite", "throttled"} or {"skipped"}}."""
    out = {}
    for key, (b, low) in median_records([doc], parse_name, "TFLOPs").items():
        if b == "error":
            out[key] = {"skipped": low}
            continue
        out[key] = {"tflops": b["TFLOPs"], "ms": b.get("median_ms", 0.0),
                    "error": b.get("error", -1.0), "nonfinite": b.get("nonfinite", 0) > 0,
                    "throttled": low is not None and 0 < low < THROTTLE}
    return out


def err_cell(r):
    if r is None:
        return ""
    if "skipped" in r:
        return ""
    if r["nonfinite"] or r["error"] < 0:
        return "non-finite"
    return f"{r['error']:.2e}"


def speed_cell(r):
    if r is None:
        return ""
    if "skipped" in r:
        return "skipped: " + r["skipped"]
    return f"{r['tflops']:.1f}" + ("*" if r["throttled"] else "")


def ratio_cell(r, ref):
    if not r or not ref or "skipped" in r or "skipped" in ref or r["ms"] <= 0:
        return ""
    return f"{ref['ms'] / r['ms']:.2f}"


def ordered(methods):
    known = [m for m, _ in METHODS if m in methods]
    return known + sorted(m for m in methods if m not in LABEL)


def speed_tables(res):
    lines = []
    groups = sorted({(k[2], k[3]) for k in res if not k[0]},
                    key=lambda g: (g[0] != "uniform", g[0], g[1][2], g[1][0]))
    for data, shape in groups:
        here = {k[1]: v for k, v in res.items() if not k[0] and k[2] == data and k[3] == shape}
        ref = here.get("cublas.sgemm")
        lines.append(f"### {data}, M x N x K = {shape[0]} x {shape[1]} x {shape[2]}")
        lines.append("")
        lines.append("| method | TFLOP/s | SGEMM time / time | error vs DGEMM |")
        lines.append("|---|---:|---:|---:|")
        for m in ordered(here):
            r = here[m]
            lines.append(f"| {LABEL.get(m, m)} | {speed_cell(r)} | {ratio_cell(r, ref)} | "
                         f"{err_cell(r)} |")
        lines.append("")
    return lines


def sweep_points(res):
    """{data: {method: [(K, error)]}} from the sweep, and from the M = N = 1024 speed points of
    the methods the sweep has."""
    out = defaultdict(lambda: defaultdict(dict))
    swept = {(k[1], k[2]) for k in res if k[0]}
    for (sweep, m, data, shape), r in res.items():
        if shape[0] != 1024 or shape[1] != 1024 or "skipped" in r or (m, data) not in swept:
            continue
        if r["nonfinite"] or r["error"] < 0:
            continue
        # The sweep's own value first; a speed point fills in a K the sweep lacks.
        if sweep or shape[2] not in out[data][m]:
            out[data][m][shape[2]] = r["error"]
    return {d: {m: sorted(v.items()) for m, v in ms.items()} for d, ms in out.items()}


def sweep_tables(res):
    lines = []
    for data in sorted({k[2] for k in res if k[0]}, key=lambda d: (d != "uniform", d)):
        here = {(k[1], k[3][2]): v for k, v in res.items() if k[0] and k[2] == data}
        ks = sorted({k for _, k in here})
        methods = ordered({m for m, _ in here})
        lines.append(f"### error vs K, {data}, M = N = 1024 (max |C - D| / max |D|)")
        lines.append("")
        lines.append("| method | " + " | ".join(f"K = {k}" for k in ks) + " |")
        lines.append("|---|" + "---:|" * len(ks))
        for m in methods:
            cells = []
            for k in ks:
                r = here.get((m, k))
                cells.append("skipped" if r is not None and "skipped" in r else err_cell(r))
            lines.append(f"| {LABEL.get(m, m)} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def plot(res, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("gemm_report.py: matplotlib not found: no plot", file=sys.stderr)
        return None
    pts = sweep_points(res)
    if not pts:
        return None
    datas = sorted(pts, key=lambda d: (d != "uniform", d))
    fig, axes = plt.subplots(1, len(datas), figsize=(6 * len(datas), 4.5), squeeze=False)
    for ax, data in zip(axes[0], datas):
        for m in ordered(pts[data]):
            xs = [k for k, _ in pts[data][m]]
            ys = [e for _, e in pts[data][m]]
            if any(y > 0 for y in ys):
                ax.loglog(xs, [max(y, 1e-17) for y in ys], marker="o", label=LABEL.get(m, m))
        ax.set_xlabel("K (M = N = 1024)")
        ax.set_ylabel("max |C - C_dgemm| / max |C_dgemm|")
        ax.set_title(f"FP32 GEMM error vs K, {data} data")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(outdir, "gemm_error_vs_k.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def context_lines(doc):
    ctx = (doc or {}).get("context", {})
    keys = ["gpu", "cuda_runtime", "cuda_driver", "cublas_version", "date", "host_name"]
    parts = [f"{k} {ctx[k]}" for k in keys if k in ctx]
    return ["_" + ", ".join(parts) + "_", ""] if parts else []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", help="tcr_bench_gemm's --benchmark_out file (or its .gz)")
    ap.add_argument("outdir", help="folder for the plot (and gemm_report.md with --write)")
    ap.add_argument("--write", action="store_true", help="also write OUTDIR/gemm_report.md")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args()
    doc = load(args.json)
    if doc is None:
        print(f"gemm_report.py: cannot read {args.json}", file=sys.stderr)
        return 1
    res = results(doc)
    if not res:
        print(f"gemm_report.py: no gemm benchmarks in {args.json}", file=sys.stderr)
        return 1
    lines = ["## FP32 GEMM (tcr_bench_gemm)", ""] + context_lines(doc)
    lines += speed_tables(res) + sweep_tables(res)
    text = "\n".join(lines)
    print(text)
    os.makedirs(args.outdir, exist_ok=True)
    if not args.no_plot:
        path = plot(res, args.outdir)
        if path:
            print(f"\n![error vs K]({os.path.basename(path)})")
    if args.write:
        with open(os.path.join(args.outdir, "gemm_report.md"), "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
