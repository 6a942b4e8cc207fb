#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Two tcr_bench_segmented runs side by side (an A/B of two builds in one GPU session): for every
# case seg/<impl>/<type>/<form>/<size>/<scale> of tcr in both files, the median time before and
# after, after / before, and each one's GB/s of input as a fraction of the read-only kernel's (from
# the second file), and CUB 3.0.1's time over the after time (offsets cases; second file).
# Usage: segmented_ab.py before.json after.json [impl-regex]
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import load  # noqa: E402  (reads a JSON file cut short, or its .gz)


def medians(path):
    out = {}
    for b in (load(path) or {}).get("benchmarks", []):
        name = b.get("run_name", b["name"])
        if b.get("aggregate_name") not in (None, "median") or b.get("error_occurred"):
            continue
        parts = name.split("/")
        if len(parts) < 6 or parts[0] != "seg":
            continue
        key = (parts[1], parts[2], parts[3], parts[4], parts[5])
        out[key] = (b["real_time"], b.get("GBps", 0.0))
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: segmented_ab.py before.json after.json [impl-regex]")
    a, b = medians(sys.argv[1]), medians(sys.argv[2])
    want = re.compile(sys.argv[3] if len(sys.argv) == 4 else r"^tcr\.")
    print("impl type form size 2^scale | before us | after us | after/before | "
          "read frac before, after | cub/after")
    def order(k):
        return (k[0], k[1], k[2], int(k[3]) if k[3].isdigit() else 0, k[4])

    for key in sorted((k for k in b if want.search(k[0]) and k in a), key=order):
        impl, t, form, size, scale = key
        (ta, ga), (tb, gb) = a[key], b[key]
        read = b.get(("read", t, form, size, scale)) or b.get(("read", t, form, "all", scale))
        cub = b.get(("cub.offsets", t, form, size, scale))
        rf = f"{ga / read[1]:.2f}, {gb / read[1]:.2f}" if read and read[1] else "-"
        cf = f"{cub[0] / tb:.2f}" if cub else "-"
        print(f"{impl} {t} {form} {size} {scale} | {ta:.1f} | {tb:.1f} | {tb / ta:.3f} | {rf} | "
              f"{cf}")


if __name__ == "__main__":
    main()
