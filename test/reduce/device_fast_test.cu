// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for tcr::DeviceReduce with Accuracy::fast: |res - s| <= u|s| + c u S with
// c = tcr::fast_error_constant<In, Out>() (289 for half / bfloat16 Sum and Asum on tensor cores,
// from mma::tile_error_bound; 1 elsewhere), checked against exact MPFR references. Data that
// stresses the tensor-core chains: same sign over the whole exponent range (alignment
// truncation), one large value per tile among tiny ones, cancelling pairs, long runs.
#include <doctest/doctest.h>

#include "reduce/device_test_util.hpp"

namespace {

using namespace tcr::test;

// The fast constant covers the model bound of one chain of 4 MMAs (K = 16, 24-bit accumulator)
// plus one unit for the compensated folds, merges and the final rounding (reduce/device.cuh).
static_assert(tcr::fast_error_constant<__half, float>() >=
              tcr::mma::tile_error_bound(4, 16, 24, 1.0) * 0x1p24 + 1);
static_assert(tcr::fast_error_constant<__nv_bfloat16, double>() * 0x1p-53 >=
              (tcr::mma::tile_error_bound(4, 16, 24, 1.0) + 0x1p-24));
static_assert(tcr::fast_error_constant<float, float>() == 1.0 &&
              tcr::fast_error_constant<__nv_fp8_e4m3, float>() == 1.0);

const tcr::ReduceOptions fast_auto{tcr::Accuracy::fast, tcr::Engine::automatic};
const tcr::ReduceOptions fast_tc{tcr::Accuracy::fast, tcr::Engine::tensor_core};
const tcr::ReduceOptions fast_cuda{tcr::Accuracy::fast, tcr::Engine::cuda_core};

// run_and_check of a unary operation with options.
template <class Out, class T>
void check_opt(op o, const typed_data<T>& x, std::size_t offset, const tcr::ReduceOptions& opt) {
  run_and_check<Out>(o, x, offset, static_cast<const typed_data<T>*>(nullptr), 0, opt);
}

// Sizes around the kernel's boundaries: warp, tile (8 halves per lane, 4 tiles per chain), block,
// the single-block limit (16 KiB), a few grids.
std::vector<std::int64_t> sizes16() {
  std::vector<std::int64_t> s = {0,    1,    7,    8,    9,    255,  256,  257, 1023,
                                 1024, 1025, 2047, 2048, 2049, 8191, 8192, 8193};
  for (std::int64_t b : {1, 2, 3, 8, 64, 700}) // 2, 3: one block; 8: a grid
    for (std::int64_t d : {-1, 0, 1})
      s.push_back(b * 8192 + d);
  return s;
}

template <class T, class Out>
void check_sizes(std::uint64_t seed, const tcr::ReduceOptions& opt) {
  for (op o : {op::sum, op::asum}) {
    for (std::int64_t n : sizes16()) {
      INFO("seed = ", seed, ", n = ", n);
      const auto x = typed_random<T>(static_cast<std::size_t>(n), seed + n, -10, 10);
      for (std::size_t offset : {0, 1, 3})
        check_opt<Out>(o, x, offset, opt);
    }
    rng64 rng(seed + 7);
    for (int trial = 0; trial < 8; ++trial) {
      const std::int64_t n = rng.integer(1, trial < 5 ? 100000 : 4000000);
      const std::size_t offset = static_cast<std::size_t>(rng.integer(0, 15));
      INFO("seed = ", seed + 7, ", trial ", trial, ", n = ", n);
      check_opt<Out>(o, typed_random<T>(n, seed * 100 + trial, -14, 14), offset, opt);
    }
  }
}

// Adversarial for the chain: in every 8-element group one value near the top of the range and
// seven at the bottom, all positive (each MMA aligns to the large one and truncates the small
// ones), or the whole range in random order; and cancelling pairs (s tiny, S huge).
template <class T>
std::vector<typed_data<T>> adversarial(std::size_t n, std::uint64_t seed, int emin, int emax) {
  rng64 rng(seed);
  std::vector<double> big_small(n), range(n), pairs(n);
  for (std::size_t i = 0; i < n; ++i) {
    big_small[i] = i % 8 == 0 ? std::ldexp(1 + rng.uniform(), emax)
                              : std::ldexp(1 + rng.uniform(), emin + int(rng.integer(0, 3)));
    range[i] = std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emax)));
  }
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    pairs[i] = to_double(to_type<T>(std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emax)))));
    pairs[i + 1] = -pairs[i];
  }
  if (n % 2)
    pairs[n - 1] = std::ldexp(1.0, emin);
  rng.shuffle(pairs);
  return {typed_data<T>(big_small), typed_data<T>(range), typed_data<T>(pairs)};
}

template <class T>
void check_adversarial(std::uint64_t seed, int emin, int emax) {
  for (std::size_t n : {std::size_t(4096), std::size_t(1) << 20, (std::size_t(1) << 23) + 5}) {
    INFO(type_name<T>(), " seed = ", seed, ", n = ", n);
    for (const auto& x : adversarial<T>(n, seed + n, emin, emax)) {
      for (const auto& opt : {fast_auto, fast_tc}) {
        check_opt<float>(op::sum, x, 0, opt);
        check_opt<float>(op::asum, x, 2, opt);
      }
      check_opt<double>(op::sum, x, 1, fast_tc);
    }
  }
}

// Runs Sum with opt twice into consecutive outputs and returns both (bitwise repeatability).
template <class T, class Out>
std::pair<Out, Out> sum_twice(const typed_data<T>& x, const tcr::ReduceOptions& opt) {
  padded_device<T> d(x.t, 0);
  device_buffer<Out> out(2);
  const std::int64_t n = static_cast<std::int64_t>(x.t.size());
  for (int k = 0; k < 2; ++k)
    TCR_CHECK_CUDA(tcr::DeviceReduce::Sum(d.get(), out.get() + k, n, 0, opt));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto r = out.download();
  return {r[0], r[1]};
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("fast Sum/Asum half and bfloat16 on tensor cores: edge sizes, offsets, random sizes") {
    check_sizes<__half, float>(2000, fast_tc);
    check_sizes<__nv_bfloat16, float>(2100, fast_tc);
    check_sizes<__half, float>(2200, fast_auto);
    check_sizes<__half, double>(2300, fast_tc);
  }

  TEST_CASE("fast Sum/Asum on tensor cores: adversarial data for the chains") {
    check_adversarial<__half>(2400, -24, 14);          // 2^-24 .. 2^15 (below 65504)
    check_adversarial<__nv_bfloat16>(2500, -126, 100); // sums stay below FLT_MAX
  }

  TEST_CASE("fast Sum on tensor cores: no spurious Inf when row sums overflow float (bfloat16)") {
    // Cancelling pairs of bfloat16 values near FLT_MAX, arranged in same-sign runs: a chain's
    // row sum overflows float; the exact sum (one unpaired value plus 3) is finite.
    const std::uint64_t seed = 2550;
    INFO("seed = ", seed);
    rng64 rng(seed);
    for (std::size_t n : {std::size_t(4096), std::size_t(1) << 20}) {
      std::vector<double> v(n);
      for (std::size_t i = 0; i < n; i += 2) {
        v[i] = to_double(to_type<__nv_bfloat16>(std::ldexp(1 + 0.9 * rng.uniform(), 126)));
        v[i + 1] = -v[i];
      }
      for (std::size_t i = 0; i + 256 <= n; i += 512) // runs of 128 positives, then negatives
        for (std::size_t k = 0; k < 128; ++k)
          std::swap(v[i + 2 * k + 1], v[i + 256 + 2 * k]);
      v[0] = 3.0; // v[0]'s partner stays, s = v[0]'s partner + 3: finite
      const typed_data<__nv_bfloat16> x(v);
      // The data's premise: the exact sum is finite (the row sums are not). A result of +-Inf
      // fails the bound check below.
      REQUIRE(std::isfinite(tcr::test::fast_exact_sum(x.d).to_double()));
      check_opt<double>(op::sum, x, 0, fast_tc);
    }
  }

  TEST_CASE("fast mode on the CUDA-core path: every other type and operation") {
    // These run the compensated kernel: the result is the compensated one, bit for bit, and
    // meets the fast bound with c = 1.
    const std::uint64_t seed = 2600;
    INFO("seed = ", seed);
    const tcr::ReduceOptions comp{};
    auto same_as_compensated = [&](auto tag, std::int64_t n, const tcr::ReduceOptions& fast) {
      using T = decltype(tag);
      const auto x = typed_random<T>(static_cast<std::size_t>(n), seed + n, -12, 12);
      using Out = std::conditional_t<std::is_same_v<T, double>, double, float>;
      INFO(type_name<T>(), " n = ", n);
      padded_device<T> d(x.t, 0);
      CHECK(run_device<Out>(op::sum, d.get(), d.get(), n, fast) ==
            run_device<Out>(op::sum, d.get(), d.get(), n, comp));
      check_opt<Out>(op::sum, x, 1, fast);
      check_opt<Out>(op::asum, x, 0, fast);
      check_opt<Out>(op::nrm2, x, 0, fast);
      run_and_check<Out>(op::dot, x, 0, &x, 0, fast);
    };
    for (std::int64_t n : {std::int64_t(1000), std::int64_t(300001)}) {
      same_as_compensated(float{}, n, fast_auto);
      same_as_compensated(double{}, n, fast_auto);
      same_as_compensated(__nv_fp8_e4m3{}, n, fast_auto);
      same_as_compensated(__nv_fp8_e5m2{}, n, fast_auto);
      same_as_compensated(__half{}, n, fast_cuda);
      same_as_compensated(__nv_bfloat16{}, n, fast_cuda);
    }
  }

  TEST_CASE("fast Sum on tensor cores: repeated calls are bitwise identical") {
    for (std::int64_t n : {std::int64_t(5000), std::int64_t(3000001)}) {
      const auto xh = typed_random<__half>(static_cast<std::size_t>(n), 2700 + n, -14, 14);
      const auto [a, b] = sum_twice<__half, float>(xh, fast_tc);
      CHECK(std::memcmp(&a, &b, sizeof a) == 0);
      const auto xb = typed_random<__nv_bfloat16>(static_cast<std::size_t>(n), 2800 + n, -30, 30);
      const auto [c, d] = sum_twice<__nv_bfloat16, double>(xb, fast_tc);
      CHECK(std::memcmp(&c, &d, sizeof c) == 0);
    }
  }
}
