// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for tcr::DeviceReduce's exact modes (Accuracy::correctly_rounded, ::reproducible):
// Sum and Asum of every floating-point input type give the exact sum rounded once to nearest
// even, checked against the exact value (a Kulisch reference, tested against MPFR elsewhere) by
// its neighbours in the result format; the same bits for every grid, input offset and split of
// the data into parts whose partial states are merged in random orders; special values, zeros,
// ties, subnormals, values near overflow; misuse.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <numeric>
#include <tcr/compensated/exact.cuh>
#include <tcr/compensated/exact_binned.cuh>
#include "reduce/device_test_util.hpp"
#include "reduce/exact_check.hpp"

namespace {

using namespace tcr::test;
using tcr::Accuracy;
using tcr::DeviceReduce;
using tcr::ReduceOptions;
using tcr::test::exact::bits_of;
using tcr::test::exact::exact_sizes;
using tcr::test::exact::is_round_to_nearest;
using tcr::test::exact::reproducible;
using tcr::test::exact::rounded;
using tcr::test::exact::run_two_phase;
using tcr::test::exact::to_doubles;

// Runs Sum (or Asum) in an exact mode on x at element offset `offset` of a NaN-padded buffer.
// (Sum and Asum only: the exact modes have no Dot or Nrm2, and this instantiates no more.)
template <class Out, class T>
Out run_exact(op o, const std::vector<T>& x, std::size_t offset, ReduceOptions opt = rounded) {
  REQUIRE((o == op::sum || o == op::asum));
  padded_device<T> dx(x, offset);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  return run_two_phase<Out>([&](void* temp, std::size_t& bytes, Out* out) {
    return o == op::sum ? DeviceReduce::Sum(temp, bytes, dx.get(), out, n, 0, opt)
                        : DeviceReduce::Asum(temp, bytes, dx.get(), out, n, 0, opt);
  });
}

// The exact sum (or sum of |x|) of data given as exact doubles.
mp exact_of(op o, const std::vector<double>& d) {
  return fast_exact_sum(d, o == op::asum);
}

template <class Out, class T>
void check_rounded(op o, const typed_data<T>& x, std::size_t offset) {
  INFO(op_name(o), "<", type_name<T>(), " -> ", type_name<Out>(), "> n = ", x.t.size(), ", offset ",
       offset);
  const Out res = run_exact<Out>(o, x.t, offset);
  const mp s = exact_of(o, x.d);
  INFO("result ", to_double(res), ", exact ", s.to_double());
  CHECK(is_round_to_nearest(res, s));
}

// Random data over most of T's exponent range.
template <class T>
typed_data<T> wide_random(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, float>)
    return typed_random<T>(n, seed, -140, 120);
  else if constexpr (std::is_same_v<T, double>)
    return typed_random<T>(n, seed, -1060, 1010);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return typed_random<T>(n, seed, -130, 120);
  else if constexpr (std::is_same_v<T, __half>)
    return typed_random<T>(n, seed, -24, 14);
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>)
    return typed_random<T>(n, seed, -9, 7);
  else
    return typed_random<T>(n, seed, -16, 14);
}

template <class T, class Out>
void check_type_sizes(std::uint64_t seed) {
  for (std::int64_t n : exact_sizes<T>()) {
    INFO("seed ", seed, ", n ", n);
    const auto wide = wide_random<T>(static_cast<std::size_t>(n), seed + n);
    const auto narrow = typed_random<T>(static_cast<std::size_t>(n), seed + 7 * n, -3, 3);
    for (op o : {op::sum, op::asum}) {
      check_rounded<Out>(o, wide, 0);
      check_rounded<Out>(o, narrow, n % 3);
    }
  }
}

// One warp per state: canonicalise_warp on states[blockIdx.x], in place.
template <class T>
__global__ void canonicalise_warp_kernel(tcr::exact_partial<T>* states) {
  constexpr int L = tcr::exact_partial<T>::limbs;
  tcr::detail::warp_limbs<T> v;
  tcr::exact_partial<T>& s = states[blockIdx.x];
  for (int j = 0; j < (L + 31) / 32; ++j)
    v[j] = 32 * j + int(threadIdx.x) < L ? s.limb[32 * j + threadIdx.x] : 0;
  tcr::detail::canonicalise_warp<L>(v);
  for (int j = 0; j < (L + 31) / 32; ++j)
    if (32 * j + int(threadIdx.x) < L)
      s.limb[32 * j + threadIdx.x] = v[j];
}

// Carry-save states that stress carry propagation: random limbs up to the carry-save bound, runs
// of 2^32 - 1 and of 0 digits with a carry or a borrow entering at the bottom, small negative
// sums (borrows through every limb), limbs of -2^32 .. 2^32, and the top limb of any sign.
template <class T>
std::vector<tcr::exact_partial<T>> carry_states(std::uint64_t seed) {
  constexpr int L = tcr::exact_partial<T>::limbs;
  constexpr long long M = 0xffffffffll;
  rng64 rng(seed);
  std::vector<tcr::exact_partial<T>> v;
  for (int kind = 0; kind < 8; ++kind) {
    for (int rep = 0; rep < 64; ++rep) {
      tcr::exact_partial<T> p;
      const int at = static_cast<int>(rng.integer(0, L - 1));
      for (int k = 0; k < L; ++k) {
        long long d = 0;
        switch (kind) {
        case 0: // anywhere in the bound
          d = static_cast<long long>(rng.integer(-(std::int64_t(1) << 62), std::int64_t(1) << 62));
          break;
        case 1: // 2^32 - 1 digits and a carry in at `at`
          d = k < at ? static_cast<long long>(rng.integer(0, M)) : M;
          if (k == at)
            d = M + static_cast<long long>(rng.integer(1, 3));
          break;
        case 2: // zero digits and a borrow in at `at`
          d = k < at ? static_cast<long long>(rng.integer(0, M)) : 0;
          if (k == at)
            d = -static_cast<long long>(rng.integer(1, 3));
          break;
        case 3: // a small negative sum: every digit above `at` becomes 2^32 - 1
          d = k == at ? -static_cast<long long>(rng.integer(1, M)) : 0;
          break;
        case 4: // digits near 0 and 2^32 - 1 mixed with small signed carries
          d = (rng.coin() ? M : 0) + static_cast<long long>(rng.integer(-2, 2));
          break;
        case 5: // limbs in (-2^32, 2^32)
          d = static_cast<long long>(rng.integer(-M, M));
          break;
        case 6: // alternating runs of 2^32 - 1 and 0 with carries and borrows at run ends
          d = ((k / 3) % 2 ? M : 0) + (k % 3 == 0 ? static_cast<long long>(rng.integer(-1, 1)) : 0);
          break;
        default: // canonical already, any top
          d = static_cast<long long>(rng.integer(0, M));
          break;
        }
        p.limb[k] = d;
      }
      p.limb[L - 1] =
          static_cast<long long>(rng.integer(-(std::int64_t(1) << 40), std::int64_t(1) << 40));
      if (kind == 3 || kind == 2)
        p.limb[L - 1] = static_cast<long long>(rng.integer(-2, 2));
      v.push_back(p);
    }
  }
  return v;
}

// canonicalise_warp gives exact_sum::canonicalise's digits.
template <class T>
void check_canonicalise_warp(std::uint64_t seed) {
  INFO("limbs ", tcr::exact_partial<T>::limbs, ", seed ", seed);
  const auto states = carry_states<T>(seed);
  device_buffer<tcr::exact_partial<T>> d(states.size());
  TCR_CHECK_CUDA(cudaMemcpy(d.get(), states.data(), states.size() * sizeof(states[0]),
                            cudaMemcpyHostToDevice));
  canonicalise_warp_kernel<T><<<static_cast<unsigned>(states.size()), 32>>>(d.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  std::vector<tcr::exact_partial<T>> got(states.size());
  TCR_CHECK_CUDA(
      cudaMemcpy(got.data(), d.get(), got.size() * sizeof(got[0]), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (std::size_t i = 0; i < states.size(); ++i) {
    tcr::exact_partial<T> want = states[i];
    tcr::exact_sum<T>::canonicalise(want);
    wrong += std::memcmp(want.limb, got[i].limb, sizeof want.limb) != 0;
  }
  CHECK(wrong == 0);
}

// Whether the current device launches thread-block clusters (compute capability 9.0 and newer).
bool has_clusters() {
  int device = 0, clusters = 0;
  TCR_CHECK_CUDA(cudaGetDevice(&device));
  TCR_CHECK_CUDA(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  return clusters != 0;
}
// Whether f's calls launched a certify-first cluster (detail::device::certify_cluster_launches).
template <class F>
bool takes_cluster(F&& f) {
  const auto before = tcr::detail::device::certify_cluster_launches;
  f();
  return tcr::detail::device::certify_cluster_launches != before;
}

TEST_SUITE("gpu") {

  TEST_CASE("correctly rounded Sum and Asum: every input type, sizes, offsets") {
    check_type_sizes<float, float>(11);
    check_type_sizes<__half, float>(12);
    check_type_sizes<__nv_bfloat16, float>(13);
    check_type_sizes<__nv_fp8_e4m3, float>(14);
    check_type_sizes<__nv_fp8_e5m2, float>(15);
    check_type_sizes<double, double>(16);
  }

  TEST_CASE("correctly rounded: results in other formats (one rounding, not two)") {
    for (std::int64_t n : {1, 100, 5000, 300000}) {
      INFO("n ", n);
      const auto x = wide_random<float>(static_cast<std::size_t>(n), 21 + n);
      check_rounded<double>(op::sum, x, 1);
      const auto h = typed_random<__half>(static_cast<std::size_t>(n), 22 + n, -24, 6);
      check_rounded<__half>(op::sum, h, 0);
      check_rounded<__half>(op::asum, h, 1);
      const auto b = typed_random<__nv_bfloat16>(static_cast<std::size_t>(n), 23 + n, -100, 100);
      check_rounded<__nv_bfloat16>(op::sum, b, 0);
      const auto d = wide_random<double>(static_cast<std::size_t>(n), 24 + n);
      check_rounded<float>(op::sum, d, 0);
    }
  }

  TEST_CASE("correctly rounded: ill-conditioned sums to condition 1e32") {
    for (double cond : {1e4, 1e8, 1e16, 1e24, 1e32}) {
      for (std::int64_t n : {64, 10000, 1000000}) {
        INFO("cond ", cond, ", n ", n);
        check_rounded<float>(op::sum, typed_data<float>(to_doubles(gen_sum<float>(n, cond, n))), 0);
        check_rounded<double>(op::sum, typed_data<double>(gen_sum<double>(n, cond, n + 1)), 1);
      }
    }
  }

  TEST_CASE("correctly rounded: subnormals, near overflow, ties") {
    rng64 rng(31);
    // Subnormal-only float data: the exact sum is a multiple of 2^-149.
    std::vector<double> sub(200000);
    for (auto& v : sub)
      v = std::ldexp(double(rng.integer(1, (1 << 23) - 1)), -149) * (rng.coin() ? 1 : -1);
    check_rounded<float>(op::sum, typed_data<float>(sub), 0);
    check_rounded<float>(op::asum, typed_data<float>(sub), 2);
    std::vector<double> dsub(200000);
    for (auto& v : dsub)
      v = std::ldexp(double(rng.integer(1, std::int64_t(1) << 52)), -1074) * (rng.coin() ? 1 : -1);
    check_rounded<double>(op::sum, typed_data<double>(dsub), 1);
    // Near overflow: partial sums far beyond the format, the exact sum finite (+-max pairs plus
    // a few small values), just below the overflow threshold, and at it (-> inf).
    for (int k : {0, 1, 2}) {
      std::vector<double> big(100001);
      for (std::size_t i = 0; i + 1 < big.size(); i += 2) {
        big[i] = FLT_MAX;
        big[i + 1] = -FLT_MAX;
      }
      std::sort(big.begin(), big.end() - 1); // all +max first: a plain sum overflows
      const double half_ulp = std::ldexp(1.0, 127 - 24);
      big.back() = k == 0 ? 1.5 : k == 1 ? half_ulp : -half_ulp * 0.5;
      if (k > 0)
        big.push_back(FLT_MAX);
      INFO("near overflow, k ", k);
      const typed_data<float> t(big);
      check_rounded<float>(op::sum, t, 0);
      if (k == 1)
        CHECK(std::isinf(run_exact<float>(op::sum, t.t, 0))); // max + ulp/2: the tie rounds up
      if (k == 2)
        CHECK(run_exact<float>(op::sum, t.t, 0) == FLT_MAX);
    }
    {
      std::vector<double> dbig(50001);
      for (std::size_t i = 0; i + 1 < dbig.size(); i += 2) {
        dbig[i] = DBL_MAX;
        dbig[i + 1] = -std::ldexp(1.0, 1000) * (1 + rng.uniform());
      }
      dbig.back() = 3.0;
      check_rounded<double>(op::sum, typed_data<double>(dbig), 0); // the exact sum overflows
      for (auto& v : dbig)
        v = std::ldexp(1 + rng.uniform(), 900 - int(rng.integer(0, 60))) * (rng.coin() ? 1 : -1);
      check_rounded<double>(op::sum, typed_data<double>(dbig), 1); // max |x| near 2^900
    }
    // f32 data with max |x| near 2^-120.
    std::vector<double> tiny(300000);
    for (auto& v : tiny)
      v = std::ldexp(1 + rng.uniform(), -120 - int(rng.integer(0, 29))) * (rng.coin() ? 1 : -1);
    check_rounded<float>(op::sum, typed_data<float>(tiny), 0);
    // Ties: 1 + 2^-24 (spread over 2^20 terms of 2^-44) goes to 1; 1 + 2^-23 + 2^-24 to 1 + 2^-22.
    for (double base : {1.0, 1.0 + 0x1p-23}) {
      std::vector<double> t(std::size_t(1) << 20, 0x1p-44);
      t.insert(t.begin() + 12345, base);
      const float res = run_exact<float>(op::sum, typed_data<float>(t).t, 0);
      CHECK(res == (base == 1.0 ? 1.0f : 1.0f + 0x1p-22f));
      check_rounded<float>(op::sum, typed_data<float>(t), 3);
      t.push_back(0x1p-60); // just above the tie: rounds up
      CHECK(run_exact<float>(op::sum, typed_data<float>(t).t, 0) ==
            (base == 1.0 ? 1.0f + 0x1p-23f : 1.0f + 0x1p-22f));
    }
  }

  TEST_CASE("exact modes: special values and zeros") {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto sum = [](std::vector<float> x) { return run_exact<float>(op::sum, x, 1); };
    std::vector<float> x(70000, 1.0f);
    x[5] = inf;
    CHECK(sum(x) == inf);
    x[60000] = -inf;
    CHECK(std::isnan(sum(x)));
    x[5] = 1.0f;
    CHECK(sum(x) == -inf);
    x[100] = nan;
    CHECK(std::isnan(sum(x)));
    // Zeros: all -0 gives -0; any +0, or x and -x, gives +0; the empty sum +0.
    std::vector<float> z(100000, -0.0f);
    CHECK(bits_of(sum(z)) == 0x80000000u);
    z[77777] = 0.0f;
    CHECK(bits_of(sum(z)) == 0u);
    z[77777] = 3.0f;
    z[123] = -3.0f;
    CHECK(bits_of(sum(z)) == 0u);
    CHECK(bits_of(run_exact<float>(op::sum, std::vector<float>{}, 0)) == 0u);
    // e5m2 infinities, double specials.
    const typed_data<__nv_fp8_e5m2> e({1.0, std::numeric_limits<double>::infinity(), 2.0});
    CHECK(run_exact<float>(op::sum, e.t, 0) == inf);
    std::vector<double> d(5000, 1.0);
    d[17] = -std::numeric_limits<double>::infinity();
    CHECK(run_exact<double>(op::sum, d, 0) == -std::numeric_limits<double>::infinity());
    CHECK(run_exact<double>(op::asum, d, 0) == std::numeric_limits<double>::infinity());
  }

  // The same bits for every grid, input offset and mode; the partial states of 1..64 parts merged
  // in random orders give them too.
  template <class T>
  void check_reproducible(std::size_t n, std::uint64_t seed) {
    INFO(type_name<T>(), ", n ", n);
    const auto x = wide_random<T>(n, seed);
    const float ref = run_exact<float>(op::sum, x.t, 0);
    CHECK(is_round_to_nearest(ref, exact_of(op::sum, x.d)));
    const std::uint64_t ref_bits = bits_of(ref);
    for (int grid : {0, 1, 2, 7, 33, 132}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      for (std::size_t offset = 0; offset < 16 / sizeof(T); ++offset) {
        INFO("grid limit ", grid, ", offset ", offset);
        CHECK(bits_of(run_exact<float>(op::sum, x.t, offset)) == ref_bits);
        if (offset == 1)
          CHECK(bits_of(run_exact<float>(op::sum, x.t, offset, reproducible)) == ref_bits);
      }
    }
    tcr::detail::device::grid_limit_for_tests = 0;
    // Parts: the partial of each, merged on the host in a random order.
    using P = tcr::exact_partial<float>;
    rng64 rng(seed + 1);
    for (int parts : {1, 2, 3, 17, 64}) {
      std::vector<std::size_t> cut = {0, n};
      for (int k = 1; k < parts; ++k)
        cut.push_back(static_cast<std::size_t>(rng.integer(0, std::int64_t(n))));
      std::sort(cut.begin(), cut.end());
      std::vector<P> partials;
      for (std::size_t k = 0; k + 1 < cut.size(); ++k) {
        const std::vector<T> part(x.t.begin() + cut[k], x.t.begin() + cut[k + 1]);
        partials.push_back(run_exact<P>(op::sum, part, k % 4, rounded));
      }
      for (int order = 0; order < 3; ++order) {
        std::vector<std::size_t> idx(partials.size());
        std::iota(idx.begin(), idx.end(), 0);
        for (std::size_t i = idx.size(); i > 1; --i)
          std::swap(idx[i - 1], idx[static_cast<std::size_t>(rng.integer(0, std::int64_t(i) - 1))]);
        P total = partials[idx[0]];
        for (std::size_t i = 1; i < idx.size(); ++i)
          total = tcr::exact_merge(total, partials[idx[i]]);
        INFO("parts ", parts, ", order ", order);
        CHECK(bits_of(tcr::exact_finish<float>(total)) == ref_bits);
        const P single = run_exact<P>(op::sum, x.t, 0, reproducible);
        bool same = single.flags == total.flags; // canonical: the same state bits
        for (int k = 0; k < P::limbs; ++k)
          same = same && single.limb[k] == total.limb[k];
        CHECK(same);
      }
    }
  }

  TEST_CASE("exact modes: the same bits for every grid, offset and split") {
    check_reproducible<float>(1 << 20, 41);
    check_reproducible<__nv_bfloat16>(300001, 42);
    check_reproducible<__nv_fp8_e4m3>(500003, 43);
    check_reproducible<__half>(77777, 44);
  }

  // One block of 256 threads (the grid capped at 1): every thread adds more inputs than its bins
  // take (2^14 floats, 2^13 halves or bfloat16s) and spills them into the block's limbs.
  TEST_CASE("exact modes: threads past their add limit spill exactly") {
    const auto f = wide_random<float>((std::size_t(3) << 22) + 7, 61);
    const auto h = wide_random<__half>((std::size_t(1) << 22) + 3, 62);
    const auto b = wide_random<__nv_bfloat16>((std::size_t(1) << 22) + 1, 63);
    const float rf = run_exact<float>(op::sum, f.t, 0);
    const float rh = run_exact<float>(op::asum, h.t, 0);
    const float rb = run_exact<float>(op::sum, b.t, 0);
    tcr::detail::device::grid_limit_for_tests = 1;
    CHECK(bits_of(run_exact<float>(op::sum, f.t, 1)) == bits_of(rf));
    CHECK(bits_of(run_exact<float>(op::asum, h.t, 3)) == bits_of(rh));
    CHECK(bits_of(run_exact<float>(op::sum, b.t, 2)) == bits_of(rb));
    check_rounded<float>(op::sum, f, 2);
    tcr::detail::device::grid_limit_for_tests = 0;
    CHECK(is_round_to_nearest(rf, exact_of(op::sum, f.d)));
    CHECK(is_round_to_nearest(rh, exact_of(op::asum, h.d)));
    CHECK(is_round_to_nearest(rb, exact_of(op::sum, b.d)));
  }

  TEST_CASE("exact modes: warp-parallel carry propagation") {
    check_canonicalise_warp<float>(71);
    check_canonicalise_warp<tcr::float_products>(72);
    check_canonicalise_warp<double>(73);
  }

  // Doubles with at most 24 significant bits (their lo pieces are -0 and skipped), zeros of both
  // signs among them, one block whose threads spill their windows many times, and the grid.
  TEST_CASE("exact modes: f64 sums of float-valued doubles, windows and spills") {
    for (std::size_t n :
         {std::size_t(1000), std::size_t(2049), std::size_t(70001), (std::size_t(1) << 21) + 3}) {
      const auto f = typed_random<float>(n, 81 + n, -30, 30);
      typed_data<double> d(f.d);
      for (std::size_t i = 0; i < n; i += 97)
        d.t[i] = d.d[i] = (i / 97) % 2 ? 0.0 : -0.0;
      check_rounded<double>(op::sum, d, n % 2);
      check_rounded<double>(op::asum, d, 1);
      const double all = run_exact<double>(op::sum, d.t, 0);
      tcr::detail::device::grid_limit_for_tests = 1;
      CHECK(bits_of(run_exact<double>(op::sum, d.t, 1)) == bits_of(all));
      const auto w = wide_random<double>(n, 91 + n);
      const double wall = run_exact<double>(op::sum, w.t, 0);
      CHECK(bits_of(run_exact<double>(op::sum, w.t, 0)) == bits_of(wall));
      tcr::detail::device::grid_limit_for_tests = 0;
      CHECK(is_round_to_nearest(wall, exact_of(op::sum, w.d)));
    }
    const std::vector<double> z(5000, -0.0);
    CHECK(bits_of(run_exact<double>(op::sum, z, 0)) == 0x8000000000000000ull);
    std::vector<double> z1 = z;
    z1[4321] = 0.0;
    CHECK(bits_of(run_exact<double>(op::sum, z1, 0)) == 0u);
  }

  // Sum and Asum into float (of doubles: into double) with the certify-first pass
  // (reduce/device.cuh's certify_first_of: one block, or a cooperative grid) and with the exact
  // pass alone: the same bits, correctly rounded (checked where the exact sum is finite).
  template <class T, class Out = std::conditional_t<std::is_same_v<T, double>, double, float>>
  void check_certify_first(const typed_data<T>& x, std::size_t offset, bool finite = true) {
    for (op o : {op::sum, op::asum}) {
      INFO(op_name(o), "<", type_name<T>(), " -> ", type_name<Out>(), "> n = ", x.t.size(),
           ", offset ", offset);
      tcr::detail::device::certify_first_enabled = false;
      const Out alone = run_exact<Out>(o, x.t, offset);
      tcr::detail::device::certify_first_enabled = true;
      const Out first = run_exact<Out>(o, x.t, offset);
      INFO("exact pass alone ", alone, ", certify first ", first);
      CHECK(bits_of(first) == bits_of(alone));
      if (finite)
        CHECK(is_round_to_nearest(first, exact_of(o, x.d)));
    }
  }

  // Inf among n values of 1.5 (at `offset`), then Inf and NaN (at offset 0), as T: the same bits
  // with and without the certify-first pass.
  template <class T>
  void check_certify_first_inf_nan(std::size_t n, std::size_t offset) {
    std::vector<double> s(n, 1.5);
    s[n / 3] = std::numeric_limits<double>::infinity();
    check_certify_first(typed_data<T>(s), offset, false);
    s[n - 1] = std::numeric_limits<double>::quiet_NaN();
    check_certify_first(typed_data<T>(s), 0, false);
  }

  // Doubles of n elements for check_certify_first: decided (wide ranges, condition 1e8) and not
  // (condition 1e32, a tie 1 + 2^-53 among cancelling pairs, zero sums, values near overflow whose
  // running sum overflows while the exact sum is finite, Inf and NaN).
  void check_certify_first_f64(std::size_t n, rng64 & rng, std::uint64_t seed) {
    check_certify_first(wide_random<double>(n, seed + n), n % 2);
    check_certify_first(typed_random<double>(n, seed + 1 + n, -3, 3), 1);
    for (double cond : {1e8, 1e32})
      if (n >= 64)
        check_certify_first(typed_data<double>(gen_sum<double>(n, cond, seed + 2 + n)), 0);
    if (n >= 3) {
      std::vector<double> t;
      while (t.size() + 5 <= n) {
        const double v = std::ldexp(1 + rng.uniform(), int(rng.integer(-60, 60)));
        t.push_back(v);
        t.push_back(-v);
      }
      while (t.size() + 3 < n)
        t.push_back(0.0);
      for (double e : {1.0, 0x1p-54, 0x1p-54})
        t.insert(t.begin() + rng.integer(0, std::int64_t(t.size())), e);
      check_certify_first(typed_data<double>(t), 1);
    }
    std::vector<double> z(n, -0.0);
    check_certify_first(typed_data<double>(z), 0);
    const double m = std::numeric_limits<double>::max();
    std::vector<double> big(n, 0.0);
    for (std::size_t i = 0; i + 3 < n; i += 4) {
      big[i] = m;
      big[i + 1] = m;
      big[i + 2] = -m;
      big[i + 3] = -m;
    }
    big[n - 1] = 1.5;
    check_certify_first(typed_data<double>(big), 0);
    check_certify_first_inf_nan<double>(n, 1);
  }

  // Data that the certificate decides (well-conditioned, wide ranges) and data that it cannot
  // (exact ties, zero sums, condition 1e32, Inf and NaN) at every one-block size class: up to
  // 16 KB (a block of the grid's size) and up to 64 KB (one block with all vectors in flight;
  // one thread-block cluster where the device has clusters: both here), and just beyond.
  TEST_CASE("exact modes: one-block inputs certify first or fall back, the same bits") {
    rng64 rng(101);
    for (const bool cluster : {true, false}) {
      tcr::detail::device::certify_cluster_enabled = cluster;
      INFO("clusters ", cluster);
      for (std::int64_t n : {1, 2, 3, 31, 1000, 4095, 4096, 4097, 10000, 16383, 16384, 16385}) {
        INFO("n ", n);
        const auto un = static_cast<std::size_t>(n);
        // Beyond 16 KB (4096 floats) the certify-first call took the cluster where there is one.
        const bool took =
            takes_cluster([&] { check_certify_first(wide_random<float>(un, 102 + n), un % 4); });
        CHECK(took == (cluster && n > 4096 && has_clusters()));
        check_certify_first<float, double>(wide_random<float>(un, 109 + n), un % 4);
        check_certify_first(typed_random<float>(un, 103 + n, -3, 3), 0);
        for (double cond : {1e8, 1e24, 1e32})
          if (n >= 64)
            check_certify_first(typed_data<float>(to_doubles(gen_sum<float>(un, cond, 104 + n))),
                                1);
        // A tie: 1 + 2^-24 as 1, 2^-25, 2^-25 among cancelling pairs (rounds to even: 1); with
        // 2^-23 more, 1 + 2^-23 + 2^-24 (rounds up: 1 + 2^-22). n = 2: 1 and 2^-24.
        for (double base : {1.0, 1.0 + 0x1p-23}) {
          std::vector<double> extra = {base};
          if (un == 2)
            extra.push_back(0x1p-24);
          if (un >= 3)
            extra.insert(extra.end(), {0x1p-25, 0x1p-25});
          std::vector<double> t;
          while (t.size() + 2 <= un - extra.size()) {
            const float v =
                static_cast<float>(std::ldexp(1 + rng.uniform(), int(rng.integer(-60, 60))));
            t.push_back(v);
            t.push_back(-v);
          }
          if (t.size() + extra.size() < un)
            t.push_back(0.0);
          for (double e : extra)
            t.insert(t.begin() + rng.integer(0, std::int64_t(t.size())), e);
          check_certify_first(typed_data<float>(t), 2);
        }
        // Zero sums: cancelling pairs (+0), all -0 (-0).
        std::vector<double> z(un, -0.0);
        check_certify_first(typed_data<float>(z), 0);
        for (std::size_t i = 0; i + 1 < un; i += 2) {
          z[i] = std::ldexp(1.0, int(rng.integer(-100, 100)));
          z[i + 1] = -z[i];
        }
        check_certify_first(typed_data<float>(z), 1);
        check_certify_first_inf_nan<float>(un, 3);
      }
      for (std::int64_t n : {100, 4096, 4097, 8192, 8193, 32768, 32769}) {
        INFO("n ", n);
        const auto un = static_cast<std::size_t>(n);
        check_certify_first(wide_random<__half>(un, 105 + n), un % 8);
        check_certify_first(wide_random<__nv_fp8_e4m3>(un, 106 + n), un % 16);
        check_certify_first(wide_random<__nv_bfloat16>(un, 107 + n), un % 8);
      }
      // Doubles (a certified double-word: decides_double) at their one-block size classes (2048
      // and 8192 doubles), with ties, zero sums, Inf / NaN and sums that overflow on the way.
      for (std::int64_t n : {1, 2, 3, 31, 1000, 2047, 2048, 2049, 8191, 8192, 8193}) {
        INFO("n ", n);
        check_certify_first_f64(static_cast<std::size_t>(n), rng, 108);
      }
    }
    tcr::detail::device::certify_cluster_enabled = true;
  }

  // The grid's certify-first pass (every block decides the same): one thread-block cluster up to
  // 512 KB (16385 floats: 5 blocks; 32769: 9; 100003 and 131072: 16), the cooperative grid above
  // (131073 floats) and, with clusters off, below; grids of 1, 7 and as many as the path takes:
  // decided, ties, condition 1e32 and NaN fall back, the same bits.
  TEST_CASE("exact modes: grid inputs certify first or fall back, the same bits") {
    rng64 rng(111);
    for (int grid : {0, 1, 7}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      for (std::int64_t n : {16385, 32769, 100003, 131072, 131073, 1 << 18, (1 << 20) + 3}) {
        for (const bool cluster : {true, false}) {
          if (!cluster && n > 131072)
            continue; // no cluster either way
          tcr::detail::device::certify_cluster_enabled = cluster;
          INFO("grid limit ", grid, ", n ", n, ", clusters ", cluster);
          const auto un = static_cast<std::size_t>(n);
          // On a GPU with clusters, the floats of up to 512 KB took the cluster (and not a
          // fall-back); with clusters off or beyond, nothing did.
          const bool took =
              takes_cluster([&] { check_certify_first(wide_random<float>(un, 112 + n), un % 4); });
          CHECK(took == (cluster && n <= 131072 && has_clusters()));
          check_certify_first<float, double>(wide_random<float>(un, 117 + n), un % 4);
          check_certify_first(typed_data<float>(to_doubles(gen_sum<float>(un, 1e32, 113 + n))), 1);
          check_certify_first(wide_random<__nv_bfloat16>(un, 114 + n), un % 8);
          check_certify_first(wide_random<__half>(un, 115 + n), 3);
          // A tie: 1 + 2^-24 among cancelling pairs.
          std::vector<double> t;
          while (t.size() + 5 <= un) {
            const float v =
                static_cast<float>(std::ldexp(1 + rng.uniform(), int(rng.integer(-60, 60))));
            t.push_back(v);
            t.push_back(-v);
          }
          for (double e : {1.0, 0x1p-25, 0x1p-25})
            t.insert(t.begin() + rng.integer(0, std::int64_t(t.size())), e);
          check_certify_first(typed_data<float>(t), 0);
          std::vector<double> s(un, 0.25);
          s[un / 2] = std::numeric_limits<double>::quiet_NaN();
          check_certify_first(typed_data<float>(s), 2, false);
          check_certify_first_f64(un, rng, 116);
        }
      }
    }
    tcr::detail::device::grid_limit_for_tests = 0;
    tcr::detail::device::certify_cluster_enabled = true;
  }

  // A captured exact Sum (the certify-first grid: a cooperative launch; a cluster launch for
  // 2^16 floats) replays with new data.
  TEST_CASE("exact modes: graph capture of the certify-first grid") {
    for (const std::int64_t n : {std::int64_t(1) << 19, std::int64_t(1) << 16}) {
      INFO("n ", n);
      const auto x = wide_random<float>(static_cast<std::size_t>(n), 121);
      device_buffer<float> dx(x.t);
      device_buffer<float> out(1);
      std::size_t bytes = 0;
      REQUIRE(DeviceReduce::Sum(nullptr, bytes, dx.get(), out.get(), n, 0, rounded) == cudaSuccess);
      temp_storage temp(bytes);
      cudaStream_t s;
      TCR_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      cudaGraph_t graph;
      TCR_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      TCR_CHECK_CUDA(DeviceReduce::Sum(temp.get(), bytes, dx.get(), out.get(), n, s, rounded));
      TCR_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
      cudaGraphExec_t exec;
      TCR_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      for (int rep = 0; rep < 3; ++rep) {
        const auto y = wide_random<float>(static_cast<std::size_t>(n), 122 + rep);
        dx.upload(y.t);
        // A copy from pageable memory may return before its DMA is done, and s does not wait for
        // the legacy stream: wait for the data before the replay reads it.
        TCR_CHECK_CUDA(cudaDeviceSynchronize());
        TCR_CHECK_CUDA(cudaGraphLaunch(exec, s));
        TCR_CHECK_CUDA(cudaStreamSynchronize(s));
        const float r = out.download()[0];
        CHECK(is_round_to_nearest(r, exact_of(op::sum, y.d)));
      }
      TCR_CHECK_CUDA(cudaGraphExecDestroy(exec));
      TCR_CHECK_CUDA(cudaGraphDestroy(graph));
      TCR_CHECK_CUDA(cudaStreamDestroy(s));
    }
  }

  TEST_CASE("exact modes: misuse and what is not supported (nothing written)") {
    const std::vector<float> x(1000, 1.0f);
    padded_device<float> dx(x, 0);
    device_buffer<float> out(1);
    TCR_CHECK_CUDA(cudaMemset(out.get(), 0x7f, sizeof(float)));
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, bytes, dx.get(), out.get(), 1000, 0, rounded) ==
            cudaSuccess);
    temp_storage temp(bytes);
    const ReduceOptions tc{Accuracy::correctly_rounded, tcr::Engine::tensor_core};
    CHECK(DeviceReduce::Sum(temp.get(), bytes, dx.get(), out.get(), 1000, 0, tc) ==
          cudaErrorNotSupported);
    // Nrm2 into a pair (dd) has no exact path.
    const std::vector<double> xd(1000, 1.0);
    padded_device<double> dxd(xd, 0);
    device_buffer<tcr::dd> outd(1);
    TCR_CHECK_CUDA(cudaMemset(outd.get(), 0x7f, sizeof(tcr::dd)));
    std::size_t nrm_bytes = 0;
    REQUIRE(DeviceReduce::Nrm2(nullptr, nrm_bytes, dxd.get(), outd.get(), 1000, 0, rounded) ==
            cudaSuccess);
    temp_storage nrm_temp(nrm_bytes);
    CHECK(DeviceReduce::Nrm2(nrm_temp.get(), nrm_bytes, dxd.get(), outd.get(), 1000, 0, rounded) ==
          cudaErrorNotSupported);
    std::size_t small = bytes - 1;
    CHECK(DeviceReduce::Sum(temp.get(), small, dx.get(), out.get(), 100000, 0, rounded) ==
          cudaErrorInvalidValue);
    // A partial result needs an exact mode.
    device_buffer<tcr::exact_partial<float>> part(1);
    std::size_t pbytes = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, pbytes, dx.get(), part.get(), 1000) == cudaSuccess);
    temp_storage ptemp(pbytes);
    CHECK(DeviceReduce::Sum(ptemp.get(), pbytes, dx.get(), part.get(), 1000) ==
          cudaErrorInvalidValue);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    std::uint32_t w;
    TCR_CHECK_CUDA(cudaMemcpy(&w, out.get(), 4, cudaMemcpyDeviceToHost));
    CHECK(w == 0x7f7f7f7fu);
    std::uint64_t wd;
    TCR_CHECK_CUDA(cudaMemcpy(&wd, outd.get(), 8, cudaMemcpyDeviceToHost));
    CHECK(wd == 0x7f7f7f7f7f7f7f7full);
  }

  TEST_CASE("correctly rounded (large): 2^27 floats and 2^25 doubles over the whole range") {
    for (std::size_t n : {std::size_t(1) << 27, (std::size_t(1) << 27) + 5}) {
      const auto x = wide_random<float>(n, 51 + n);
      check_rounded<float>(op::sum, x, 0);
      check_rounded<float>(op::asum, x, 1);
    }
    const auto d = wide_random<double>(std::size_t(1) << 25, 52);
    check_rounded<double>(op::sum, d, 0);
    const auto h = wide_random<__half>(std::size_t(1) << 27, 53);
    check_rounded<float>(op::sum, h, 0);
  }

} // TEST_SUITE

} // namespace
