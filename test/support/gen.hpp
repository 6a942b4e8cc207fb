// SPDX-License-Identifier: BSD-3-Clause
// tcr tests and benchmarks: generators of test data for sums and dot products.
//
//   gen_sum(n, cond, seed)        ill-conditioned sum, condition sum|x| / |sum x| about cond
//   gen_dot(n, cond, seed)        ill-conditioned dot (Ogita, Rump & Oishi 2005, Algorithm 6.1),
//                                 condition 2 |x|^T |y| / |x^T y| about cond
//   gen_cancelling_pairs(n, seed) pairs x, -x over a wide range, plus a few small values
//   gen_same_sign(n, seed, emin, emax)  positive values, exponents uniform in [emin, emax]
//   gen_uniform(n, seed)          uniform in [-1, 1)
//   sum_condition(x), dot_condition(x, y)  the condition numbers of given data
//
// T is double (default) or float; the float data is generated in float (rounding double data to
// float would destroy the designed cancellation). The condition number reached is near the one
// asked for (usually within a factor 2; not for tiny n); tests that need the actual one compute
// it from an exact reference. Everything is a pure function of (n, cond,
// seed) on every platform: the generator is splitmix64 with our own distributions (std::
// distributions differ between standard libraries). No dependency on doctest or MPFR; tests
// log the seed themselves (INFO("seed = ", seed)).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>
#include <tcr/compensated/eft.cuh>

namespace tcr::test {

// splitmix64 (Steele, Lea & Flood 2014): tiny, fast, statistically good enough for test data.
class rng64 {
public:
  explicit rng64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  // Uniform in [-1, 1).
  double symmetric() { return 2 * uniform() - 1; }
  // Uniform integer in [lo, hi].
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    return lo + std::int64_t(next() % std::uint64_t(hi - lo + 1));
  }
  bool coin() { return next() >> 63; }
  template <class V>
  void shuffle(V& v) { // Fisher-Yates
    for (std::size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[std::size_t(next() % i)]);
  }

private:
  std::uint64_t state_;
};

// Uniform in [-1, 1).
template <class T = double>
std::vector<T> gen_uniform(std::size_t n, std::uint64_t seed) {
  rng64 rng(seed);
  std::vector<T> x(n);
  for (auto& v : x)
    v = T(rng.symmetric());
  return x;
}

namespace detail_gen {

// The exact sum of doubles as a growing nonoverlapping expansion (Shewchuk's Grow-Expansion
// with zero elimination), components in increasing magnitude. Rounding pinned by tcr's EFTs,
// so the data is the same whatever the compiler contracts.
class exact_acc {
public:
  void add(double b) {
    tmp_.clear();
    double q = b;
    for (double ei : e_) {
      const auto [s, err] = tcr::two_sum(q, ei);
      if (err != 0)
        tmp_.push_back(err);
      q = s;
    }
    if (q != 0)
      tmp_.push_back(q);
    e_.swap(tmp_);
  }
  void add_product(double a, double b) {
    const auto [p, err] = tcr::two_prod(a, b);
    add(p);
    add(err);
  }
  // The sum, within a few ulps (components added smallest first).
  double value() const {
    double s = 0;
    for (double v : e_)
      s = tcr::detail::add_rn(s, v);
    return s;
  }

private:
  std::vector<double> e_, tmp_;
};

// GenSum with exponent range b (real): the first half random signs and exponents
// round(U[0, b]) (the first one b, the last one 0), the second half exponents falling linearly
// from b to 0, each value chosen to cancel the exact running sum down to its own size.
template <class T>
std::vector<T> gen_sum_b(std::size_t n, double b, std::uint64_t seed) {
  rng64 rng(seed);
  std::vector<T> x(n);
  const std::size_t n2 = n / 2, m = n - n2;
  exact_acc s;
  for (std::size_t i = 0; i < n2; ++i) {
    int e = int(std::lround(rng.uniform() * b));
    if (i == 0)
      e = int(std::lround(b));
    if (i + 1 == n2 && n2 > 1)
      e = 0;
    x[i] = T(std::ldexp(rng.symmetric(), e));
    s.add(double(x[i]));
  }
  for (std::size_t i = n2; i < n; ++i) {
    const int e = m > 1 ? int(std::lround(b * double(n - 1 - i) / double(m - 1))) : 0;
    x[i] = T(std::ldexp(rng.symmetric(), e) - s.value());
    s.add(double(x[i]));
  }
  rng.shuffle(x);
  return x;
}

// Ogita, Rump & Oishi's GenDot with exponent range b (real): products up to about 2^b.
template <class T>
std::pair<std::vector<T>, std::vector<T>> gen_dot_b(std::size_t n, double b, std::uint64_t seed) {
  rng64 rng(seed);
  std::vector<T> x(n), y(n);
  const std::size_t n2 = n / 2, m = n - n2;
  exact_acc d; // x(1:i-1)' * y(1:i-1), exactly
  for (std::size_t i = 0; i < n2; ++i) {
    int e = int(std::lround(rng.uniform() * b / 2));
    if (i == 0)
      e = int(std::lround(b / 2)) + 1;
    if (i + 1 == n2 && n2 > 1)
      e = 0;
    x[i] = T(std::ldexp(rng.symmetric(), e));
    y[i] = T(std::ldexp(rng.symmetric(), e));
    d.add_product(double(x[i]), double(y[i]));
  }
  for (std::size_t i = n2; i < n; ++i) {
    const int e = m > 1 ? int(std::lround(b / 2 * double(n - 1 - i) / double(m - 1))) : 0;
    T xi = T(std::ldexp(rng.symmetric(), e));
    if (xi == T(0))
      xi = T(std::ldexp(1.0, e));
    x[i] = xi;
    y[i] = T((std::ldexp(rng.symmetric(), e) - d.value()) / double(xi));
    d.add_product(double(x[i]), double(y[i]));
  }
  // One permutation for both vectors keeps the pairs together.
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i)
    perm[i] = i;
  rng.shuffle(perm);
  std::vector<T> xp(n), yp(n);
  for (std::size_t i = 0; i < n; ++i)
    xp[i] = x[perm[i]], yp[i] = y[perm[i]];
  return {xp, yp};
}

// Moderately conditioned data, for targets below what GenSum's cancellation reaches:
// t + U[-1, 1), the offset t bisected between -mean (sum about 0, condition huge) and 1
// (all positive, condition 1) so that the condition is about cond.
template <class T>
std::vector<T> offset_data(std::size_t n, double cond, rng64& rng) {
  std::vector<double> r(n);
  for (auto& v : r)
    v = rng.symmetric();
  auto cond_at = [&](double t) {
    double a = 0, s = 0;
    for (double v : r)
      a += std::fabs(double(T(t + v))), s += double(T(t + v));
    return a / std::fabs(s);
  };
  double mean = 0;
  for (double v : r)
    mean += v;
  mean /= double(n);
  double lo = -mean, hi = 1;
  for (int it = 0; it < 60; ++it) {
    const double mid = (lo + hi) / 2;
    (cond_at(mid) > cond ? lo : hi) = mid;
  }
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = T(hi + r[i]);
  return x;
}

} // namespace detail_gen

// sum|x| / |sum x|, computed from the exact sum (within a few ulps).
template <class T>
double sum_condition(const std::vector<T>& x) {
  detail_gen::exact_acc s;
  double abs_sum = 0;
  for (T v : x)
    s.add(double(v)), abs_sum += std::fabs(double(v));
  return abs_sum / std::fabs(s.value());
}

// 2 |x|^T |y| / |x^T y| (Ogita, Rump & Oishi's definition), from the exact dot.
template <class T>
double dot_condition(const std::vector<T>& x, const std::vector<T>& y) {
  detail_gen::exact_acc s;
  double abs_dot = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    s.add_product(double(x[i]), double(y[i])), abs_dot += std::fabs(double(x[i]) * double(y[i]));
  return 2 * abs_dot / std::fabs(s.value());
}

// An ill-conditioned sum of n values with condition number about cond >= 1 (GenSum; up to three
// calibration passes correct the exponent range for n). Targets below what cancellation
// reaches (about n / log2 n) get offset uniform data instead. n < 4: uniform in [-1, 1).
template <class T = double>
std::vector<T> gen_sum(std::size_t n, double cond, std::uint64_t seed) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "gen_sum<T>: float or double");
  if (n < 4)
    return gen_uniform<T>(n, seed);
  double b = std::log2(std::max(cond, 1.0));
  std::vector<T> x = detail_gen::gen_sum_b<T>(n, b, seed), best = x;
  double best_miss = HUGE_VAL;
  for (int pass = 0; pass < 4; ++pass) {
    const double got = sum_condition(x);
    const double miss = std::fabs(std::log2(cond / got));
    if (miss < best_miss)
      best_miss = miss, best = x;
    if (miss <= 1)
      break;
    const double b_new = b + std::log2(cond / got);
    if (b_new < 0) {
      rng64 rng(seed);
      return detail_gen::offset_data<T>(n, cond, rng);
    }
    b = b_new;
    x = detail_gen::gen_sum_b<T>(n, b, seed);
  }
  x = best;
  return x;
}

// Ogita, Rump & Oishi 2005, Algorithm 6.1 (GenDot): x, y of length n with condition number
// 2 |x|^T |y| / |x^T y| about cond >= 1 (up to three calibration passes; small targets get
// offset data in x and powers of two in y). n < 4: uniform data.
template <class T = double>
std::pair<std::vector<T>, std::vector<T>> gen_dot(std::size_t n, double cond, std::uint64_t seed) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "gen_dot<T>: float or double");
  if (n < 4)
    return {gen_uniform<T>(n, seed), gen_uniform<T>(n, seed ^ 0x5eedull)};
  double b = std::log2(std::max(cond, 1.0));
  auto xy = detail_gen::gen_dot_b<T>(n, b, seed), best = xy;
  double best_miss = HUGE_VAL;
  for (int pass = 0; pass < 4; ++pass) {
    const double got = dot_condition(xy.first, xy.second);
    const double miss = std::fabs(std::log2(cond / got));
    if (miss < best_miss)
      best_miss = miss, best = xy;
    if (miss <= 1)
      break;
    const double b_new = b + std::log2(cond / got);
    if (b_new < 0) {
      rng64 rng(seed);
      std::vector<T> x = detail_gen::offset_data<T>(n, std::max(cond / 2, 1.0), rng);
      std::vector<T> y(n, T(1)); // dot condition = 2 x sum condition of x
      return {x, y};
    }
    b = b_new;
    xy = detail_gen::gen_dot_b<T>(n, b, seed);
  }
  xy = best;
  return xy;
}

// Pairs v, -v with exponents uniform in [emin, emax] (their sum is exactly 0), plus every 16th
// slot a value in [-1, 1): the exact sum is the sum of those, and the condition about 2^emax.
// Shuffled.
template <class T = double>
std::vector<T> gen_cancelling_pairs(std::size_t n, std::uint64_t seed, int emin = -20,
                                    int emax = 40) {
  rng64 rng(seed);
  std::vector<T> x;
  x.reserve(n + 1);
  while (x.size() < n) {
    if (x.size() % 16 == 15 || x.size() + 1 == n) {
      x.push_back(T(rng.symmetric()));
    } else {
      const T v = T(std::ldexp(rng.symmetric(), int(rng.integer(emin, emax))));
      x.push_back(v);
      x.push_back(-v);
    }
  }
  x.resize(n);
  rng.shuffle(x);
  return x;
}

// Positive values with significands uniform in [1, 2) and exponents uniform in [emin, emax]:
// condition 1, but rounding errors all of one sign (what exposes truncating accumulators).
template <class T = double>
std::vector<T> gen_same_sign(std::size_t n, std::uint64_t seed, int emin = -30, int emax = 30) {
  rng64 rng(seed);
  std::vector<T> x(n);
  for (auto& v : x)
    v = T(std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emax))));
  return x;
}

} // namespace tcr::test
