// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceSegmentedReduce and tcr::DeviceBatchedReduce in Accuracy::correctly_rounded
// and Accuracy::reproducible where an operand is double
// (reduce/detail/segmented_exact_f64_kernel.cuh): Sum and Asum give each segment's exact sum
// rounded once to nearest even, Dot the exact dot product rounded once (double and float results,
// MPFR references: test/support/mpfr_ref.hpp), Nrm2 a norm within 1 ulp of the correctly rounded
// one; over every length 0..70 and both sides of the warp / block threshold, values of the whole
// double range (subnormals, sums and products beyond double's range), ill-conditioned segments up
// to condition 1e32; the fixed-size form, batched pointer arrays and strided batches; zero signs,
// NaN and Inf in their own segments; the same bits as tcr::DeviceReduce's exact modes over the same
// values, for a capped grid and for many short segments. Host cases: the size query, the argument
// checks and what has no path.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>
#include <tcr/reduce/batched.cuh>
#include "reduce/exact_check.hpp"
#include "reduce/segmented_test_util.hpp"
#include "support/fake_address.hpp"
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using namespace tcr::test;
using tcr::test::exact::bits_of;
using tcr::test::exact::is_round_to_nearest;

const tcr::ReduceOptions correctly_rounded{tcr::Accuracy::correctly_rounded};
const tcr::ReduceOptions reproducible{tcr::Accuracy::reproducible};

// Whether r is the segment's IEEE special result where one applies (NaN if a NaN or both
// infinities are among the terms, else the infinity), and `special` says whether one did.
template <class Out>
bool special_ok(Out r, const std::vector<double>& terms, bool& special) {
  bool nan = false, pinf = false, ninf = false;
  for (double t : terms) {
    nan = nan || std::isnan(t);
    pinf = pinf || t == std::numeric_limits<double>::infinity();
    ninf = ninf || t == -std::numeric_limits<double>::infinity();
  }
  special = true;
  if (nan || (pinf && ninf))
    return std::isnan(r);
  if (pinf || ninf)
    return std::isinf(r) && (r > 0) == pinf;
  special = false;
  return true;
}

// Sum / Asum: every result RN of MPFR's exact sum of the segment's terms (|x| for Asum).
template <class Out>
void check_sums(const std::vector<Out>& r, const std::vector<double>& x, const segment_layout& l,
                bool absolute) {
  REQUIRE(r.size() == l.begin.size());
  int bad = 0;
  for (std::size_t s = 0; s < r.size(); ++s) {
    std::vector<double> v = segment_of(x, l, s);
    if (absolute)
      for (double& t : v)
        t = std::fabs(t);
    bool special = false;
    bool ok = special_ok(r[s], v, special);
    if (!special)
      ok = v.empty() ? bits_of(r[s]) == bits_of(Out(0)) : is_round_to_nearest(r[s], exact_sum(v));
    if (!ok && bad++ < 5)
      MESSAGE("segment ", s, " [", l.begin[s], ", ", l.end[s], "): result ", double(r[s]));
  }
  CHECK(bad == 0);
}

// Dot: every result RN of MPFR's exact dot product of the segment.
template <class Out>
void check_dots(const std::vector<Out>& r, const std::vector<double>& x,
                const std::vector<double>& y, const segment_layout& l) {
  REQUIRE(r.size() == l.begin.size());
  int bad = 0;
  for (std::size_t s = 0; s < r.size(); ++s) {
    const std::vector<double> a = segment_of(x, l, s), b = segment_of(y, l, s);
    // The products' special values as IEEE multiplication gives them (finite products, also
    // those beyond double's range, stand as 0: MPFR takes them exactly below).
    std::vector<double> specials(a.size(), 0.0);
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
        specials[i] = a[i] * b[i];
    bool special = false;
    bool ok = special_ok(r[s], specials, special);
    if (!special)
      ok =
          a.empty() ? bits_of(r[s]) == bits_of(Out(0)) : is_round_to_nearest(r[s], exact_dot(a, b));
    if (!ok && bad++ < 5)
      MESSAGE("segment ", s, " [", l.begin[s], ", ", l.end[s], "): result ", double(r[s]));
  }
  CHECK(bad == 0);
}

// Nrm2: within 1 ulp of the correctly rounded sqrt of MPFR's exact sum of squares (where that
// rounds to +inf: at least the largest finite value).
template <class Out>
bool nrm2_ok(Out res, const std::vector<double>& v) {
  if (v.empty())
    return bits_of(res) == bits_of(Out(0));
  const mp ssq = exact_dot(v, v);
  mp r(mp::exact_dot_bits);
  mpfr_sqrt(r.get(), ssq.get(), MPFR_RNDN);
  const Out cr = std::is_same_v<Out, float> ? Out(r.to_float()) : Out(r.to_double());
  if (std::isinf(cr))
    return res >= std::numeric_limits<Out>::max();
  if (cr == 0)
    return bits_of(res) == bits_of(Out(0));
  const Out ulp = std::nextafter(cr, std::numeric_limits<Out>::infinity()) - cr;
  mp d(mp::exact_dot_bits);
  mpfr_sub_d(d.get(), r.get(), double(res), MPFR_RNDN); // exact at this precision
  return std::fabs(mpfr_get_d(d.get(), MPFR_RNDU)) <= double(ulp);
}
template <class Out>
void check_norms(const std::vector<Out>& r, const std::vector<double>& x, const segment_layout& l) {
  REQUIRE(r.size() == l.begin.size());
  int bad = 0;
  for (std::size_t s = 0; s < r.size(); ++s)
    if (!nrm2_ok(r[s], segment_of(x, l, s)) && bad++ < 5)
      MESSAGE("segment ", s, " [", l.begin[s], ", ", l.end[s], "): result ", double(r[s]));
  CHECK(bad == 0);
}

// Segment s's values: by s mod 5, random doubles of moderate range, of the whole range
// (subnormals; products and squares beyond double's range), an ill-conditioned sum (condition
// 1e8 .. 1e32), values near overflow in pairs that cancel exactly (squares beyond DBL_MAX), zeros
// with a few values (whose window must come from the nonzero lanes).
std::vector<double> f64_segment(std::size_t n, std::size_t s, std::uint64_t seed) {
  const std::uint64_t k = seed * 1000003 + s;
  switch (s % 5) {
  case 0:
    return typed_random<double>(n, k, -30, 30).d;
  case 1:
    return typed_random<double>(n, k, -1074, 1023).d;
  case 2:
    return n < 3 ? typed_random<double>(n, k).d
                 : gen_sum<double>(n, std::pow(10.0, 8.0 * double(1 + s / 5 % 4)), k);
  case 3: {
    std::vector<double> v = typed_random<double>(n, k, 1000, 1023).d;
    for (std::size_t i = 0; i + 1 < n; i += 2)
      v[i + 1] = -v[i];
    return v;
  }
  default: {
    std::vector<double> v(n, 0.0);
    rng64 rng(k);
    for (std::size_t i = 0; i < n; i += 37)
      v[i] = std::ldexp(rng.uniform() - 0.5, static_cast<int>(rng.integer(-60, 60)));
    return v;
  }
  }
}

std::vector<std::int64_t> f64_lengths() {
  std::vector<std::int64_t> v = sweep_lengths();
  // 600000: more than 2^11 (Sum) and 2^10 (Dot) elements per thread of a block, so that every
  // thread spills its window during the segment.
  for (std::int64_t n : {127, 128, 129, 2047, 2048, 2049, 40000, 600000})
    v.push_back(n);
  return v;
}

// Sum / Asum / Nrm2 of x over the layout, offsets form, in both exact modes (the same bits).
template <class Out>
void check_unary(const segment_layout& l, std::size_t offset, std::uint64_t seed) {
  INFO("result ", type_name<Out>(), ", ", l.count(), " segments, offset ", offset, ", seed ", seed);
  const auto x = segment_data<double>(
      l, [&](std::size_t n, std::size_t s) { return f64_segment(n, s, seed); });
  padded_device<double> dx(x.t, offset);
  for (op o : {op::sum, op::asum}) {
    INFO(op_name(o));
    const auto r = run_segmented<Out>(o, dx.get(), dx.get(), l, correctly_rounded);
    check_sums<Out>(r, x.d, l, o == op::asum);
    CHECK(same_bits(r, run_segmented<Out>(o, dx.get(), dx.get(), l, reproducible)));
  }
  const auto r = run_segmented<Out>(op::nrm2, dx.get(), dx.get(), l, correctly_rounded);
  check_norms<Out>(r, x.d, l);
}

// tcr::DeviceReduce's exact result of the values (the bits segments must have).
template <class Out, class X, class Y>
Out device_exact(op o, const std::vector<X>& x, const std::vector<Y>* y) {
  device_buffer<X> dx(x);
  device_buffer<Y> dy(y != nullptr ? *y : std::vector<Y>(1));
  return run_device<Out>(o, dx.get(), dy.get(), static_cast<std::int64_t>(x.size()),
                         correctly_rounded);
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("exact segmented Sum / Asum / Nrm2 of doubles: every length, the whole range") {
    const segment_layout l = consecutive(f64_lengths(), 3);
    check_unary<double>(l, 0, 1);
    check_unary<double>(l, 1, 2);
    check_unary<float>(l, 1, 3);
  }

  TEST_CASE("exact segmented Dot with a double operand: every length, the whole range") {
    const segment_layout l = consecutive(f64_lengths(), 1);
    const auto x = segment_data<double>(
        l, [&](std::size_t n, std::size_t s) { return f64_segment(n, s, 11); });
    const auto y = segment_data<double>(l, [&](std::size_t n, std::size_t s) {
      return s % 5 == 3 ? typed_random<double>(n, 7 * s + 5, -1074, 1023).d
                        : f64_segment(n, s + 1, 12);
    });
    padded_device<double> dx(x.t, 1), dy(y.t, 0);
    const auto r = run_segmented<double>(op::dot, dx.get(), dy.get(), l, correctly_rounded);
    check_dots<double>(r, x.d, y.d, l);
    CHECK(same_bits(r, run_segmented<double>(op::dot, dx.get(), dy.get(), l, reproducible)));
    check_dots<float>(run_segmented<float>(op::dot, dx.get(), dy.get(), l, correctly_rounded), x.d,
                      y.d, l);
    // Ill-conditioned dots, and a float operand widened exactly.
    std::vector<std::int64_t> lengths;
    for (std::int64_t n : {3, 40, 700, 4096, 9000})
      lengths.push_back(n);
    const segment_layout cl = consecutive(lengths, 2);
    const auto cx = segment_data<double>(cl, [&](std::size_t n, std::size_t s) {
      return gen_dot<double>(n, std::pow(10.0, 8.0 * double(1 + s % 4)), 30 + s).first;
    });
    const auto cy = segment_data<double>(cl, [&](std::size_t n, std::size_t s) {
      return gen_dot<double>(n, std::pow(10.0, 8.0 * double(1 + s % 4)), 30 + s).second;
    });
    padded_device<double> dcx(cx.t, 0), dcy(cy.t, 0);
    check_dots<double>(run_segmented<double>(op::dot, dcx.get(), dcy.get(), cl, correctly_rounded),
                       cx.d, cy.d, cl);
    const auto fy = segment_data<float>(
        l, [&](std::size_t n, std::size_t s) { return typed_random<float>(n, 40 + s).d; });
    padded_device<float> dfy(fy.t, 1);
    check_dots<double>(run_segmented<double>(op::dot, dx.get(), dfy.get(), l, correctly_rounded),
                       x.d, fy.d, l);
    check_dots<double>(run_segmented<double>(op::dot, dfy.get(), dx.get(), l, correctly_rounded),
                       fy.d, x.d, l);
  }

  TEST_CASE("exact segmented doubles: fixed size, batched pointers and strided batches") {
    for (int size : {1, 16, 33, 4096, 4097, 20000}) {
      INFO("fixed size ", size);
      const std::int64_t num = size > 1000 ? 24 : 500;
      const segment_layout fl = consecutive(std::vector<std::int64_t>(std::size_t(num), size), 0);
      const auto x = segment_data<double>(
          fl, [&](std::size_t n, std::size_t s) { return f64_segment(n, s, 50 + size); });
      device_buffer<double> dx(x.t);
      check_sums<double>(
          run_segmented_fixed<double>(op::sum, dx.get(), dx.get(), num, size, correctly_rounded),
          x.d, fl, false);
      check_dots<double>(
          run_segmented_fixed<double>(op::dot, dx.get(), dx.get(), num, size, correctly_rounded),
          x.d, x.d, fl);
      check_norms<double>(
          run_segmented_fixed<double>(op::nrm2, dx.get(), dx.get(), num, size, reproducible), x.d,
          fl);
    }
    // Pointer arrays with a length each.
    const segment_layout bl = consecutive({5, 0, 300, 4100, 17, 66000}, 2);
    const auto x = segment_data<double>(
        bl, [&](std::size_t n, std::size_t s) { return f64_segment(n, s, 60); });
    device_buffer<double> dx(x.t);
    std::vector<const double*> ptrs;
    std::vector<std::int64_t> lens;
    for (std::size_t s = 0; s < bl.begin.size(); ++s) {
      ptrs.push_back(dx.get() + bl.begin[s]);
      lens.push_back(bl.length(s));
    }
    device_buffer<const double*> dptrs(ptrs);
    device_buffer<std::int64_t> dlens(lens);
    const auto batched = [&](auto call) {
      device_buffer<double> out(ptrs.size());
      std::size_t bytes = 0;
      TCR_CHECK_CUDA(call(nullptr, bytes, out.get()));
      temp_storage temp(bytes);
      TCR_CHECK_CUDA(call(temp.get(), bytes, out.get()));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      return out.download();
    };
    using DBR = tcr::DeviceBatchedReduce;
    const std::int64_t count = static_cast<std::int64_t>(ptrs.size());
    check_sums<double>(batched([&](void* t, std::size_t& b, double* o) {
                         return DBR::Asum(t, b, dptrs.get(), o, count, dlens.get(), 0,
                                          correctly_rounded);
                       }),
                       x.d, bl, true);
    check_dots<double>(batched([&](void* t, std::size_t& b, double* o) {
                         return DBR::Dot(t, b, dptrs.get(), dptrs.get(), o, count, dlens.get(), 0,
                                         correctly_rounded);
                       }),
                       x.d, x.d, bl);
    // Strided batches: vector j is x[j stride + i incx], i < n.
    const std::int64_t n = 300, incx = 3, stride = 1000, batch = 20;
    std::vector<double> sx = typed_random<double>(std::size_t(stride * batch), 61, -200, 200).d;
    device_buffer<double> dsx(sx);
    std::vector<double> flat;
    std::vector<std::int64_t> slen;
    for (std::int64_t j = 0; j < batch; ++j) {
      for (std::int64_t i = 0; i < n; ++i)
        flat.push_back(sx[std::size_t(j * stride + i * incx)]);
      slen.push_back(n);
    }
    const segment_layout sl = consecutive(slen, 0);
    device_buffer<double> out(static_cast<std::size_t>(batch));
    std::size_t bytes = 0;
    TCR_CHECK_CUDA(DBR::Sum(nullptr, bytes, dsx.get(), incx, stride, out.get(), batch, n, 0,
                            correctly_rounded));
    temp_storage temp(bytes);
    TCR_CHECK_CUDA(DBR::Sum(temp.get(), bytes, dsx.get(), incx, stride, out.get(), batch, n, 0,
                            correctly_rounded));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    check_sums<double>(out.download(), flat, sl, false);
  }

  TEST_CASE("exact segmented doubles: specials, zero signs, DeviceReduce's bits, capped grids") {
    const double inf = std::numeric_limits<double>::infinity();
    const double M = DBL_MAX;
    const flat_segments f = flatten(special_sum_segments<double>(M, 0x1p-1000));
    const segment_layout& l = f.layout;
    const std::vector<double>& flat = f.values;
    device_buffer<double> dx(flat);
    const auto r = run_segmented<double>(op::sum, dx.get(), dx.get(), l, correctly_rounded);
    check_sums<double>(r, flat, l, false);
    CHECK(bits_of(r[0]) == 0u);
    CHECK(bits_of(r[1]) == 0x8000000000000000ull);
    CHECK(bits_of(r[2]) == 0u);
    CHECK(bits_of(r[3]) == 0u);
    CHECK(r[8] == 0x1p-1074);
    CHECK(r[9] == inf);
    CHECK(r[10] == M);
    CHECK(r[11] == 1.0);
    CHECK(r[12] == 1.0 + 0x1p-52);
    // Products: -0 products give -0; M^2 - M^2 + 1.5 is 1.5; squares beyond DBL_MAX.
    const std::vector<double> px = {-0.0, -0.0, M, -M, 0.5, 3.0, M, 0x1p-600};
    const std::vector<double> py = {1.0, 2.0, M, M, 3.0, 0.0, 0.5, -0x1p-600};
    const segment_layout pl = consecutive({2, 4, 2}, 0);
    device_buffer<double> dpx(px), dpy(py);
    const auto d = run_segmented<double>(op::dot, dpx.get(), dpy.get(), pl, correctly_rounded);
    CHECK(bits_of(d[0]) == 0x8000000000000000ull);
    CHECK(d[1] == 1.5);
    CHECK(d[2] == M / 2); // M / 2 - 2^-1200 rounds to M / 2
    const auto nr = run_segmented<double>(op::nrm2, dpx.get(), dpx.get(), pl, correctly_rounded);
    CHECK(bits_of(nr[0]) == 0u);
    CHECK(nr[1] == inf);

    // Every segment has DeviceReduce's exact bits; the same for capped grids and many short
    // segments (groups of fewer segments, a grid-strided loop).
    const segment_layout wl = consecutive(f64_lengths(), 1);
    const auto wx = segment_data<double>(
        wl, [&](std::size_t n, std::size_t s) { return f64_segment(n, s, 70); });
    padded_device<double> dwx(wx.t, 2);
    const auto full = run_segmented<double>(op::sum, dwx.get(), dwx.get(), wl, reproducible);
    const auto fulld = run_segmented<double>(op::dot, dwx.get(), dwx.get(), wl, reproducible);
    int differ = 0;
    for (std::size_t s = 0; s < full.size(); s += 3) {
      const std::vector<double> v = segment_of(wx.d, wl, s);
      differ += bits_of(full[s]) != bits_of(device_exact<double>(op::sum, v, &v));
      differ += bits_of(fulld[s]) != bits_of(device_exact<double>(op::dot, v, &v));
    }
    CHECK(differ == 0);
    for (int grid : {1, 3}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      const auto capped = run_segmented<double>(op::sum, dwx.get(), dwx.get(), wl, reproducible);
      const auto cappedd = run_segmented<double>(op::dot, dwx.get(), dwx.get(), wl, reproducible);
      tcr::detail::device::grid_limit_for_tests = 0;
      CHECK(same_bits(full, capped));
      CHECK(same_bits(fulld, cappedd));
    }
    const std::int64_t many = 1 << 16;
    const segment_layout ml = consecutive(std::vector<std::int64_t>(std::size_t(many), 8), 0);
    const auto mx = segment_data<double>(
        ml, [&](std::size_t n, std::size_t s) { return f64_segment(n, s, 80); });
    device_buffer<double> dmx(mx.t);
    const auto mr = run_segmented<double>(op::sum, dmx.get(), dmx.get(), ml, correctly_rounded);
    check_sums<double>(mr, mx.d, ml, false);
    CHECK(same_bits(
        mr, run_segmented_fixed<double>(op::sum, dmx.get(), dmx.get(), many, 8, reproducible)));
  }
}

TEST_CASE("exact segmented doubles: the size query, the checks, and what has no path") {
  using DSR = tcr::DeviceSegmentedReduce;
  std::size_t b = std::size_t(1) << 30;
  void* temp = fake<void>(0x40000);
  const auto* x = fake<const double>(0x10000);
  const auto* xf = fake<const float>(0x10000);
  double* out = fake<double>(0x20000);
  const std::int64_t* off = fake<const std::int64_t>(0x30000);
  for (const tcr::ReduceOptions& o : {correctly_rounded, reproducible}) {
    std::size_t q = 0;
    CHECK(DSR::Sum(nullptr, q, x, out, 4, off, off + 1, 0, o) == cudaSuccess);
    CHECK(q == 1); // no temporary storage (as where none is used)
    q = 0;
    CHECK(DSR::Dot(nullptr, q, x, xf, out, 4, 16, 0, o) == cudaSuccess);
    CHECK(q == 1);
    std::size_t one = 1;
    CHECK(DSR::Sum(temp, one, x, out, -1, 16, 0, o) == cudaErrorInvalidValue);
    CHECK(DSR::Sum(temp, one, x, out, 4, -1, 0, o) == cudaErrorInvalidValue);
    CHECK(DSR::Dot(temp, one, x, x, static_cast<double*>(nullptr), 4, 16, 0, o) ==
          cudaErrorInvalidValue);
    CHECK(DSR::Asum(temp, one, static_cast<const double*>(nullptr), out, 4, off, off + 1, 0, o) ==
          cudaErrorInvalidValue);
    CHECK(DSR::Nrm2(temp, one, x, out, 4, static_cast<const std::int64_t*>(nullptr), off, 0, o) ==
          cudaErrorInvalidValue);
    std::size_t none = 0;
    CHECK(DSR::Sum(temp, none, x, out, 4, 16, 0, o) == cudaErrorInvalidValue);
    CHECK(DSR::Sum(temp, none, x, out, 0, 16, 0, o) == cudaSuccess); // nothing to do
    // No exact path: the norm into df32 / dd, and the tensor cores (after the checks).
    CHECK(DSR::Nrm2(temp, b, x, fake<tcr::dd>(0x20000), 4, 16, 0, o) == cudaErrorNotSupported);
    CHECK(DSR::Nrm2(temp, b, x, fake<tcr::df32>(0x20000), 4, off, off + 1, 0, o) ==
          cudaErrorNotSupported);
    tcr::ReduceOptions tc = o;
    tc.engine = tcr::Engine::tensor_core;
    CHECK(DSR::Sum(temp, one, x, out, 4, 16, 0, tc) == cudaErrorNotSupported);
    CHECK(DSR::Dot(temp, one, x, x, out, -1, 16, 0, tc) == cudaErrorInvalidValue);
  }
}
