#!/usr/bin/env python3
"""tcr benchmarks: one line per operation and input type, one column per size.

    bench/sizes.py FILE.json[.gz] [...] [--method tcr.compensated.automatic] [--l2 cold]

Reads Google Benchmark JSON from tcr_device_bench (several files are merged: later files win
for a benchmark measured twice) and prints, for each size, tcr's median time in us and its time
relative to CUB's ("t/CUB", < 1: tcr is faster; CUB's time is the better of its Sum/Reduce
entries). For the size classes and the other peers see bench/report.py.
"""
import argparse
import collections
import gzip
import json
import re

NAME = re.compile(r"(\w+)/(\w+)/([^/]+)/(cold|hot)/n:(\d+)")
OPS = ["sum", "dot", "nrm2", "asum"]
TYPES = ["e4m3", "e5m2", "f16", "bf16", "f32", "f64"]


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--method", default="tcr.compensated.automatic")
    ap.add_argument("--l2", default="cold")
    a = ap.parse_args()
    t = collections.defaultdict(dict)  # (op, type) -> {(n, method): us}
    for path in a.files:
        for b in load(path).get("benchmarks", []):
            if b.get("aggregate_name") != "median":
                continue
            m = NAME.match(b["name"])
            if not m or m.group(4) != a.l2:
                continue
            op, ty, method, _, n = m.groups()
            t[(op, ty)][(int(n), method)] = b["real_time"]  # manual time, us
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
