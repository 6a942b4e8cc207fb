#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tcr benchmarks: one line per operation and input type, one column per size.

    bench/sizes.py FILE.json[.gz] [...] [--method tcr.compensated.automatic] [--l2 cold]

Reads Google Benchmark JSON from tcr_device_bench (several files are merged: later files win
for a benchmark measured twice) and prints, for each size, tcr's median time in us and its time
relative to CUB's ("t/CUB", < 1: tcr is faster; CUB's time is the better of its Sum/Reduce
entries). Parsing and medians are report.py's; for size classes and the other peers see it.
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

OPS = ["sum", "dot", "nrm2", "asum"]
TYPES = ["e4m3", "e5m2", "f16", "bf16", "f32", "f64"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--method", default="tcr.compensated.automatic")
    ap.add_argument("--l2", default="cold")
    a = ap.parse_args()
    t = collections.defaultdict(dict)  # (op, type) -> {(n, method): us}
    for path in a.files:
        doc = report.load(path[:-3] if path.endswith(".gz") else path)
        for (op, ty, method, l2, n), r in report.speed_results(doc or {}).items():
            if l2 == a.l2 and "us" in r:
                t[(op, ty)][(n, method)] = r["us"]
    for op in OPS:
        for ty in TYPES:
            r = t.get((op, ty))
            if not r:
                continue
            cells = []
            for n in sorted({n for n, _ in r}):
                mine = r.get((n, a.method))
                peers = [r[(n, m)] for m in ("cub", "cub.reduce") if (n, m) in r]
                if mine is None or not peers:
                    continue
                cells.append(f"2^{n.bit_length() - 1} {mine:.2f} ({mine / min(peers):.2f})")
            if cells:
                print(f"{op:5s}{ty:5s}  " + "  ".join(cells))
    print(f"\n{a.method}, {a.l2} L2: median us per call (time / CUB's time)")


if __name__ == "__main__":
    main()
