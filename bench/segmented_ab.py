#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Two tcr_bench_segmented runs side by side (an A/B of two builds in one GPU session): for every
# case seg/<impl>/<type>/<form>/<size>/<scale> of tcr in both files, the median time before and
# after, after / before, and each one's GB/s of input as a fraction of the read-only kernel's (from
# the second file), and CUB 3.0.1's time over the after time (offsets cases; second file).
# With more than two files (variants of one session), one row per case of the first file: each
# file's median time, its fraction of the read-only kernel's GB/s (the first file's read-only
# kernel) and its time over the first file's.
# Usage: segmented_ab.py before.json after.json [more.json ...] [impl-regex]
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import load  # noqa: E402  (reads a JSON file cut short, or its .gz)
from segmented_report import results  # noqa: E402  (median GB/s and time per case)


def order(k):
    return (k[0], k[1], k[2], k[3] if isinstance(k[3], int) else 0, k[4])


def read_of(runs, key):
    _, t, form, size, scale = key
    return runs.get(("read", t, form, size, scale)) or runs.get(("read", t, form, "all", scale))


def several(runs, names, want):
    base = runs[0]
    print("impl type form size 2^scale | " + " | ".join(f"{n} us (read frac) x/first" for n in names))
    for key in sorted((k for k in base if want.search(k[0])), key=order):
        read = read_of(base, key)
        cells = []
        for i, r in enumerate(runs):
            x = r.get(key)
            if not x:
                cells.append("-")
                continue
            cell = f"{x['us']:.1f}" + (f" ({x['gbps'] / read['gbps']:.2f})" if read else "")
            if i > 0:
                cell += f" x{x['us'] / base[key]['us']:.3f}"
            cells.append(cell)
        print(" ".join(map(str, key)) + " | " + " | ".join(cells))


def main():
    args = sys.argv[1:]
    files = [a for a in args if a.endswith((".json", ".json.gz"))]
    rest = [a for a in args if a not in files]
    if len(files) < 2 or len(rest) > 1:
        sys.exit("usage: segmented_ab.py before.json after.json [more.json ...] [impl-regex]")
    # (load reads path or path + ".gz")
    paths = [f[: -len(".gz")] if f.endswith(".gz") else f for f in files]
    runs = [{k: v for k, v in results([load(path)]).items() if "error" not in v} for path in paths]
    want = re.compile(rest[0] if rest else r"^tcr\.")
    if len(runs) > 2:
        several(runs, [os.path.basename(f).split(".json")[0] for f in files], want)
        return
    a, b = runs
    print("impl type form size 2^scale | before us | after us | after/before | "
          "read frac before, after | cub/after")

    for key in sorted((k for k in b if want.search(k[0]) and k in a), key=order):
        impl, t, form, size, scale = key
        x, y = a[key], b[key]
        read = read_of(b, key)
        cub = b.get(("cub.offsets", t, form, size, scale))
        rf = f"{x['gbps'] / read['gbps']:.2f}, {y['gbps'] / read['gbps']:.2f}" if read else "-"
        cf = f"{cub['us'] / y['us']:.2f}" if cub else "-"
        print(f"{impl} {t} {form} {size} {scale} | {x['us']:.1f} | {y['us']:.1f} | "
              f"{y['us'] / x['us']:.3f} | {rf} | {cf}")


if __name__ == "__main__":
    main()
