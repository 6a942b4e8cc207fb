#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Two tcr_device_bench runs of the exact modes side by side (an A/B of two builds in one GPU
# session): for every op, type and size, CUB 3.0.1's median time (from the first file), the
# correctly rounded mode's (certify first: "automatic") median in each file, and CUB's time over
# each. Usage: exact_ab.py before.json after.json
import json
import sys


def medians(path):
    out = {}
    with open(path) as f:
        for b in json.load(f)["benchmarks"]:
            name = b["name"]
            if not name.endswith("_median"):
                continue
            parts = name.split("/")
            n = next(int(p.split(":")[1]) for p in parts if p.startswith("n:"))
            out[(parts[0], parts[1], parts[2], n)] = b["real_time"]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: exact_ab.py before.json after.json")
    a, b = medians(sys.argv[1]), medians(sys.argv[2])
    mode = "tcr.correctly_rounded.automatic"
    print("op type n | cub | before | after | cub/before cub/after")
    for op, t, n in sorted({(k[0], k[1], k[3]) for k in b}):
        cub, x, y = a.get((op, t, "cub", n)), a.get((op, t, mode, n)), b.get((op, t, mode, n))
        if cub and x and y:
            print(f"{op} {t} 2^{n.bit_length() - 1} | {cub:.2f} | {x:.2f} | {y:.2f} | "
                  f"{cub / x:.2f} {cub / y:.2f}")


if __name__ == "__main__":
    main()
