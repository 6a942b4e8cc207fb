// SPDX-License-Identifier: BSD-3-Clause
// Tests for mma/tile_sum.cuh: the f32 split is exact (host); the tile reduction is exact where
// the proof says so (small integers, e4m3 through f16 with worst-case data), stays within the
// derived model bound on adversarial data (same sign, wide exponent range, chains up to R = 8),
// gives every lane the same bits, and propagates Inf and NaN as IEEE summation does.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>
#include <tcr/compensated/accumulators.cuh>
#include <tcr/mma/tile_sum.cuh>
#include <tcr/reduce/warp.cuh> // the lanes' shares merged by the warp layer
#include "support/cuda_check.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using namespace tcr::mma;

TEST_CASE("split_bf16x3 is exact and keeps Inf and NaN") {
  const std::uint64_t seed = 7001;
  INFO("seed = ", seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> mant(1.f, 2.f);
  std::uniform_int_distribution<int> ex(-109, 127); // |x| >= 2^-110: the precondition
  auto bf = [](uint32_t b) {
    const uint32_t w = b << 16;
    float f;
    std::memcpy(&f, &w, 4);
    return double(f);
  };
  for (int i = 0; i < 200000; ++i) {
    const float x = std::ldexp(mant(rng), ex(rng) - 1) * (i % 2 ? -1.f : 1.f);
    if (!std::isfinite(x))
      continue;
    uint32_t h, m, l;
    tcr::mma::detail::split_bf16x3(x, h, m, l);
    const auto lhs = tcr::test::exact_sum({bf(h), bf(m), bf(l)});
    const auto rhs = tcr::test::exact_sum({double(x)});
    REQUIRE(mpfr_equal_p(lhs.get(), rhs.get()));
  }
  uint32_t h, m, l;
  tcr::mma::detail::split_bf16x3(std::numeric_limits<float>::infinity(), h, m, l);
  CHECK((bf(h) == INFINITY && m == 0 && l == 0));
  tcr::mma::detail::split_bf16x3(-std::numeric_limits<float>::infinity(), h, m, l);
  CHECK(bf(h) == -INFINITY);
  uint32_t nan_bits = 0x7f800001u; // NaN whose payload sits in the low bits only
  float nan;
  std::memcpy(&nan, &nan_bits, 4);
  tcr::mma::detail::split_bf16x3(nan, h, m, l);
  CHECK(std::isnan(bf(h)));
}

// ---- device ------------------------------------------------------------------------------

// Warp w reduces the R tiles at g + w * R * tile_elements; lane 0 writes the total, and any lane
// whose total differs from lane 0's in its bits sets *g_mismatch.
template <class In, class Policy, class Acc, tile_path Path, int R>
__global__ void tile_sum_kernel(const In* g, double* g_out, int* g_mismatch) {
  constexpr int tile = lane_tile<In>::tile_elements;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const In* base = g + static_cast<long>(warp) * R * tile;
  lane_tile<In> t[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    t[r] = load_lane_tile(base + r * tile);
  Acc r_acc{};
  lane_tile_sum<Policy, Path>(t, r_acc);
  const Acc total = tcr::WarpReduce<Acc>().Sum(share_of(r_acc));
  const double res = double(tcr::result(total));
  const double lane0 = __shfl_sync(0xffffffffu, res, 0);
  if (__double_as_longlong(res) != __double_as_longlong(lane0))
    atomicOr(g_mismatch, 1);
  if ((threadIdx.x & 31) == 0)
    g_out[warp] = res;
}

template <class In>
double to_double(const In& x) {
  return double(float(x));
}

template <class In, class Policy, class Acc, tile_path Path, int R>
std::vector<double> run_tiles(const std::vector<In>& data, int warps) {
  tcr::test::device_buffer<In> d_in(data);
  tcr::test::device_buffer<double> d_out(warps);
  tcr::test::device_buffer<int> d_flag(std::vector<int>{0});
  tile_sum_kernel<In, Policy, Acc, Path, R><<<warps, 32>>>(d_in.get(), d_out.get(), d_flag.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  REQUIRE_MESSAGE(d_flag.download()[0] == 0, "lanes received different totals");
  return d_out.download();
}

enum class data_kind {
  small_integers,
  same_sign_wide,
  e4m3_worst_max,
  e4m3_worst_mixed,
  e5m2_worst_max,
  e5m2_worst_mixed
};

// Exponent range of the same-sign wide-range data per type.
template <class In>
void exponent_range(int& lo, int& hi) {
  if constexpr (std::is_same_v<In, __half>)
    lo = -24, hi = 14;
  else if constexpr (std::is_same_v<In, __nv_bfloat16>)
    lo = -40, hi = 40;
  else if constexpr (std::is_same_v<In, __nv_fp8_e4m3>)
    lo = -9, hi = 7;
  else if constexpr (std::is_same_v<In, __nv_fp8_e5m2>)
    lo = -16, hi = 14;
  else
    lo = -40, hi = 40;
}

template <class In>
std::vector<In> make_data(data_kind kind, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<In> v(n);
  int elo, ehi;
  exponent_range<In>(elo, ehi);
  std::uniform_int_distribution<int> small(-8, 8), ex(elo, ehi);
  std::uniform_real_distribution<float> mant(1.f, 2.f);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t i = 0; i < n; ++i) {
    switch (kind) {
    case data_kind::small_integers:
      v[i] = In(float(small(rng)));
      break;
    case data_kind::same_sign_wide:
      v[i] = In(std::ldexp(mant(rng), ex(rng)));
      break;
    case data_kind::e4m3_worst_max:
      v[i] = In(448.f);
      break;
    case data_kind::e4m3_worst_mixed: {
      // all-ones significands at the top, the smallest subnormal, random bytes (no NaN)
      const int k = byte(rng);
      if (i % 3 == 0)
        v[i] = In(448.f);
      else if (i % 3 == 1)
        v[i] = In(std::ldexp(1.f, -9));
      else {
        __nv_fp8_storage_t b = static_cast<__nv_fp8_storage_t>(k);
        if ((b & 0x7f) == 0x7f)
          b = 0x7e; // skip NaN
        std::memcpy(&v[i], &b, 1);
      }
      break;
    }
    case data_kind::e5m2_worst_max:
      v[i] = In(57344.f);
      break;
    case data_kind::e5m2_worst_mixed: {
      // the largest finite value, the smallest subnormal, 1 (the band edge) and random
      // finite bytes
      const int k = byte(rng);
      if (i % 4 == 0)
        v[i] = In(57344.f);
      else if (i % 4 == 1)
        v[i] = In(std::ldexp(1.f, -16));
      else if (i % 4 == 2)
        v[i] = In(k % 2 ? 1.f : 0.875f);
      else {
        __nv_fp8_storage_t b = static_cast<__nv_fp8_storage_t>(k);
        if ((b & 0x7c) == 0x7c)
          b &= 0xfb; // skip Inf and NaN
        std::memcpy(&v[i], &b, 1);
      }
      break;
    }
    }
  }
  return v;
}

template <class In, class Policy, class Acc, tile_path Path, int R>
void check_tiles(data_kind kind, bool exact, std::uint64_t seed) {
  INFO("seed = ", seed, ", R = ", R);
  constexpr int warps = 32;
  constexpr int per_warp = R * lane_tile<In>::tile_elements;
  const auto data = make_data<In>(kind, std::size_t(warps) * per_warp, seed);
  const auto res = run_tiles<In, Policy, Acc, Path, R>(data, warps);
  for (int w = 0; w < warps; ++w) {
    std::vector<double> xs(per_warp);
    double S = 0;
    for (int i = 0; i < per_warp; ++i) {
      xs[i] = to_double(data[std::size_t(w) * per_warp + i]);
      S += std::fabs(xs[i]);
    }
    const auto s = tcr::test::exact_sum(xs);
    const double err = tcr::test::abs_error(res[w], s);
    INFO("warp ", w, ": result ", res[w], ", exact ", s.to_double(), ", error ", err);
    if (exact) {
      REQUIRE(err == 0.0);
    } else {
      // The model bound of mma/tile_sum.cuh (parts of a float: S_parts <= (1 + 2^-7) S),
      // plus the double accumulator: at most 2 R * 3 + 3 additions on any path, each off by at
      // most 2^-53 of a partial sum <= 2 S.
      const double S_parts = std::is_same_v<In, float> ? S * (1 + std::ldexp(1.0, -7)) : S;
      const double bound = tile_error_bound(chain_steps<In, Policy, Path>(R), 16, 24, S_parts) +
                           (6.0 * R + 3) * std::ldexp(1.0, -53) * 2 * S;
      INFO("bound ", bound);
      REQUIRE(err <= bound);
    }
  }
}

template <class In, class Policy, class Acc, tile_path Path = tile_path::native>
void check_all_r(data_kind kind, bool exact, std::uint64_t seed) {
  check_tiles<In, Policy, Acc, Path, 1>(kind, exact, seed + 1);
  check_tiles<In, Policy, Acc, Path, 2>(kind, exact, seed + 2);
  check_tiles<In, Policy, Acc, Path, 4>(kind, exact, seed + 4);
  check_tiles<In, Policy, Acc, Path, 8>(kind, exact, seed + 8);
}

template <class In, class Policy, class Acc>
void check_specials() {
  constexpr int warps = 4;
  constexpr int n = warps * lane_tile<In>::tile_elements;
  std::vector<In> data(n, In(1.f));
  const float inf = std::numeric_limits<float>::infinity();
  const int t = lane_tile<In>::tile_elements;
  data[5] = In(inf);                                             // warp 0: +inf
  data[t + 7] = In(inf), data[t + 100] = In(-inf);               // warp 1: inf - inf = NaN
  data[2 * t + 3] = In(std::numeric_limits<float>::quiet_NaN()); // warp 2: NaN
  data[3 * t + 9] = In(-inf);                                    // warp 3: -inf
  const auto res = run_tiles<In, Policy, Acc, tile_path::native, 1>(data, warps);
  CHECK(res[0] == INFINITY);
  CHECK(std::isnan(res[1]));
  CHECK(std::isnan(res[2]));
  CHECK(res[3] == -INFINITY);
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("tile sums of small integers are exact") {
    check_all_r<__half, chain_in_tensor_core, float>(data_kind::small_integers, true, 1000);
    check_all_r<__half, fold_out, tcr::neumaier<float>>(data_kind::small_integers, true, 1010);
    check_all_r<__nv_bfloat16, chain_in_tensor_core, float>(data_kind::small_integers, true, 1020);
    check_all_r<__nv_bfloat16, fold_out, tcr::neumaier<float>>(data_kind::small_integers, true,
                                                               1030);
    check_all_r<__nv_fp8_e4m3, chain_in_tensor_core, float>(data_kind::small_integers, true, 1040);
    check_all_r<__nv_fp8_e5m2, fold_out, tcr::neumaier<float>>(data_kind::small_integers, true,
                                                               1050);
    check_all_r<float, chain_in_tensor_core, float>(data_kind::small_integers, true, 1060);
    check_all_r<float, fold_out, tcr::neumaier<float>>(data_kind::small_integers, true, 1070);
  }
  TEST_CASE("e4m3 through f16 MMAs is exact on worst-case data") {
    for (data_kind k :
         {data_kind::e4m3_worst_max, data_kind::e4m3_worst_mixed, data_kind::same_sign_wide}) {
      check_all_r<__nv_fp8_e4m3, fold_out, double, tile_path::exact_f16>(k, true,
                                                                         2000 + 100 * int(k));
      check_all_r<__nv_fp8_e4m3, chain_in_tensor_core, double, tile_path::exact_f16>(
          k, true, 2050 + 100 * int(k));
    }
  }
  TEST_CASE("e5m2 through f16 MMAs in two bands is exact on worst-case data") {
    for (data_kind k :
         {data_kind::e5m2_worst_max, data_kind::e5m2_worst_mixed, data_kind::same_sign_wide}) {
      check_all_r<__nv_fp8_e5m2, fold_out, double, tile_path::exact_bands_f16>(k, true,
                                                                               2500 + 100 * int(k));
      check_all_r<__nv_fp8_e5m2, chain_in_tensor_core, double, tile_path::exact_bands_f16>(
          k, true, 2550 + 100 * int(k));
    }
  }
  TEST_CASE("tile sums stay within the model bound on same-sign wide-range data") {
    const data_kind k = data_kind::same_sign_wide;
    check_all_r<__half, chain_in_tensor_core, double>(k, false, 3000);
    check_all_r<__half, fold_out, double>(k, false, 3010);
    check_all_r<__nv_bfloat16, chain_in_tensor_core, double>(k, false, 3020);
    check_all_r<__nv_bfloat16, fold_out, double>(k, false, 3030);
    check_all_r<__nv_fp8_e4m3, chain_in_tensor_core, double>(k, false, 3040);
    check_all_r<__nv_fp8_e4m3, fold_out, double>(k, false, 3050);
    check_all_r<__nv_fp8_e5m2, chain_in_tensor_core, double>(k, false, 3060);
    check_all_r<__nv_fp8_e5m2, fold_out, double>(k, false, 3070);
    check_all_r<float, chain_in_tensor_core, double>(k, false, 3080);
    check_all_r<float, fold_out, double>(k, false, 3090);
  }
  TEST_CASE("tile sums propagate Inf and NaN") {
    check_specials<__half, chain_in_tensor_core, float>();
    check_specials<__half, fold_out, tcr::neumaier<float>>();
    check_specials<__nv_bfloat16, fold_out, tcr::neumaier<float>>();
    check_specials<float, chain_in_tensor_core, float>();
    check_specials<float, fold_out, tcr::neumaier<float>>();
  }
}
