#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tcr benchmarks: the old device layer against the new one, and both against CUB, in one table.

    bench/compare.py DIR [--old FILE ...] [--new FILE ...] [--cub35 FILE ...] [--markdown]
                         [--write] [--methods all|default] [--merge] [--brief]
    bench/compare.py --ab FILE ... [--markdown] [--brief]

DIR is what scripts/bench-compare writes: Google Benchmark JSON from tcr_device_bench built from
the old tree (old-gated-*.json, old-host-*.json) and from the new one (new-*.json), and from
tcr_bench_cub35 (cub35-gated.json, cub35-host.json); .json.gz files are read as well. --old /
--new / --cub35 name files instead (a file name holding "host" or "nogate" is the host-launched
view, any other the gated one). The same file may be given as old and new (a test of this script).

One row per view (gated: GPU time of batches queued behind a gate; host: --tcr_no_gate, the
host's launch cost included), operation, input type, tcr method (accuracy.engine) and size,
cold L2, medians of the repetitions:
  new us, old us, new/old     tcr's time per call in each tree and their ratio (< 1: new faster)
  noise                       the larger relative min..max spread of the repetitions of the two
  CUB us, new/CUB, old/CUB    CUB 3.0.1 (the toolkit's; the better of its Sum/TransformReduce and,
                              for f16/bf16, Reduce) measured by the same program as the tcr time,
                              and tcr's time relative to it (< 1: tcr faster)
  CUB n/o                     CUB's new-run time / old-run time: the same code timed twice, i.e.
                              the drift between the two programs' runs
  3.5 us, new/3.5             CCCL 3.5's CUB, default determinism (two-phase Sum/TransformReduce)
  3.5ng us, new/3.5ng         CCCL 3.5, determinism::not_guaranteed (one launch, float atomics)
Flags: SLOWER   every repetition of new slower than every repetition of old (min new > max old)
                and new/old above 1 + the row's CUB drift
       slower?  the repetitions do not overlap, but new/old is within the CUB drift
       >CUB     new's median above CUB 3.0.1's (>>CUB: every repetition above CUB's slowest)
       >3.5     new's median above CCCL 3.5's default
       *        some repetition ran below 75% of the default SM clock
       NEW-ERROR / old-error / errors   one tree (or both, differently) could not run the row
Rows where both trees report the same error (an engine a type does not offer) are left out and
counted in the first line.
--brief prints only the summary counts and the first 20 rows of each list.
--methods default keeps tcr.compensated.automatic and tcr.fast.automatic (the default: all).

In-process A/B (--ab FILE ..., or DIR's ab-*.json): tcr_device_bench built with
-DTCR_BENCH_OLD_SOURCE=<old tree> measures the old tree's DeviceReduce (methods old.<accuracy>.
automatic) in the same process as tcr's (tcr.<accuracy>.automatic), with the same harness, buffers
and L2 flush, next to each other in time. One row per view, operation, type, mode and size:
  tcr us, old us, tcr/old     medians of the repetitions and their ratio (< 1: tcr faster)
  noise                       the larger relative min..max spread of the repetitions of the two
  CUB us, tcr/CUB, old/CUB    CUB 3.0.1 (the better of its methods) in the same process
Flags: SLOWER   every repetition of tcr slower than every one of old, and tcr/old - 1 above noise
       slower?  the repetitions do not overlap, but tcr/old - 1 is within noise
       faster   every repetition of tcr faster than every one of old
       >CUB     tcr's median above CUB's (>>CUB: every repetition above CUB's slowest)
       *        some repetition ran below 75% of the default SM clock
       TCR-ERROR / old-error / errors   one (or both, differently) could not run the row
With DIR, the A/B table comes first in compare.txt / compare.md, before the two-program one (DIR
may hold only ab-*.json).
--write writes DIR/compare.txt and DIR/compare.md. --merge also writes DIR/old/device.json,
DIR/new/device.json and DIR/new/nogate.json (each tree's gated and host-launched files merged, with
a meta.json), so that bench/report.py DIR/new and bench/sizes.py read them.
"""
import argparse
import glob
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (same directory)

OPS = report.OPS
TYPES = report.TYPES
THROTTLE = report.THROTTLE
DEFAULT_METHODS = ["tcr.compensated.automatic", "tcr.fast.automatic"]


def view_of(path):
    base = os.path.basename(path)
    return "host" if "host" in base or "nogate" in base else "gated"


def files_in(d, prefix):
    names = sorted(glob.glob(os.path.join(d, prefix + "*.json")) +
                   glob.glob(os.path.join(d, prefix + "*.json.gz")))
    # x.json and x.json.gz both present: read x.json once.
    seen, out = set(), []
    for n in names:
        base = n[:-3] if n.endswith(".gz") else n
        if base not in seen:
            seen.add(base)
            out.append(base)
    return out


def load_set(paths):
    """{view: {(op, type, method, n): result}} over the files (cold L2 rows; later files win),
    and the JSON contexts read. A name x.json.gz is read as x.json (report.load tries both)."""
    res = defaultdict(dict)
    contexts = []
    for p in (q[:-3] if q.endswith(".json.gz") else q for q in paths):
        doc = report.load(p)
        if doc is None:
            print(f"compare.py: {p}: missing or unreadable", file=sys.stderr)
            continue
        contexts.append(doc.get("context", {}))
        v = view_of(p)
        for (op, ty, method, l2, n), r in report.speed_results(doc).items():
            if l2 == "cold":
                res[v][(op, ty, method, n)] = r
    return res, contexts


def ok(r):
    return r if r and "us" in r else None


def best_cub(table, op, ty, n):
    cands = [ok(table.get((op, ty, m, n))) for m in ("cub", "cub.reduce")]
    cands = [c for c in cands if c]
    return min(cands, key=lambda c: c["us"]) if cands else None


def spread(r):
    if not r or "us_min" not in r or "us_max" not in r or not r["us"]:
        return None
    return (r["us_max"] - r["us_min"]) / r["us"]


def ratio(a, b):
    return a["us"] / b["us"] if a and b and b["us"] > 0 else None


def throttled(*rs):
    return any(r and r.get("clock_min") is not None and r["clock_min"] < THROTTLE for r in rs)


def fmt_r(v):
    return "-" if v is None else f"{v:.3f}"


def fmt_pct(v):
    return "-" if v is None else f"{100 * v:.1f}%"


def short_method(m):
    return (m.replace("tcr.", "").replace("compensated", "comp").replace("automatic", "auto")
            .replace("tensor_core", "tc").replace("cuda_core", "cc"))


def method_order(m):
    acc, _, eng = m[4:].partition(".")
    return ({"compensated": 0, "fast": 1}.get(acc, 2), {"automatic": 0, "tensor_core": 1,
                                                          "cuda_core": 2}.get(eng, 3), m)


def build_rows(old, new, c35, methods):
    """Rows (dicts) for every (view, op, type, method, n) that old or new measured for tcr."""
    rows = []
    skipped = {}
    for view in ("gated", "host"):
        o, nw, c = old.get(view, {}), new.get(view, {}), c35.get(view, {})
        keys = {k for k in set(o) | set(nw) if k[2].startswith("tcr.")}
        if methods:
            keys = {k for k in keys if k[2] in methods}
        for (op, ty, m, n) in sorted(keys, key=lambda k: (OPS.index(k[0]) if k[0] in OPS else 9,
                                                            TYPES.index(k[1]) if k[1] in TYPES else 9,
                                                            method_order(k[2]), k[3])):
            r_new, r_old = nw.get((op, ty, m, n)), o.get((op, ty, m, n))
            cub_new, cub_old = best_cub(nw, op, ty, n), best_cub(o, op, ty, n)
            c35_def = ok(c.get((op, ty, "cub35", n)))
            c35_ng = ok(c.get((op, ty, "cub35.not_guaranteed", n)))
            c35_g2g = ok(c.get((op, ty, "cub35.gpu_to_gpu", n)))
            a, b = ok(r_new), ok(r_old)
            e_new, e_old = (r_new or {}).get("error"), (r_old or {}).get("error")
            if e_new and e_old and e_new == e_old:
                skipped[(e_new, view)] = skipped.get((e_new, view), 0) + 1
                continue
            row = dict(view=view, op=op, type=ty, method=m, n=n, new=a, old=b,
                       new_error=(r_new or {}).get("error"), old_error=(r_old or {}).get("error"),
                       cub_new=cub_new, cub_old=cub_old, c35=c35_def, c35ng=c35_ng, c35g2g=c35_g2g)
            row["new_old"] = ratio(a, b)
            sp = [s for s in (spread(a), spread(b)) if s is not None]
            row["noise"] = max(sp) if sp else None
            row["cub_drift"] = ratio(cub_new, cub_old)
            row["new_cub"] = ratio(a, cub_new)
            row["old_cub"] = ratio(b, cub_old)
            row["new_c35"] = ratio(a, c35_def)
            row["new_c35ng"] = ratio(a, c35_ng)
            flags = []
            if a and b and "us_min" in a and "us_max" in b and a["us_min"] > b["us_max"]:
                drift = abs(row["cub_drift"] - 1) if row["cub_drift"] else 0.0
                flags.append("SLOWER" if row["new_old"] > 1 + drift else "slower?")
            if a and cub_new:
                if "us_min" in a and "us_max" in cub_new and a["us_min"] > cub_new["us_max"]:
                    flags.append(">>CUB")
                elif a["us"] > cub_new["us"]:
                    flags.append(">CUB")
            if a and c35_def and a["us"] > c35_def["us"]:
                flags.append(">3.5")
            if throttled(a, b, cub_new, cub_old):
                flags.append("*")
            if row["new_error"] and b:
                flags.append("NEW-ERROR")
            elif row["old_error"] and a:
                flags.append("old-error")
            elif row["new_error"] and row["old_error"]:
                flags.append("errors")
            row["flags"] = flags
            rows.append(row)
    return rows, skipped


def log2n(n):
    return f"2^{int(round(math.log2(n)))}"


def table_lines(header, rows, markdown):
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        return out
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    last = len(header) - 1
    fmt = lambda cells: "  ".join(c.rjust(w) if 5 <= i < last else c.ljust(w)  # noqa: E731
                                  for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [fmt(header)] + [fmt(r) for r in rows]


def us(r):
    return report.fmt_us(r["us"]) if r else "-"


def render(rows, meta_line, markdown, have_c35, brief=False):
    out = []
    p = out.append
    p(meta_line)
    p("")
    if brief:
        return out + summary(rows, markdown, have_c35, brief=True)
    header = ["view", "op", "type", "method", "n", "new us", "old us", "new/old", "noise",
              "CUB us", "new/CUB", "old/CUB", "CUB n/o"]
    if have_c35:
        header += ["3.5 us", "new/3.5", "3.5ng us", "new/3.5ng"]
    header += ["flags"]
    cells = []
    for r in rows:
        c = [r["view"], r["op"], r["type"], short_method(r["method"]), log2n(r["n"]),
             us(r["new"]) if r["new"] else ("err" if r["new_error"] else "-"),
             us(r["old"]) if r["old"] else ("err" if r["old_error"] else "-"),
             fmt_r(r["new_old"]), fmt_pct(r["noise"]), us(r["cub_new"]), fmt_r(r["new_cub"]),
             fmt_r(r["old_cub"]), fmt_r(r["cub_drift"])]
        if have_c35:
            c += [us(r["c35"]), fmt_r(r["new_c35"]), us(r["c35ng"]), fmt_r(r["new_c35ng"])]
        c += [" ".join(r["flags"])]
        cells.append(c)
    p("== every row (time per call; ratios are time ratios, < 1: the first is faster; columns and "
      "flags: bench/compare.py --help)")
    p("")
    out += table_lines(header, cells, markdown)
    p("")
    out += summary(rows, markdown, have_c35)
    return out


def geomean(vals):
    return report.geomean(vals)


def capped(items, cap):
    """items, or the first cap of them and a line saying how many more compare.txt has."""
    if cap is None or len(items) <= cap:
        return items
    return items[:cap] + [f"  ... and {len(items) - cap} more (compare.txt)"]


def summary(rows, markdown, have_c35, brief=False):
    out = []
    p = out.append
    cap = 20 if brief else None
    both = [r for r in rows if r["new_old"] is not None]
    p("== summary")
    p("")
    p(f"rows with both trees measured: {len(both)} of {len(rows)}")
    drifts = [abs(r["cub_drift"] - 1) for r in rows if r["cub_drift"]]
    if drifts:
        drifts.sort()
        p(f"CUB 3.0.1 timed by both programs (same code): |new/old - 1| median "
          f"{100 * drifts[len(drifts) // 2]:.1f}%, max {100 * drifts[-1]:.1f}%")
    noise = sorted(r["noise"] for r in both if r["noise"] is not None)
    if noise:
        p(f"spread of repetitions (max-min)/median: median {100 * noise[len(noise) // 2]:.1f}%, "
          f"max {100 * noise[-1]:.1f}%")
    for label, flag in (("new slower than old beyond noise and CUB drift (SLOWER)", "SLOWER"),
                        ("new slower than old beyond noise, within CUB drift (slower?)", "slower?")):
        hit = sorted((r for r in rows if flag in r["flags"]), key=lambda r: -r["new_old"])
        big = [sum(1 for r in hit if r["new_old"] > 1 + x) for x in (0.02, 0.05)]
        p(f"{label}: {len(hit)}" + (f" (new/old > 1.02: {big[0]}, > 1.05: {big[1]})" if hit else ""))
        out += capped([f"  {r['view']:5} {r['op']:4} {r['type']:4} {short_method(r['method']):10} "
                       f"{log2n(r['n']):5} new/old {fmt_r(r['new_old'])} (CUB n/o "
                       f"{fmt_r(r['cub_drift'])})" for r in hit], cap)
    for label, flag in (("new fails where old ran (NEW-ERROR)", "NEW-ERROR"),
                        ("new runs where old failed (old-error)", "old-error"),
                        ("both fail, with different messages (errors)", "errors")):
        hit = [r for r in rows if flag in r["flags"]]
        if hit:
            p(f"{label}: {len(hit)}")
            out += capped([f"  {r['view']} {r['op']} {r['type']} {r['method']} {log2n(r['n'])}: "
                           f"new: {r['new_error'] or 'ok'}; old: {r['old_error'] or 'ok'}"
                           for r in hit], cap)
    p("")
    if brief:
        out += default_misses(rows, cap)
        return out
    # Per view, op, type, method: the geometric mean of new/old over the sizes and the worst size.
    groups = defaultdict(list)
    for r in both:
        groups[(r["view"], r["op"], r["type"], r["method"])].append(r)
    header = ["view", "op", "type", "method", "sizes", "new/old gm", "worst new/old", "at",
              "new/CUB gm", "worst new/CUB", "at"]
    if have_c35:
        header += ["new/3.5 gm", "new/3.5ng gm"]
    cells = []
    for (view, op, ty, m), rs in groups.items():
        worst = max(rs, key=lambda r: r["new_old"])
        wc = [r for r in rs if r["new_cub"] is not None]
        worst_c = max(wc, key=lambda r: r["new_cub"]) if wc else None
        c = [view, op, ty, short_method(m), str(len(rs)), fmt_r(geomean([r["new_old"] for r in rs])),
             fmt_r(worst["new_old"]), log2n(worst["n"]),
             fmt_r(geomean([r["new_cub"] for r in wc])) if wc else "-",
             fmt_r(worst_c["new_cub"]) if worst_c else "-", log2n(worst_c["n"]) if worst_c else "-"]
        if have_c35:
            c += [fmt_r(geomean([r["new_c35"] for r in rs if r["new_c35"]])),
                  fmt_r(geomean([r["new_c35ng"] for r in rs if r["new_c35ng"]]))]
        cells.append(c)
    p("== per operation, type and method over the sizes (gm: geometric mean)")
    p("")
    out += table_lines(header, cells, markdown)
    p("")
    # The default method against CUB 3.0.1 and CCCL 3.5 per size (issue 10, point 5).
    dflt = [r for r in rows if r["method"] == "tcr.compensated.automatic" and r["new"]]
    if dflt:
        p("== tcr default (compensated, automatic engine, new tree) against CUB, per size "
          "(time ratio tcr/peer; > 1.000: tcr slower)")
        p("")
        ns = sorted({r["n"] for r in dflt})
        header = ["view", "op", "type", "peer"] + [log2n(n) for n in ns]
        cells = []
        peers = [("CUB 3.0.1", "new_cub")]
        if have_c35:
            peers += [("3.5 default", "new_c35"), ("3.5 not_guar.", "new_c35ng"),
                      ("3.5 gpu_to_gpu", "g2g")]
        by = defaultdict(dict)
        for r in dflt:
            by[(r["view"], r["op"], r["type"])][r["n"]] = r
        for (view, op, ty), per_n in by.items():
            for label, field in peers:
                vals = []
                for n in ns:
                    r = per_n.get(n)
                    v = None
                    if r is not None:
                        v = ratio(r["new"], r["c35g2g"]) if field == "g2g" else r[field]
                    vals.append(v)
                if all(v is None for v in vals):
                    continue
                cells.append([view, op, ty, label] + [fmt_r(v) for v in vals])
        out += table_lines(header, cells, markdown)
        p("")
        out += default_misses(rows, None)
    return out


def default_misses(rows, cap):
    """Where tcr's default (new tree) is slower than CUB 3.0.1 and than CCCL 3.5."""
    out = []
    dflt = [r for r in rows if r["method"] == "tcr.compensated.automatic" and r["new"]]
    for label, field, beyond in (("CUB 3.0.1", "new_cub", ">>CUB"), ("CCCL 3.5 default", "new_c35", None),
                                 ("CCCL 3.5 not_guaranteed", "new_c35ng", None)):
        have = [r for r in dflt if r[field] is not None]
        if not have:
            continue
        miss = sorted((r for r in have if r[field] > 1.0), key=lambda r: -r[field])
        out.append(f"tcr default (new tree) slower than {label}: {len(miss)} of {len(have)} rows")
        out += capped([f"  {r['view']:5} {r['op']:4} {r['type']:4} {log2n(r['n']):5} tcr/peer "
                       f"{fmt_r(r[field])}{'  (beyond noise)' if beyond and beyond in r['flags'] else ''}"
                       for r in miss], cap)
    out.append("")
    return out


def ab_rows(res):
    """A/B rows from one program's results ({view: {(op, type, method, n): result}}): every
    tcr.<accuracy>.automatic against old.<accuracy>.automatic at the same (op, type, n)."""
    rows = []
    for view in ("gated", "host"):
        t = res.get(view, {})
        keys = {(op, ty, m.split(".", 1)[1], n) for (op, ty, m, n) in t
                if m.startswith("old.") and m.endswith(".automatic")}
        keys |= {(op, ty, m.split(".", 1)[1], n) for (op, ty, m, n) in t
                 if m.startswith("tcr.") and m.endswith(".automatic") and
                 (op, ty, "old." + m.split(".", 1)[1], n) in t}
        for (op, ty, mode, n) in sorted(keys, key=lambda k: (OPS.index(k[0]) if k[0] in OPS else 9,
                                                               TYPES.index(k[1]) if k[1] in TYPES else 9,
                                                               method_order("tcr." + k[2]), k[3])):
            r_tcr, r_old = t.get((op, ty, "tcr." + mode, n)), t.get((op, ty, "old." + mode, n))
            e_tcr, e_old = (r_tcr or {}).get("error"), (r_old or {}).get("error")
            a, b = ok(r_tcr), ok(r_old)
            cub = best_cub(t, op, ty, n)
            row = dict(view=view, op=op, type=ty, mode=mode.split(".")[0], n=n, tcr=a, old=b,
                       tcr_error=e_tcr, old_error=e_old, cub=cub,
                       tcr_old=ratio(a, b), tcr_cub=ratio(a, cub), old_cub=ratio(b, cub))
            sp = [x for x in (spread(a), spread(b)) if x is not None]
            row["noise"] = max(sp) if sp else None
            flags = []
            if a and b and "us_min" in a and "us_max" in b and a["us_min"] > b["us_max"]:
                flags.append("SLOWER" if row["tcr_old"] - 1 > (row["noise"] or 0.0) else "slower?")
            elif a and b and "us_max" in a and "us_min" in b and a["us_max"] < b["us_min"]:
                flags.append("faster")
            if a and cub:
                if "us_min" in a and "us_max" in cub and a["us_min"] > cub["us_max"]:
                    flags.append(">>CUB")
                elif a["us"] > cub["us"]:
                    flags.append(">CUB")
            if throttled(a, b, cub):
                flags.append("*")
            if e_tcr and e_old:
                if e_tcr != e_old:
                    flags.append("errors")
            elif e_tcr:
                flags.append("TCR-ERROR")
            elif e_old:
                flags.append("old-error")
            row["flags"] = flags
            rows.append(row)
    return rows


def ab_render(rows, markdown, brief=False):
    """The A/B section: every row (unless brief), the flagged rows, and per (view, op, type, mode)
    the geometric mean of tcr/old over the sizes."""
    out = []
    p = out.append
    p("== in-process A/B: tcr against the old tree in one program (time per call; ratios are time "
      "ratios, < 1: tcr faster; columns and flags: bench/compare.py --help)")
    p("")
    both = [r for r in rows if r["tcr_old"] is not None]
    if not rows:
        p("no A/B rows (no old.* cases in these files)")
        p("")
        return out
    if not brief:
        header = ["view", "op", "type", "mode", "n", "tcr us", "old us", "tcr/old", "noise",
                  "CUB us", "tcr/CUB", "old/CUB", "flags"]
        cells = [[r["view"], r["op"], r["type"], r["mode"], log2n(r["n"]),
                  us(r["tcr"]) if r["tcr"] else ("err" if r["tcr_error"] else "-"),
                  us(r["old"]) if r["old"] else ("err" if r["old_error"] else "-"),
                  fmt_r(r["tcr_old"]), fmt_pct(r["noise"]), us(r["cub"]), fmt_r(r["tcr_cub"]),
                  fmt_r(r["old_cub"]), " ".join(r["flags"])] for r in rows]
        out += table_lines(header, cells, markdown)
        p("")
    p(f"A/B rows with both measured: {len(both)} of {len(rows)}")
    noise = sorted(r["noise"] for r in both if r["noise"] is not None)
    if noise:
        p(f"spread of repetitions (max-min)/median: median {100 * noise[len(noise) // 2]:.1f}%, "
          f"max {100 * noise[-1]:.1f}%")
    cap = 20 if brief else None
    for label, flag in (("tcr slower than old beyond noise (SLOWER)", "SLOWER"),
                        ("repetitions apart, within noise (slower?)", "slower?"),
                        ("tcr faster than old, repetitions apart (faster)", "faster")):
        hit = sorted((r for r in rows if flag in r["flags"]), key=lambda r: -r["tcr_old"])
        p(f"{label}: {len(hit)}")
        if flag != "faster":
            out += capped([f"  {r['view']:5} {r['op']:4} {r['type']:4} {r['mode']:11} "
                           f"{log2n(r['n']):5} tcr/old {fmt_r(r['tcr_old'])} (noise "
                           f"{fmt_pct(r['noise'])})" for r in hit], cap)
    for label, flag in (("tcr fails where old ran (TCR-ERROR)", "TCR-ERROR"),
                        ("tcr runs where old failed (old-error)", "old-error"),
                        ("both fail, with different messages (errors)", "errors")):
        hit = [r for r in rows if flag in r["flags"]]
        if hit:
            p(f"{label}: {len(hit)}")
            out += capped([f"  {r['view']} {r['op']} {r['type']} {r['mode']} {log2n(r['n'])}: "
                           f"tcr: {r['tcr_error'] or 'ok'}; old: {r['old_error'] or 'ok'}"
                           for r in hit], cap)
    p("")
    if brief:
        return out
    groups = defaultdict(list)
    for r in both:
        groups[(r["view"], r["op"], r["type"], r["mode"])].append(r)
    header = ["view", "op", "type", "mode", "sizes", "tcr/old gm", "worst tcr/old", "at", "noise",
              "tcr/CUB gm", "old/CUB gm"]
    cells = []
    for (view, op, ty, mode), rs in groups.items():
        worst = max(rs, key=lambda r: r["tcr_old"])
        cells.append([view, op, ty, mode, str(len(rs)), fmt_r(geomean([r["tcr_old"] for r in rs])),
                      fmt_r(worst["tcr_old"]), log2n(worst["n"]), fmt_pct(worst["noise"]),
                      fmt_r(geomean([r["tcr_cub"] for r in rs])),
                      fmt_r(geomean([r["old_cub"] for r in rs]))])
    p("== A/B per operation, type and mode over the sizes (gm: geometric mean; noise: at the worst "
      "size)")
    p("")
    out += table_lines(header, cells, markdown)
    p("")
    return out


def merge(paths, out_path, meta):
    docs = [report.load(p) for p in paths]
    docs = [d for d in docs if d]
    if not docs:
        return False
    merged = {"context": docs[0].get("context", {}), "benchmarks": []}
    for d in docs:
        merged["benchmarks"] += d.get("benchmarks", [])
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(merged, f)
    if meta:
        with open(os.path.join(os.path.dirname(out_path), "meta.json"), "w") as f:
            json.dump(meta, f)
    return True


def context_line(ctxs, meta):
    """The first line of a table: GPU, CUDA, CCCL, what the run was, repetitions."""
    ctx = (ctxs or [{}])[0]
    parts = [f"GPU: {ctx.get('gpu', meta.get('gpu', '?'))}",
             f"CUDA runtime: {ctx.get('cuda_runtime', '?')}",
             f"CCCL (tcr_device_bench): {ctx.get('cccl_version', '?')}"]
    if meta:
        parts += [f"date: {meta.get('date', '?')}", f"new: {meta.get('new', '?')}",
                  f"old: {meta.get('old', '?')}", f"args: {meta.get('args', '')}"]
    reps = {c.get("tcr_repetitions") for c in ctxs}
    mins = {c.get("tcr_min_time") for c in ctxs}
    parts.append(f"repetitions: {','.join(sorted(str(r) for r in reps if r))}, "
                 f"min_time: {','.join(sorted(str(m) for m in mins if m))}")
    return parts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default=None)
    ap.add_argument("--old", nargs="*", default=None)
    ap.add_argument("--new", nargs="*", default=None)
    ap.add_argument("--cub35", nargs="*", default=None)
    ap.add_argument("--ab", nargs="+", default=None, metavar="FILE")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--merge", action="store_true")
    ap.add_argument("--brief", action="store_true")
    ap.add_argument("--methods", default="all", choices=["all", "default"])
    a = ap.parse_args()
    if a.dir is None and a.ab is None and (a.old is None or a.new is None):
        ap.error("give DIR, --old and --new files, or --ab files")
    meta = {}
    if a.dir and os.path.exists(os.path.join(a.dir, "meta.json")):
        with open(os.path.join(a.dir, "meta.json")) as f:
            meta = json.load(f)
    ab_p = a.ab if a.ab is not None else (files_in(a.dir, "ab-") if a.dir else [])
    ab, ctx_ab = load_set(ab_p)
    ab_lines = (lambda md, brief=False: ab_render(ab_rows(ab), md, brief)) if ab_p else None
    ab_source = {c.get("tcr_old_source") for c in ctx_ab if c.get("tcr_old_source")}
    ab_meta = ", ".join(context_line(ctx_ab, meta) +
                        ([f"old tree: {', '.join(sorted(ab_source))}"] if ab_source else []))

    if a.dir is None and a.old is None and a.new is None:
        old_p, new_p = [], []
    else:
        old_p = a.old if a.old is not None else files_in(a.dir, "old-")
        new_p = a.new if a.new is not None else files_in(a.dir, "new-")
    if (not old_p or not new_p) and not ab_p:
        print(f"compare.py: no old-*.json or new-*.json (nor ab-*.json) in {a.dir}", file=sys.stderr)
        return 1

    if old_p and new_p:
        c35_p = a.cub35 if a.cub35 is not None else (files_in(a.dir, "cub35-") if a.dir else [])
        old, ctx_old = load_set(old_p)
        new, ctx_new = load_set(new_p)
        c35, ctx_c35 = load_set(c35_p)
        parts = context_line(ctx_new + ctx_old, meta)
        if ctx_c35:
            parts.insert(3, f"CCCL (tcr_bench_cub35): {ctx_c35[0].get('cccl_version', '?')}")
        rows, skipped = build_rows(old, new, c35, DEFAULT_METHODS if a.methods == "default" else None)
        for (message, view), count in sorted(skipped.items()):
            parts.append(f"left out: {count} {view} rows where both trees report '{message}'")
        two = lambda md, brief=False: render(rows, ", ".join(parts), md, bool(c35), brief)  # noqa: E731
    else:
        two = None

    # The A/B table first: it is the one without drift between programs.
    def document(md, brief=False):
        out = [ab_meta, ""] + ab_lines(md, brief) if ab_lines else []
        return out + (two(md, brief) if two else [])

    print("\n".join(document(a.markdown, a.brief)))
    if a.write and a.dir:
        with open(os.path.join(a.dir, "compare.txt"), "w") as f:
            f.write("\n".join(document(False)) + "\n")
        with open(os.path.join(a.dir, "compare.md"), "w") as f:
            f.write("\n".join(document(True)) + "\n")
    if a.merge and a.dir and old_p and new_p:
        for tree, paths in (("old", old_p), ("new", new_p)):
            m = dict(meta, commit=meta.get(tree, "?"))
            merge([q for q in paths if view_of(q) == "gated"], os.path.join(a.dir, tree, "device.json"), m)
            merge([q for q in paths if view_of(q) == "host"], os.path.join(a.dir, tree, "nogate.json"), None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
