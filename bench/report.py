#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tcr benchmarks: compact tables from a results directory.

    bench/report.py DIR [--markdown] [--all] [--write]

DIR holds device.json (Google Benchmark JSON from tcr_device_bench), accuracy.json (from
tcr_accuracy) and meta.json (from scripts/bench); any of them may be missing.

Speed table: for each operation, input type and size class (small 2^10..2^12, mid 2^13..2^22,
upper 2^23..2^27, large 2^28..), cold L2: tcr's default (compensated, automatic engine) time,
CUB's and cuBLAS's time, "vs X" = X's time / tcr's time (> 1: tcr is faster), and tcr's fraction
of the read-only ceiling's throughput. A class's value is the geometric mean over its sizes (so
ratios of the means are means of the ratios). "hot vs CUB" is the same ratio with the data in
L2. Medians of the repetitions; a * marks a row where some repetition ran below 75% of the
default SM clock. CUB's time is the better of DeviceReduce::TransformReduce and (f16, bf16)
Reduce with a float accumulator.

Accuracy table: relative error |res - exact| / |exact| per input set and method: uniform, normal,
same-sign wide-range, ill-conditioned with condition 1e8 and 1e16 (for 8-bit and 16-bit types the
highest reachable when 1e16 is not), and for nrm2 values whose squares overflow / underflow.

--all adds every tcr mode and engine to both tables and every input set; --markdown prints Markdown (for the README);
--write also writes DIR/report.md and DIR/report.txt.
"""
import argparse
import gzip
import json
import math
import os
import re
import sys
from collections import defaultdict

OPS = ["sum", "dot", "nrm2", "asum"]
TYPES = ["e4m3", "e5m2", "f16", "bf16", "f32", "f64"]
TCR_DEFAULT = "tcr.compensated.automatic"
CLASSES = [("small", 0, 12), ("mid", 13, 22), ("upper", 23, 27), ("large", 28, 64)]
THROTTLE = 0.75


def load(path):
    """The JSON at path (or path + ".gz", as large results are committed); None if missing. A
    file cut short (the benchmark died mid-run) is read up to its last complete entry."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        try:
            with gzip.open(path + ".gz", "rt") as f:
                text = f.read()
        except FileNotFoundError:
            return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    end = len(text)
    for _ in range(50):
        end = text.rfind("}", 0, end)
        if end < 0:
            break
        try:
            doc = json.loads(text[:end + 1] + "]}")
            print(f"report.py: {path} was cut short; using the entries before the cut", file=sys.stderr)
            return doc
        except json.JSONDecodeError:
            continue
    print(f"report.py: {path} is not valid JSON", file=sys.stderr)
    return None


def median_records(docs, parse_name, metric):
    """{key: ("error", message)} or {key: (record, lowest clock_ratio)} for every benchmark whose
    name parse_name turns into a key: the median aggregate (or, with one repetition, the single
    run) that carries the counter `metric`."""
    out = {}
    runs = {}
    for doc in docs:
        for b in (doc or {}).get("benchmarks", []):
            key = parse_name(b.get("run_name", b.get("name", "")))
            if key is None:
                continue
            if b.get("error_occurred"):
                out[key] = ("error", b.get("error_message", "error"))
                continue
            slot = runs.setdefault(key, {})
            if b.get("run_type") == "aggregate":
                slot[b.get("aggregate_name")] = b
            else:
                slot.setdefault("iteration", b)
    for key, slot in runs.items():
        if key in out:
            continue
        b = slot.get("median") or slot.get("iteration")
        if b is None or metric not in b:
            continue
        out[key] = (b, slot.get("min", b).get("clock_ratio", 1.0))
    return out


def to_us(value, unit):
    return value * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}.get(unit, 1.0)


def parse_name(name):
    """op/type/method/l2/n:N[/...] -> (op, type, method, l2, n) or None."""
    parts = name.split("/")
    if len(parts) < 5 or not parts[4].startswith("n:"):
        return None
    try:
        return parts[0], parts[1], parts[2], parts[3], int(parts[4][2:])
    except ValueError:
        return None


def speed_results(doc):
    """{(op, type, method, l2, n): {"us", "us_min", "us_max", "bw", "clock_min", ...} or {"error"}}
    from Google Benchmark JSON (us: the median of the repetitions; us_min / us_max: their range)."""
    runs = defaultdict(dict)  # key -> {"median": entry, "min": entry, "iteration": [entries]}
    for b in doc.get("benchmarks", []):
        key = parse_name(b.get("run_name", b.get("name", "")))
        if key is None:
            continue
        slot = runs[key]
        if b.get("run_type") == "aggregate":
            slot[b.get("aggregate_name")] = b
        else:
            slot.setdefault("iteration", []).append(b)
    out = {}
    for key, slot in runs.items():
        errors = [b for b in slot.get("iteration", []) if b.get("error_occurred")]
        if errors:
            out[key] = {"error": errors[0].get("error_message", "error")}
            continue
        med = slot.get("median")
        its = slot.get("iteration", [])
        if med is None and its:
            srt = sorted(its, key=lambda b: b["real_time"])
            med = srt[len(srt) // 2]
        if med is None:
            continue
        clocks = [b.get("clock_ratio") for b in its if b.get("clock_ratio") is not None]
        if "min" in slot and slot["min"].get("clock_ratio") is not None:
            clocks.append(slot["min"]["clock_ratio"])
        if not clocks and med.get("clock_ratio") is not None:
            clocks.append(med["clock_ratio"])
        mhz = [b.get("sm_clock_mhz") for b in its + [slot.get("min"), med] if b and b.get("sm_clock_mhz")]
        spread = {}
        for agg in ("min", "max"):
            if agg in slot:
                spread["us_" + agg] = to_us(slot[agg]["real_time"], slot[agg].get("time_unit", "ns"))
            elif its:
                pick = min if agg == "min" else max
                b = pick(its, key=lambda b: b["real_time"])
                spread["us_" + agg] = to_us(b["real_time"], b.get("time_unit", "ns"))
        out[key] = {
            **spread,
            "us": to_us(med["real_time"], med.get("time_unit", "ns")),
            "bw": med.get("bytes_per_second"),
            "clock_min": min(clocks) if clocks else None,
            "mhz_median": med.get("sm_clock_mhz"),
            "mhz_min": min(mhz) if mhz else None,
        }
    return out


def geomean(values):
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def size_label(ns):
    logs = sorted({int(round(math.log2(n))) for n in ns})
    if not logs:
        return ""
    if len(logs) == 1:
        return f"2^{logs[0]}"
    return f"2^{logs[0]}..2^{logs[-1]} ({len(logs)})"


def fmt_us(v):
    if v is None:
        return "-"
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}x"


def fmt_frac(v):
    return "-" if v is None else f"{100 * v:.0f}%"


def fmt_err(v):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if v == 0:
        return "0"
    return f"{v:.1e}"


def speed_rows(res, show_all):
    """Rows of the compact speed table (list of lists of strings) and the footnotes."""
    methods_by = defaultdict(set)
    for (op, ty, method, l2, n) in res:
        methods_by[(op, ty)].add(method)
    tcr_methods = [TCR_DEFAULT]
    if show_all:
        tcr_methods = sorted({m for ms in methods_by.values() for m in ms if m.startswith("tcr.")},
                             key=lambda m: (m != TCR_DEFAULT, m))
    header = ["op", "type", "class", "sizes", "method", "tcr us", "CUB us", "vs CUB",
              "cuBLAS us", "vs cuBLAS", "of ceiling", "hot vs CUB"]
    rows, notes = [], []
    throttled = False

    def ok(key):
        r = res.get(key)
        return r if r and "us" in r else None

    for op in OPS:
        ceiling_op = "read2" if op == "dot" else "read"
        for ty in TYPES:
            if (op, ty) not in methods_by:
                continue
            for cname, lo, hi in CLASSES:
                ns = sorted({n for (o, t, m, l2, n) in res
                             if o == op and t == ty and l2 == "cold" and lo <= math.log2(n) <= hi})
                if not ns:
                    continue
                present = [m for m in tcr_methods if any(ok((op, ty, m, "cold", n)) for n in ns)]
                if not present:
                    present = [None]  # peers only (tcr not built)
                for tm in present:
                    def class_time(method, l2="cold"):
                        vals = [ok((op, ty, method, l2, n)) for n in ns]
                        if method is None or any(v is None for v in vals):
                            return None
                        return geomean([v["us"] for v in vals])

                    def best_cub(l2):
                        cands = [(class_time(m, l2), m) for m in ("cub", "cub.reduce")]
                        cands = [c for c in cands if c[0] is not None]
                        return min(cands) if cands else (None, None)

                    t_tcr = class_time(tm)
                    t_cub, cub_name = best_cub("cold")
                    t_blas = class_time("cublas")
                    t_ceil = None
                    ceil_vals = [ok((ceiling_op, ty, "ceiling", "cold", n)) for n in ns]
                    if all(ceil_vals):
                        t_ceil = geomean([v["us"] for v in ceil_vals])
                    hot_ns = [n for n in ns if tm and ok((op, ty, tm, "hot", n))]
                    hot_ratio = None
                    if tm and hot_ns:
                        hot_cub = [min([ok((op, ty, m, "hot", n))["us"] for m in ("cub", "cub.reduce")
                                        if ok((op, ty, m, "hot", n))] or [None]) for n in hot_ns]
                        hot_tcr = [ok((op, ty, tm, "hot", n))["us"] for n in hot_ns]
                        if all(v is not None for v in hot_cub):
                            hot_ratio = geomean([c / t for c, t in zip(hot_cub, hot_tcr)])
                    keys = [(op, ty, m, l2, n) for m in (tm, "cub", "cub.reduce", "cublas")
                            for l2 in ("cold", "hot") for n in ns] + \
                           [(ceiling_op, ty, "ceiling", "cold", n) for n in ns]
                    mark = ""
                    for k in keys:
                        r = ok(k)
                        if r and r.get("clock_min") is not None and r["clock_min"] < THROTTLE:
                            mark = "*"
                            throttled = True
                    label = "tcr" if tm == TCR_DEFAULT else (tm or "(no tcr)")
                    if cub_name == "cub.reduce":
                        label_cub = fmt_us(t_cub) + " (Reduce)"
                    else:
                        label_cub = fmt_us(t_cub)
                    rows.append([op, ty, cname + mark, size_label(ns), label,
                                 fmt_us(t_tcr), label_cub,
                                 fmt_ratio(t_cub / t_tcr if t_cub and t_tcr else None),
                                 fmt_us(t_blas),
                                 fmt_ratio(t_blas / t_tcr if t_blas and t_tcr else None),
                                 fmt_frac(t_ceil / t_tcr if t_ceil and t_tcr else None),
                                 fmt_ratio(hot_ratio)])
    med = sorted(v["mhz_median"] for v in res.values() if v.get("mhz_median"))
    low = [v["mhz_min"] for v in res.values() if v.get("mhz_min")]
    if med:
        notes.append(f"SM clock after each benchmark: median {med[len(med) // 2]:.0f} MHz, lowest "
                     f"{min(low):.0f} MHz")
    if throttled:
        notes.append(f"* some repetition ran below {int(THROTTLE * 100)}% of the default SM clock")
    by_message = defaultdict(set)
    for k, v in res.items():
        if "error" in v:
            by_message[v["error"]].add(f"{k[0]} {k[1]} {k[2]}")
    for message, which in sorted(by_message.items()):
        some = sorted(which)
        more = f" and {len(some) - 3} more" if len(some) > 3 else ""
        notes.append(f"not measured ({message}): {', '.join(some[:3])}{more}")
    if not show_all:
        header = [h for h in header if h != "method"]
        rows = [r[:4] + r[5:] for r in rows]
    return header, rows, notes


ACC_COLUMNS = [("tcr", TCR_DEFAULT), ("tcr fast", "tcr.fast.automatic"),
               ("tcr dw", "tcr.double_word.automatic"), ("CUB", "cub"), ("cuBLAS", "cublas")]


def set_order(name):
    if name.startswith("cond:"):
        return (3, float(name[5:]))
    return ({"uniform": 0, "normal": 1, "wide": 2, "huge": 4, "tiny": 5}.get(name, 6), 0.0)


def set_label(name):
    if name.startswith("cond:"):
        mant, _, exp = name[5:].partition("e")
        return f"cond {mant}e{int(exp)}" if exp else name
    return name


def accuracy_rows(doc, show_all):
    results = doc.get("results", [])
    methods = {r["method"] for r in results}
    columns = [(label, m) for label, m in ACC_COLUMNS if m in methods]
    if show_all:
        extra = sorted(m for m in methods if m not in {c[1] for c in columns})
        columns += [(m.replace("tcr.", "").replace("automatic", "auto"), m) for m in extra]
    by = defaultdict(dict)
    info = {}
    for r in results:
        key = (r["op"], r["type"], r["set"])
        if r.get("status", "ok") != "ok":
            value = "err"
        else:
            value = r.get("rel_error")
            if value in ("nan", "inf", "-inf"):
                value = value.lstrip("-")
            if r.get("reproducible") is False:
                value = fmt_err(value) + " (nr)"
        by[key][r["method"]] = value
        info[key] = r
    header = ["op", "type", "set", "cond"] + [label for label, _ in columns]
    rows = []
    for op in OPS:
        for ty in TYPES:
            keys = sorted((k for k in by if k[0] == op and k[1] == ty), key=lambda k: set_order(k[2]))
            if not show_all:
                conds = [k for k in keys if k[2].startswith("cond:")]
                keep = {"cond:1e+08", "cond:1e+16"}
                if conds and not any(k[2] == "cond:1e+16" for k in conds):
                    keep.add(conds[-1][2])  # the highest target (reached what it could)
                keys = [k for k in keys if not k[2].startswith("cond:") or k[2] in keep]
            for k in keys:
                cond = info[k].get("cond")
                cond_s = f"{cond:.0e}" if isinstance(cond, (int, float)) and cond >= 2 else "1" \
                    if isinstance(cond, (int, float)) else str(cond)
                rows.append([op, ty, set_label(k[2]), cond_s] + [fmt_err(by[k].get(m)) for _, m in columns])
    notes = ["relative error |res - exact| / |exact| (exact: MPFR), n = "
             f"{doc.get('context', {}).get('n', '?')}; '-': method not available; (nr): two runs "
             "differed bitwise"]
    if any(r["method"] == "cub" and r["op"] == "nrm2" for r in results):
        notes.append("CUB nrm2 = sqrt (in the result type) of TransformReduce(x^2)")
    return header, rows, notes


def render_text(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    def line(cells):
        return "  ".join(str(c).rjust(w) if i >= 3 else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))
    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


def render_markdown(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i < 3 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def describe(meta, dev, acc):
    ctx = (dev or {}).get("context", {})
    meta = meta or {}
    gpu = meta.get("gpu") or ctx.get("gpu") or (acc or {}).get("context", {}).get("gpu", "?")
    cuda = meta.get("cuda") or ctx.get("cuda_runtime", "?")
    parts = [f"GPU: {gpu}", f"CUDA: {cuda}"]
    if ctx.get("default_sm_clock_mhz"):
        parts.append(f"default SM clock: {float(ctx['default_sm_clock_mhz']):.0f} MHz")
    if meta.get("driver"):
        parts.append(f"driver: {meta['driver']}")
    if ctx.get("cccl_version"):
        parts.append(f"CCCL: {ctx['cccl_version']}")
    if ctx.get("cublas_version"):
        parts.append(f"cuBLAS: {ctx['cublas_version']}")
    parts.append(f"date: {meta.get('date') or ctx.get('date', '?')}")
    parts.append(f"commit: {meta.get('commit', '?')}")
    parts.append(f"run: {meta.get('mode') or ctx.get('tcr_run', '?')}")
    return ", ".join(parts)


def build(directory, markdown, show_all):
    dev = load(os.path.join(directory, "device.json"))
    acc = load(os.path.join(directory, "accuracy.json"))
    meta = load(os.path.join(directory, "meta.json"))
    render = render_markdown if markdown else render_text
    out = []
    out.append(describe(meta, dev, acc))
    if dev is not None:
        header, rows, notes = speed_rows(speed_results(dev), show_all)
        out.append("")
        out.append("### Speed (median time per call, cold L2)" if markdown else "== speed (median time per call, cold L2)")
        out.append("")
        out.append(render(header, rows) if rows else "(no speed results)")
        if notes:
            out.append("")
            out += notes
    if acc is not None:
        header, rows, notes = accuracy_rows(acc, show_all)
        out.append("")
        out.append("### Accuracy (relative error)" if markdown else "== accuracy (relative error)")
        out.append("")
        out.append(render(header, rows) if rows else "(no accuracy results)")
        out.append("")
        out += notes
    if dev is None and acc is None:
        out.append(f"no device.json or accuracy.json in {directory}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--all", action="store_true", help="every tcr mode and engine")
    ap.add_argument("--write", action="store_true", help="also write DIR/report.md and DIR/report.txt")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        print(f"report.py: {a.dir} is not a directory", file=sys.stderr)
        return 2
    text = build(a.dir, a.markdown, a.all)
    if a.write:
        with open(os.path.join(a.dir, "report.md"), "w") as f:
            f.write(build(a.dir, True, a.all))
        with open(os.path.join(a.dir, "report.txt"), "w") as f:
            f.write(build(a.dir, False, a.all))
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
