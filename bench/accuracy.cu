// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the accuracy run beside the speed run. For a fixed set of inputs of every type
// (uniform, normal, same-sign wide-range, ill-conditioned with condition numbers 1e4 .. 1e32, and
// for nrm2 values whose squares overflow or underflow), every method of the case table (CUB,
// cuBLAS, each tcr mode and engine) computes sum / dot / nrm2 / asum on the GPU, and its relative
// error against the exact value (MPFR) is written to JSON. Each call runs twice; `reproducible`
// says whether both results were bitwise equal.
//
//   tcr_accuracy [--out=FILE] [--n=1048576] [--types=f32,...] [--ops=sum,...] [--sets_only]
// --sets_only makes the sets and their exact references on the host and prints the condition
// numbers reached, without a GPU, and fails if an exact result is not finite and nonzero or a
// GenSum / GenDot set misses its condition number by more than 10x (a ctest).
//
// Data: f32 and f64 ill-conditioned sets are Ogita-Rump-Oishi GenSum / GenDot (test/support/
// gen.hpp), generated in the input precision. Narrower types cannot hold GenSum's cancellation, so
// theirs are cancelling pairs (v, -v) plus positive values that carry sum|x| / cond, all exactly
// representable in the type. The condition number reported is the one reached, computed exactly
// (for narrow types high targets are out of reach: the exact sum is a multiple of the smallest
// subnormal). Every value is exactly representable in its type, so the reference is exact for
// what the GPU reads.
#include <mpfr.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <future>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "common/harness.hpp"
#include "common/registry.hpp"
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace tcr::bench {
namespace {

using tcr::test::mp;
using tcr::test::rng64;

// Exponent range of the normal numbers of each type, and of the result type.
struct type_range {
  int emin; // smallest normal is 2^emin
  int emax; // largest finite value is below 2^(emax + 1)
};

template <class T>
type_range range_of() {
  if constexpr (std::is_same_v<T, __nv_fp8_e4m3>)
    return {-6, 8};
  else if constexpr (std::is_same_v<T, __nv_fp8_e5m2>)
    return {-14, 15};
  else if constexpr (std::is_same_v<T, __half>)
    return {-14, 15};
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return {-126, 127};
  else if constexpr (std::is_same_v<T, float>)
    return {-126, 127};
  else
    return {-1022, 1023};
}

template <class T>
T to_type(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(v);
  else
    return T(static_cast<float>(v));
}

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<double>(v);
  else
    return static_cast<double>(static_cast<float>(v));
}

// v rounded to T, as a double (exact).
template <class T>
double round_to(double v) {
  return to_double(to_type<T>(v));
}

double normal(rng64& rng) { // Box-Muller
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// One input set: values exactly representable in the input type.
struct data_set {
  std::string name;       // "uniform", "normal", "wide", "cond:1e8", "huge", "tiny"
  std::string generator;  // how it was made
  double target_cond = 0; // the condition number asked for (0: not a conditioning set)
  std::uint64_t seed = 0;
  std::function<void(data_set&)> make; // fills x (and y); run in a worker thread
  std::vector<double> x, y;
};

// Cancelling pairs (v, -v), v = U[1,2) 2^e with e in [e_lo, e_hi], plus k positive values that
// carry sum|x| / cond; for dot each pair shares one y, so its products cancel too. Shuffled.
template <class T>
struct pairs_plan {
  int e_lo, e_hi;
  double smallest; // the smallest normal of T
  double max_k;    // how many signal values of at least `smallest` the target allows
  double signal_mass;

  pairs_plan(std::size_t n, double cond) {
    const type_range r = range_of<T>();
    e_hi = std::min(r.emax - 4, 8);
    e_lo = std::max(r.emin, e_hi - 12);
    const double mean_pow = (std::ldexp(1.0, e_hi + 1) - std::ldexp(1.0, e_lo)) / (e_hi - e_lo + 1);
    const double pair_mass = static_cast<double>(n) * 1.5 * mean_pow;
    signal_mass = pair_mass / std::max(cond - 1.0, 1e-300);
    smallest = std::ldexp(1.0, r.emin);
    max_k = std::floor(signal_mass / (1.5 * smallest));
  }
  // False when one value at the smallest normal already carries the sum: the target is out of
  // reach, and a higher target would give the same data.
  bool reachable() const { return max_k >= 1; }
};

template <class T>
void pairs_with_signal(std::size_t n, double cond, bool dot, data_set& d) {
  const pairs_plan<T> p(n, cond);
  rng64 rng(d.seed);
  const std::size_t k =
      static_cast<std::size_t>(std::clamp(p.max_k, 1.0, static_cast<double>(n / 2)));
  const double w = std::min(std::max(p.signal_mass / static_cast<double>(k), p.smallest),
                            std::ldexp(1.0, p.e_hi));
  std::vector<std::pair<double, double>> xy;
  xy.reserve(n);
  for (std::size_t i = 0; i < k; ++i) {
    const double v = std::max(round_to<T>(w * (0.5 + rng.uniform())), round_to<T>(p.smallest));
    xy.emplace_back(v, dot ? round_to<T>(1.0 + rng.uniform()) : 1.0);
  }
  while (xy.size() + 2 <= n) {
    const double v =
        round_to<T>(std::ldexp(1.0 + rng.uniform(), static_cast<int>(rng.integer(p.e_lo, p.e_hi))));
    const double s = rng.coin() ? v : -v;
    const double yv =
        dot ? round_to<T>(std::ldexp(1.0 + rng.uniform(), static_cast<int>(rng.integer(-1, 1))))
            : 1.0;
    xy.emplace_back(s, yv);
    xy.emplace_back(-s, yv);
  }
  while (xy.size() < n)
    xy.emplace_back(0.0, 1.0);
  rng.shuffle(xy);
  d.x.resize(n);
  if (dot)
    d.y.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    d.x[i] = xy[i].first;
    if (dot)
      d.y[i] = xy[i].second;
  }
}

// The sets of one operation and type (made later, in parallel, by their `make`). Seeds are fixed;
// they go to the JSON.
template <class T>
std::vector<data_set> make_sets(op_kind op, std::size_t n, std::uint64_t base_seed) {
  const type_range r = range_of<T>();
  const type_range rr = range_of<result_t<T>>();
  const bool dot = op == op_kind::dot;
  const bool signed_data = op != op_kind::sum && op != op_kind::dot; // asum, nrm2: signs random
  std::vector<data_set> sets;
  std::uint64_t seed = base_seed;
  auto add = [&](const std::string& name, const std::string& gen, double cond,
                 std::function<void(data_set&)> make) {
    sets.push_back(data_set{name, gen, cond, ++seed, std::move(make), {}, {}});
  };
  // x (and y for dot) drawn element by element and rounded to T.
  auto drawn = [n, dot](auto draw) {
    return [n, dot, draw](data_set& d) {
      for (int which = 0; which < (dot ? 2 : 1); ++which) {
        rng64 rng(which ? d.seed ^ 0x5eedull : d.seed);
        auto& v = which ? d.y : d.x;
        v.resize(n);
        for (auto& e : v)
          e = round_to<T>(draw(rng));
      }
    };
  };
  add("uniform", signed_data ? "U[-1,1)" : "U[0,1)", 0,
      drawn([signed_data](rng64& g) { return signed_data ? g.symmetric() : g.uniform(); }));
  add("normal", "N(0,1)", 0, drawn([](rng64& g) { return normal(g); }));
  {
    // Same sign (random signs for nrm2 / asum), exponents uniform over a wide range that keeps
    // the sum, products and squares finite in the result type.
    const bool squares = op == op_kind::dot || op == op_kind::nrm2;
    int lo = std::max(r.emin, -30), hi = std::min(r.emax - 1, 30);
    if (squares)
      lo /= 2, hi /= 2;
    std::ostringstream g;
    g << (signed_data ? "random sign" : "positive") << ", U[1,2) 2^e, e in [" << lo << ", " << hi
      << "]";
    add("wide", g.str(), 0, drawn([lo, hi, signed_data](rng64& q) {
          const double v = std::ldexp(1.0 + q.uniform(), static_cast<int>(q.integer(lo, hi)));
          return signed_data && q.coin() ? -v : v;
        }));
  }
  if (op == op_kind::sum || op == op_kind::dot) {
    for (double cond : {1e4, 1e8, 1e12, 1e16, 1e24, 1e32}) {
      char name[32];
      std::snprintf(name, sizeof name, "cond:%.0e", cond);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        add(name, dot ? "GenDot (Ogita-Rump-Oishi)" : "GenSum (Ogita-Rump-Oishi)", cond,
            [n, cond, dot](data_set& d) {
              if (dot) {
                auto [x, y] = tcr::test::gen_dot<T>(n, cond, d.seed);
                d.x.assign(x.begin(), x.end());
                d.y.assign(y.begin(), y.end());
              } else {
                auto x = tcr::test::gen_sum<T>(n, cond, d.seed);
                d.x.assign(x.begin(), x.end());
              }
            });
      } else {
        add(name, "cancelling pairs plus positive values carrying sum|x| / cond", cond,
            [n, cond, dot](data_set& d) { pairs_with_signal<T>(n, cond, dot, d); });
        if (!pairs_plan<T>(n, cond).reachable())
          break; // the highest reachable: stop here
      }
    }
  }
  if (op == op_kind::nrm2) {
    // Squares overflow (huge) or underflow (tiny) in a naive sum of squares; the norm itself is
    // representable in the result type for n <= 2^20.
    for (const int e : {std::min(r.emax - 1, rr.emax - 12), r.emin}) {
      add(e > 0 ? "huge" : "tiny", "random sign, U[1,2) 2^" + std::to_string(e), 0,
          drawn([e](rng64& g) {
            const double v = std::ldexp(1.0 + g.uniform(), e);
            return g.coin() ? -v : v;
          }));
    }
  }
  return sets;
}

// The exact result and the condition number of one set.
struct reference {
  mp exact{mp::exact_dot_bits};
  double cond = 0; // sum: sum|x| / |sum x|; dot: 2 |x|^T |y| / |x^T y|; nrm2, asum: 1
};

reference exact_of(op_kind op, const data_set& d) {
  reference r;
  std::vector<double> ax(d.x.size());
  for (std::size_t i = 0; i < d.x.size(); ++i)
    ax[i] = std::fabs(d.x[i]);
  if (op == op_kind::sum) {
    r.exact = tcr::test::exact_sum(d.x, mp::exact_dot_bits);
    const mp abs_sum = tcr::test::exact_sum(ax, mp::exact_dot_bits);
    r.cond = std::fabs(abs_sum.to_double() / r.exact.to_double());
  } else if (op == op_kind::dot) {
    r.exact = tcr::test::exact_dot(d.x, d.y);
    std::vector<double> ay(d.y.size());
    for (std::size_t i = 0; i < d.y.size(); ++i)
      ay[i] = std::fabs(d.y[i]);
    const mp abs_dot = tcr::test::exact_dot(ax, ay);
    r.cond = std::fabs(2 * abs_dot.to_double() / r.exact.to_double());
  } else if (op == op_kind::nrm2) {
    r.exact = tcr::test::exact_dot(d.x, d.x);
    mpfr_sqrt(r.exact.get(), r.exact.get(), MPFR_RNDN); // within 2^-4400 relative
    r.cond = 1;
  } else {
    r.exact = tcr::test::exact_sum(ax, mp::exact_dot_bits);
    r.cond = 1;
  }
  return r;
}

// |res - exact| / |exact| (rounded up); inf / nan results give inf / nan.
double relative_error(double res, const mp& exact) {
  if (std::isnan(res))
    return NAN;
  if (std::isinf(res))
    return INFINITY;
  const double abs_err = tcr::test::abs_error(res, exact);
  mp e(exact);
  mpfr_abs(e.get(), e.get(), MPFR_RNDN);
  const double denom = mpfr_get_d(e.get(), MPFR_RNDD);
  return denom > 0 ? abs_err / denom : (abs_err == 0 ? 0.0 : INFINITY);
}

std::string json_number(double v) {
  if (std::isnan(v))
    return "\"nan\"";
  if (std::isinf(v))
    return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\';
    r += c;
  }
  return r + "\"";
}

int failures = 0; // --sets_only self-check

struct options {
  std::string out = "accuracy.json";
  std::size_t n = std::size_t{1} << 20;
  std::set<std::string> types, ops;
  bool sets_only = false;
};

// Runs every method of (op, type) on one set; appends JSON records to `rows`.
template <class T>
void run_set(op_kind op, const data_set& d, const reference& ref, std::size_t n,
             cudaStream_t stream, device_memory& d_x, device_memory& d_y, device_memory& d_out,
             device_memory& d_temp, std::vector<std::string>& rows) {
  using R = result_t<T>;
  std::vector<T> hx(n), hy(d.y.empty() ? 0 : n);
  for (std::size_t i = 0; i < n; ++i)
    hx[i] = to_type<T>(d.x[i]);
  for (std::size_t i = 0; i < hy.size(); ++i)
    hy[i] = to_type<T>(d.y[i]);
  d_x.reserve(n * sizeof(T));
  TCR_BENCH_CHECK(cudaMemcpy(d_x.get(), hx.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  if (!hy.empty()) {
    d_y.reserve(n * sizeof(T));
    TCR_BENCH_CHECK(cudaMemcpy(d_y.get(), hy.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  for (const bench_case& c : cases()) {
    if (c.op != op || c.type != dtype_of<T>())
      continue;
    std::string status = "ok";
    R res[2] = {R(0), R(0)};
    try {
      call_args args{d_x.get(), hy.empty() ? nullptr : d_y.get(), d_out.get(),
                     static_cast<std::int64_t>(n), stream};
      std::size_t bytes = 0;
      check(c.call(nullptr, bytes, args), "size query");
      void* temp = d_temp.reserve(std::max<std::size_t>(bytes, 256));
      for (R& r : res) {
        TCR_BENCH_CHECK(cudaMemsetAsync(d_out.get(), 0xff, sizeof(R), stream)); // NaN if unwritten
        check(c.call(temp, bytes, args), "call");
        TCR_BENCH_CHECK(
            cudaMemcpyAsync(&r, d_out.get(), sizeof(R), cudaMemcpyDeviceToHost, stream));
        TCR_BENCH_CHECK(cudaStreamSynchronize(stream));
      }
    } catch (const std::exception& e) {
      status = e.what();
    }
    double value = static_cast<double>(res[0]);
    if (c.squared)
      value = static_cast<double>(std::sqrt(res[0])); // in the result type
    std::ostringstream row;
    row << "{\"op\": " << json_string(name(op))
        << ", \"type\": " << json_string(name(dtype_of<T>()))
        << ", \"method\": " << json_string(c.method) << ", \"set\": " << json_string(d.name)
        << ", \"generator\": " << json_string(d.generator) << ", \"seed\": " << d.seed
        << ", \"n\": " << n << ", \"target_cond\": " << json_number(d.target_cond)
        << ", \"cond\": " << json_number(ref.cond)
        << ", \"exact\": " << json_number(ref.exact.to_double())
        << ", \"status\": " << json_string(status);
    if (status == "ok") {
      row << ", \"result\": " << json_number(value)
          << ", \"rel_error\": " << json_number(relative_error(value, ref.exact))
          << ", \"reproducible\": "
          << (std::memcmp(&res[0], &res[1], sizeof(R)) == 0 ? "true" : "false");
    }
    row << "}";
    rows.push_back(row.str());
  }
}

template <class T>
void run_type(const options& o, cudaStream_t stream, std::vector<std::string>& rows) {
  if (!o.types.empty() && !o.types.count(name(dtype_of<T>())))
    return;
  device_memory d_x, d_y, d_out, d_temp;
  if (!o.sets_only)
    d_out.reserve(256);
  for (op_kind op : {op_kind::sum, op_kind::dot, op_kind::nrm2, op_kind::asum}) {
    if (!o.ops.empty() && !o.ops.count(name(op)))
      continue;
    const std::uint64_t base = 1000u * (static_cast<std::uint64_t>(dtype_of<T>()) + 1) +
                               100u * static_cast<std::uint64_t>(op);
    std::vector<data_set> sets = make_sets<T>(op, o.n, base);
    // The data and exact references in parallel (GenSum and MPFR are the slow part), then the
    // GPU in order.
    std::vector<std::future<reference>> refs;
    for (data_set& d : sets)
      refs.push_back(std::async(std::launch::async, [op, &d] {
        d.make(d);
        return exact_of(op, d);
      }));
    for (std::size_t i = 0; i < sets.size(); ++i) {
      const reference ref = refs[i].get();
      if (o.sets_only) {
        std::printf("%-5s %-5s %-9s target %-8.1e reached %-9.2e exact %-12.5e %s\n", name(op),
                    name(dtype_of<T>()), sets[i].name.c_str(), sets[i].target_cond, ref.cond,
                    ref.exact.to_double(), sets[i].generator.c_str());
        // Self-check: a finite, nonzero exact result, and GenSum / GenDot within a factor 10 of
        // the condition asked for.
        const double e = ref.exact.to_double();
        const bool gen = std::is_same_v<T, float> || std::is_same_v<T, double>;
        if (!std::isfinite(e) || e == 0 ||
            (gen && sets[i].target_cond > 0 &&
             !(ref.cond > sets[i].target_cond / 10 && ref.cond < sets[i].target_cond * 10))) {
          std::printf("  ^ FAILED: exact result or condition number out of range\n");
          ++failures;
        }
        continue;
      }
      run_set<T>(op, sets[i], ref, o.n, stream, d_x, d_y, d_out, d_temp, rows);
    }
  }
  std::fprintf(stderr, "tcr_accuracy: %s done\n", name(dtype_of<T>()));
}

} // namespace
} // namespace tcr::bench

int main(int argc, char** argv) {
  using namespace tcr::bench;
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return flag_value(argv[i], key); };
    std::stringstream list;
    if (a == "--sets_only")
      o.sets_only = true;
    else if (const char* v = value("--out"))
      o.out = v;
    else if (const char* v = value("--n"))
      o.n = std::stoull(v);
    else if (const char* v = value("--types")) {
      list << v;
      for (std::string t; std::getline(list, t, ',');)
        o.types.insert(t);
    } else if (const char* v = value("--ops")) {
      list << v;
      for (std::string t; std::getline(list, t, ',');)
        o.ops.insert(t);
    } else {
      std::fprintf(stderr,
                   "usage: tcr_accuracy [--out=FILE] [--n=N] [--types=f32,...] [--ops=sum,...]\n");
      return 2;
    }
  }
  if (o.n < 4)
    o.n = 4;
  if (const std::string why = no_device_reason(); !why.empty() && !o.sets_only) {
    std::fprintf(stderr, "tcr_accuracy: no CUDA device (%s): nothing measured\n", why.c_str());
    return 1;
  }
  std::vector<std::string> rows;
  try {
    cudaStream_t stream = nullptr;
    if (!o.sets_only)
      TCR_BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    run_type<__nv_fp8_e4m3>(o, stream, rows);
    run_type<__nv_fp8_e5m2>(o, stream, rows);
    run_type<__half>(o, stream, rows);
    run_type<__nv_bfloat16>(o, stream, rows);
    run_type<float>(o, stream, rows);
    run_type<double>(o, stream, rows);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcr_accuracy: %s\n", e.what());
    return 1;
  }
  if (o.sets_only) {
    std::printf("%d failed\n", failures);
    return failures ? 1 : 0;
  }
  const device_facts& f = facts();
  FILE* out = std::fopen(o.out.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "tcr_accuracy: cannot write %s\n", o.out.c_str());
    return 1;
  }
  std::fprintf(
      out, "{\n\"context\": {\"gpu\": %s, \"cuda_runtime\": %d, \"cuda_driver\": %d, \"n\": %zu",
      json_string(f.name).c_str(), f.runtime_version, f.driver_version, o.n);
  for (const auto& [k, v] : context_entries())
    std::fprintf(out, ", %s: %s", json_string(k).c_str(), json_string(v).c_str());
  std::fprintf(out, "},\n\"results\": [\n");
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::fprintf(out, "%s%s\n", rows[i].c_str(), i + 1 < rows.size() ? "," : "");
  std::fprintf(out, "]\n}\n");
  std::fclose(out);
  std::fprintf(stderr, "tcr_accuracy: %zu results -> %s\n", rows.size(), o.out.c_str());
  return 0;
}
