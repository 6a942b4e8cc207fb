// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for tcr::DeviceReduce::Sum and Asum: every input type, edge sizes, unaligned
// pointers, ill-conditioned data and special values, against exact MPFR references and the
// contract's bound (2u|s| + 2^-40 S for a float result, 2u|s| + 2^-88 S for a double result).
#include <doctest/doctest.h>

#include <cfloat>
#include "reduce/device_test_util.hpp"

namespace {

using namespace tcr::test;

// Sizes around every boundary of the kernel: warp, block (256 threads), vector (16 bytes),
// the single-block limit (16 KiB of input), a few grid sizes, and the 2048-block cap.
// big: the grid-size boundaries (132 SMs times 3 .. 8 resident blocks, whichever the kernel's
// occupancy gives, and the 2048-block cap), tens of millions of elements: in the "(large)"
// cases, which the sanitizer runs leave out.
template <class T>
std::vector<std::int64_t> edge_sizes(bool big) {
  const std::int64_t per_block = 16384 / sizeof(T);
  std::vector<std::int64_t> s;
  if (!big)
    s = {0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025};
  const std::vector<std::int64_t> blocks =
      big ? std::vector<std::int64_t>{132 * 3, 132 * 4, 132 * 5, 132 * 6, 132 * 7, 132 * 8, 2048}
          : std::vector<std::int64_t>{1, 2, 3, 8, 9, 64}; // 2, 3: one block or a grid, by type
  for (std::int64_t b : blocks)
    for (std::int64_t d : {-1, 0, 1})
      s.push_back(b * per_block + d);
  if (big)
    s.push_back(4096 * per_block + 1); // past the grid cap: several vectors per thread
  return s;
}

template <class T, class Out>
void check_edge_sizes(op o, std::uint64_t seed, bool big = false) {
  for (std::int64_t n : edge_sizes<T>(big)) {
    INFO("seed = ", seed, ", n = ", n);
    const auto x = typed_random<T>(static_cast<std::size_t>(n), seed + n);
    for (std::size_t offset : {0, 1, 3}) {
      if (n > (1 << 20) && offset == 3)
        continue;
      run_and_check<Out>(o, x, offset);
    }
  }
}

template <class T, class Out>
void check_random_sizes(op o, std::uint64_t seed) {
  rng64 rng(seed);
  for (int trial = 0; trial < 12; ++trial) {
    const std::int64_t n = rng.integer(1, trial < 8 ? 70000 : 3000000);
    const std::size_t offset = static_cast<std::size_t>(rng.integer(0, 15));
    INFO("seed = ", seed, ", trial ", trial, ", n = ", n);
    run_and_check<Out>(o, typed_random<T>(n, seed * 100 + trial, -20, 20), offset);
  }
}

// Pairs x, -x over the type's whole range, shuffled, plus a few small values: s tiny, S huge.
template <class T>
typed_data<T> cancelling(std::size_t n, std::uint64_t seed, int emin, int emax) {
  rng64 rng(seed);
  std::vector<double> v;
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    const double a =
        to_double(to_type<T>(std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emax)))));
    v.push_back(a);
    v.push_back(-a);
  }
  while (v.size() < n)
    v.push_back(to_double(to_type<T>(std::ldexp(1.0, emin))));
  for (int k = 0; k < 5 && k < static_cast<int>(n); ++k)
    v[k] = to_double(to_type<T>(std::ldexp(1.5, emin + k)));
  rng.shuffle(v);
  return typed_data<T>(v);
}

template <class T, class Out>
void check_all_sum(std::uint64_t seed) {
  for (op o : {op::sum, op::asum}) {
    check_edge_sizes<T, Out>(o, seed);
    check_random_sizes<T, Out>(o, seed + 1);
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("Sum/Asum float -> float: edge sizes, offsets, random sizes") {
    check_all_sum<float, float>(100);
  }
  TEST_CASE("Sum/Asum half -> float") {
    check_all_sum<__half, float>(200);
  }
  TEST_CASE("Sum/Asum bfloat16 -> float") {
    check_all_sum<__nv_bfloat16, float>(300);
  }
  TEST_CASE("Sum/Asum e4m3 -> float") {
    check_all_sum<__nv_fp8_e4m3, float>(400);
  }
  TEST_CASE("Sum/Asum e5m2 -> float") {
    check_all_sum<__nv_fp8_e5m2, float>(500);
  }
  TEST_CASE("Sum/Asum double -> double") {
    check_all_sum<double, double>(600);
  }
  TEST_CASE("Sum/Asum: grid-size boundaries and the grid cap, every type (large)") {
    for (op o : {op::sum, op::asum}) {
      check_edge_sizes<float, float>(o, 150, true);
      check_edge_sizes<__half, float>(o, 250, true);
      check_edge_sizes<__nv_bfloat16, float>(o, 350, true);
      check_edge_sizes<__nv_fp8_e4m3, float>(o, 450, true);
      check_edge_sizes<__nv_fp8_e5m2, float>(o, 550, true);
      check_edge_sizes<double, double>(o, 650, true);
    }
  }
  TEST_CASE("Sum/Asum float -> double and double -> float") {
    check_random_sizes<float, double>(op::sum, 700);
    check_random_sizes<double, float>(op::sum, 710);
    check_random_sizes<__half, double>(op::sum, 720);
    check_random_sizes<__nv_fp8_e5m2, double>(op::sum, 730);
  }

  TEST_CASE("fp8 Sum/Asum: tensor-core and CUDA-core engines both give the correctly rounded sum") {
    // Every partial sum of fp8 data below 2^37 is exact in double on both engines (multiples of
    // 2^-16), so both results are the exact sum rounded once to float.
    auto check = [](auto tag, std::uint64_t seed, int emax) {
      using T = decltype(tag);
      for (std::int64_t n :
           {std::int64_t(1), std::int64_t(64), std::int64_t(16383), std::int64_t(16385),
            std::int64_t(1) << 20, (std::int64_t(1) << 22) + 13}) {
        INFO(type_name<T>(), " seed = ", seed, ", n = ", n);
        const auto x = typed_random<T>(static_cast<std::size_t>(n), seed + n, -20, emax);
        for (std::size_t offset : {0, 5}) {
          padded_device<T> d(x.t, offset);
          device_buffer<float> out(4);
          for (int e = 0; e < 2; ++e) {
            tcr::ReduceOptions opt;
            opt.engine = e == 0 ? tcr::Engine::tensor_core : tcr::Engine::cuda_core;
            TCR_CHECK_CUDA(tcr::DeviceReduce::Sum(d.get(), out.get() + 2 * e, n, 0, opt));
            TCR_CHECK_CUDA(tcr::DeviceReduce::Asum(d.get(), out.get() + 2 * e + 1, n, 0, opt));
          }
          TCR_CHECK_CUDA(cudaDeviceSynchronize());
          const auto r = out.download();
          CHECK(r[0] == fast_exact_sum(x.d).to_float());
          CHECK(r[1] == fast_exact_sum(x.d, true).to_float());
          CHECK(r[2] == r[0]);
          CHECK(r[3] == r[1]);
        }
      }
    };
    check(__nv_fp8_e4m3{}, 1000, 20); // saturates at 448: S < 2^31, in units of 2^-9 < 2^40
    check(__nv_fp8_e5m2{}, 1100, 10); // |x| < 2^11: S < 2^34, in units of 2^-16 < 2^50
  }

  TEST_CASE("Engine::tensor_core where no tensor-core path exists: cudaErrorNotSupported") {
    device_buffer<float> x(std::vector<float>(100, 1.0f)), out(1);
    tcr::ReduceOptions opt;
    opt.engine = tcr::Engine::tensor_core;
    CHECK(tcr::DeviceReduce::Sum(x.get(), out.get(), 100, 0, opt) == cudaErrorNotSupported);
    CHECK(tcr::DeviceReduce::Dot(x.get(), x.get(), out.get(), 100, 0, opt) ==
          cudaErrorNotSupported);
    // half / bfloat16 sums have a tensor-core path in fast mode only (their MMAs round).
    device_buffer<__half> h(std::vector<__half>(100, __float2half(1.0f)));
    CHECK(tcr::DeviceReduce::Sum(h.get(), out.get(), 100, 0, opt) == cudaErrorNotSupported);
    CHECK(tcr::DeviceReduce::Nrm2(h.get(), out.get(), 100, 0, opt) == cudaErrorNotSupported);
    opt.accuracy = tcr::Accuracy::fast;
    CHECK(tcr::DeviceReduce::Sum(h.get(), out.get(), 100, 0, opt) == cudaSuccess);
    CHECK(tcr::DeviceReduce::Nrm2(h.get(), out.get(), 100, 0, opt) == cudaErrorNotSupported);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(out.download()[0] == 100.0f);
  }

  TEST_CASE("Sum: GenSum data, cond 1 .. 1e32 (float, double)") {
    for (double cond : {1.0, 1e4, 1e8, 1e16, 1e24, 1e32}) {
      for (std::size_t n : {std::size_t(1000), std::size_t(1) << 20, (std::size_t(1) << 22) + 7}) {
        const std::uint64_t seed = 800 + static_cast<std::uint64_t>(std::log10(cond)) * 10 + n % 7;
        INFO("seed = ", seed, ", cond = ", cond, ", n = ", n);
        const auto xf = gen_sum<float>(n, cond, seed);
        run_and_check<float>(op::sum, typed_data<float>(std::vector<double>(xf.begin(), xf.end())),
                             1);
        const auto xd = gen_sum<double>(n, cond, seed);
        run_and_check<double>(op::sum, typed_data<double>(xd), 1);
      }
    }
  }

  TEST_CASE("Sum: cancelling pairs over the whole range of every type") {
    const std::uint64_t seed = 900;
    INFO("seed = ", seed);
    for (std::size_t n : {std::size_t(999), std::size_t(1) << 20}) {
      // Largest exponents one below the top binade: 1.x * 2^emax must not round to Inf.
      run_and_check<float>(op::sum, cancelling<float>(n, seed, -149, 126), 0);
      run_and_check<float>(op::sum, cancelling<__half>(n, seed, -24, 14), 0);
      run_and_check<float>(op::sum, cancelling<__nv_bfloat16>(n, seed, -133, 126), 0);
      run_and_check<float>(op::sum, cancelling<__nv_fp8_e4m3>(n, seed, -9, 8), 0);
      run_and_check<float>(op::sum, cancelling<__nv_fp8_e5m2>(n, seed, -16, 15), 0);
      run_and_check<double>(op::sum, cancelling<double>(n, seed, -1074, 1023), 0);
    }
  }

  TEST_CASE("Sum: near the overflow threshold, finite exact sums stay finite (float, double)") {
    const std::uint64_t seed = 950;
    INFO("seed = ", seed);
    rng64 rng(seed);
    for (std::size_t n : {std::size_t(64), std::size_t(100003)}) {
      std::vector<double> f(n), d(n);
      for (std::size_t i = 0; i < n; ++i) {
        // +-FLT_MAX-sized values in exactly cancelling pairs (x, -x), so the exact sum is at
        // most one such value (n odd) and finite.
        if (i % 2) {
          f[i] = -f[i - 1];
          d[i] = -d[i - 1];
        } else {
          const double m = (0.5 + 0.5 * rng.uniform());
          f[i] = double(float(m * FLT_MAX));
          d[i] = m * DBL_MAX;
        }
      }
      // Same-sign runs: the running sum overflows float (double) on the way.
      for (std::size_t i = 0; i + 8 <= n; i += 16)
        for (int k = 0; k < 4; ++k)
          std::swap(f[i + 2 * k + 1], f[i + 8 + 2 * k]),
              std::swap(d[i + 2 * k + 1], d[i + 8 + 2 * k]);
      run_and_check<float>(op::sum, typed_data<float>(f), 0);
      run_and_check<double>(op::sum, typed_data<double>(d), 0);
    }
  }

  TEST_CASE("Sum: subnormals and signed zeros") {
    const std::uint64_t seed = 960;
    INFO("seed = ", seed);
    run_and_check<float>(op::sum, typed_random<float>(5000, seed, -149, -120), 1);
    run_and_check<double>(op::sum, typed_random<double>(5000, seed, -1074, -1000), 1);
    run_and_check<float>(op::sum, typed_random<__half>(5000, seed, -24, -14), 1);
    run_and_check<float>(op::sum, typed_random<__nv_fp8_e5m2>(5000, seed, -16, -14), 1);
    // IEEE summation: -0 only when every term is -0 (+0 as soon as one term is +0), by sign bit,
    // on every path (one small block, one big block, the grid) and for float and double results.
    for (std::size_t n : {std::size_t(1000), std::size_t(20000), std::size_t(1) << 20}) {
      for (double z : {0.0, -0.0}) {
        INFO("n = ", n, ", z = ", z);
        const typed_data<float> zeros(std::vector<double>(n, z));
        padded_device<float> dz(zeros.t, 0);
        const float r = run_device<float>(op::sum, dz.get(), dz.get(), n);
        CHECK(r == 0.0f);
        CHECK(std::signbit(r) == std::signbit(z));
        const typed_data<double> dzeros(std::vector<double>(n, z));
        padded_device<double> ddz(dzeros.t, 0);
        const double rd = run_device<double>(op::sum, ddz.get(), ddz.get(), n);
        CHECK(rd == 0.0);
        CHECK(std::signbit(rd) == std::signbit(z));
        const typed_data<__half> hzeros(std::vector<double>(n, z));
        padded_device<__half> dhz(hzeros.t, 0);
        const float rh = run_device<float>(op::sum, dhz.get(), dhz.get(), n);
        CHECK(std::signbit(rh) == std::signbit(z));
      }
      std::vector<double> mixed(n, -0.0);
      mixed[n / 2] = 0.0;
      const typed_data<float> m(mixed);
      padded_device<float> dm(m.t, 0);
      CHECK_FALSE(std::signbit(run_device<float>(op::sum, dm.get(), dm.get(), n)));
    }
  }

  TEST_CASE("Sum/Asum: Inf and NaN propagate as in plain summation") {
    // fp8 also on the tensor-core engine (not the automatic choice) and f16 / bf16 also in fast
    // mode (tensor cores).
    auto check_specials = [](auto tag, tcr::ReduceOptions opt = {}) {
      using T = decltype(tag);
      const double inf = std::numeric_limits<double>::infinity();
      for (std::int64_t n : {std::int64_t(7), std::int64_t(5000), std::int64_t(300001)}) {
        INFO(type_name<T>(), " n = ", n, ", accuracy ", static_cast<int>(opt.accuracy), ", engine ",
             static_cast<int>(opt.engine));
        std::vector<T> x(n, to_type<T>(1.0));
        padded_device<T>* d = nullptr;
        auto result = [&](op o) {
          d = new padded_device<T>(x, 1);
          const float r = run_device<float>(o, d->get(), d->get(), n, opt);
          delete d;
          return r;
        };
        x[n / 2] = quiet_nan<T>();
        CHECK(std::isnan(result(op::sum)));
        CHECK(std::isnan(result(op::asum)));
        if constexpr (!std::is_same_v<T, __nv_fp8_e4m3>) { // e4m3 has no Inf
          x[n / 2] = to_type<T>(inf);
          CHECK(result(op::sum) == std::numeric_limits<float>::infinity());
          x[n - 1] = to_type<T>(-inf);
          CHECK(std::isnan(result(op::sum)));
          CHECK(result(op::asum) == std::numeric_limits<float>::infinity());
        }
      }
    };
    check_specials(float{});
    check_specials(__half{});
    check_specials(__nv_bfloat16{});
    check_specials(__nv_fp8_e4m3{});
    check_specials(__nv_fp8_e5m2{});
    const tcr::ReduceOptions tc{tcr::Accuracy::compensated, tcr::Engine::tensor_core};
    check_specials(__nv_fp8_e4m3{}, tc);
    check_specials(__nv_fp8_e5m2{}, tc);
    const tcr::ReduceOptions fast_tc{tcr::Accuracy::fast, tcr::Engine::tensor_core};
    check_specials(__half{}, fast_tc);
    check_specials(__nv_bfloat16{}, fast_tc);
  }
}
