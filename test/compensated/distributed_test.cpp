// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/distributed.cuh on the host: merge_sum_pairs and merge_norm_pairs against
// MPFR, asserting the header's bounds for parts whose pairs are the parts' exact results rounded
// to dd (so the merge's own error is what is measured), on ill-conditioned data split into 1..64
// parts of random sizes (empty ones among them), the ends of the exponent range, zeros and
// special values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <tcr/compensated/distributed.cuh>
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::dd;
using tcr::distributed_part;
using tcr::test::mp;
using tcr::test::rng64;

// hi = RN(v), lo = RN(v - hi): |hi + lo - v| <= 2^-106 |v| (v's double range).
dd pair_of(const mp& v) {
  const double hi = mpfr_get_d(v.get(), MPFR_RNDN);
  if (!std::isfinite(hi))
    return dd(hi, 0.0);
  mp r(v);
  mp h(hi, 64);
  mpfr_sub(r.get(), r.get(), h.get(), MPFR_RNDN); // exact at the reference's precision
  return dd(hi, mpfr_get_d(r.get(), MPFR_RNDN));
}

double abs_diff(double res, const mp& exact) {
  mp d(mp::exact_sum_bits + 64);
  mp r(res, 64);
  mpfr_sub(d.get(), r.get(), exact.get(), MPFR_RNDN);
  return std::fabs(mpfr_get_d(d.get(), MPFR_RNDU));
}

struct split {
  std::vector<distributed_part> parts;
  std::vector<mp> sums; // exact, per part
};

// x split into `count` consecutive parts of random sizes (some empty); each part's pair its exact
// sum (or sum of squares' square root when norm) rounded to dd.
split split_of(const std::vector<double>& x, int count, std::uint64_t seed, bool norm) {
  rng64 rng(seed);
  std::vector<std::size_t> cut(count + 1, 0);
  cut[count] = x.size();
  for (int i = 1; i < count; ++i)
    cut[i] =
        rng.coin() && rng.coin() ? cut[i - 1] : std::size_t(rng.integer(0, std::int64_t(x.size())));
  std::sort(cut.begin() + 1, cut.end() - 1);
  split s;
  for (int i = 0; i < count; ++i) {
    std::vector<double> part(x.begin() + cut[i], x.begin() + cut[i + 1]);
    mp v = norm ? tcr::test::exact_dot(part, part) : tcr::test::exact_sum(part);
    if (norm) {
      mp r(400);
      mpfr_sqrt(r.get(), v.get(), MPFR_RNDN);
      v = r;
    }
    distributed_part q;
    q.value = pair_of(v);
    q.empty = part.empty();
    if (q.empty)
      q.value = dd(std::numeric_limits<double>::quiet_NaN(), 0.0); // must not be read
    s.parts.push_back(q);
    s.sums.push_back(v);
  }
  return s;
}

template <class Out>
Out merge_sum(const std::vector<distributed_part>& parts) {
  return tcr::merge_sum_pairs<Out>(int(parts.size()), [&](int i) { return parts[i]; });
}
template <class Out>
Out merge_norm(const std::vector<distributed_part>& parts) {
  return tcr::merge_norm_pairs<Out>(int(parts.size()), [&](int i) { return parts[i]; });
}

template <class Out>
constexpr double u_of() {
  return std::is_same_v<Out, float> ? 0x1p-24 : 0x1p-53;
}

// The header's bound for pairs within 2^-106 |s_i| of the parts' sums: |res - s| <=
// (u + [float] u_d (1 + u)) |s| + (1 + 2u)(sum e_i + 3.2 p u_d^2 sum |v_i|) + [float] 2^-150.
template <class Out>
void check_sum(const std::vector<double>& x, int count, std::uint64_t seed) {
  const split s = split_of(x, count, seed, false);
  const Out res = merge_sum<Out>(s.parts);
  const mp exact = tcr::test::exact_sum(x);
  double sum_abs_v = 0, e = 0;
  int p = 0;
  for (std::size_t i = 0; i < s.parts.size(); ++i) {
    if (s.parts[i].empty)
      continue;
    ++p;
    sum_abs_v += std::fabs(s.parts[i].value.hi) * (1 + 0x1p-52);
    e += std::fabs(s.parts[i].value.hi) * 0x1p-105; // pair_of's error, with room
  }
  const double u = u_of<Out>();
  const double ud = 0x1p-53;
  const double es = std::fabs(exact.to_double());
  const double rounding =
      (u + (std::is_same_v<Out, float> ? ud * (1 + u) : 0.0)) * es * (1 + 0x1p-50);
  const double bound = rounding + (1 + 2 * u) * (e + 3.2 * p * ud * ud * sum_abs_v) +
                       (std::is_same_v<Out, float> ? 0x1p-150 : 0x1p-1074);
  INFO("n = ", x.size(), ", parts ", count, " (", p, " nonempty), seed ", seed, ", result ",
       double(res), ", exact ", exact.to_double());
  CHECK(abs_diff(double(res), exact) <= bound);
  if (p == 1) { // one part: its pair rounded once to Out
    for (const auto& q : s.parts)
      if (!q.empty)
        CHECK(res == static_cast<Out>(q.value.hi));
  }
}

TEST_CASE("merge_sum_pairs: ill-conditioned sums in 1..64 parts, within the stated bound") {
  for (double cond : {1.0, 1e8, 1e16, 1e32}) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const std::vector<double> x = tcr::test::gen_sum<double>(1000, cond, seed);
      for (int count : {1, 2, 3, 7, 16, 64}) {
        check_sum<double>(x, count, seed * 131 + count);
        check_sum<float>(x, count, seed * 131 + count);
      }
    }
  }
}

TEST_CASE("merge_sum_pairs: the ends of the exponent range") {
  rng64 rng(7);
  for (int emin : {-1074, -1000, -200, 900, 950}) {
    std::vector<double> x(300);
    for (auto& v : x)
      v = std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emin + 60))) * (rng.coin() ? 1 : -1);
    for (int count : {1, 2, 5, 64})
      check_sum<double>(x, count, 1000 + emin + count);
  }
  // Parts near overflow whose sum is finite: the merge scales, no intermediate overflow.
  const double big = 0x1.8p1023;
  std::vector<distributed_part> parts = {{dd(big), false}, {dd(big), false}, {dd(-big), false}};
  CHECK(merge_sum<double>(parts) == big);
  CHECK(std::isinf(merge_sum<double>({{dd(DBL_MAX), false}, {dd(DBL_MAX), false}})));
  CHECK(merge_sum<double>({{dd(DBL_MAX), false}, {dd(0x1p969), false}}) == DBL_MAX); // RN
  CHECK(merge_sum<float>({{dd(3e38), false}, {dd(3e38), false}, {dd(-3e38), false}}) == 3e38f);
}

TEST_CASE("merge_sum_pairs: zeros, empty parts and special values") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const distributed_part none{dd(nan, 0.0), true};
  CHECK(std::signbit(merge_sum<float>({})) == false);
  CHECK(merge_sum<double>({none, none}) == 0.0);
  CHECK(std::signbit(merge_sum<double>({none, none})) == false); // no elements: +0
  CHECK(std::signbit(merge_sum<double>({{dd(-0.0), false}, none, {dd(-0.0), false}})));
  CHECK(std::signbit(merge_sum<float>({{dd(-0.0), false}, {dd(-0.0), false}})));
  CHECK(!std::signbit(merge_sum<double>({{dd(-0.0), false}, {dd(0.0), false}})));
  CHECK(merge_sum<double>({{dd(1.0), false}, none, {dd(-0.0), false}}) == 1.0);
  CHECK(merge_sum<double>({{dd(inf), false}, {dd(1.0), false}}) == inf);
  CHECK(merge_sum<float>({{dd(-inf), false}, {dd(DBL_MAX), false}}) == -INFINITY);
  CHECK(std::isnan(merge_sum<double>({{dd(inf), false}, {dd(-inf), false}})));
  CHECK(std::isnan(merge_sum<double>({{dd(nan), false}, {dd(1.0), false}})));
  CHECK(merge_sum<double>({{dd(inf), false}, none}) == inf); // the empty part's NaN unread
  // Cancelling parts: 2^60 + 1 - 2^60 with the 1 in a lo.
  CHECK(merge_sum<double>({{dd(0x1p60, 1.0), false}, {dd(-0x1p60), false}}) == 1.0);
  CHECK(merge_sum<float>({{dd(0x1p60, 0x1p-30), false}, {dd(-0x1p60), false}}) == 0x1p-30f);
}

template <class Out>
void check_norm(const std::vector<double>& x, int count, std::uint64_t seed) {
  const split s = split_of(x, count, seed, true);
  const Out res = merge_norm<Out>(s.parts);
  const mp ssq = tcr::test::exact_dot(x, x);
  mp r(400);
  mpfr_sqrt(r.get(), ssq.get(), MPFR_RNDN);
  int p = 0;
  for (const auto& q : s.parts)
    p += q.empty ? 0 : 1;
  const double norm = r.to_double();
  const double u = u_of<Out>();
  const double ud = 0x1p-53;
  // parts' pairs: 2^-105 relative (pair_of of a 400-bit root); merge (7p + 4) u_d^2; rounding.
  const double rel =
      u + (std::is_same_v<Out, float> ? ud * (1 + u) : 0.0) + 0x1p-104 + (7 * p + 4) * ud * ud;
  INFO("n = ", x.size(), ", parts ", count, ", result ", double(res), ", norm ", norm);
  // The parts' pairs and the result round to the subnormal grid at worst.
  const double floor = (p + 1) * (std::is_same_v<Out, float> ? 0x1p-150 : 0x1p-1074);
  CHECK(abs_diff(double(res), r) <= rel * norm + floor);
}

TEST_CASE("merge_norm_pairs: norms in 1..64 parts over the whole range, within the stated bound") {
  rng64 rng(11);
  for (int emin : {-1074, -600, -20, 500, 960}) {
    std::vector<double> x(400);
    for (auto& v : x)
      v = std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emin + 40))) * (rng.coin() ? 1 : -1);
    for (int count : {1, 2, 3, 16, 64}) {
      check_norm<double>(x, count, 2000 + count);
      if (emin > -150 && emin < 80)
        check_norm<float>(x, count, 2000 + count);
    }
  }
  // One huge and one tiny part: the scaling keeps the huge one exact, the tiny one negligible.
  CHECK(merge_norm<double>({{dd(0x1p1000), false}, {dd(0x1p-1000), false}}) == 0x1p1000);
  CHECK(merge_norm<double>({{dd(3.0 * 0x1p1020), false}, {dd(4.0 * 0x1p1020), false}}) ==
        5.0 * 0x1p1020);
  CHECK(merge_norm<double>({{dd(3.0 * 0x1p-1074), false}, {dd(4.0 * 0x1p-1074), false}}) ==
        5.0 * 0x1p-1074);
  CHECK(std::isinf(merge_norm<double>({{dd(DBL_MAX), false}, {dd(DBL_MAX), false}})));
  CHECK(merge_norm<float>({{dd(3e38), false}, {dd(4e38), false}}) == INFINITY);
}

TEST_CASE("merge_norm_pairs: zeros, empty parts and special values") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const distributed_part none{dd(nan, 0.0), true};
  CHECK(merge_norm<double>({}) == 0.0);
  CHECK(merge_norm<double>({none, {dd(0.0), false}}) == 0.0);
  CHECK(merge_norm<double>({none, {dd(2.0), false}, none}) == 2.0);
  CHECK(merge_norm<float>({{dd(inf), false}, {dd(1.0), false}}) == INFINITY);
  CHECK(std::isnan(merge_norm<double>({{dd(inf), false}, {dd(nan), false}})));
  CHECK(std::isnan(merge_norm<float>({{dd(nan), false}, {dd(inf), false}})));
}

} // namespace
