#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tables (markdown) and a convergence plot from gpu-run.sh's JSON.

    python3 examples/krylov/report.py OUTDIR            # prints the tables
    python3 examples/krylov/report.py OUTDIR --plot     # also OUTDIR/convergence.png (matplotlib)

OUTDIR is gpu-run.sh's folder (krylov-results.tar.gz is read in place) or the unpacked
archive; the archive's path itself works too.
"""
import json
import os
import sys
import tarfile


def read_texts(out):
    """The suites' JSON texts by file name, from a folder, its archive or the archive."""
    archive = out if os.path.isfile(out) else os.path.join(out, "krylov-results.tar.gz")
    texts = {}
    if os.path.isdir(out):
        for name in ("accuracy.json", "timing.json", "sizes.json", "mtx.json", "smoke.json"):
            path = os.path.join(out, name)
            if os.path.exists(path):
                texts[name] = open(path).read()
    if not texts and os.path.isfile(archive):
        with tarfile.open(archive) as tar:
            for m in tar.getmembers():
                name = os.path.basename(m.name)
                if m.isfile() and name.endswith(".json"):
                    texts[name] = tar.extractfile(m).read().decode()
    return texts


def load(text):
    if not text:
        return []
    text = text.rstrip()
    if not text.endswith("]"):  # a suite stopped by its time limit: the finished runs
        text = text.rstrip(",") + "\n]"
    return json.loads(text)


def label(r):
    return "idr(%d)" % r["s"] if r["method"] == "idrs" else r["method"]


def cell(r):
    if r is None:
        return ""
    mark = {"converged": "", "max_iterations": " (max)", "stagnated": " (stag)",
            "breakdown": " (bd)", "invalid_input": " (inv)"}[r["status"]]
    if r["status"] == "converged" and r["true_relres"] is not None and r["true_relres"] > r["tol"]:
        mark = " (FALSE)"
    its = r["iterations"] if r["status"] == "converged" else "-"
    if r.get("restarts"):  # BiCGStab's near-breakdown restarts (r_hat := r)
        mark += " [%d rst]" % r["restarts"]
    def e(v):
        return "%.1e" % v if v is not None else "nan"
    return "%s%s %s / %s" % (its, mark, e(r["true_relres"]), e(r["recurrence_relres"]))


def accuracy_tables(runs):
    precs = ["f32", "tcr-f32", "f64", "df32", "peer-f32", "peer-f64", "peer-dev-f32",
             "peer-dev-f64"]
    for tol in sorted({r["tol"] for r in runs}, reverse=True):
        sel = [r for r in runs if r["tol"] == tol]
        print("\nTo a relative residual of %g: iterations (status), true / recurrence relative "
              "residual at the end\n" % tol)
        print("| problem | solver | " + " | ".join(precs) + " |")
        print("|---|---|" + "---|" * len(precs))
        keys = []
        for r in sel:
            k = (r["problem"], label(r))
            if k not in keys:
                keys.append(k)
        for k in keys:
            row = {r["precision"]: r for r in sel if (r["problem"], label(r)) == k}
            print("| %s | %s | " % k + " | ".join(cell(row.get(p)) for p in precs) + " |")


def target_table(runs, tol=1e-6, limit=1.15):
    """The issue's iteration target: where f64 converges and plain f32 needs more than 1.5x its
    count or fails, tcr-f32 (and the df32 candidate) should converge within `limit` x f64."""
    sel = [r for r in runs if r["tol"] == tol]
    keys = []
    for r in sel:
        k = (r["problem"], label(r))
        if k not in keys:
            keys.append(k)
    rows, met = [], {"tcr-f32": 0, "df32": 0}
    for k in keys:
        row = {r["precision"]: r for r in sel if (r["problem"], label(r)) == k}
        ref = row.get("f64")
        if ref is None or ref["status"] != "converged" or not ref["iterations"]:
            continue
        def ratio(p):
            r = row.get(p)
            if r is None:
                return None
            if r["status"] != "converged":
                return float("inf")
            return r["iterations"] / ref["iterations"]
        f32 = ratio("f32")
        if f32 is None or f32 <= 1.5:
            continue
        cells = []
        for p in ("f32", "tcr-f32", "df32"):
            q = ratio(p)
            if p in met and q is not None and q <= limit:
                met[p] += 1
            cells.append("" if q is None else ("fails" if q == float("inf") else "%.2fx" % q))
        rows.append("| %s | %s | %d | " % (k[0], k[1], ref["iterations"]) + " | ".join(cells) +
                    " |")
    if not rows:
        return
    print("\nIterations against f64 to %g where plain f32 needs > 1.5x or fails (target: <= %.2fx)"
          "\n" % (tol, limit))
    print("| problem | solver | f64 | f32 / f64 | tcr-f32 / f64 | df32 / f64 |")
    print("|---|---|---:|---:|---:|---:|")
    for line in rows:
        print(line)
    print("\nwithin %.2fx: tcr-f32 %d, df32 %d of %d" % (limit, met["tcr-f32"], met["df32"],
                                                        len(rows)))


def timing_tables(runs, suite="timing"):
    fixed = [r for r in runs if r["tol"] < 1e-20]
    precs = ["f32", "tcr-f32", "f64", "df32", "peer-f32", "peer-f64", "peer-dev-f32",
             "peer-dev-f64"]
    print("\nSuite %s: time per iteration (ms; peer-dev: the peer with device scalars)\n" % suite)
    print("| problem | n | solver | " + " | ".join(precs) +
          " | tcr-f32 / peer-f32 | tcr-f32 / peer-dev-f32 | df32 / f64 | df32 / peer-dev-f64 |")
    print("|---|---:|---|" + "---:|" * (len(precs) + 4))
    keys = []
    for r in fixed:
        k = (r["problem"], r["n"], label(r))
        if k not in keys:
            keys.append(k)
    for k in keys:
        row = {r["precision"]: r["ms_per_iteration"] for r in fixed
               if (r["problem"], r["n"], label(r)) == k}
        def f(p):
            return "%.4f" % row[p] if p in row else ""
        def ratio(a, b):
            return "%.2f" % (row[a] / row[b]) if a in row and b in row and row[b] else ""
        print("| %s | %d | %s | " % k + " | ".join(f(p) for p in precs) +
              " | %s | %s | %s | %s |" % (ratio("tcr-f32", "peer-f32"),
                                          ratio("tcr-f32", "peer-dev-f32"), ratio("df32", "f64"),
                                          ratio("df32", "peer-dev-f64")))
    solved = [r for r in runs if r["tol"] >= 1e-20]
    if solved:
        print("\nSuite %s: time to solution (s), iterations, true relative residual\n" % suite)
        print("| problem | tol | precision | status | iterations | seconds | true residual |")
        print("|---|---:|---|---|---:|---:|---:|")
        for r in solved:
            print("| %s | %g | %s | %s | %d | %.4f | %.2e |" % (
                r["problem"], r["tol"], r["precision"], r["status"], r["iterations"],
                r["seconds"], r["true_relres"]))


def mtx_table(runs):
    """The mtx suite: each problem read back from its .mtx file against its generated twin."""
    twins = [r for r in runs if r.get("twin")]
    if not twins:
        return
    print("\nSuite mtx: generated problems written to .mtx and read back (every run against its "
          "generated twin)\n")
    print("| problem | solver | precision | status | iterations | true residual | bitwise as "
          "generated |")
    print("|---|---|---|---|---:|---:|---|")
    for r in twins:
        print("| %s | %s | %s | %s | %d | %.2e | %s |" % (
            r["twin"], label(r), r["precision"], r["status"], r["iterations"],
            r["true_relres"] if r["true_relres"] is not None else float("nan"),
            "yes" if r["matches_twin"] else "NO"))
    print("\n%d of %d runs bitwise as generated" % (sum(1 for r in twins if r["matches_twin"]),
                                                    len(twins)))


def plot(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [("jump2d:256:1e5", "cg", 0, 1e-6), ("convdiff2d:256:1e3", "idrs", 4, 1e-6),
              ("poisson2d:256", "cg", 0, 1e-10), ("convdiff2d:256:1e3", "bicgstab", 0, 1e-6)]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for ax, (prob, m, s, tol) in zip(axes.flat, panels):
        for r in runs:
            if r["problem"] == prob and r["method"] == m and r["s"] == s and r["tol"] == tol:
                h = [v if v is not None else float("nan") for v in r.get("history", [])]
                ax.semilogy(range(1, len(h) + 1), h, label="%s (true %.1e)" % (
                    r["precision"], r["true_relres"]))
        ax.axhline(tol, color="gray", lw=0.5)
        ax.set_title("%s, %s" % (prob, "idr(%d)" % s if m == "idrs" else m))
        ax.set_xlabel("iteration")
        ax.set_ylabel("recurrence residual / ||b||")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    texts = read_texts(out)
    if not texts:
        print("report.py: no suite JSON in %s" % out, file=sys.stderr)
        return 1
    acc = load(texts.get("accuracy.json"))
    tim = load(texts.get("timing.json"))
    sizes = load(texts.get("sizes.json"))
    mtx = load(texts.get("mtx.json"))
    if acc:
        accuracy_tables([r for r in acc if r["tol"] >= 1e-20])
        target_table(acc)
    if tim:
        timing_tables(tim)
    if sizes:
        timing_tables(sizes, "sizes")
    if mtx:
        mtx_table(mtx)
    if "--plot" in sys.argv and acc:
        where = out if os.path.isdir(out) else os.path.dirname(out) or "."
        if not os.access(where, os.W_OK):  # a read-only copy of the results: here instead
            where = "."
        plot(acc, os.path.join(where, "convergence.png"))
        print("\nplot: %s" % os.path.join(where, "convergence.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
