// SPDX-License-Identifier: BSD-3-Clause
// tcr_krylov: solve generated or Matrix Market systems with CG, BiCGStab or IDR(s) in each
// precision, or run one of the built-in experiment suites.
//
//   tcr_krylov --problem poisson2d:1024 --method cg --precision tcr-f32 --tol 1e-8
//   tcr_krylov --problem mtx:A.mtx --method idrs --s 4 --precision all
//   tcr_krylov --suite accuracy --json out.json     (suites: accuracy, timing, sizes, smoke)
//   tcr_krylov --suite mtx --mtx-dir DIR            (generated problems through .mtx files)
//
// Every run prints one table line; --json writes every run (with its residual history) as a
// JSON array; --repeat 2 runs each solve twice and checks the iterate and history bits agree.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "krylov.hpp"

namespace {

using namespace krylov;

struct run_spec {
  std::string problem;
  method m;
  int s;
  precision p;
  double tol;
  int max_iterations;
  int check_every;
  // mtx suite: the generated problem this one was written from; its run must match bit for bit.
  std::string twin = "";
};

// Our solvers' four precisions (every method has all four); the peers have CG and BiCGStab.
const std::vector<precision> our_precisions = {precision::f32, precision::tcr_f32, precision::f64,
                                               precision::df32};
const std::vector<precision> all_precisions = {
    precision::f32,      precision::tcr_f32,  precision::f64,          precision::df32,
    precision::peer_f32, precision::peer_f64, precision::peer_dev_f32, precision::peer_dev_f64};

bool parse_precision(const std::string& s, precision& p) {
  const std::map<std::string, precision> names = {{"f32", precision::f32},
                                                  {"tcr-f32", precision::tcr_f32},
                                                  {"f64", precision::f64},
                                                  {"df32", precision::df32},
                                                  {"peer-f32", precision::peer_f32},
                                                  {"peer-f64", precision::peer_f64},
                                                  {"peer-dev-f32", precision::peer_dev_f32},
                                                  {"peer-dev-f64", precision::peer_dev_f64}};
  const auto it = names.find(s);
  if (it == names.end())
    return false;
  p = it->second;
  return true;
}

bool parse_method(const std::string& s, method& m) {
  if (s == "cg")
    m = method::cg;
  else if (s == "bicgstab")
    m = method::bicgstab;
  else if (s == "idrs")
    m = method::idrs;
  else
    return false;
  return true;
}

std::string method_label(method m, int s) {
  return m == method::idrs ? "idr(" + std::to_string(s) + ")" : name(m);
}

// Every method / precision pair of a problem: CG (SPD problems only) and BiCGStab in all eight,
// IDR(s) for s = 1, 2, 4, 8 in f32, tcr-f32, f64, df32. maxit counts CG / BiCGStab iterations;
// IDR(s) counts products, so it gets 2 maxit (a BiCGStab iteration is two).
void add_all(std::vector<run_spec>& v, const std::string& problem, bool spd, double tol, int maxit,
             int check) {
  if (spd)
    for (precision p : all_precisions)
      v.push_back({problem, method::cg, 0, p, tol, maxit, check});
  for (precision p : all_precisions)
    v.push_back({problem, method::bicgstab, 0, p, tol, maxit, check});
  for (int s : {1, 2, 4, 8})
    for (precision p : our_precisions)
      v.push_back({problem, method::idrs, s, p, tol, 2 * maxit, check});
}

// "mtx:DIR/poisson3d27_22.mtx" for "poisson3d27:22": where the mtx suite writes a problem.
std::string mtx_path(const std::string& dir, const std::string& problem) {
  std::string file = problem;
  for (char& c : file)
    if (c == ':')
      c = '_';
  return dir + "/" + file + ".mtx";
}

// The suites of examples/krylov/gpu-run.sh (sized for about a minute each on an H200).
std::vector<run_spec> suite(const std::string& name, const std::string& mtx_dir) {
  std::vector<run_spec> v;
  if (name == "smoke") {
    add_all(v, "poisson2d:64", true, 1e-6, 2000, 10);
    add_all(v, "convdiff2d:64:1e2", false, 1e-6, 2000, 10);
  } else if (name == "accuracy") {
    // To 1e-6 (float's target): every solver on SPD problems of rising difficulty and on
    // nonsymmetric convection-diffusion. Left out, as no comparison of solvers: jump2d with a
    // contrast of 1e6 and more (rounded to float, the rows along the jumps lose their excess
    // of 2 over the off-diagonal sum: 2e-6 left at 1e6, -2 at 1e8, an indefinite matrix) and
    // central differences above a cell Peclet number of 2 (convdiff2d:128:1e3: double IDR(1)
    // diverges on the host reference too).
    for (const char* p : {"poisson2d:256", "poisson3d7:64", "poisson3d27:48", "aniso2d:256:1e-4",
                          "aniso2d:256:1e-8", "jump2d:256:1e4", "jump2d:256:1e5"})
      add_all(v, p, true, 1e-6, 10000, 10);
    for (const char* p : {"convdiff2d:256:1e2", "convdiff2d:256:1e3"})
      add_all(v, p, false, 1e-6, 10000, 10);
    // To 1e-10: double and the double-word iterates converge; the float iterates cannot (their
    // rounding alone leaves about 1e-7), so f32 and tcr-f32 must end stagnated, never converged,
    // while the float peer, stopping on its recurrence, reports convergence it does not have.
    for (const char* p : {"poisson2d:256", "poisson3d7:64", "poisson3d27:48", "jump2d:256:1e4"})
      for (precision q : all_precisions)
        v.push_back({p, method::cg, 0, q, 1e-10, 20000, 10});
    for (const char* p : {"convdiff2d:256:1e2", "convdiff2d:256:1e3"})
      for (precision q : our_precisions) {
        v.push_back({p, method::bicgstab, 0, q, 1e-10, 20000, 10});
        v.push_back({p, method::idrs, 4, q, 1e-10, 40000, 10});
      }
  } else if (name == "timing") {
    // Per iteration: a fixed number of iterations (tol 1e-30, never met: these runs end in
    // max_iterations by design and are counted apart in gpu-run.sh), 1e5 and 1e7 unknowns.
    for (const char* p : {"poisson2d:316", "poisson3d7:46", "poisson2d:3162", "poisson3d7:215"}) {
      for (precision q : all_precisions)
        v.push_back({p, method::cg, 0, q, 1e-30, 300, 50});
      for (precision q : all_precisions)
        v.push_back({p, method::bicgstab, 0, q, 1e-30, 150, 50});
      for (precision q : our_precisions)
        v.push_back({p, method::idrs, 4, q, 1e-30, 300, 50});
    }
    // To solution at 1e6 unknowns: 1e-6 for all, 1e-10 for those whose iterate can reach it.
    for (const char* p : {"poisson2d:1000", "poisson3d7:100"}) {
      for (precision q : all_precisions)
        v.push_back({p, method::cg, 0, q, 1e-6, 20000, 25});
      for (precision q :
           {precision::f64, precision::df32, precision::peer_f64, precision::peer_dev_f64})
        v.push_back({p, method::cg, 0, q, 1e-10, 20000, 25});
    }
  } else if (name == "sizes") {
    // HPCG's 27-point problem from 1e3 to 1e7 unknowns (10^3 .. 215^3): per iteration with a
    // fixed count (tol 1e-30; 100 CG iterations reach the float underflow of rr on neither
    // end), and CG to 1e-6.
    for (const char* p : {"poisson3d27:10", "poisson3d27:22", "poisson3d27:46", "poisson3d27:100",
                          "poisson3d27:215"}) {
      for (precision q : all_precisions)
        v.push_back({p, method::cg, 0, q, 1e-30, 100, 50});
      for (precision q : all_precisions)
        v.push_back({p, method::bicgstab, 0, q, 1e-30, 50, 50});
      for (precision q : our_precisions)
        v.push_back({p, method::idrs, 4, q, 1e-30, 100, 50});
      for (precision q : all_precisions)
        v.push_back({p, method::cg, 0, q, 1e-6, 5000, 10});
    }
  } else if (name == "mtx") {
    // Generated problems written to DIR as Matrix Market files (main checks each reads back as
    // the same matrix) and solved both ways: every run through mtx: must equal its twin's bits.
    const std::vector<std::pair<const char*, bool>> problems = {
        {"poisson3d27:22", true}, {"jump2d:100:1e4", true}, {"convdiff2d:100:1e2", false}};
    std::vector<run_spec> generated;
    for (const auto& [p, spd] : problems) {
      for (precision q : our_precisions) {
        if (spd)
          generated.push_back({p, method::cg, 0, q, 1e-6, 5000, 10});
        generated.push_back({p, method::bicgstab, 0, q, 1e-6, 5000, 10});
        generated.push_back({p, method::idrs, 4, q, 1e-6, 10000, 10});
      }
    }
    v = generated;
    for (run_spec r : generated) {
      r.twin = r.problem;
      r.problem = "mtx:" + mtx_path(mtx_dir, r.twin);
      v.push_back(r);
    }
  }
  return v;
}

std::string json_number(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Prints a table line per run and streams the runs to a JSON array (flushed after each, so a
// suite stopped by a time limit leaves every finished run on disk).
struct recorder {
  std::ofstream json;
  bool first = true;
  bool with_history = true;
  // Runs of tcr variants that reported convergence above tol, irreproducible runs, and mtx
  // runs that differ from their generated twin.
  int failures = 0;

  void header() {
    std::printf("%-22s %9s %-12s %-12s %-14s %7s %6s %6s %10s %10s %4s %4s %9s %8s %s\n", "problem",
                "n", "method", "prec", "status", "tol", "iters", "first", "true_res", "recur_res",
                "repl", "rst", "time_s", "ms/iter", "note");
    std::fflush(stdout);
  }

  // reproducible, matches_twin: 1 yes, 0 no, -1 not checked.
  void add(const run_spec& r, const csr<double>& A, const solve_result& res, int reproducible,
           int matches_twin) {
    const double ms_per_iter = res.iterations ? 1e3 * res.seconds / res.iterations : 0;
    const bool peer = is_peer(r.p);
    std::string note = res.message;
    if (res.st == status::converged && res.true_relres > r.tol) {
      note = "FALSE CONVERGENCE (true residual above tol)" + std::string(peer ? "" : " !!");
      if (!peer)
        ++failures;
    }
    if (reproducible == 0) {
      note += " NOT REPRODUCIBLE";
      ++failures;
    }
    if (matches_twin == 0) {
      note += " MTX RUN DIFFERS FROM " + r.twin;
      ++failures;
    } else if (matches_twin == 1) {
      note += " (bitwise as " + r.twin + ")";
    }
    std::printf(
        "%-22s %9lld %-12s %-12s %-14s %7.0e %6d %6d %10.3e %10.3e %4d %4d %9.4f %8.4f %s\n",
        r.problem.c_str(), static_cast<long long>(A.rows), method_label(r.m, r.s).c_str(),
        name(r.p), name(res.st), r.tol, res.iterations, res.first_below_tol, res.true_relres,
        res.recurrence_relres, res.replacements, res.restarts, res.seconds, ms_per_iter,
        note.c_str());
    std::fflush(stdout);
    json << (first ? "[\n" : ",\n") << "{\"problem\": \"" << r.problem << "\", \"n\": " << A.rows
         << ", \"nnz\": " << A.nnz() << ", \"method\": \"" << name(r.m) << "\", \"s\": " << r.s
         << ", \"precision\": \"" << name(r.p) << "\", \"tol\": " << json_number(r.tol)
         << ", \"max_iterations\": " << r.max_iterations << ", \"check_every\": " << r.check_every
         << ", \"status\": \"" << name(res.st) << "\", \"message\": \"" << note
         << "\", \"iterations\": " << res.iterations << ", \"spmvs\": " << res.spmvs
         << ", \"first_below_tol\": " << res.first_below_tol
         << ", \"replacements\": " << res.replacements << ", \"restarts\": " << res.restarts
         << ", \"true_relres\": " << json_number(res.true_relres)
         << ", \"recurrence_relres\": " << json_number(res.recurrence_relres)
         << ", \"seconds\": " << json_number(res.seconds)
         << ", \"ms_per_iteration\": " << json_number(ms_per_iter)
         << ", \"setup_seconds\": " << json_number(res.setup_seconds) << ", \"reproducible\": "
         << (reproducible < 0 ? "null"
             : reproducible   ? "true"
                              : "false")
         << ", \"x_hash\": \"" << std::hex << res.x_hash << std::dec << "\"";
    if (!r.twin.empty())
      json << ", \"twin\": \"" << r.twin
           << "\", \"matches_twin\": " << (matches_twin ? "true" : "false");
    if (with_history) {
      json << ", \"history\": [";
      for (std::size_t i = 0; i < res.history.size(); ++i)
        json << (i ? "," : "") << json_number(res.history[i]);
      json << "]";
    }
    json << "}" << std::flush;
    first = false;
  }

  void open(const std::string& path) {
    if (!path.empty())
      json.open(path);
  }
  void close() {
    if (json.is_open())
      json << (first ? "[" : "") << "\n]\n";
  }
};

// Whether two runs have the same bits: iterate, history, counts, status.
bool same_run(const solve_result& a, const solve_result& b) {
  return a.x_hash == b.x_hash && a.st == b.st && a.iterations == b.iterations &&
         a.history.size() == b.history.size() &&
         std::memcmp(a.history.data(), b.history.data(), a.history.size() * sizeof(double)) == 0;
}

std::string run_key(const std::string& problem, const run_spec& r) {
  return problem + " " + name(r.m) + " " + std::to_string(r.s) + " " + name(r.p) + " " +
         json_number(r.tol) + " " + std::to_string(r.max_iterations) + " " +
         std::to_string(r.check_every);
}

// Writes the file of every mtx run's twin (a generated problem) and checks that it reads back
// as the same matrix.
void write_twins(const std::vector<run_spec>& specs) {
  std::set<std::string> done;
  for (const run_spec& r : specs) {
    if (r.twin.empty() || !done.insert(r.twin).second)
      continue;
    const csr<double> A = make_problem(r.twin);
    const std::string path = r.problem.substr(4);
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty())
      std::filesystem::create_directories(dir);
    write_matrix_market(path, A, "generated by tcr_krylov: " + r.twin);
    if (!same_matrix(read_matrix_market(path), A))
      throw std::runtime_error(path + " does not read back as " + r.twin);
    std::printf("wrote %s (%lld rows, %lld entries); it reads back as the same matrix\n",
                path.c_str(), static_cast<long long>(A.rows), static_cast<long long>(A.nnz()));
  }
}

// Runs the specs in order, generating each problem once (consecutive specs share it). A spec
// with a twin must reproduce the twin's run (which must come before it) bit for bit.
int run_all(const std::vector<run_spec>& specs, int repeat, bool noise_rhs, recorder& rec) {
  std::string current;
  csr<double> A;
  std::vector<double> b;
  std::set<std::string> twins;
  for (const run_spec& r : specs)
    if (!r.twin.empty())
      twins.insert(run_key(r.twin, r));
  std::map<std::string, solve_result> twin_runs;
  rec.header();
  for (const run_spec& r : specs) {
    if (r.problem != current) {
      A = make_problem(r.problem);
      b = noise_rhs ? random_rhs(A.rows, 42) : rhs_from_solution(A, 42);
      current = r.problem;
    }
    solve_options o;
    o.tol = r.tol;
    o.max_iterations = r.max_iterations;
    o.check_every = r.check_every;
    const solver_kind kind{r.m, r.p, r.s};
    solve_result res = solve(A, b, kind, o);
    int reproducible = -1;
    for (int k = 1; k < repeat; ++k) {
      const solve_result again = solve(A, b, kind, o);
      const bool same = again.x_hash == res.x_hash && again.history.size() == res.history.size() &&
                        std::memcmp(again.history.data(), res.history.data(),
                                    res.history.size() * sizeof(double)) == 0;
      reproducible = (reproducible != 0 && same) ? 1 : 0;
    }
    int matches_twin = -1;
    if (!r.twin.empty()) {
      const auto it = twin_runs.find(run_key(r.twin, r));
      matches_twin = it != twin_runs.end() && same_run(it->second, res) ? 1 : 0;
    }
    rec.add(r, A, res, reproducible, matches_twin);
    if (twins.count(run_key(r.problem, r)))
      twin_runs[run_key(r.problem, r)] = std::move(res);
  }
  return rec.failures;
}

// What --match sees of a run: "PROBLEM METHOD PRECISION TOL", e.g. "poisson3d27:215 idr(4)
// tcr-f32 1e-30".
std::string match_label(const run_spec& r) {
  char tol[32];
  std::snprintf(tol, sizeof tol, "%g", r.tol);
  return r.problem + " " + method_label(r.m, r.s) + " " + name(r.p) + " " + tol;
}

void usage() {
  std::puts("usage: tcr_krylov --problem SPEC [--method cg|bicgstab|idrs] [--s 1|2|4|8]\n"
            "                  [--precision f32|tcr-f32|f64|df32|peer-f32|peer-f64|\n"
            "                               peer-dev-f32|peer-dev-f64|all] [--tol T]\n"
            "                  [--maxit N] [--check-every K] [--repeat R] [--json FILE]\n"
            "                  [--rhs solution|noise]\n"
            "       tcr_krylov --suite smoke|accuracy|timing|sizes [--repeat R] [--json FILE]\n"
            "       tcr_krylov --suite mtx --mtx-dir DIR [--json FILE]\n"
            "         (writes generated problems to DIR/*.mtx and solves them read back)\n"
            "       --match REGEX: only the suite's runs whose 'PROBLEM METHOD PRECISION TOL'\n"
            "         (e.g. 'poisson3d27:215 idr(4) tcr-f32 1e-30') contains a match\n"
            "RHS: solution (default): b = A x* rounded to float, x* uniform in [-1, 1);\n"
            "     noise: b uniform in [-1, 1) (x >> b on ill-conditioned problems: float\n"
            "     iterates then cannot reach small residuals, see csr.hpp rhs_from_solution)\n"
            "SPEC: poisson2d:N, poisson3d7:N, poisson3d27:N (N^d grid), aniso2d:N:EPS,\n"
            "      jump2d:N:CONTRAST, convdiff2d:N:PECLET, mtx:FILE.mtx");
}

} // namespace

int main(int argc, char** argv) {
  std::string problem, suite_name, json_path, mtx_dir, match, prec = "tcr-f32", meth = "cg",
                                                              rhs = "solution";
  int s = 4, repeat = 1, maxit = 10000, check = 10;
  double tol = 1e-6;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--problem")
      problem = next();
    else if (a == "--suite")
      suite_name = next();
    else if (a == "--json")
      json_path = next();
    else if (a == "--mtx-dir")
      mtx_dir = next();
    else if (a == "--match")
      match = next();
    else if (a == "--precision")
      prec = next();
    else if (a == "--method")
      meth = next();
    else if (a == "--s")
      s = std::stoi(next());
    else if (a == "--repeat")
      repeat = std::stoi(next());
    else if (a == "--maxit")
      maxit = std::stoi(next());
    else if (a == "--check-every")
      check = std::stoi(next());
    else if (a == "--tol")
      tol = std::stod(next());
    else if (a == "--rhs")
      rhs = next();
    else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  try {
    std::vector<run_spec> specs;
    if (!suite_name.empty()) {
      if (suite_name == "mtx" && mtx_dir.empty()) {
        std::fprintf(stderr, "suite mtx needs --mtx-dir DIR (where it writes the .mtx files)\n");
        return 2;
      }
      specs = suite(suite_name, mtx_dir);
      if (specs.empty()) {
        std::fprintf(stderr, "unknown suite '%s'\n", suite_name.c_str());
        return 2;
      }
      if (!match.empty()) {
        const std::regex re(match);
        std::vector<run_spec> kept;
        for (const run_spec& r : specs)
          if (std::regex_search(match_label(r), re))
            kept.push_back(r);
        if (kept.empty()) {
          std::fprintf(stderr, "--match '%s' keeps no run of suite %s\n", match.c_str(),
                       suite_name.c_str());
          return 2;
        }
        specs = std::move(kept);
      }
      write_twins(specs);
    } else if (!problem.empty()) {
      method m;
      if (!parse_method(meth, m)) {
        std::fprintf(stderr, "unknown method '%s'\n", meth.c_str());
        return 2;
      }
      std::vector<precision> ps;
      precision p;
      if (prec == "all")
        ps = all_precisions;
      else if (parse_precision(prec, p))
        ps = {p};
      else {
        std::fprintf(stderr, "unknown precision '%s'\n", prec.c_str());
        return 2;
      }
      for (precision q : ps) {
        if (m == method::idrs && is_peer(q))
          continue;
        specs.push_back({problem, m, s, q, tol, maxit, check});
      }
    } else {
      usage();
      return 2;
    }
    if (rhs != "solution" && rhs != "noise") {
      std::fprintf(stderr, "unknown right-hand side '%s'\n", rhs.c_str());
      return 2;
    }
    recorder rec;
    rec.open(json_path);
    const int failures = run_all(specs, repeat, rhs == "noise", rec);
    rec.close();
    if (failures)
      std::printf("%d run(s) of tcr variants reported false convergence, were not reproducible "
                  "or differ from their generated twin\n",
                  failures);
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
