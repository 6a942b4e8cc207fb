#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tcr benchmarks: the segmented and batched report (issue 12).

    bench/segmented_report.py DIR [--write] [--no-plot]

DIR holds segmented.json (tcr_bench_segmented) and segmented_cub35.json
(tcr_bench_segmented_cub35), Google Benchmark JSON with benchmarks named
seg/<impl>/<type>/<form>/<size>/<scale> (bench/common/seg_registry.hpp); either may be missing.
Values are the median aggregate of the repetitions of each benchmark's GBps counter (input bytes
over the median time per call; GB = 1e9 bytes).

Prints Markdown tables:
  - uniform Sum, per input type and total 2^scale: GB/s per segment size of tcr (fixed size,
    offsets), CUB 3.0.1 (offsets), CCCL 3.5 (fixed size, offsets) and the read-only kernel, and
    the ratios tcr.fixed / read-only, tcr.fixed / CUB 3.0.1, tcr.fixed / CCCL 3.5 fixed, and
    tcr.offsets / CUB 3.0.1 (> 1: tcr is faster; same bytes, so GB/s ratios are time ratios);
  - Accuracy::fast against the default (compensated), tcr fixed size;
  - power-law segment lengths; batched Dot / Nrm2 (pointer arrays, strided, cuBLAS GEMM).
A * marks a value where the SM clock ran below 75% of the default (throttled).
Writes DIR/segmented.png (GB/s against segment size, log x, one panel per type and scale) when
matplotlib is there; --write also writes DIR/segmented_report.md.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import load, median_records  # noqa: E402  (reads a JSON file cut short, or its .gz)

THROTTLE = 0.75
UNIFORM_IMPLS = [
    ("tcr.fixed", "tcr fixed"),
    ("tcr.offsets", "tcr offsets"),
    ("cub.offsets", "CUB 3.0.1 offsets"),
    ("cub35.fixed", "CCCL 3.5 fixed"),
    ("cub35.offsets", "CCCL 3.5 offsets"),
    ("read", "read-only"),
]
TYPES = ["f32", "f16", "bf16"]


def parse_name(name):
    """seg/impl/type/form/size/scale[/...] -> (impl, type, form, size, scale) or None; size an
    int, "var" or "all"."""
    parts = name.split("/")
    if len(parts) < 6 or parts[0] != "seg":
        return None
    impl, typ, form, size, scale = parts[1:6]
    try:
        scale = int(scale)
        size = int(size) if size not in ("var", "all") else size
    except ValueError:
        return None
    return impl, typ, form, size, scale


def results(docs):
    """{key: {"gbps", "us", "throttled"} or {"error"}} from the median aggregates (or, with one
    repetition, the single run) of every document."""
    out = {}
    for key, (b, low) in median_records(docs, parse_name, "GBps").items():
        if b == "error":
            out[key] = {"error": low}
            continue
        out[key] = {"gbps": b["GBps"], "us": b.get("median_us", 0.0),
                    "throttled": low is not None and 0 < low < THROTTLE}
    return out


def cell(r, digits=0):
    if r is None:
        return ""
    if "error" in r:
        return "err"
    return f"{r['gbps']:.{digits}f}" + ("*" if r["throttled"] else "")


def ratio(a, b):
    if not a or not b or "error" in a or "error" in b or b["gbps"] <= 0:
        return ""
    return f"{a['gbps'] / b['gbps']:.2f}"


def uniform_tables(res):
    lines = []
    for typ in TYPES:
        scales = sorted({k[4] for k in res if k[1] == typ and k[2] == "sum"})
        for scale in scales:
            sizes = sorted({k[3] for k in res if k[1] == typ and k[2] == "sum" and k[4] == scale
                            and isinstance(k[3], int)})
            if not sizes:
                continue
            read = res.get(("read", typ, "sum", "all", scale))
            lines.append(f"### Sum, {typ}{'' if typ == 'f32' else ' into f32'}, 2^{scale} elements (GB/s of input)")
            lines.append("")
            head = ["segment"] + [label for _, label in UNIFORM_IMPLS] + [
                "tcr fixed / read", "tcr fixed / CUB 3.0.1", "tcr fixed / CCCL 3.5 fixed",
                "tcr offsets / CUB 3.0.1"]
            lines.append("| " + " | ".join(head) + " |")
            lines.append("|" + "---|" * len(head))
            for size in sizes:
                r = {impl: res.get((impl, typ, "sum", size, scale)) for impl, _ in UNIFORM_IMPLS}
                r["read"] = read
                row = [str(size)] + [cell(r[impl]) for impl, _ in UNIFORM_IMPLS] + [
                    ratio(r["tcr.fixed"], read), ratio(r["tcr.fixed"], r["cub.offsets"]),
                    ratio(r["tcr.fixed"], r["cub35.fixed"]),
                    ratio(r["tcr.offsets"], r["cub.offsets"])]
                lines.append("| " + " | ".join(row) + " |")
            lines.append("")
    return lines


def fast_table(res):
    keys = sorted(k for k in res if k[0] == "tcr.fixed.fast")
    if not keys:
        return []
    lines = ["### Accuracy::fast against compensated (tcr fixed size, GB/s)", "",
             "| type | 2^scale | segment | compensated | fast | fast / compensated |",
             "|---|---|---|---|---|---|"]
    for impl, typ, form, size, scale in sorted(keys, key=lambda k: (TYPES.index(k[1])
                                                                     if k[1] in TYPES else 9,
                                                                     k[4], k[3])):
        comp = res.get(("tcr.fixed", typ, form, size, scale))
        fast = res.get((impl, typ, form, size, scale))
        lines.append(f"| {typ} | {scale} | {size} | {cell(comp)} | {cell(fast)} | "
                     f"{ratio(fast, comp)} |")
    lines.append("")
    return lines


def tensor_core_table(res):
    keys = sorted(k for k in res if k[0] == "tcr.fixed.tc")
    if not keys:
        return []
    lines = ["### Tensor-core row path against the CUDA cores (tcr fixed size, GB/s; f16 in "
             "Accuracy::fast, e4m3 compensated)",
             "", "| type | 2^scale | segment | CUDA cores | tensor cores | tensor / CUDA cores "
             "| tensor / read-only | tensor / CCCL 3.5 fixed |", "|---|---|---|---|---|---|---|---|"]
    for impl, typ, form, size, scale in sorted(keys, key=lambda k: (k[1], k[4], k[3])):
        tc = res.get((impl, typ, form, size, scale))
        cc = (res.get(("tcr.fixed.fast.cc", typ, form, size, scale))
              or res.get(("tcr.fixed.cc", typ, form, size, scale))
              or res.get(("tcr.fixed.fast", typ, form, size, scale)))
        read = res.get(("read", typ, "sum", "all", scale))
        cub35 = res.get(("cub35.fixed", typ, form, size, scale))
        lines.append(f"| {typ} | {scale} | {size} | {cell(cc)} | {cell(tc)} | {ratio(tc, cc)} | "
                     f"{ratio(tc, read)} | {ratio(tc, cub35)} |")
    lines.append("")
    return lines


def other_tables(res):
    lines = []
    forms = [("sum.powerlaw", "Sum, f32, power-law segment lengths (P(len) ~ len^-1.5 on "
              "[1, 2^20], 2^26 elements)", "cub.offsets"),
             ("dot.pointers", "Batched Dot, f32, 2^16 pairs, lengths uniform in 64..4096, "
              "pointer arrays", None),
             ("dot.strided", "Batched Dot, f32, strided, 2^16 x 1024", "cublas.gemm_strided"),
             ("nrm2.strided", "Batched Nrm2, f32, strided, 2^16 x 1024", None)]
    for form, title, peer in forms:
        keys = sorted(k for k in res if k[2] == form)
        if not keys:
            continue
        read = next((res[k] for k in keys if k[0] == "read"), None)
        peer_r = next((res[k] for k in keys if k[0] == peer), None) if peer else None
        lines.append(f"### {title}")
        lines.append("")
        head = ["method", "us", "GB/s", "/ read-only"] + ([f"/ {peer}"] if peer else [])
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for k in keys:
            r = res[k]
            us = "" if "error" in r else f"{r['us']:.1f}"
            row = [k[0], us, cell(r), ratio(r, read)] + ([ratio(r, peer_r)] if peer else [])
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    return lines


def plot(res, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("segmented_report.py: no matplotlib, so no plot", file=sys.stderr)
        return False
    panels = sorted({(k[1], k[4]) for k in res if k[2] == "sum" and k[1] in TYPES},
                    key=lambda p: (TYPES.index(p[0]), p[1]))
    if not panels:
        return False
    cols = min(2, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 4.4 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (typ, scale) in zip(axes.flat, panels):
        for impl, label in UNIFORM_IMPLS:
            if impl == "read":
                r = res.get(("read", typ, "sum", "all", scale))
                if r and "error" not in r:
                    ax.axhline(r["gbps"], color="black", linestyle="--", linewidth=1, label=label)
                continue
            pts = sorted((k[3], v["gbps"]) for k, v in res.items()
                         if k[0] == impl and k[1] == typ and k[2] == "sum" and k[4] == scale
                         and isinstance(k[3], int) and "error" not in v)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                        label=label, linestyle="-" if impl.startswith("tcr") else ":")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("segment size (elements)")
        ax.set_ylabel("GB/s of input")
        ax.set_ylim(bottom=0)
        ax.set_title(f"segmented Sum, {typ} -> f32, 2^{scale} elements")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("dir")
    ap.add_argument("--write", action="store_true", help="also write DIR/segmented_report.md")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args()
    docs = [load(os.path.join(args.dir, f)) for f in ("segmented.json", "segmented_cub35.json")]
    if all(d is None for d in docs):
        print(f"segmented_report.py: no segmented.json or segmented_cub35.json in {args.dir}",
              file=sys.stderr)
        return 1
    res = results(docs)
    ctx = next((d.get("context", {}) for d in docs if d), {})
    lines = [f"## Segmented and batched reductions ({ctx.get('gpu', '?')}, "
             f"{ctx.get('date', '?')})", ""]
    lines += uniform_tables(res) + fast_table(res) + tensor_core_table(res) + other_tables(res)
    text = "\n".join(lines)
    print(text)
    if args.write:
        with open(os.path.join(args.dir, "segmented_report.md"), "w") as f:
            f.write(text + "\n")
    if not args.no_plot and plot(res, os.path.join(args.dir, "segmented.png")):
        print(f"\nplot: {os.path.join(args.dir, 'segmented.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
