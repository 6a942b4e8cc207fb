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
from segmented_report import results  # noqa: E402  (median GB/s and time per case)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: segmented_ab.py before.json after.json [impl-regex]")
    a, b = ({k: v for k, v in results([load(path)]).items() if "error" not in v}
            for path in sys.argv[1:3])
    want = re.compile(sys.argv[3] if len(sys.argv) == 4 else r"^tcr\.")
    print("impl type form size 2^scale | before us | after us | after/before | "
          "read frac before, after | cub/after")

    def order(k):
        return (k[0], k[1], k[2], k[3] if isinstance(k[3], int) else 0, k[4])

    for key in sorted((k for k in b if want.search(k[0]) and k in a), key=order):
        impl, t, form, size, scale = key
        x, y = a[key], b[key]
        read = b.get(("read", t, form, size, scale)) or b.get(("read", t, form, "all", scale))
        cub = b.get(("cub.offsets", t, form, size, scale))
        rf = f"{x['gbps'] / read['gbps']:.2f}, {y['gbps'] / read['gbps']:.2f}" if read else "-"
        cf = f"{cub['us'] / y['us']:.2f}" if cub else "-"
        print(f"{impl} {t} {form} {size} {scale} | {x['us']:.1f} | {y['us']:.1f} | "
              f"{y['us'] / x['us']:.3f} | {rf} | {cf}")


if __name__ == "__main__":
    main()
