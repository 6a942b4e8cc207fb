#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tcr benchmarks: plots from a results directory (PNGs written next to the JSON).

    bench/plot.py DIR [--l2 cold|hot] [--all]

throughput_<op>.png  throughput (GB/s, bytes read per second) against n, one panel per input
                     type, cold L2 by default; the read-only kernel's line is the ceiling.
error_<op>.png       relative error against the condition number reached, one panel per input
                     type, for sum and dot (the ill-conditioned sets plus the uniform one).

By default the lines are tcr's three modes with the automatic engine, CUB and cuBLAS; --all adds
every engine. Exits 0 with a message when matplotlib is missing (the tables do not need it).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (same directory)

TYPES = report.TYPES
STYLE = {
    "ceiling": dict(color="black", linestyle="--", linewidth=1.2, label="read-only ceiling"),
    "cub": dict(color="tab:blue", marker="s", label="CUB"),
    "cub.reduce": dict(color="tab:cyan", marker="s", label="CUB Reduce"),
    "cublas": dict(color="tab:orange", marker="D", label="cuBLAS"),
    "tcr.compensated.automatic": dict(color="tab:red", marker="o", linewidth=2, label="tcr compensated"),
    "tcr.fast.automatic": dict(color="tab:green", marker="^", label="tcr fast"),
    "tcr.double_word.automatic": dict(color="tab:purple", marker="v", label="tcr double_word"),
}


def style(method):
    if method in STYLE:
        return dict(STYLE[method])
    return dict(marker=".", linestyle=":", label=method.replace("tcr.", "tcr "))


def wanted(method, show_all):
    return show_all or method in STYLE


def plot_throughput(plt, res, op, l2, show_all, path):
    ceiling_op = "read2" if op == "dot" else "read"
    types = [t for t in TYPES if any(k[0] == op and k[1] == t and k[3] == l2 for k in res)]
    if not types:
        return False
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5), sharex=True)
    for ax, ty in zip(axes.flat, TYPES):
        if ty not in types:
            ax.set_visible(False)
            continue
        methods = sorted({k[2] for k in res if k[0] == op and k[1] == ty and k[3] == l2})
        series = [(ceiling_op, "ceiling")] + [(op, m) for m in methods if wanted(m, show_all)]
        for o, m in series:
            pts = sorted((k[4], v["bw"]) for k, v in res.items()
                         if k[0] == o and k[1] == ty and k[2] == m and k[3] == l2 and v.get("bw"))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] / 1e9 for p in pts], markersize=4, **style(m))
        ax.set_xscale("log", base=2)
        ax.set_title(f"{op} {ty}")
        ax.set_ylabel("GB/s read")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylim(bottom=0)
    for ax in axes[-1]:
        ax.set_xlabel("n (elements per array)")
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center",
               ncol=min(len(handles), 6), frameon=False)
    fig.suptitle(f"{op}: throughput against n ({l2} L2, median of repetitions)")
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_error(plt, acc, op, show_all, path):
    rows = [r for r in acc.get("results", [])
            if r["op"] == op and (r["set"].startswith("cond:") or r["set"] == "uniform")
            and r.get("status", "ok") == "ok"]
    if not rows:
        return False
    floor, ceil = 1e-20, 1e3
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5), sharex=True, sharey=True)
    for ax, ty in zip(axes.flat, TYPES):
        sub = [r for r in rows if r["type"] == ty]
        if not sub:
            ax.set_visible(False)
            continue
        for m in sorted({r["method"] for r in sub}):
            if not wanted(m, show_all):
                continue
            pts = []
            for r in sub:
                if r["method"] != m or not isinstance(r.get("cond"), (int, float)):
                    continue
                e = r.get("rel_error")
                e = ceil if isinstance(e, str) or (isinstance(e, float) and not math.isfinite(e)) else e
                pts.append((max(r["cond"], 1.0), min(max(e, floor), ceil)))
            pts.sort()
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], markersize=4, **style(m))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(floor / 2, ceil * 2)
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_title(f"{op} {ty}")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("condition number (reached)")
    for ax in axes[:, 0]:
        ax.set_ylabel("relative error")
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center",
               ncol=min(len(handles), 6), frameon=False)
    n = acc.get("context", {}).get("n", "?")
    fig.suptitle(f"{op}: relative error against condition number (n = {n}; "
                 f"0 drawn at {floor:g}, inf/nan at {ceil:g})")
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--l2", choices=["cold", "hot"], default="cold")
    ap.add_argument("--all", action="store_true", help="every tcr engine, not only automatic")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed: no plots (pip install matplotlib)", file=sys.stderr)
        return 0
    written = []
    dev = report.load(os.path.join(a.dir, "device.json"))
    if dev is not None:
        res = report.speed_results(dev)
        for op in report.OPS:
            path = os.path.join(a.dir, f"throughput_{op}.png")
            if plot_throughput(plt, res, op, a.l2, a.all, path):
                written.append(path)
    acc = report.load(os.path.join(a.dir, "accuracy.json"))
    if acc is not None:
        for op in ("sum", "dot"):
            path = os.path.join(a.dir, f"error_{op}.png")
            if plot_error(plt, acc, op, a.all, path):
                written.append(path)
    for p in written:
        print(f"plot.py: wrote {p}")
    if not written:
        print(f"plot.py: nothing to plot in {a.dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
