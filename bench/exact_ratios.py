#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tcr benchmarks: the exact modes against their peers, one row per operation, type and size.

    bench/exact_ratios.py FILE [FILE ...] [--methods m1,m2,...]

FILEs: Google Benchmark JSON (or .json.gz) from tcr_device_bench and tcr_bench_cub35, cold L2.
Medians of the repetitions (us). Columns: CUB 3.0.1 (cub), cuBLAS where measured, each tcr method
given (default: tcr.correctly_rounded.automatic, tcr.correctly_rounded.exactonly), CCCL 3.5's
gpu_to_gpu Sum (g2g), then ratios: peer time / the first method's time (> 1: tcr faster), and
each further method's time / the first's (< 1: that variant faster than the default).
"""
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (reads a JSON file cut short, or its .gz)


def load(path):
    """The benchmarks of one file (a .gz too); a file cut short by a time limit is read up to its
    last complete entry, a missing one gives none (report.load)."""
    doc = report.load(path[:-3] if path.endswith(".gz") else path)
    if doc is None:
        print(f"exact_ratios.py: {path}: missing or unreadable", file=sys.stderr)
        return []
    return doc.get("benchmarks", [])


def main():
    args = sys.argv[1:]
    methods = ["tcr.correctly_rounded.automatic", "tcr.correctly_rounded.exactonly"]
    if "--methods" in args:
        i = args.index("--methods")
        methods = args[i + 1].split(",")
        del args[i : i + 2]
    if not args:
        sys.exit(__doc__)
    t = defaultdict(dict)  # (op, type, n) -> method -> median us
    pat = re.compile(r"^([a-z0-9]+)/([a-z0-9]+)/([^/]+)/cold/n:(\d+)/.*_median$")
    for path in args:
        for b in load(path):
            m = pat.match(b["name"])
            if m:
                op, ty, meth, n = m.groups()
                t[(op, ty, int(n))][meth] = b["real_time"]
    peers = ["cub", "cublas", "cub35.gpu_to_gpu"]
    short = {"cub35.gpu_to_gpu": "g2g"}
    head = ["op", "type", "log2n"] + [short.get(p, p) for p in peers]
    head += [m.replace("tcr.correctly_rounded.", "cr.") for m in methods]
    head += [short.get(p, p) + "/cr" for p in peers]
    head += [m.replace("tcr.correctly_rounded.", "cr.") + "/cr" for m in methods[1:]]
    print(" ".join(head))
    fmt = lambda v: "-" if v is None else ("%.2f" % v if v < 100 else "%.0f" % v)
    for (op, ty, n) in sorted(t, key=lambda k: (k[0], k[1], k[2])):
        if op.startswith("read"):
            continue
        row = t[(op, ty, n)]
        if methods[0] not in row:
            continue
        base = row[methods[0]]
        vals = [row.get(p) for p in peers] + [row.get(m) for m in methods]
        ratios = [None if row.get(p) is None else row[p] / base for p in peers]
        ratios += [None if row.get(m) is None else row[m] / base for m in methods[1:]]
        log2n = n.bit_length() - 1
        print(" ".join([op, ty, str(log2n)] + [fmt(v) for v in vals + ratios]))


if __name__ == "__main__":
    main()
