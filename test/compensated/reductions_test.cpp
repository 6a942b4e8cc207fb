// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/reductions.cuh on the host: __half and __nv_bfloat16 results of the sum,
// dot and nrm2 accumulators (the bounds of the header, and RN of the exact result wherever the
// accurate value's error bound decides it), on data whose exact result lies on or next to a
// midpoint of the result's grid; integer_sum_accumulator against exact __int128 references for
// every input and result type, in merge trees of any shape.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>
#include <tcr/compensated/reductions.cuh>
#include "compensated/narrow_ref.hpp"
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::test::mp;

// A parameter type that takes no part in deduction (so nullptr may be passed for it).
template <class T>
struct same {
  using type = T;
};

static_assert(tcr::detail::is_result_type_v<__half> &&
              tcr::detail::is_result_type_v<__nv_bfloat16>);
static_assert(tcr::detail::is_integer_input_v<signed char> &&
              tcr::detail::is_integer_input_v<std::uint64_t> &&
              !tcr::detail::is_integer_input_v<bool> && !tcr::detail::is_integer_input_v<float>);

// ---------------------------------------------------------------------------------------------
// Half and bfloat16 results.

template <class T>
double unit_of() {
  return std::ldexp(1.0, -tcr::test::format_of<T>().p);
}
template <class T>
double half_subnormal_spacing() {
  constexpr auto f = tcr::test::format_of<T>();
  return std::ldexp(1.0, f.emin - f.p); // eta / 2
}

// A random midpoint of T's grid (between two positive finite neighbours, or the largest value
// and 2^(emax+1)), with exponents in [lo_e, hi_e).
template <class T>
double random_midpoint(tcr::test::rng64& rng, int lo_e, int hi_e) {
  constexpr auto f = tcr::test::format_of<T>();
  const int e = int(rng.integer(lo_e, hi_e - 1));
  const double k = double(rng.integer(0, (std::int64_t(1) << (f.p - 1)) - 1));
  const int q = (e > f.emin ? e : f.emin) - (f.p - 1);
  const double base = e >= f.emin ? std::ldexp(1.0, e) : 0.0; // the subnormals: k units
  return base + std::ldexp(k + 0.5, q);
}

// Floats or doubles x (and y = 1 for the added terms) whose exact sum is t exactly: n random
// values of magnitude about |t|, then terms RN(t - sum) until nothing is left, shuffled.
template <class In>
std::vector<In> data_summing_to(const mp& t, std::size_t n, tcr::test::rng64& rng) {
  std::vector<In> x;
  const double scale = std::fabs(t.to_double());
  for (std::size_t i = 0; i < n; ++i)
    x.push_back(In(scale * rng.symmetric() * 4));
  mp r(t);
  for (In v : x)
    mpfr_sub_d(r.get(), r.get(), double(v), MPFR_RNDN); // exact
  for (int k = 0; k < 40 && !mpfr_zero_p(r.get()); ++k) {
    const In c = std::is_same_v<In, float> ? In(mpfr_get_flt(r.get(), MPFR_RNDN))
                                           : In(mpfr_get_d(r.get(), MPFR_RNDN));
    x.push_back(c);
    mpfr_sub_d(r.get(), r.get(), double(c), MPFR_RNDN);
  }
  REQUIRE(mpfr_zero_p(r.get()));
  for (std::size_t i = x.size(); i > 1; --i)
    std::swap(x[i - 1], x[std::size_t(rng.next() % i)]);
  return x;
}

// Feeds x (and y) to accumulators in chunks of 8 (then singles), cut into `parts` accumulators
// whose partials are merged left to right, as threads would.
template <bool Dot, class A, class In>
typename A::partial_type reduce_parts(const A& fresh, const std::vector<In>& x,
                                      const typename same<std::vector<In>>::type* y,
                                      std::size_t parts) {
  const std::size_t per = (x.size() + parts - 1) / parts;
  typename A::partial_type p = fresh.partial();
  for (std::size_t b = 0; b < x.size(); b += per) {
    A a = fresh;
    const std::size_t e = std::min(x.size(), b + per);
    std::size_t i = b;
    for (; i + 8 <= e; i += 8) {
      In c[8], d[8] = {};
      std::copy(x.begin() + std::ptrdiff_t(i), x.begin() + std::ptrdiff_t(i + 8), c);
      if constexpr (Dot) {
        std::copy(y->begin() + std::ptrdiff_t(i), y->begin() + std::ptrdiff_t(i + 8), d);
        a.add(c, d);
      } else {
        a.add(c);
      }
    }
    for (; i < e; ++i) {
      const In c[1] = {x[i]};
      if constexpr (Dot) {
        const In d[1] = {(*y)[i]};
        a.add(c, d);
      } else {
        a.add(c);
      }
    }
    p = fresh.merge(p, a.partial());
  }
  return p;
}

// A result res of an exact s (S the sum of magnitudes): within u|s| + abs_term S + eta/2, and
// RN_T(s) itself when every value within acc_err of s rounds to RN_T(s) (the accumulator's
// accurate value lies there). Returns whether RN_T was decided.
template <class T>
bool check_narrow_result(T res, const mp& s, double S, double abs_term, double acc_err) {
  const double r = tcr::test::as_double(res);
  const double u = unit_of<T>(), eta2 = half_subnormal_spacing<T>();
  const double want = tcr::test::reference_round<T>(s);
  mp lo(s), hi(s);
  mpfr_sub_d(lo.get(), lo.get(), acc_err, MPFR_RNDN); // exact (the precision covers it)
  mpfr_add_d(hi.get(), hi.get(), acc_err, MPFR_RNDN);
  const double rlo = tcr::test::reference_round<T>(lo), rhi = tcr::test::reference_round<T>(hi);
  const bool decided = rlo == rhi;
  INFO("res = ", r, ", s = ", s.to_double(), ", RN(s) = ", want, ", S = ", S);
  if (decided)
    CHECK(tcr::test::same_double(r, want));
  if (std::isinf(r)) { // only where a value within acc_err of s overflows
    CHECK((r == rlo || r == rhi));
  } else {
    const double s_abs = std::fabs(mpfr_get_d(s.get(), MPFR_RNDA));
    const double err = tcr::test::abs_error(r, s);
    CHECK(err <= (u * s_abs + abs_term * S + eta2) * (1 + 0x1p-40));
  }
  return decided;
}

mp mp_of(double v) {
  return mp(v, mp::exact_sum_bits);
}

struct tally {
  std::size_t cases = 0, decided = 0, naive_wrong = 0;
};

// Sum and Dot of In (float: the float machinery; double: the double machinery) with result T,
// exact results m (1 + d) for random midpoints m of T and d in {0, +-2^-j}.
template <class T, class In>
tally check_narrow_sums(std::uint64_t seed) {
  constexpr auto f = tcr::test::format_of<T>();
  constexpr bool dbl = std::is_same_v<In, double>;
  using Sum = tcr::sum_accumulator<In>;
  using Dot = tcr::dot_accumulator<In>;
  const double abs_term = dbl ? 0x1p-99 : 0x1p-41;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  tally t;
  // Exponents: the subnormals, the normals, and the top binade (its midpoint to 2^(emax+1)
  // overflows); bfloat16 above 2^100 only from doubles (floats would overflow on the way).
  // Float data must hold m 2^-j exactly: bfloat16 midpoints from 2^-100, and no j = 70.
  const int lo_e = dbl || f.p == 11 ? f.emin - 3 : -100;
  const int hi_e = std::min(f.emax + 1, dbl ? f.emax + 1 : 100);
  const std::vector<int> js =
      dbl ? std::vector<int>{0, 12, 24, 30, 70} : std::vector<int>{0, 12, 24, 30};
  for (int rep = 0; rep < 60; ++rep) {
    const double m = random_midpoint<T>(rng, lo_e, hi_e) * (rng.coin() ? 1 : -1);
    for (int j : js) {
      for (int sign : {1, -1}) {
        if (j == 0 && sign < 0)
          continue;
        mp target = mp_of(m);
        if (j > 0) {
          mp d = mp_of(m);
          mpfr_mul_2si(d.get(), d.get(), -j, MPFR_RNDN);
          if (sign > 0)
            mpfr_add(target.get(), target.get(), d.get(), MPFR_RNDN); // exact
          else
            mpfr_sub(target.get(), target.get(), d.get(), MPFR_RNDN);
        }
        const std::size_t n = std::size_t(rng.integer(0, 300));
        const std::size_t parts = std::size_t(rng.integer(1, 9));
        const std::vector<In> x = data_summing_to<In>(target, n, rng);
        std::vector<double> xd(x.begin(), x.end()), ad;
        for (double v : xd)
          ad.push_back(std::fabs(v));
        const double S = mpfr_get_d(tcr::test::exact_sum(ad).get(), MPFR_RNDU);
        const double s_abs = std::fabs(target.to_double());
        const double acc_err = (dbl ? 0x1p-104 * s_abs * 2 + 0x1p-100 * S : 0x1p-42 * S);
        INFO("m = ", m, ", j = ", j, ", sign = ", sign, ", n = ", x.size(), ", parts = ", parts);
        const Sum sum{};
        const auto ps = reduce_parts<false>(sum, x, nullptr, parts);
        const T rs = sum.template finish<T>(ps);
        t.decided += check_narrow_result(rs, target, S, abs_term, acc_err);
        // The double rounding the pair avoids: RN_T of the double result.
        const double naive =
            tcr::test::as_double(tcr::round_to<T>(sum.template finish<double>(ps)));
        t.naive_wrong += !tcr::test::same_double(naive, tcr::test::as_double(rs));
        // Dot: the same data against ones, and scaled by 2 against halves.
        const std::vector<In> ones(x.size(), In(1)), halves(x.size(), In(0.5));
        std::vector<In> x2;
        for (In v : x)
          x2.push_back(In(2) * v);
        const Dot dot{};
        const T rd = dot.template finish<T>(reduce_parts<true>(dot, x, &ones, parts));
        const T rd2 = dot.template finish<T>(reduce_parts<true>(dot, x2, &halves, parts));
        t.decided += check_narrow_result(rd, target, S, abs_term, acc_err);
        CHECK(tcr::test::same_double(tcr::test::as_double(rd), tcr::test::as_double(rd2)));
        t.cases += 2;
      }
    }
  }
  MESSAGE(t.cases, " results, ", t.decided, " decided, ", t.naive_wrong,
          " where rounding the double result would differ");
  return t;
}

// Nrm2 with result T: norms exactly on a midpoint (x = (3, 4) o / 5 with o odd, 12 bits for
// half), pushed off it by a tiny third element; relative bound and RN where decided.
template <class T, class In>
void check_narrow_nrm2(std::uint64_t seed) {
  constexpr auto f = tcr::test::format_of<T>();
  constexpr bool dbl = std::is_same_v<In, double>;
  const double rel = dbl ? 0x1p-99 : 0x1p-40, rho = dbl ? 0x1p-100 : 0x1p-42;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  const double u = unit_of<T>(), eta2 = half_subnormal_spacing<T>();
  std::size_t decided = 0, cases = 0;
  for (int rep = 0; rep < 400; ++rep) {
    // o: an odd multiple of 5 with p + 1 bits, so o 2^k is a midpoint of T for every k in range.
    std::int64_t o = 0;
    while (o % 5 != 0 || o % 2 == 0)
      o = rng.integer(std::int64_t(1) << f.p, (std::int64_t(1) << (f.p + 1)) - 1);
    const int k = int(rng.integer(f.emin - f.p - 1, std::min(f.emax - f.p, 90)));
    const double a = std::ldexp(double(3 * o / 5), k), b = std::ldexp(double(4 * o / 5), k);
    const int tiny_j = int(rng.integer(0, 1)) ? (dbl ? 30 : 15) : 200;
    const double tiny = std::ldexp(double(o), k - tiny_j);
    std::vector<In> x = {In(a), In(b)};
    if (tiny_j < 200)
      x.push_back(In(tiny));
    std::vector<double> xd(x.begin(), x.end());
    mp ss = tcr::test::exact_dot(xd, xd), r(mp::exact_dot_bits);
    mpfr_sqrt(r.get(), ss.get(), MPFR_RNDN); // 4400 bits: far below every bound here
    const double rv = r.to_double();
    const tcr::nrm2_accumulator<In> acc{};
    const T res = acc.template finish<T>(reduce_parts<false>(acc, x, nullptr, 1));
    INFO("o = ", o, ", k = ", k, ", tiny_j = ", tiny_j);
    mp lo(r), hi(r);
    mpfr_mul_d(lo.get(), lo.get(), 1 - rho, MPFR_RNDD);
    mpfr_mul_d(hi.get(), hi.get(), 1 + rho, MPFR_RNDU);
    const double want = tcr::test::reference_round<T>(r);
    if (tcr::test::reference_round<T>(lo) == tcr::test::reference_round<T>(hi)) {
      ++decided;
      CHECK(tcr::test::same_double(tcr::test::as_double(res), want));
    }
    if (!std::isinf(want))
      CHECK(tcr::test::abs_error(tcr::test::as_double(res), r) <=
            ((u + rel) * rv + eta2) * (1 + 0x1p-40));
    ++cases;
  }
  MESSAGE(cases, " norms, ", decided, " decided");
  CHECK(decided > cases / 4);
}

} // namespace

TEST_CASE_TEMPLATE("half / bfloat16 results of the float machinery near midpoints", T, __half,
                   __nv_bfloat16) {
  const tally t = check_narrow_sums<T, float>(0x5ed1000 + tcr::test::format_of<T>().p);
  CHECK(t.decided > t.cases / 2);
}
TEST_CASE_TEMPLATE("half / bfloat16 results of the double machinery: the pair rounded once", T,
                   __half, __nv_bfloat16) {
  const tally t = check_narrow_sums<T, double>(0x5ed2000 + tcr::test::format_of<T>().p);
  CHECK(t.decided > t.cases / 2);
  CHECK(t.naive_wrong > 0); // the data can tell a double rounding from one rounding
}
TEST_CASE_TEMPLATE("half / bfloat16 results of nrm2 on and next to midpoints", T, __half,
                   __nv_bfloat16) {
  check_narrow_nrm2<T, float>(0x5ed3000 + tcr::test::format_of<T>().p);
  check_narrow_nrm2<T, double>(0x5ed4000 + tcr::test::format_of<T>().p);
}

TEST_CASE("half / bfloat16 results: signed zeros, empty results, overflow, Inf and NaN") {
  auto h = [](__half v) { return double(float(v)); };
  auto b = [](__nv_bfloat16 v) { return double(float(v)); };
  const float fz[8] = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
  const double dz[4] = {-0.0, -0.0, -0.0, -0.0};
  tcr::sum_accumulator<float> sf;
  sf.add(fz);
  const auto pf = sf.merge(sf.partial(), tcr::sum_accumulator<float>{}.partial());
  CHECK(std::signbit(h(sf.finish<__half>(pf))));
  CHECK(std::signbit(b(sf.finish<__nv_bfloat16>(pf))));
  CHECK_FALSE(std::signbit(h(sf.empty_result<__half>())));
  tcr::sum_accumulator<double> sd;
  sd.add(dz);
  const auto pd = sd.merge(sd.partial(), tcr::sum_accumulator<double>{}.partial());
  CHECK(std::signbit(h(sd.finish<__half>(pd))));
  CHECK(std::signbit(b(sd.finish<__nv_bfloat16>(pd))));
  CHECK_FALSE(std::signbit(b(sd.empty_result<__nv_bfloat16>())));
  CHECK(h(tcr::nrm2_accumulator<float>{}.empty_result<__half>()) == 0);
  CHECK(b(tcr::dot_accumulator<double>{}.empty_result<__nv_bfloat16>()) == 0);
  // A negative sum below half a subnormal: -0.
  tcr::sum_accumulator<double> tiny;
  const double t4[4] = {-0x1p-30, -0x1p-31, 0.0, 0.0};
  tiny.add(t4);
  CHECK(std::signbit(h(tiny.finish<__half>(tiny.partial()))));
  CHECK(h(tiny.finish<__half>(tiny.partial())) == 0);
  // Overflow: 65519 stays finite, 65520 is the tie to 2^16 (inf); bfloat16 of a float sum
  // beyond (2 - 2^-8) 2^127.
  auto half_sum = [](double v, double w) {
    tcr::sum_accumulator<double> a;
    const double x[2] = {v, w};
    a.add(x);
    return double(float(a.finish<__half>(a.partial())));
  };
  CHECK(half_sum(65000, 519) == 65504);
  CHECK(half_sum(65000, 520) == HUGE_VAL);
  CHECK(half_sum(-65000, -520) == -HUGE_VAL);
  CHECK(half_sum(65520, -0x1p-60) == 65504); // the pair (65520, -2^-60): lo decides
  tcr::sum_accumulator<float> big;
  const float bx[2] = {0x1.fep127f, 0x1p119f};
  big.add(bx);
  CHECK(b(big.finish<__nv_bfloat16>(big.partial())) == HUGE_VAL);
  // Inf and NaN: what plain summation gives.
  const float fi[4] = {1.0f, std::numeric_limits<float>::infinity(), 2.0f, -3.0f};
  tcr::sum_accumulator<float> si;
  si.add(fi);
  CHECK(h(si.finish<__half>(si.partial())) == HUGE_VAL);
  const double di[4] = {1.0, -HUGE_VAL, HUGE_VAL, 0.0};
  tcr::sum_accumulator<double> sn;
  sn.add(di);
  CHECK(std::isnan(b(sn.finish<__nv_bfloat16>(sn.partial()))));
  tcr::nrm2_accumulator<double> ni;
  ni.add(di);
  CHECK(h(ni.finish<__half>(ni.partial())) == HUGE_VAL); // Nrm2: +inf unless a NaN is there
}

// ---------------------------------------------------------------------------------------------
// integer_sum_accumulator.

namespace {

using i128 = __int128;
using u128 = unsigned __int128;

tcr::int128 to_words(i128 v) {
  const u128 u = static_cast<u128>(v);
  return {std::uint64_t(u), std::uint64_t(u >> 64)};
}
mp exact_of(i128 v) {
  const bool neg = v < 0;
  const u128 a = neg ? u128(0) - u128(v) : u128(v);
  mp s(256);
  mpfr_set_ui(s.get(), static_cast<unsigned long>(a >> 64), MPFR_RNDN);
  mpfr_mul_2ui(s.get(), s.get(), 64, MPFR_RNDN);
  mpfr_add_ui(s.get(), s.get(), static_cast<unsigned long>(std::uint64_t(a)), MPFR_RNDN);
  if (neg)
    mpfr_neg(s.get(), s.get(), MPFR_RNDN);
  return s;
}

// Every result type of the accumulator from partial p against the exact sum s.
template <bool Abs>
void check_integer_results(const tcr::integer_sum_accumulator<Abs>& a, const tcr::int128& p,
                           i128 s) {
  CHECK(p == to_words(s));
  CHECK(a.template finish<tcr::int128>(p) == to_words(s));
  const u128 us = static_cast<u128>(s);
  // Integers: s modulo 2^bits, two's complement.
  CHECK(a.template finish<std::int8_t>(p) == static_cast<std::int8_t>(std::uint8_t(us)));
  CHECK(a.template finish<std::uint8_t>(p) == std::uint8_t(us));
  CHECK(a.template finish<std::int16_t>(p) == static_cast<std::int16_t>(std::uint16_t(us)));
  CHECK(a.template finish<std::uint16_t>(p) == std::uint16_t(us));
  CHECK(a.template finish<std::int32_t>(p) == static_cast<std::int32_t>(std::uint32_t(us)));
  CHECK(a.template finish<std::uint32_t>(p) == std::uint32_t(us));
  CHECK(a.template finish<std::int64_t>(p) == static_cast<std::int64_t>(std::uint64_t(us)));
  CHECK(a.template finish<std::uint64_t>(p) == std::uint64_t(us));
  CHECK(a.template finish<long long>(p) == static_cast<long long>(std::uint64_t(us)));
  // Floating point: one rounding of s.
  const mp e = exact_of(s);
  CHECK(tcr::test::same_double(a.template finish<float>(p), tcr::test::reference_round<float>(e)));
  CHECK(
      tcr::test::same_double(a.template finish<double>(p), tcr::test::reference_round<double>(e)));
  CHECK(tcr::test::same_double(tcr::test::as_double(a.template finish<__half>(p)),
                               tcr::test::reference_round<__half>(e)));
  CHECK(tcr::test::same_double(tcr::test::as_double(a.template finish<__nv_bfloat16>(p)),
                               tcr::test::reference_round<__nv_bfloat16>(e)));
  // Pairs: hi = RN(s), lo = RN(s - hi).
  const tcr::df32 f = a.template finish<tcr::df32>(p);
  const tcr::dd d = a.template finish<tcr::dd>(p);
  mp rf(e), rd(e);
  mpfr_sub_d(rf.get(), rf.get(), double(f.hi), MPFR_RNDN); // exact at 256 bits
  mpfr_sub_d(rd.get(), rd.get(), d.hi, MPFR_RNDN);
  CHECK(tcr::test::same_double(f.hi, tcr::test::reference_round<float>(e)));
  CHECK(tcr::test::same_double(f.lo, tcr::test::reference_round<float>(rf)));
  CHECK(tcr::test::same_double(d.hi, tcr::test::reference_round<double>(e)));
  CHECK(tcr::test::same_double(d.lo, tcr::test::reference_round<double>(rd)));
}

template <class X>
X random_integer(tcr::test::rng64& rng) {
  const std::uint64_t r = rng.next();
  switch (rng.next() % 8) {
  case 0:
    return std::numeric_limits<X>::min();
  case 1:
    return std::numeric_limits<X>::max();
  case 2:
    return X(r % 7) - X(3 * std::is_signed_v<X>); // small, both signs where signed
  default:
    X v;
    std::memcpy(&v, &r, sizeof v);
    return v;
  }
}

template <class X>
i128 value_of(X v, bool absolute) {
  const i128 w = static_cast<i128>(v);
  return absolute && w < 0 ? -w : w;
}

// The accumulator fed in chunks of N, split at random into parts merged in a random tree; the
// same data with chunks of 1 and another tree gives the same bits.
template <bool Abs, int N, class X, class Y = void>
tcr::int128 random_tree_reduce(const std::vector<X>& x,
                               const typename same<std::vector<Y>>::type* y,
                               tcr::test::rng64& rng) {
  using A = tcr::integer_sum_accumulator<Abs>;
  const A fresh{};
  std::vector<tcr::int128> parts;
  A a = fresh;
  std::size_t i = 0;
  while (i < x.size()) {
    if (i + N <= x.size()) {
      X c[N];
      std::copy(x.begin() + std::ptrdiff_t(i), x.begin() + std::ptrdiff_t(i + N), c);
      if constexpr (std::is_void_v<Y>) {
        a.add(c);
      } else {
        Y d[N];
        std::copy(y->begin() + std::ptrdiff_t(i), y->begin() + std::ptrdiff_t(i + N), d);
        a.add(c, d);
      }
      i += N;
    } else {
      const X c[1] = {x[i]};
      if constexpr (std::is_void_v<Y>) {
        a.add(c);
      } else {
        const Y d[1] = {(*y)[i]};
        a.add(c, d);
      }
      ++i;
    }
    if (rng.next() % 4 == 0) { // a thread boundary
      parts.push_back(a.partial());
      a = fresh;
    }
  }
  parts.push_back(a.partial());
  while (parts.size() > 1) {
    const std::size_t k = std::size_t(rng.next() % (parts.size() - 1));
    parts[k] =
        rng.coin() ? fresh.merge(parts[k], parts[k + 1]) : fresh.merge(parts[k + 1], parts[k]);
    parts.erase(parts.begin() + std::ptrdiff_t(k + 1));
  }
  return parts[0];
}

template <class X>
void check_integer_sums(std::uint64_t seed) {
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (int rep = 0; rep < 40; ++rep) {
    const std::size_t n = std::size_t(rng.integer(0, 2000));
    std::vector<X> x(n);
    for (auto& v : x)
      v = random_integer<X>(rng);
    i128 s = 0, sa = 0;
    for (X v : x)
      s += value_of(v, false), sa += value_of(v, true);
    INFO("n = ", n, ", rep = ", rep);
    const tcr::int128 p8 = random_tree_reduce<false, 8, X>(x, nullptr, rng);
    const tcr::int128 p1 = random_tree_reduce<false, 1, X>(x, nullptr, rng);
    const tcr::int128 p3 = random_tree_reduce<false, 3, X>(x, nullptr, rng);
    CHECK(p8 == p1);
    CHECK(p3 == p1);
    check_integer_results(tcr::integer_sum_accumulator<>{}, p8, s);
    const tcr::int128 q16 = random_tree_reduce<true, 16, X>(x, nullptr, rng);
    const tcr::int128 q1 = random_tree_reduce<true, 1, X>(x, nullptr, rng);
    CHECK(q16 == q1);
    check_integer_results(tcr::integer_sum_accumulator<true>{}, q16, sa);
  }
}

template <class X, class Y>
void check_integer_dots(std::uint64_t seed) {
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (int rep = 0; rep < 30; ++rep) {
    const std::size_t n = std::size_t(rng.integer(0, 2000));
    std::vector<X> x(n);
    std::vector<Y> y(n);
    i128 s = 0;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = random_integer<X>(rng);
      y[i] = random_integer<Y>(rng);
      s += static_cast<i128>(x[i]) * static_cast<i128>(y[i]);
    }
    INFO("n = ", n, ", rep = ", rep);
    const tcr::int128 p8 = random_tree_reduce<false, 8, X, Y>(x, &y, rng);
    const tcr::int128 p1 = random_tree_reduce<false, 1, X, Y>(x, &y, rng);
    CHECK(p8 == p1);
    check_integer_results(tcr::integer_sum_accumulator<>{}, p8, s);
  }
}

} // namespace

TEST_CASE_TEMPLATE("integer_sum_accumulator: exact Sum and Asum, every result type, any tree", X,
                   std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t, char, long long) {
  check_integer_sums<X>(0x1a7000 + sizeof(X) * 2 + std::is_signed_v<X>);
}

TEST_CASE("integer_sum_accumulator: exact Dot of integers of up to 32 bits, any tree") {
  check_integer_dots<std::int8_t, std::int8_t>(0x1a7100);
  check_integer_dots<std::int16_t, std::uint16_t>(0x1a7101);
  check_integer_dots<std::uint8_t, std::int32_t>(0x1a7102);
  check_integer_dots<std::int32_t, std::int32_t>(0x1a7103);
  check_integer_dots<std::uint32_t, std::uint32_t>(0x1a7104);
  check_integer_dots<std::int32_t, std::uint32_t>(0x1a7105);
  check_integer_dots<std::uint16_t, std::uint32_t>(0x1a7106);
}

TEST_CASE("integer_sum_accumulator: extremes, cancellation, sums beyond 64 bits") {
  using A = tcr::integer_sum_accumulator<>;
  using B = tcr::integer_sum_accumulator<true>;
  const A a{};
  const B b{};
  // |INT64_MIN| = 2^63 in Asum; INT64_MIN in Sum.
  const std::int64_t mn[1] = {INT64_MIN};
  B bm;
  bm.add(mn);
  check_integer_results(b, bm.partial(), i128(1) << 63);
  A am;
  am.add(mn);
  check_integer_results(a, am.partial(), -(i128(1) << 63));
  // 2^20 copies of INT64_MIN (-2^83), of UINT64_MAX, and of INT32_MIN^2 (2^62) as a dot.
  std::vector<std::int64_t> mins(1 << 20, INT64_MIN);
  std::vector<std::uint64_t> maxs(1 << 20, UINT64_MAX);
  std::vector<std::int32_t> m32(1 << 20, INT32_MIN);
  tcr::test::rng64 rng(0x1a7200);
  INFO("seed = ", 0x1a7200);
  check_integer_results(a, random_tree_reduce<false, 16, std::int64_t>(mins, nullptr, rng),
                        -(i128(1) << 83));
  check_integer_results(b, random_tree_reduce<true, 16, std::int64_t>(mins, nullptr, rng),
                        i128(1) << 83);
  check_integer_results(a, random_tree_reduce<false, 8, std::uint64_t>(maxs, nullptr, rng),
                        i128(UINT64_MAX) << 20);
  check_integer_results(a, random_tree_reduce<false, 8, std::int32_t, std::int32_t>(m32, &m32, rng),
                        i128(1) << 82);
  // Cancellation: x and -x around a small remainder, in a shuffled order (exact: 7).
  std::vector<std::int64_t> c;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t v = std::int64_t(rng.next() >> 1);
    c.push_back(v);
    c.push_back(-v);
  }
  c.push_back(7);
  for (std::size_t i = c.size(); i > 1; --i)
    std::swap(c[i - 1], c[std::size_t(rng.next() % i)]);
  check_integer_results(a, random_tree_reduce<false, 4, std::int64_t>(c, nullptr, rng), 7);
  // A sum that wraps a 64-bit result: INT64_MAX + 1 is INT64_MIN in int64, 2^63 in double.
  const std::int64_t w[2] = {INT64_MAX, 1};
  A aw;
  aw.add(w);
  CHECK(aw.finish<std::int64_t>(aw.partial()) == INT64_MIN);
  CHECK(aw.finish<double>(aw.partial()) == 0x1p63);
  // Empty: zero of every type (+0).
  CHECK(a.empty_result<int>() == 0);
  CHECK(a.empty_result<tcr::int128>().is_zero());
  CHECK_FALSE(std::signbit(a.empty_result<double>()));
  CHECK_FALSE(std::signbit(float(a.empty_result<__half>())));
  const tcr::dd z = a.empty_result<tcr::dd>();
  CHECK((z.hi == 0 && z.lo == 0));
  // Half's range ends at 65520: 65519 rounds to 65504.
  const std::int32_t h2[2] = {65000, 519};
  A ah;
  ah.add(h2);
  CHECK(float(ah.finish<__half>(ah.partial())) == 65504.0f);
  const std::int32_t h3[2] = {65000, 520};
  A ai;
  ai.add(h3);
  CHECK(std::isinf(float(ai.finish<__half>(ai.partial()))));
}

// ---------------------------------------------------------------------------------------------
// add_magnitudes: Asum's path on the CUDA cores (the magnitudes taken after widening) must hold
// exactly what add gives for the magnitudes cleared in the packed inputs.

namespace {

// Random encodings of X in vectors of N (every finite bit pattern: signed zeros and subnormals
// included; every pattern in the last round), fed once through add_magnitudes and once through
// add of tcr::magnitudes' copy.
template <class Result, class X, int N>
void check_add_magnitudes(std::uint64_t seed) {
  INFO("input ", sizeof(X), " bytes, N = ", N, ", seed = ", seed);
  tcr::test::rng64 rng(seed);
  tcr::sum_accumulator<Result> late{}, early{};
  for (int round = 0; round < 64; ++round) {
    X x[N];
    for (int i = 0; i < N; ++i) {
      const std::uint64_t bits = rng.next();
      std::memcpy(&x[i], &bits, sizeof(X));
    }
    if (round < 63) // Inf and NaN in the last round only, so that the sums stay finite before
      for (int i = 0; i < N; ++i)
        if (!std::isfinite(tcr::widen<double>(x[i])))
          x[i] = X(1.0f);
    late.add_magnitudes(x);
    tcr::magnitudes(x);
    early.add(x);
    const auto pl = late.partial(), pe = early.partial();
    const double rl = late.template finish<double>(pl), re = early.template finish<double>(pe);
    if (std::isnan(rl)) {
      // A NaN's payload depends on which operand the compiler put first; only NaN is promised.
      REQUIRE(std::isnan(re));
    } else {
      REQUIRE(std::memcmp(&pl, &pe, sizeof pl) == 0);
    }
  }
}

template <class Result, class X>
void check_add_magnitudes_all_widths(std::uint64_t seed) {
  check_add_magnitudes<Result, X, 1>(seed);
  check_add_magnitudes<Result, X, 16 / sizeof(X)>(seed + 1);
  check_add_magnitudes<Result, X, 4 * (16 / sizeof(X))>(seed + 2);
}

} // namespace

TEST_CASE_TEMPLATE("sum_accumulator::add_magnitudes equals add of the magnitudes, bit for bit", X,
                   float, __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2) {
  check_add_magnitudes_all_widths<float, X>(101);
  check_add_magnitudes_all_widths<double, X>(202);
}

TEST_CASE("sum_accumulator<double>::add_magnitudes of doubles equals add of the magnitudes") {
  check_add_magnitudes_all_widths<double, double>(303);
}
