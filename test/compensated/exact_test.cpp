// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/exact.cuh on the host: the state equals MPFR's exact sum, finish is
// MPFR's rounding to nearest of it (float, double, df32, dd), on random, ill-conditioned (to
// condition 1e32), subnormal, near-overflow and tie data; merge trees and splits in random
// orders give identical bits; special values and zeros.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>
#include <tcr/compensated/exact.cuh>
#include <tcr/compensated/exact_binned.cuh>
#include "support/gen.hpp"
#include "support/merge_tree.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::test::mp;
using tcr::test::rng64;

constexpr mpfr_prec_t state_bits = 2500; // holds any exact_partial<double> value exactly

template <class V>
auto bits_of(V v) {
  std::conditional_t<sizeof(V) == 4, std::uint32_t, std::uint64_t> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Whether two partials hold the same state: limbs and flags (not memcmp of the whole struct: its
// padding after the flags is unspecified).
template <class T>
bool same_partial(const tcr::exact_partial<T>& a, const tcr::exact_partial<T>& b) {
  return std::memcmp(a.limb, b.limb, sizeof a.limb) == 0 && a.flags == b.flags;
}

// The value of a partial, exactly.
template <class T>
mp value_of(const tcr::exact_partial<T>& p) {
  constexpr mpfr_prec_t bits =
      std::max<mpfr_prec_t>(state_bits, 32 * tcr::exact_partial<T>::limbs + 64);
  mp s(bits), t(bits);
  for (int k = 0; k < tcr::exact_partial<T>::limbs; ++k) {
    mpfr_set_si_2exp(t.get(), long(p.limb[k]), 32 * k + tcr::detail::exact_format<T>::lsb_exponent,
                     MPFR_RNDN);
    mpfr_add(s.get(), s.get(), t.get(), MPFR_RNDN); // exact at this precision
  }
  return s;
}

template <class T>
tcr::exact_sum<T> sum_of(const std::vector<T>& x) {
  tcr::exact_sum<T> a;
  for (T v : x)
    a.add(v);
  return a;
}

template <class T>
std::vector<double> as_double(const std::vector<T>& x) {
  return std::vector<double>(x.begin(), x.end());
}

// A partial from carry-save limbs added as unsigned (two's complement: the same digits) and
// flags, made canonical: the end of the host models below.
template <class T>
tcr::exact_partial<T> partial_of_limbs(const unsigned long long* limb, std::uint32_t flags) {
  tcr::exact_partial<T> p;
  for (int k = 0; k < tcr::exact_partial<T>::limbs; ++k)
    p.limb[k] = static_cast<std::int64_t>(limb[k]);
  p.flags = flags;
  tcr::exact_sum<T>::canonicalise(p);
  return p;
}

// A host model of the f64 exact kernels' accumulator (binned_exact_sum_f64, as
// reduce/detail/device_kernel.cuh drives it; compensated/exact_binned.cuh's header comment):
// `threads` threads take the inputs strided, each cuts them into pieces, keeps a window of rows
// chosen from its first input and sends the pieces outside it straight to the block's limbs,
// spills its window every max_pieces pieces and at the end; the block's partial is then made
// canonical. -0 pieces are skipped, as the kernel skips them. `warp_window`: each thread takes
// the window of the largest finite first input of its group of 32 threads (the kernel's choice
// when a warp runs together), else its own first input's. Everything but the loop is the
// accumulator's own TCR_HD code (split, rows, spacings, digits, limb pieces), so that its
// arithmetic is tested without a GPU. Paired: the paired-rows variant (an input in the window
// adds its hi piece to its row's hi bin and hi - x out of its row's lo bin; outside, piece by
// piece as the single rows).
template <bool Paired = false>
tcr::exact_partial<double> binned_f64_partial(const std::vector<double>& x, int threads,
                                              bool warp_window = false) {
  using A = tcr::binned_exact_sum_f64<256, Paired>;
  constexpr int limbs = tcr::exact_partial<double>::limbs;
  // The carry-save limbs as the kernel's shared ones (unsigned long long: writing the partial's
  // int64 limbs through such a pointer breaks strict aliasing, and g++ -O3 drops the adds).
  unsigned long long limb[limbs] = {};
  std::uint32_t flags = 0;
  const auto put = [&](double v, int g) {
    const long long d = tcr::detail::bin_digit_wide(v, g, flags);
    if (d != 0)
      tcr::detail::atomic_add_scaled<limbs>(limb, d, g - A::L);
  };
  for (int t = 0; t < threads; ++t) {
    double row[A::window_bins];
    std::fill(row, row + A::window_bins, -0.0);
    int base = -1;
    std::uint32_t pieces = 0;
    const auto spill = [&] {
      if (base < 0)
        return;
      for (int k = 0; k < A::window_bins; ++k) {
        put(row[k], A::bin_spacing_exponent(base, k));
        row[k] = -0.0;
      }
    };
    for (std::size_t i = std::size_t(t); i < x.size(); i += std::size_t(threads)) {
      if (pieces + A::adds_per_input > A::max_pieces) {
        spill();
        pieces = 0;
      }
      pieces += A::adds_per_input;
      double piece[2];
      A::split(x[i], piece[0], piece[1]);
      if (base < 0) {
        const auto finite_exponent = [&](std::size_t j) {
          const int e = A::biased_exponent(x[j]);
          return e == 0x7ff ? 0 : e;
        };
        int e = finite_exponent(i);
        for (std::size_t j = std::size_t(t & ~31); warp_window && j < std::size_t((t | 31) + 1) &&
                                                   j < std::size_t(threads) && j < x.size();
             ++j)
          e = std::max(e, finite_exponent(j));
        base = A::first_row(e);
      }
      if constexpr (Paired) {
        unsigned k;
        if (A::in_window(A::biased_exponent(x[i]), base, k)) {
          const double hi = A::clear_low_bits(x[i]);
          row[k] += hi;                    // exact (the header's bound)
          row[k + A::window] -= hi - x[i]; // + lo, exact
          continue;
        }
      }
      for (double v : piece) {
        if (bits_of(v) == 0x8000000000000000ull)
          continue; // -0: nothing to add, and the zero sign stays (the kernel skips it too)
        const int e = A::biased_exponent(v);
        unsigned k;
        if (A::in_window(e, base, k))
          row[k] += v; // exact (the header's bound)
        else
          put(v, A::piece_spacing_exponent(e));
      }
    }
    spill();
  }
  return partial_of_limbs<double>(limb, flags);
}

// The model's partial has exact_sum<double>'s bits (both canonical: the same exact sum) and
// rounds to MPFR's RN of the exact sum.
void check_binned_f64(const std::vector<double>& x, int threads) {
  INFO("binned f64 model, n = ", x.size(), ", threads = ", threads);
  const auto p = binned_f64_partial(x, threads);
  const auto q = sum_of(x).partial();
  for (const auto& pw :
       {binned_f64_partial(x, threads, true), binned_f64_partial<true>(x, threads, true),
        binned_f64_partial<true>(x, threads)}) {
    CHECK(std::memcmp(pw.limb, q.limb, sizeof pw.limb) == 0);
    CHECK(pw.flags == q.flags);
  }
  CHECK(std::memcmp(p.limb, q.limb, sizeof p.limb) == 0);
  CHECK(p.flags == q.flags);
  CHECK(bits_of(tcr::exact_finish<double>(p)) == bits_of(tcr::exact_finish<double>(q)));
  if (!std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); }))
    return; // Inf, NaN: the flags decide (as exact_sum's)
  const mp s = tcr::test::exact_sum(x);
  REQUIRE(mpfr_cmp(value_of(p).get(), s.get()) == 0);
  CHECK(bits_of(tcr::exact_finish<double>(p)) == bits_of(s.to_double()));
  CHECK(bits_of(tcr::exact_finish<float>(p)) == bits_of(s.to_float()));
}

// A host model of binned_exact_sum's bins for a policy (compensated/exact_binned.cuh: the
// double bins of float and bfloat16, and the float bins of exact_bins_bf16_float): `threads`
// threads take the inputs (floats: the inputs widened) strided, each adds input x into its bin
// (bits >> shift) & (bins - 1) as x 2^scale_exponent in the policy's bin type (a float bin by
// one fused multiply-add, as the kernel's FFMA), spills its bins as digits (bin_digit at the
// policy's spacings) into the limbs every max_adds inputs and at the end; the partial is then
// made canonical. The bin index, the spacings, the scale and the add limit are the policy's own.
template <class X, class Policy>
tcr::exact_partial<float> binned_bins_partial(const std::vector<float>& x, int threads) {
  using A = tcr::binned_exact_sum<X, 256, Policy>;
  using B = typename Policy::bin_type;
  constexpr int limbs = tcr::exact_partial<float>::limbs;
  constexpr int L = tcr::detail::exact_format<float>::lsb_exponent;
  const float scale = std::ldexp(1.0f, Policy::scale_exponent);
  unsigned long long limb[limbs] = {}; // the carry-save limbs (binned_f64_partial's comment)
  std::uint32_t flags = 0;
  for (int t = 0; t < threads; ++t) {
    B bin[Policy::bins];
    std::fill(bin, bin + Policy::bins, B(-0.0));
    std::uint32_t adds = 0;
    const auto spill = [&] {
      for (int k = 0; k < Policy::bins; ++k) {
        const int g = A::spacing::exponent(k);
        // The bin's sum of inputs: the bin times 2^-scale_exponent (exact in a double).
        const double v = std::ldexp(static_cast<double>(bin[k]), -Policy::scale_exponent);
        const long long d = tcr::detail::bin_digit(v, g, flags);
        if (d != 0)
          tcr::detail::atomic_add_scaled<limbs>(limb, d, g - L);
        bin[k] = B(-0.0);
      }
    };
    for (std::size_t i = std::size_t(t); i < x.size(); i += std::size_t(threads)) {
      if (adds == Policy::max_adds) {
        spill();
        adds = 0;
      }
      ++adds;
      const int k = static_cast<int>((bits_of(x[i]) >> Policy::shift) & (Policy::bins - 1));
      if constexpr (std::is_same_v<B, float>)
        bin[k] = std::fma(x[i], scale, bin[k]);
      else
        bin[k] += static_cast<double>(x[i]);
    }
    spill();
  }
  return partial_of_limbs<float>(limb, flags);
}

// bfloat16 values as floats (the top 16 bits of a float).
std::vector<float> bf16_values(const std::vector<std::uint16_t>& h) {
  std::vector<float> x;
  for (std::uint16_t v : h) {
    const std::uint32_t u = std::uint32_t(v) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    x.push_back(f);
  }
  return x;
}

// The models' partials have exact_sum<float>'s bits, and round as MPFR rounds the exact sum.
// With Inf or NaN inputs the flags may differ (a bin that took Inf and -Inf holds NaN, where
// exact_sum flags both infinities) but not the result.
void check_binned_bins(const std::vector<float>& x, bool bf16) {
  const auto q = sum_of(x).partial();
  const bool finite = std::all_of(x.begin(), x.end(), [](float v) { return std::isfinite(v); });
  const auto same = [&](const tcr::exact_partial<float>& p) {
    if (finite)
      return same_partial(p, q);
    const float a = tcr::exact_finish<float>(p), b = tcr::exact_finish<float>(q);
    return std::isnan(a) ? std::isnan(b) : bits_of(a) == bits_of(b);
  };
  for (int threads : {1, 3, 256}) {
    INFO("binned bins model, n = ", x.size(), ", threads = ", threads);
    if (bf16) {
      CHECK(
          same(binned_bins_partial<__nv_bfloat16, tcr::detail::exact_bins_bf16_float>(x, threads)));
      CHECK(same(binned_bins_partial<__nv_bfloat16, tcr::detail::exact_bins_of<__nv_bfloat16>>(
          x, threads)));
    } else {
      CHECK(same(binned_bins_partial<float, tcr::detail::exact_bins_of<float>>(x, threads)));
    }
  }
  if (!finite)
    return;
  const mp s = tcr::test::exact_sum(as_double(x));
  REQUIRE(mpfr_cmp(value_of(q).get(), s.get()) == 0);
  CHECK(bits_of(tcr::exact_finish<float>(q)) == bits_of(s.to_float()));
}

// Every check of one data set: the partial is canonical and exact, and every finish is MPFR's
// RN of the exact sum (the pairs: hi = RN(s), lo = RN(s - hi)).
template <class T>
void check_exact(const std::vector<T>& x) {
  const auto a = sum_of(x);
  const auto p = a.partial();
  for (int k = 0; k + 1 < tcr::exact_partial<T>::limbs; ++k)
    REQUIRE((p.limb[k] >= 0 && p.limb[k] < (std::int64_t(1) << 32)));
  const mp s = tcr::test::exact_sum(as_double(x));
  REQUIRE(mpfr_cmp(value_of(p).get(), s.get()) == 0);
  const float ef = s.to_float();
  const double ed = s.to_double();
  CHECK(bits_of(a.template finish<float>(p)) == bits_of(ef));
  CHECK(bits_of(a.template finish<double>(p)) == bits_of(ed));
  CHECK(bits_of(a.result()) == bits_of(T(std::is_same_v<T, float> ? double(ef) : ed)));
  mp r(state_bits);
  const auto pf = a.template finish<tcr::df32>(p);
  CHECK(bits_of(pf.hi) == bits_of(ef));
  if (std::isfinite(ef)) {
    mpfr_sub_d(r.get(), s.get(), double(ef), MPFR_RNDN);
    CHECK(bits_of(pf.lo) == bits_of(r.to_float()));
  }
  const auto pd = a.template finish<tcr::dd>(p);
  CHECK(bits_of(pd.hi) == bits_of(ed));
  if (std::isfinite(ed)) {
    mpfr_sub_d(r.get(), s.get(), ed, MPFR_RNDN);
    CHECK(bits_of(pd.lo) == bits_of(r.to_double()));
  }
}

// Random values with exponents uniform over [emin, emax] and random signs and fractions.
template <class T>
std::vector<T> gen_wide(std::size_t n, std::uint64_t seed, int emin, int emax) {
  rng64 rng(seed);
  std::vector<T> x(n);
  for (auto& v : x) {
    const T m = T(1 + rng.uniform());
    v = std::ldexp(m, int(rng.integer(emin, emax)));
    if (rng.coin())
      v = -v;
  }
  return x;
}

// Random encodings of T: every finite value (subnormals included) equally likely per exponent.
template <class T>
std::vector<T> gen_bits(std::size_t n, std::uint64_t seed, bool subnormal_only) {
  rng64 rng(seed);
  std::vector<T> x;
  while (x.size() < n) {
    std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t> b;
    const std::uint64_t r = rng.next();
    std::memcpy(&b, &r, sizeof b);
    if (subnormal_only)
      b &= (decltype(b)(1) << (std::numeric_limits<T>::digits - 1)) - 1 | decltype(b)(1)
                                                                              << (8 * sizeof b - 1);
    T v;
    std::memcpy(&v, &b, sizeof v);
    if (std::isfinite(v))
      x.push_back(v);
  }
  return x;
}

} // namespace

TEST_CASE_TEMPLATE("exact_sum: random data over the whole range equals MPFR", T, float, double) {
  constexpr int emax = std::numeric_limits<T>::max_exponent - 1;
  constexpr int emin = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed = ", seed);
    check_exact(gen_wide<T>(1000, seed, emin, emax - 12)); // |sum| < 2^emax: finite
    check_exact(gen_wide<T>(200, 100 + seed, -30, 30));
    check_exact(gen_bits<T>(300, 200 + seed, false)); // may overflow: RN gives +-inf
  }
}

TEST_CASE_TEMPLATE("exact_sum: ill-conditioned sums (condition 1e0 .. 1e32)", T, float, double) {
  for (double cond : {1e0, 1e8, 1e16, 1e24, 1e30, 1e32}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      INFO("seed = ", seed, ", cond = ", cond);
      check_exact(tcr::test::gen_sum<T>(500, cond, seed));
      check_exact(tcr::test::gen_cancelling_pairs<T>(501, seed));
    }
  }
}

TEST_CASE_TEMPLATE("exact_sum: ends of the range", T, float, double) {
  const T big = std::numeric_limits<T>::max();
  const T tiny = std::numeric_limits<T>::denorm_min();
  const T min_normal = std::numeric_limits<T>::min();
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed = ", seed);
    rng64 rng(seed);
    // Near overflow, cancelling to a finite (and tiny) sum.
    std::vector<T> x;
    for (int i = 0; i < 64; ++i) {
      const T v = std::ldexp(T(1 + rng.uniform()),
                             std::numeric_limits<T>::max_exponent - 1 - int(rng.integer(0, 3)));
      x.push_back(v);
      x.push_back(-v);
    }
    x.push_back(big);
    x.push_back(big);
    x.push_back(-big);
    x.push_back(tiny);
    rng.shuffle(x);
    check_exact(x);
    const auto a = sum_of(x);
    CHECK(a.template finish<T>(a.partial()) == big + tiny); // RN(big + tiny) = big
    // Subnormal-only and mixed.
    check_exact(gen_bits<T>(1000, 300 + seed, true));
    auto m = gen_bits<T>(200, 400 + seed, true);
    for (T v : gen_wide<T>(200, 500 + seed, -40, 40))
      m.push_back(v);
    m.push_back(big);
    m.push_back(-big);
    rng.shuffle(m);
    check_exact(m);
  }
  // Sums beyond the range round as IEEE: big + big = inf; big + half an ulp of big (the
  // midpoint to 2^max_exponent) rounds to even, which is inf; just below it stays big.
  const T half_ulp =
      std::ldexp(T(1), std::numeric_limits<T>::max_exponent - std::numeric_limits<T>::digits - 1);
  check_exact(std::vector<T>{big, big});
  check_exact(std::vector<T>{-big, -big});
  check_exact(std::vector<T>{big, half_ulp});
  check_exact(std::vector<T>{big, half_ulp, -tiny});
  CHECK(sum_of(std::vector<T>{big, half_ulp}).result() == std::numeric_limits<T>::infinity());
  CHECK(sum_of(std::vector<T>{big, half_ulp, -tiny}).result() == big);
  CHECK(sum_of(std::vector<T>{-big, -half_ulp}).result() == -std::numeric_limits<T>::infinity());
  CHECK(sum_of(std::vector<T>{big, big, -big}).result() == big);
  // Subnormal results are exact; the smallest normal rounds nothing.
  CHECK(sum_of(std::vector<T>{min_normal, -tiny}).result() == min_normal - tiny);
  CHECK(sum_of(std::vector<T>{tiny, tiny, tiny}).result() == 3 * tiny);
}

// The f64 kernels' pieces at the bottom of the range: subnormal inputs, normal inputs whose low
// pieces are subnormal, row 0 and row 1 (spacings below 2^-1022). Before the fix every such
// piece's digit was 0 (the scale 2^-g, g < -1023, had a biased exponent beyond 2047): the sum of
// subnormals came out 0 on the H200.
TEST_CASE("binned_exact_sum_f64 (host model): subnormals and the bottom of the range") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed = ", seed);
    rng64 rng(30 + seed);
    // As device_exact_test.cu's subnormal case: multiples of 2^-1074 below 2^-1022.
    std::vector<double> dsub(20000);
    for (auto& v : dsub)
      v = std::ldexp(double(rng.integer(1, std::int64_t(1) << 52)), -1074) * (rng.coin() ? 1 : -1);
    check_binned_f64(dsub, 256);
    check_binned_f64(gen_bits<double>(5000, 600 + seed, true), 64);
    // Normal values at and just above 2^-1022 (rows 0 .. 3; low pieces subnormal).
    check_binned_f64(gen_wide<double>(20000, 700 + seed, -1022, -960), 256);
    check_binned_f64(gen_wide<double>(5000, 800 + seed, -1074, -1000), 32);
    // Tiny data after a large first input (the window far above), and mixed with ordinary data.
    auto m = gen_wide<double>(3000, 900 + seed, -1022, -990);
    for (double v : gen_wide<double>(3000, 1000 + seed, -40, 40))
      m.push_back(v);
    m.insert(m.begin(), 1.0);
    check_binned_f64(m, 32);
    rng.shuffle(m);
    check_binned_f64(m, 256);
  }
  // The smallest values, one thread (its window's spill every 2^11 pieces).
  std::vector<double> t(10000, std::numeric_limits<double>::denorm_min());
  t.push_back(-std::numeric_limits<double>::min());
  check_binned_f64(t, 1);
  // Every bin at its add bound, one thread, one sign, 2^11 adds a bin between spills (pairs:
  // inputs; single rows: pieces): mostly inputs at the top of a row whose low 27 significand
  // bits are ones (lo digits near 2^42; hi's are even: 26 bits), every 16th at the row's bottom
  // exponent with an odd significand (digits with the spacing's bit set), so that a bin's sum
  // past 2^53 would lose that bit (it does with 2^12 adds). Rows 1 (lo spacings below 2^-1022),
  // 40 and 126 (the top row of the window).
  rng64 rng(31);
  for (const int row : {1, 40, 126}) {
    std::vector<double> top;
    for (int i = 0; i < 5000; ++i) {
      const std::int64_t m =
          i % 16 == 0 ? (std::int64_t(1) << 52) + 2 * rng.integer(0, std::int64_t(1) << 50) + 1
                      : (std::int64_t(1) << 53) - 1 - (rng.integer(0, (1 << 25) - 1) << 27);
      top.push_back(std::ldexp(double(m), 16 * row + (i % 16 == 0 ? 0 : 15) - 1075));
    }
    check_binned_f64(top, 1);
  }
}

// The kernel skips -0 pieces: a zero lo is always -0 (never +0), for every kind of double,
// and the lo of a double whose low 27 fraction bits are clear (a float widened) is -0. Float-valued
// doubles, zeros, integers, subnormals, Inf and NaN.
TEST_CASE("binned_exact_sum_f64: zero low pieces are -0") {
  using A = tcr::binned_exact_sum_f64<256>;
  rng64 rng(17);
  std::vector<double> x = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           3.0,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::denorm_min(),
                           -std::numeric_limits<double>::min()};
  for (int i = 0; i < 20000; ++i) {
    const float f = static_cast<float>(std::ldexp(rng.symmetric(), int(rng.integer(-150, 128))));
    x.push_back(f);
    x.push_back(std::ldexp(double(rng.integer(-(1 << 26), 1 << 26)), int(rng.integer(-1100, 990))));
    x.push_back(std::ldexp(rng.symmetric(), int(rng.integer(-1074, 1023))));
  }
  int bad = 0;
  for (double v : x) {
    double hi, lo;
    A::split(v, hi, lo);
    // The low 27 fraction bits clear (a float widened, an integer below 2^26, a zero).
    const bool narrow = std::isfinite(v) && (bits_of(v) & 0x7ffffffull) == 0;
    if (lo == 0 && bits_of(lo) != 0x8000000000000000ull)
      ++bad; // a +0 lo would carry the zero sign
    if (narrow && bits_of(lo) != 0x8000000000000000ull)
      ++bad;
  }
  CHECK(bad == 0);
  // Sums of float-valued doubles: every lo skipped.
  std::vector<double> f;
  for (int i = 0; i < 6000; ++i)
    f.push_back(static_cast<float>(std::ldexp(rng.symmetric(), int(rng.integer(-149, 120)))));
  check_binned_f64(f, 256);
  f.push_back(-0.0);
  f.insert(f.begin(), 0.0);
  check_binned_f64(f, 32);
}

// limb_piece over every limb adds what atomic_add_scaled adds (T 2^pos, the pieces beyond the
// top folded into it), for totals of either sign up to 2^62 at every position, the top included.
TEST_CASE("limb_piece: the pieces of atomic_add_scaled, limb by limb") {
  rng64 rng(23);
  int bad = 0;
  const auto check = [&](auto limbs_c, int max_pos) {
    constexpr int L = decltype(limbs_c)::value;
    for (int rep = 0; rep < 4000; ++rep) {
      const int pos = int(rng.integer(0, max_pos));
      const int bits = int(rng.integer(0, 62));
      long long t = static_cast<long long>(rng.integer(0, (std::int64_t(1) << bits) - 1));
      if (rng.coin())
        t = -t;
      unsigned long long a[L] = {};
      tcr::detail::atomic_add_scaled<L>(a, t, pos);
      for (int k = 0; k < L; ++k)
        bad += static_cast<long long>(a[k]) != tcr::detail::limb_piece<L>(t, pos, k);
    }
  };
  check(std::integral_constant<int, tcr::exact_partial<float>::limbs>{}, 239);
  check(std::integral_constant<int, tcr::exact_partial<tcr::float_products>::limbs>{}, 16 * 34 + 1);
  check(std::integral_constant<int, tcr::exact_partial<double>::limbs>{}, 2045);
  CHECK(bad == 0);
}

TEST_CASE("binned_exact_sum_f64 (host model): ordinary, ill-conditioned and special data") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed = ", seed);
    check_binned_f64(gen_wide<double>(5000, 1100 + seed, -1074, 1010), 256);
    check_binned_f64(gen_wide<double>(5000, 1200 + seed, -30, 30), 32);
    check_binned_f64(tcr::test::gen_sum<double>(5000, 1e32, seed), 256);
    check_binned_f64(gen_bits<double>(3000, 1300 + seed, false), 64);
  }
  const double inf = std::numeric_limits<double>::infinity();
  check_binned_f64({-0.0, -0.0}, 32);
  check_binned_f64({-0.0, 0.0}, 32);
  check_binned_f64({1.0, inf, 2.0}, 32);
  check_binned_f64({inf, -inf}, 32);
  check_binned_f64({std::numeric_limits<double>::quiet_NaN(), 1.0}, 32);
  // A NaN whose payload lies only in the low 27 bits (what split clears in finite values).
  double nan_low;
  const std::uint64_t nan_low_bits = 0x7ff0000000000001ull;
  std::memcpy(&nan_low, &nan_low_bits, sizeof nan_low);
  REQUIRE(std::isnan(nan_low));
  check_binned_f64({1.0, nan_low, 2.0}, 32);
  CHECK(std::isnan(tcr::exact_finish<double>(binned_f64_partial({1.0, nan_low}, 32))));
}

// Few terms far apart with either sign (results whose digits are long runs of 0 or 2^32 - 1,
// negative sums whose magnitude's lowest nonzero limb is far below or just below the rounding
// point, remainders far below it): the long state's rounding scans stop early, and must stop
// where the full loops would have found the same limb.
TEST_CASE("binned bins (host model): bfloat16 in float bins and in double bins, float") {
  rng64 rng(9100);
  INFO("seed = 9100");
  const auto bits = [&](std::uint16_t lo, std::uint16_t hi) {
    return static_cast<std::uint16_t>(rng.integer(lo, hi));
  };
  // Random bit patterns over the whole finite range (both signs, subnormals), 5000 of them: a
  // thread alone passes the float bins' add limit (512) nine times.
  std::vector<std::uint16_t> h;
  for (int i = 0; i < 5000; ++i)
    h.push_back(static_cast<std::uint16_t>(bits(0, 0x7f7f) | (rng.integer(0, 1) << 15)));
  check_binned_bins(bf16_values(h), true);
  // Each float bin at its bound: an input with the bin's last bit (its least exponent, the last
  // fraction bit: x / g_b odd), then 4095 of its largest magnitude (top exponent, all fraction
  // bits: x / g_b = 255 2^7), then 4096 more odd ones, one sign: a thread's first 512 adds sum
  // to 129 + 511 (255 2^7) < 2^24, which one more such input would pass (the bin would round);
  // the top bin's sums reach 2^120 there.
  for (int b = 0; b < 32; ++b) {
    const int e_top = 8 * b + 7 < 255 ? 8 * b + 7 : 254;
    const auto top = static_cast<std::uint16_t>((e_top << 7) | 0x7f);
    const auto odd = static_cast<std::uint16_t>(b == 0 ? 1 : ((8 * b) << 7) | 1);
    std::vector<std::uint16_t> v(1, odd);
    v.insert(v.end(), 4095, top);
    v.insert(v.end(), 4096, odd);
    INFO("bin ", b);
    check_binned_bins(bf16_values(v), true);
  }
  std::vector<std::uint16_t> sub;
  for (std::uint16_t m = 1; m < 0x80; ++m) {
    sub.push_back(m);
    sub.push_back(static_cast<std::uint16_t>(0x8000 | (m / 2)));
  }
  check_binned_bins(bf16_values(sub), true);
  // Cancellation to zero (+0), -0 alone (-0), specials (the flags).
  check_binned_bins(bf16_values({0x3f80, 0xbf80, 0x7f7f, 0xff7f}), true);
  check_binned_bins(bf16_values({0x8000, 0x8000, 0x8000}), true);
  check_binned_bins(bf16_values({0x3f80, 0x7f80, 0x0001}), true);
  check_binned_bins(bf16_values({0x7f80, 0xff80, 0x3f80}), true);
  check_binned_bins(bf16_values({0x7fc1, 0x3f80}), true);
  // float inputs (the double bins of exact_bins_of<float>): random patterns over the range.
  std::vector<float> f;
  for (int i = 0; i < 5000; ++i) {
    const std::uint32_t u = static_cast<std::uint32_t>(rng.integer(0, 0x7f7fffff)) |
                            (static_cast<std::uint32_t>(rng.integer(0, 1)) << 31);
    float v;
    std::memcpy(&v, &u, sizeof v);
    f.push_back(v);
  }
  check_binned_bins(f, false);
}

TEST_CASE("exact_sum<double>: sparse sums, every sign, the rounding scans") {
  rng64 rng(29);
  for (int rep = 0; rep < 3000; ++rep) {
    std::vector<double> x;
    const int terms = int(rng.integer(1, 5));
    for (int t = 0; t < terms; ++t) {
      double v = std::ldexp(1 + (rng.coin() ? 0.0 : rng.uniform()), int(rng.integer(-1074, 1000)));
      if (rng.coin())
        v = -v;
      x.push_back(v);
      if (rng.integer(0, 3) == 0)
        x.push_back(-v * (1 + std::ldexp(double(rng.integer(-4, 4)), -52)));
    }
    check_exact(x);
  }
}

TEST_CASE_TEMPLATE("exact_sum: ties round to even", T, float, double) {
  constexpr int d = std::numeric_limits<T>::digits;
  const T u = std::ldexp(T(1), -d); // half an ulp of 1
  const T tiny = std::numeric_limits<T>::denorm_min();
  CHECK(sum_of(std::vector<T>{1, u}).result() == T(1));                // tie, even below
  CHECK(sum_of(std::vector<T>{1, 2 * u, u}).result() == T(1) + 4 * u); // tie, even above
  CHECK(sum_of(std::vector<T>{1, u, tiny}).result() == T(1) + 2 * u);  // above the tie
  CHECK(sum_of(std::vector<T>{1, u, -tiny}).result() == T(1));         // below the tie
  CHECK(sum_of(std::vector<T>{-1, -u}).result() == T(-1));
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    INFO("seed = ", seed);
    rng64 rng(seed);
    // x = an odd or even significand at a random exponent, plus a tie split into pieces.
    const int e = int(rng.integer(std::numeric_limits<T>::min_exponent + 40,
                                  std::numeric_limits<T>::max_exponent - 40));
    const T x = std::ldexp(T(1 + rng.uniform()), e);
    const T half = std::ldexp(T(1), std::ilogb(x) - d); // half an ulp of x
    std::vector<T> v{x, half / 2, half / 4, half / 8, half / 8};
    rng.shuffle(v);
    check_exact(v);
    CHECK(sum_of(v).result() == (bits_of(x) % 2 == 0 ? x : std::nextafter(x, T(INFINITY))));
  }
}

TEST_CASE("exact_sum<float>: 16- and 8-bit inputs widened exactly") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed = ", seed);
    rng64 rng(seed);
    std::vector<__half> h;
    std::vector<__nv_bfloat16> b;
    std::vector<__nv_fp8_e4m3> f43;
    std::vector<__nv_fp8_e5m2> f52;
    std::vector<float> hf, bf, f43f, f52f;
    while (h.size() < 256) {
      const std::uint64_t r = rng.next();
      __half hv;
      __nv_bfloat16 bv;
      const std::uint16_t r16 = std::uint16_t(r), r16b = std::uint16_t(r >> 16);
      std::memcpy(&hv, &r16, 2);
      std::memcpy(&bv, &r16b, 2);
      __nv_fp8_e4m3 e43;
      __nv_fp8_e5m2 e52;
      e43.__x = std::uint8_t(r >> 32);
      e52.__x = std::uint8_t(r >> 40);
      if (!std::isfinite(float(hv)) || !std::isfinite(float(bv)) || !std::isfinite(float(e43)) ||
          !std::isfinite(float(e52)))
        continue;
      h.push_back(hv), hf.push_back(float(hv));
      b.push_back(bv), bf.push_back(float(bv));
      f43.push_back(e43), f43f.push_back(float(e43));
      f52.push_back(e52), f52f.push_back(float(e52));
    }
    auto check = [](const auto& in, const std::vector<float>& ref) {
      tcr::exact_sum<float> a, c;
      for (std::size_t i = 0; i + 4 <= in.size(); i += 4) {
        const std::remove_cv_t<std::remove_reference_t<decltype(in[0])>> v[4] = {
            in[i], in[i + 1], in[i + 2], in[i + 3]};
        a.add(v);
      }
      for (float v : ref)
        c.add(v);
      const auto p = a.partial(), pc = c.partial();
      CHECK(same_partial(p, pc));
      const mp s = tcr::test::exact_sum(as_double(ref));
      CHECK(mpfr_cmp(value_of(p).get(), s.get()) == 0);
      CHECK(bits_of(a.finish<float>(p)) == bits_of(s.to_float()));
    };
    check(h, hf);
    check(b, bf);
    check(f43, f43f);
    check(f52, f52f);
    tcr::exact_sum<double> d; // every input type also goes into the double state
    const __half v[2] = {h[0], h[1]};
    d.add(v);
    CHECK(d.result() == double(hf[0]) + double(hf[1]));
  }
}

TEST_CASE_TEMPLATE("exact_sum: any split and merge order gives the same bits", T, float, double) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed = ", seed);
    rng64 rng(seed);
    auto x = seed % 2 ? tcr::test::gen_sum<T>(600, 1e30, seed)
                      : gen_wide<T>(600, seed, std::numeric_limits<T>::min_exponent - 30,
                                    std::numeric_limits<T>::max_exponent - 12);
    const auto ref = sum_of(x).partial();
    const T ref_result = sum_of(x).template finish<T>(ref);
    rng.shuffle(x);
    const std::size_t parts = std::size_t(rng.integer(1, 64));
    std::vector<tcr::exact_sum<T>> acc(parts);
    for (T v : x)
      acc[std::size_t(rng.next() % parts)].add(v);
    // Accumulators merged in a random tree, and their partials merged in another.
    const auto [root, height] =
        tcr::test::random_merge(acc, std::vector<double>(parts, 0.0), rng, 1.0);
    const auto p1 = root.partial();
    std::vector<tcr::exact_partial<T>> ps;
    for (const auto& a : acc)
      ps.push_back(a.partial());
    while (ps.size() > 1) {
      const std::size_t i = std::size_t(rng.next() % ps.size());
      std::size_t j = std::size_t(rng.next() % (ps.size() - 1));
      j += j >= i;
      ps[i] = rng.coin() ? root.merge(ps[i], ps[j]) : root.merge(ps[j], ps[i]);
      ps.erase(ps.begin() + std::ptrdiff_t(j));
    }
    CHECK(same_partial(p1, ref));
    CHECK(same_partial(ps[0], ref));
    CHECK(bits_of(root.template finish<T>(ps[0])) == bits_of(ref_result));
  }
}

TEST_CASE("exact_sum: the carry-save limit normalises before a limb can overflow") {
  // Start just below max_adds: the adds and merges that follow must normalise first (or the
  // state would be wrong after exceeding the bound); the value must stay exact.
  const float big = std::numeric_limits<float>::max();
  tcr::exact_sum<float> a, b;
  a.adds = tcr::exact_sum<float>::max_adds - 3;
  const float v[4] = {big, -big, big, 1.0f};
  a.add(v);
  CHECK(a.adds == 4);
  CHECK(a.result() == big);
  b.adds = tcr::exact_sum<float>::max_adds;
  b.add(-big);
  CHECK(b.adds == 1);
  b.adds = tcr::exact_sum<float>::max_adds - 1;
  b.merge(a);
  CHECK(b.adds == 1);
  CHECK(b.result() == 1.0f);
  // Many adds of the largest piece into one limb without normalising: 2^20 times FLT_MAX (the
  // sum, 2^20 FLT_MAX, overflows float but is exact in the state and finite as a double).
  tcr::exact_sum<float> c;
  for (int i = 0; i < (1 << 20); ++i)
    c.add(big);
  CHECK(c.finish<double>(c.partial()) == std::ldexp(double(big), 20));
  CHECK(c.result() == std::numeric_limits<float>::infinity());
}

TEST_CASE_TEMPLATE("exact_sum: special values and zeros as plain summation", T, float, double) {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  auto res = [](std::vector<T> x) { return sum_of(x).result(); };
  CHECK(res({1, inf, 2}) == inf);
  CHECK(res({1, -inf}) == -inf);
  CHECK(std::isnan(res({inf, -inf})));
  CHECK(std::isnan(res({1, nan})));
  CHECK(std::isnan(res({-inf, nan, inf})));
  // An infinity from the data is not an overflow: inf + (-big) stays inf.
  CHECK(res({inf, -std::numeric_limits<T>::max()}) == inf);
  // Zeros: -0 only when every input is -0 (the empty sum too); cancellation gives +0.
  CHECK(bits_of(tcr::exact_sum<T>{}.result()) == bits_of(T(-0.0)));
  CHECK(bits_of(res({T(-0.0), T(-0.0)})) == bits_of(T(-0.0)));
  CHECK(bits_of(res({T(-0.0), T(0.0)})) == bits_of(T(0.0)));
  CHECK(bits_of(res({T(1), T(-1)})) == bits_of(T(0.0)));
  CHECK(bits_of(res({T(-1), T(1), T(-0.0)})) == bits_of(T(0.0)));
  CHECK(bits_of(tcr::exact_sum<T>{}.template empty_result<T>()) == bits_of(T(0.0)));
  // Flags merge like the values: a NaN in any part makes the whole NaN.
  tcr::exact_sum<T> a, b;
  a.add(T(1));
  b.add(nan);
  CHECK(std::isnan(a.template finish<T>(a.merge(a.partial(), b.partial()))));
  CHECK(std::isnan(a.template finish<T>(a.merge(b.partial(), a.partial()))));
  const auto pd = a.template finish<tcr::dd>(a.merge(a.partial(), b.partial()));
  CHECK(std::isnan(pd.hi));
  CHECK(pd.lo == 0.0);
}

namespace {

// exact_dot_sum over x, y (Squares: over x alone, y ignored): vectors of 4 through add, then the
// tail one pair at a time (the shapes the kernels give it).
template <bool Squares>
tcr::exact_dot_sum<Squares> dot_of(const std::vector<float>& x, const std::vector<float>& y) {
  tcr::exact_dot_sum<Squares> a;
  std::size_t i = 0;
  for (; i + 4 <= x.size(); i += 4) {
    const float vx[4] = {x[i], x[i + 1], x[i + 2], x[i + 3]};
    const float vy[4] = {y[i], y[i + 1], y[i + 2], y[i + 3]};
    if constexpr (Squares)
      a.add(vx);
    else
      a.add(vx, vy);
  }
  for (; i < x.size(); ++i) {
    const float vx[1] = {x[i]};
    const float vy[1] = {y[i]};
    if constexpr (Squares)
      a.add(vx);
    else
      a.add(vx, vy);
  }
  return a;
}

// The partial of x . y is canonical and exactly MPFR's sum of products; Dot's finishes are
// MPFR's RN of it; Nrm2's (x . x) is sqrt(RN_double(s)) rounded to float, within 1 ulp of the
// correctly rounded norm.
void check_exact_dot(const std::vector<float>& x, const std::vector<float>& y) {
  const std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end());
  const auto a = dot_of<false>(x, y);
  const auto p = a.partial();
  for (int k = 0; k + 1 < tcr::exact_partial<tcr::float_products>::limbs; ++k)
    REQUIRE((p.limb[k] >= 0 && p.limb[k] < (std::int64_t(1) << 32)));
  const mp s = tcr::test::exact_dot(xd, yd);
  REQUIRE(mpfr_cmp(value_of(p).get(), s.get()) == 0);
  CHECK(bits_of(a.finish<float>(p)) == bits_of(s.to_float()));
  CHECK(bits_of(a.finish<double>(p)) == bits_of(s.to_double()));
  CHECK(bits_of(a.result()) == bits_of(s.to_float()));
  // Any split merged in any order: the same partial.
  const std::size_t h = x.size() / 3;
  const auto lo = dot_of<false>({x.begin(), x.begin() + long(h)}, {y.begin(), y.begin() + long(h)});
  const auto hi = dot_of<false>({x.begin() + long(h), x.end()}, {y.begin() + long(h), y.end()});
  CHECK(same_partial(p, a.merge(hi.partial(), lo.partial())));
  CHECK(same_partial(p, a.merge(lo.partial(), hi.partial())));
  // Nrm2.
  const auto q = dot_of<true>(x, x).partial();
  const mp ss = tcr::test::exact_dot(xd, xd);
  REQUIRE(mpfr_cmp(value_of(q).get(), ss.get()) == 0);
  const float nrm = tcr::exact_dot_sum<true>{}.finish<float>(q);
  CHECK(bits_of(nrm) == bits_of(static_cast<float>(std::sqrt(ss.to_double()))));
  const double nrm_d = tcr::exact_dot_sum<true>{}.finish<double>(q);
  CHECK(bits_of(nrm_d) == bits_of(std::sqrt(ss.to_double())));
  if (std::isfinite(nrm) && nrm > 0) {
    mp r(mp::exact_dot_bits);
    mpfr_sqrt(r.get(), ss.get(), MPFR_RNDN);
    const float cr = r.to_float();
    const float ulp = std::nextafter(cr, std::numeric_limits<float>::infinity()) - cr;
    CHECK(std::fabs(double(nrm) - double(cr)) <= double(ulp));
  }
}

} // namespace

TEST_CASE("exact_dot_sum: sums of products equal MPFR, over the whole float range") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed = ", seed);
    for (std::size_t n : {1, 2, 5, 64, 1001}) {
      INFO("n = ", n);
      // Products from 2^-298 to near 2^256: every exponent pair.
      check_exact_dot(gen_wide<float>(n, seed, -149, 127), gen_wide<float>(n, seed + 9, -149, 127));
      // Subnormals against everything.
      check_exact_dot(gen_bits<float>(n, seed, true), gen_bits<float>(n, seed + 5, false));
      check_exact_dot(gen_bits<float>(n, seed, false), gen_bits<float>(n, seed + 7, false));
    }
    // Ill-conditioned dots, condition 1e8 .. 1e32.
    for (double cond : {1e8, 1e16, 1e32}) {
      INFO("condition ", cond);
      const auto xy = tcr::test::gen_dot<float>(1000, cond, seed);
      check_exact_dot(xy.first, xy.second);
    }
  }
  // The largest products: FLT_MAX^2 is finite in double, +inf in float, and 2^-298 exact.
  const float big = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::denorm_min();
  check_exact_dot({big, big, -big}, {big, big, big});
  check_exact_dot({tiny, tiny, 1.0f}, {tiny, -tiny, tiny});
  const auto m = dot_of<false>({big}, {big});
  CHECK(m.finish<double>(m.partial()) == double(big) * double(big));
  CHECK(m.result() == std::numeric_limits<float>::infinity());
  // A tie: 1 + 2^-24 rounds to even (1), a product just above it does not.
  CHECK(dot_of<false>({1.0f, 0x1p-12f}, {1.0f, 0x1p-12f}).result() == 1.0f);
  CHECK(dot_of<false>({1.0f, 0x1p-12f, 0x1p-75f}, {1.0f, 0x1p-12f, 0x1p-75f}).result() ==
        1.0f + 0x1p-23f);
}

TEST_CASE("exact_dot_sum: special values and zero signs as IEEE products and sums give them") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto dot = [](std::vector<float> x, std::vector<float> y) {
    return dot_of<false>(x, y).result();
  };
  CHECK(std::isnan(dot({inf}, {0.0f})));   // Inf * 0
  CHECK(std::isnan(dot({-0.0f}, {-inf}))); // 0 * Inf
  CHECK(std::isnan(dot({1.0f, nan}, {1.0f, 2.0f})));
  CHECK(std::isnan(dot({inf, inf}, {1.0f, -1.0f}))); // +inf and -inf products
  CHECK(dot({inf, 5.0f}, {-2.0f, 1.0f}) == -inf);
  CHECK(dot({-inf}, {-3.0f}) == inf);
  // Zeros: a product is -0 exactly where one factor is zero and the signs differ; the sum is -0
  // only when every product is -0 (the empty sum too).
  CHECK(bits_of(tcr::exact_dot_sum<false>{}.result()) == bits_of(-0.0f));
  CHECK(bits_of(dot({-0.0f, 3.0f}, {5.0f, -0.0f})) == bits_of(-0.0f));
  CHECK(bits_of(dot({-0.0f}, {-5.0f})) == bits_of(0.0f));
  CHECK(bits_of(dot({0.0f, -0.0f}, {-1.0f, 1.0f})) == bits_of(-0.0f));
  CHECK(bits_of(dot({0.0f, 0.0f}, {-1.0f, 1.0f})) == bits_of(0.0f));
  CHECK(bits_of(dot({1.0f, 1.0f}, {-1.0f, 1.0f})) == bits_of(0.0f));
  CHECK(bits_of(tcr::exact_dot_sum<false>{}.empty_result<float>()) == bits_of(0.0f));
  // Nrm2 of specials: Inf gives +inf (a square), NaN NaN; of -0s only +0 (squares are +0).
  auto nrm = [](std::vector<float> x) { return dot_of<true>(x, x).result(); };
  CHECK(nrm({1.0f, -inf}) == inf);
  CHECK(std::isnan(nrm({nan, 1.0f})));
  CHECK(bits_of(nrm({-0.0f, -0.0f})) == bits_of(0.0f));
  CHECK(nrm({3.0f, -4.0f}) == 5.0f);
  // The carry-save count: 2^20 adds of the largest product into one limb stay exact.
  tcr::exact_dot_sum<false> c;
  const float big[1] = {std::numeric_limits<float>::max()};
  for (int i = 0; i < (1 << 20); ++i)
    c.add(big, big);
  CHECK(c.finish<double>(c.partial()) == std::ldexp(double(big[0]) * double(big[0]), 20));
}

namespace {
using f64_dot = tcr::binned_exact_dot_f64<double, double, 256, false>;

tcr::exact_sum<tcr::double_products> dot_f64_of(const std::vector<double>& x,
                                                const std::vector<double>& y) {
  tcr::exact_sum<tcr::double_products> a;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double vx[1] = {x[i]}, vy[1] = {y[i]};
    a.add_products(vx, vy);
  }
  return a;
}

// |v - the correctly rounded sqrt(s)| in ulps of that rounding (MPFR, exactly enough).
double norm_error_ulps(double v, const mp& s) {
  mp r(mp::exact_dot_bits);
  mpfr_sqrt(r.get(), s.get(), MPFR_RNDN);
  const double cr = r.to_double();
  const double ulp = std::nextafter(cr, std::numeric_limits<double>::infinity()) - cr;
  mp d(mp::exact_dot_bits);
  mpfr_sub_d(d.get(), r.get(), v, MPFR_RNDN);
  return std::fabs(mpfr_get_d(d.get(), MPFR_RNDU)) / ulp;
}

// The partial of x . y over doubles is canonical and MPFR's exact sum; the Dot's finishes are
// MPFR's RN of it, for every split; Nrm2 (x . x) is within 1 ulp of the correctly rounded norm.
void check_exact_dot_f64(const std::vector<double>& x, const std::vector<double>& y) {
  const auto a = dot_f64_of(x, y);
  const auto p = a.partial();
  for (int k = 0; k + 1 < tcr::exact_partial<tcr::double_products>::limbs; ++k)
    REQUIRE((p.limb[k] >= 0 && p.limb[k] < (std::int64_t(1) << 32)));
  const mp s = tcr::test::exact_dot(x, y);
  REQUIRE(mpfr_cmp(value_of(p).get(), s.get()) == 0);
  CHECK(bits_of(a.finish<double>(p)) == bits_of(s.to_double()));
  CHECK(bits_of(a.finish<float>(p)) == bits_of(s.to_float()));
  CHECK(bits_of(f64_dot{}.finish<double>(p)) == bits_of(s.to_double()));
  const std::size_t h = x.size() / 3;
  const auto lo = dot_f64_of({x.begin(), x.begin() + long(h)}, {y.begin(), y.begin() + long(h)});
  const auto hi = dot_f64_of({x.begin() + long(h), x.end()}, {y.begin() + long(h), y.end()});
  CHECK(same_partial(p, a.merge(hi.partial(), lo.partial())));
  const auto q = dot_f64_of(x, x).partial();
  const mp ss = tcr::test::exact_dot(x, x);
  REQUIRE(mpfr_cmp(value_of(q).get(), ss.get()) == 0);
  const double nrm = tcr::binned_exact_dot_f64<double, double, 256, true>{}.finish<double>(q);
  mp root(mp::exact_dot_bits);
  mpfr_sqrt(root.get(), ss.get(), MPFR_RNDN);
  if (mpfr_zero_p(ss.get()))
    CHECK(bits_of(nrm) == bits_of(0.0));
  else if (std::isinf(root.to_double())) // beyond DBL_MAX + ulp / 2: DBL_MAX is within 1 ulp
    CHECK(nrm >= std::numeric_limits<double>::max());
  else
    CHECK(norm_error_ulps(nrm, ss) <= 1.0);
}

// The two_prod_exact rule of binned_exact_dot_f64 (compensated/exact_binned.cuh): where it holds,
// hi = RN(x y) and lo = fma(x, y, -hi) are finite and hi + lo = x y exactly; hi and lo each cut
// into the accumulator's pieces put at most two pieces into one row of 16 exponents, every
// piece a multiple of its row's spacing below 2^42 of it (or subnormal: the slow path). Returns
// whether the rule held.
bool check_two_prod(double x, double y) {
  std::uint64_t ux, uy;
  std::memcpy(&ux, &x, 8);
  std::memcpy(&uy, &y, 8);
  const int ex = int(ux >> 52) & 0x7ff, ey = int(uy >> 52) & 0x7ff;
  const bool zero = x == 0 || y == 0;
  if (!f64_dot::two_prod_exact(ex, ey, zero))
    return false;
  volatile double vx = x, vy = y; // no contraction across the two roundings
  const double hi = vx * vy;
  const double lo = std::fma(x, y, -hi);
  REQUIRE(std::isfinite(hi));
  REQUIRE(std::isfinite(lo));
  mp e(mp::exact_dot_bits), t(mp::exact_dot_bits);
  mpfr_set_d(e.get(), x, MPFR_RNDN);
  mpfr_mul_d(e.get(), e.get(), y, MPFR_RNDN);
  mpfr_set_d(t.get(), hi, MPFR_RNDN);
  mpfr_add_d(t.get(), t.get(), lo, MPFR_RNDN);
  REQUIRE(mpfr_cmp(e.get(), t.get()) == 0);
  if (zero)
    return true;
  int per_row[128] = {};
  for (double v : {hi, lo}) {
    if (v == 0)
      continue;
    double pieces[2];
    f64_dot::rows::split(v, pieces[0], pieces[1]);
    for (double piece : pieces) {
      if (piece == 0)
        continue;
      const int pe = f64_dot::rows::biased_exponent(piece);
      if (pe == 0)
        continue; // subnormal: the slow path, exactly
      const int row = pe >> 4;
      ++per_row[row];
      const int g = f64_dot::bin_spacing_exponent(row, 0);
      const double q = std::ldexp(piece, -g); // exact: g >= -1074 + ... and piece normal
      REQUIRE(q == std::trunc(q));
      REQUIRE(std::fabs(q) < 0x1p42);
    }
  }
  for (int r = 0; r < 128; ++r)
    REQUIRE(per_row[r] <= 2);
  return true;
}
} // namespace

TEST_CASE("exact_sum<double_products>: products of doubles over the whole range equal MPFR") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed = ", seed);
    for (std::size_t n : {1, 2, 5, 64, 501}) {
      INFO("n = ", n);
      // Products from 2^-2148 up to near 2^2046: every exponent pair.
      check_exact_dot_f64(gen_wide<double>(n, seed, -1074, 1022),
                          gen_wide<double>(n, seed + 9, -1074, 1022));
      check_exact_dot_f64(gen_bits<double>(n, seed, true), gen_bits<double>(n, seed + 5, false));
      check_exact_dot_f64(gen_bits<double>(n, seed, false), gen_bits<double>(n, seed + 7, false));
      // Ordinary data, and products whose sum stays in double's range.
      check_exact_dot_f64(gen_wide<double>(n, seed, -40, 40),
                          gen_wide<double>(n, seed + 3, -40, 40));
    }
    for (double cond : {1e8, 1e16, 1e32}) {
      INFO("condition ", cond);
      const auto xy = tcr::test::gen_dot<double>(1000, cond, seed);
      check_exact_dot_f64(xy.first, xy.second);
    }
  }
  const double big = std::numeric_limits<double>::max();
  const double tiny = std::numeric_limits<double>::denorm_min();
  // DBL_MAX^2 - DBL_MAX^2 + 1: exact, where any double arithmetic overflows.
  check_exact_dot_f64({big, 1.0, -big}, {big, 1.0, big});
  check_exact_dot_f64({tiny, tiny, 1.0}, {tiny, -tiny, tiny});
  const auto fin = [](const std::vector<double>& x, const std::vector<double>& y) {
    const auto a = dot_f64_of(x, y);
    return a.finish<double>(a.partial());
  };
  CHECK(fin({big, 1.0, -big}, {big, 1.0, big}) == 1.0);
  CHECK(bits_of(fin({big, -big}, {2.0, 2.0})) == bits_of(0.0));
  // A tie: 1 + 2^-53 rounds to even (1); a product of 2^-1200 above it rounds up.
  CHECK(fin({1.0, 0x1p-27}, {1.0, 0x1p-26}) == 1.0);
  CHECK(fin({1.0, 0x1p-27, 0x1p-600}, {1.0, 0x1p-26, 0x1p-600}) == 1.0 + 0x1p-52);
  // Special values and zero signs as IEEE products and sums give them.
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(fin({inf}, {0.0})));
  CHECK(std::isnan(fin({1.0, nan}, {1.0, 2.0})));
  CHECK(std::isnan(fin({inf, inf}, {1.0, -1.0})));
  CHECK(fin({inf, 5.0}, {-2.0, 1.0}) == -inf);
  CHECK(bits_of(fin({-0.0, 3.0}, {5.0, -0.0})) == bits_of(-0.0));
  CHECK(bits_of(fin({-0.0}, {-5.0})) == bits_of(0.0));
  CHECK(bits_of(fin({0x1p-600}, {-0x1p-600})) == bits_of(-0.0)); // -2^-1200 rounds to -0
  // Norms across the range: sums of squares beyond DBL_MAX and below 2^-1074 (the checks above
  // ask for 1 ulp), an overflowing norm, and norms of zeros and specials.
  check_exact_dot_f64({0x1p600, 0x1p600, 3.0}, {1.0, 1.0, 1.0});
  check_exact_dot_f64({tiny, tiny}, {1.0, 1.0});
  check_exact_dot_f64({0x1.8p-1070, -0x1p-1074, 0x1p-1060}, {1.0, 1.0, 1.0});
  using nrm = tcr::binned_exact_dot_f64<double, double, 256, true>;
  const auto norm = [](const std::vector<double>& x) {
    return nrm{}.finish<double>(dot_f64_of(x, x).partial());
  };
  CHECK(norm({big, big}) == inf);
  CHECK(norm({big, 0.0}) == big);
  CHECK(norm({0x1p1000 * 3, 0x1p1000 * 4}) == 0x1p1000 * 5);
  CHECK(norm({0x1p-1070 * 3, 0x1p-1070 * 4}) == 0x1p-1070 * 5);
  CHECK(bits_of(norm({-0.0, -0.0})) == bits_of(0.0));
  CHECK(norm({1.0, -inf}) == inf);
  CHECK(std::isnan(norm({nan, 1.0})));
  CHECK(nrm{}.finish<float>(dot_f64_of({0x1p200}, {0x1p200}).partial()) ==
        std::numeric_limits<float>::infinity());
}

TEST_CASE("binned_exact_dot_f64: the TwoProd rule and its pieces (host)") {
  // Random pairs over the whole range, and pairs around the rule's edges (exponent sums 1076,
  // 3067, subnormal and zero operands).
  int fast = 0, total = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto x = gen_bits<double>(4000, seed, false);
    const auto y = gen_bits<double>(4000, seed + 11, seed == 4);
    for (std::size_t i = 0; i < x.size(); ++i) {
      fast += check_two_prod(x[i], y[i]) ? 1 : 0;
      ++total;
    }
  }
  CHECK(fast > total / 4);
  rng64 rng(99);
  for (int i = 0; i < 20000; ++i) {
    const int sum = int(rng.integer(1070, 1082)) + (rng.coin() ? 0 : 1991);
    const int ex = int(rng.integer(sum > 2047 ? sum - 2046 : 1, sum > 2047 ? 2046 : sum - 1));
    const double mx = 1 + rng.uniform(), my = 1 + rng.uniform();
    const double x = std::ldexp(mx, ex - 1023), y = std::ldexp(my, sum - ex - 1023);
    check_two_prod(rng.coin() ? x : -x, y);
    check_two_prod(x, 0.0);
    check_two_prod(std::ldexp(mx, -1074 + int(rng.integer(0, 51))), y);
  }
  // Ordinary data never leaves the rule.
  const auto a = gen_wide<double>(2000, 5, -300, 300), b = gen_wide<double>(2000, 6, -300, 300);
  for (std::size_t i = 0; i < a.size(); ++i)
    CHECK(check_two_prod(a[i], b[i]));
}
