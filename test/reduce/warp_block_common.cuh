// SPDX-License-Identifier: BSD-3-Clause
// Shared machinery of the reduce/warp.cuh and reduce/block.cuh tests: kernels that run two
// back-to-back reductions on one TempStorage (a partial tile, then a full one), poison invalid
// items with NaN (so a reduction that reads them fails), check that every thread receives the
// same bits, run twice for bitwise repeatability, and compare with exact MPFR sums under the
// bounds derived below.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>
#include <tcr/compensated/accumulators.cuh>
#include <tcr/compensated/block_sum.cuh>
#include <tcr/reduce/block.cuh>
#include "support/cuda_check.hpp"
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace tcr::test::wb {

using tcr::BlockReduceAlgorithm;

template <class In>
In nan_of() {
  if constexpr (std::is_same_v<In, float> || std::is_same_v<In, double>) {
    return std::numeric_limits<In>::quiet_NaN();
  } else {
    return In(std::numeric_limits<float>::quiet_NaN());
  }
}

// +-Inf as In (the fp8 constructors saturate Inf to the largest finite value, so e5m2's Inf
// is built from its bits; e4m3 has no Inf).
template <class In>
In inf_of(bool negative) {
  if constexpr (std::is_same_v<In, __nv_fp8_e5m2>) {
    In x;
    x.__x = negative ? 0xFC : 0x7C;
    return x;
  } else if constexpr (std::is_same_v<In, float> || std::is_same_v<In, double>) {
    return negative ? -std::numeric_limits<In>::infinity() : std::numeric_limits<In>::infinity();
  } else {
    const float inf = std::numeric_limits<float>::infinity();
    return In(negative ? -inf : inf);
  }
}

template <class In>
double to_double(const In& x) {
  if constexpr (std::is_same_v<In, double>)
    return x;
  else
    return double(float(x));
}

template <class In>
bool is_nan_value(const In& x) {
  return std::isnan(to_double(x));
}

// Kernel: block b sums tile b (BLOCK * N items) over its first num_valid items, then, reusing the
// same TempStorage at once, the whole of tile b + gridDim.x. Invalid items hold NaN. Outputs:
// g_out[2b], g_out[2b + 1]; *g_mismatch set if any thread's result differs from thread 0's.
template <class T, class In, int BLOCK, int N, BlockReduceAlgorithm A>
__global__ void __launch_bounds__(BLOCK)
    block_sum_kernel(const In* g_in, int num_valid, double* g_out, int* g_mismatch) {
  using BR = tcr::BlockReduce<T, BLOCK, A>;
  __shared__ typename BR::TempStorage s_reduce;
  __shared__ unsigned long long s_bits[2];
  const int tid = threadIdx.x;
  const In* tile = g_in + static_cast<long>(blockIdx.x) * BLOCK * N;
  const In* tile2 = g_in + static_cast<long>(blockIdx.x + gridDim.x) * BLOCK * N;
  In items[N], items2[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    items[i] = tile[tid * N + i];
    items2[i] = tile2[tid * N + i];
  }
  const double r1 = double(tcr::result(BR(s_reduce).Sum(items, num_valid)));
  const double r2 = double(tcr::result(BR(s_reduce).Sum(items2)));
  if (tid == 0) {
    s_bits[0] = __double_as_longlong(r1);
    s_bits[1] = __double_as_longlong(r2);
    g_out[2 * blockIdx.x] = r1;
    g_out[2 * blockIdx.x + 1] = r2;
  }
  __syncthreads();
  if (static_cast<unsigned long long>(__double_as_longlong(r1)) != s_bits[0] ||
      static_cast<unsigned long long>(__double_as_longlong(r2)) != s_bits[1])
    atomicOr(g_mismatch, 1);
}

// The dot kernel: one call per block over its first num_valid pairs.
template <class T, class X, int BLOCK, int N>
__global__ void __launch_bounds__(BLOCK)
    block_dot_kernel(const X* g_x, const X* g_y, int num_valid, double* g_out) {
  using BR = tcr::BlockReduce<T, BLOCK>;
  __shared__ typename BR::TempStorage s_reduce;
  const long base = static_cast<long>(blockIdx.x) * BLOCK * N;
  X x[N], y[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    x[i] = g_x[base + threadIdx.x * N + i];
    y[i] = g_y[base + threadIdx.x * N + i];
  }
  const double r = double(tcr::result(BR(s_reduce).Dot(x, y, num_valid)));
  if (threadIdx.x == 0)
    g_out[blockIdx.x] = r;
}

// ---- bounds ---------------------------------------------------------------------------------

inline double gamma(int h, double u) {
  return h * u / (1 - h * u);
}

// Bound for one block sum of data with exact sum s and S = sum |x| (derivations):
//   shuffle, plain T (u = T's unit roundoff): recursive summation along a tree of height
//     h <= (N - 1) + 5 + 5 (the thread's chain, the warp tree, the block tree): gamma_h S.
//   shuffle, neumaier<T>: Sum2 (Ogita, Rump, Oishi) for any combining tree of height h:
//     u|s| + gamma_h^2 S.
//   tensor cores: the MMAs' model error E = tile_error_bound(steps, 16, 24, S') of
//     mma/tile_sum.cuh (steps: the MMA steps one chain holds; S' = S, or (1 + 2^-7) S for the
//     bf16 parts of floats; E = 0 for e4m3 and for e5m2 under fold: exact), then the
//     accumulator T over the D values,
//     whose absolute sum is at most S' + E <= 2 S, along a tree of height h <= 2 M + 3 + 5
//     (at most 2 folds per MMA for M MMAs per lane, the lane shares, the block):
//     plain T: E + gamma_h 2 S;  neumaier<T>: E + u(|s| + E) + gamma_h^2 2 S;
//     double_carried<float> (compensated/block_sum.cuh): E + u(|s| + E) + (1 + u) gamma_h(2^-53) 2
//     S.
struct bound_model {
  bool compensated; // T is neumaier<...> or double_carried<float>
  bool carried;     // T is double_carried<float>
  double u;         // the unit roundoff of T's result type
  int h;            // height of the combining tree
  double mma_error; // E (0 for the shuffle tree)
  double s_factor;  // 1 (shuffle) or 2 (tensor cores: D values' absolute sum)
};

inline double sum_bound(const bound_model& m, double s_abs, double S) {
  if (m.carried) {
    const double g = gamma(m.h, std::ldexp(1.0, -53));
    return m.mma_error + m.u * (s_abs + m.mma_error) + (1 + m.u) * g * m.s_factor * S;
  }
  if (m.compensated) {
    const double g = gamma(m.h, m.u);
    return m.mma_error + m.u * (s_abs + m.mma_error) + g * g * m.s_factor * S;
  }
  return m.mma_error + gamma(m.h, m.u) * m.s_factor * S;
}

template <class T>
struct acc_traits {
  static constexpr bool compensated = false, carried = false;
  using value = T;
};
template <class V>
struct acc_traits<tcr::neumaier<V>> {
  static constexpr bool compensated = true, carried = false;
  using value = V;
};
template <class V>
struct acc_traits<tcr::dot2<V>> {
  static constexpr bool compensated = true, carried = false;
  using value = V;
};
template <class V>
struct acc_traits<tcr::double_carried<V>> {
  static constexpr bool compensated = true, carried = true;
  using value = V;
};

// The tile path each algorithm takes (reduce/warp.cuh, tcr::detail::tile_path_v); the paths
// other than native are proved exact in mma/tile_sum.cuh.
template <BlockReduceAlgorithm A>
inline constexpr tcr::WarpReduceAlgorithm warp_algorithm_of =
    A == BlockReduceAlgorithm::tensor_core_exact   ? tcr::WarpReduceAlgorithm::tensor_core_exact
    : A == BlockReduceAlgorithm::tensor_core_chain ? tcr::WarpReduceAlgorithm::tensor_core_chain
    : A == BlockReduceAlgorithm::tensor_core_fold  ? tcr::WarpReduceAlgorithm::tensor_core_fold
                                                   : tcr::WarpReduceAlgorithm::shuffle_tree;
template <class In, BlockReduceAlgorithm A>
inline constexpr tcr::mma::tile_path tile_path_of =
    tcr::detail::tile_path_v<In, warp_algorithm_of<A>>;
template <class In, BlockReduceAlgorithm A>
inline constexpr bool mma_exact = tile_path_of<In, A> != tcr::mma::tile_path::native;

// Levels above the threads' own chains: 5 warp levels, then the block's: raking (the default
// combine) merges W = ceil(BLOCK / 32) rows in sequence, warp_totals a tree of 5 levels at most.
inline int block_levels(int block) {
  const int w = (block + 31) / 32;
  return 5 + (w > 5 ? w : 5);
}

template <class T, class In, int N, BlockReduceAlgorithm A>
bound_model make_model(double S, int block = 1024) {
  using V = typename acc_traits<T>::value;
  const double u = std::is_same_v<V, float> ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  bound_model m{acc_traits<T>::compensated, acc_traits<T>::carried, u, 0, 0.0, 1.0};
  if constexpr (A == BlockReduceAlgorithm::shuffle_tree) {
    m.h = (N - 1) + block_levels(block);
  } else {
    constexpr int E = tcr::mma::lane_tile<In>::elements;
    constexpr int tiles = (N + E - 1) / E;
    constexpr tcr::mma::tile_path path = tile_path_of<In, A>;
    const int mmas = tiles * tcr::mma::steps_per_tile_v<In, path>;
    m.h = 2 * mmas + block_levels(block);
    m.s_factor = 2.0;
    if constexpr (!mma_exact<In, A>) {
      // fold_out: one MMA instruction per fold (float: one bf16 level per MMA); chain: all.
      using Policy = std::conditional_t<A == BlockReduceAlgorithm::tensor_core_fold,
                                        tcr::mma::fold_out, tcr::mma::chain_in_tensor_core>;
      const int steps = tcr::mma::chain_steps<In, Policy, path>(tiles);
      const double Sp = std::is_same_v<In, float> ? S * (1 + std::ldexp(1.0, -7)) : S;
      m.mma_error = tcr::mma::tile_error_bound(steps, 16, 24, Sp);
    }
  }
  return m;
}

// ---- data -----------------------------------------------------------------------------------

enum class data_kind { uniform, same_sign_wide, ill_conditioned };

template <class In>
void exponent_range(int& lo, int& hi) {
  if constexpr (std::is_same_v<In, __half>)
    lo = -14, hi = 10;
  else if constexpr (std::is_same_v<In, __nv_bfloat16>)
    lo = -60, hi = 60;
  else if constexpr (std::is_same_v<In, __nv_fp8_e4m3>)
    lo = -9, hi = 7;
  else if constexpr (std::is_same_v<In, __nv_fp8_e5m2>)
    lo = -16, hi = 10;
  else
    lo = -60, hi = 60;
}

template <class In>
std::vector<In> make_data(data_kind kind, std::size_t n, std::uint64_t seed) {
  int lo, hi;
  exponent_range<In>(lo, hi);
  std::vector<In> v(n);
  if constexpr (std::is_same_v<In, float> || std::is_same_v<In, double>) {
    switch (kind) {
    case data_kind::uniform:
      v = gen_uniform<In>(n, seed);
      break;
    case data_kind::same_sign_wide:
      v = gen_same_sign<In>(n, seed, lo, hi);
      break;
    case data_kind::ill_conditioned:
      v = gen_sum<In>(n, 1e12, seed);
      break;
    }
  } else {
    std::vector<float> f;
    switch (kind) {
    case data_kind::uniform:
      f = gen_uniform<float>(n, seed);
      break;
    case data_kind::same_sign_wide:
      f = gen_same_sign<float>(n, seed, lo, hi);
      break;
    // pairs x, -x (exact after rounding, they still cancel) and a few small values
    case data_kind::ill_conditioned:
      f = gen_cancelling_pairs<float>(n, seed, lo, hi);
      break;
    }
    for (std::size_t i = 0; i < n; ++i)
      v[i] = In(f[i]);
  }
  return v;
}

// ---- checks ---------------------------------------------------------------------------------

template <class T, class In, int BLOCK, int N, BlockReduceAlgorithm A>
std::vector<double> run_block_sum(const std::vector<In>& data, int blocks, int num_valid) {
  device_buffer<In> d_in(data);
  device_buffer<double> d_out(2 * blocks);
  device_buffer<int> d_flag(std::vector<int>{0});
  block_sum_kernel<T, In, BLOCK, N, A>
      <<<blocks, BLOCK>>>(d_in.get(), num_valid, d_out.get(), d_flag.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  REQUIRE_MESSAGE(d_flag.download()[0] == 0, "threads received different results");
  return d_out.download();
}

// Sums of `blocks` tiles, the first call over num_valid items, the second over whole tiles;
// every result within its bound; a second launch bitwise identical.
template <class T, class In, int BLOCK, int N, BlockReduceAlgorithm A>
void check_block_sum(data_kind kind, int num_valid, std::uint64_t seed, int blocks = 8) {
  INFO("seed = ", seed, ", BLOCK = ", BLOCK, ", N = ", N, ", num_valid = ", num_valid,
       ", algorithm = ", int(A), ", data = ", int(kind));
  constexpr int tile = BLOCK * N;
  std::vector<In> data = make_data<In>(kind, std::size_t(2 * blocks) * tile, seed);
  for (int b = 0; b < blocks; ++b) // poison the invalid items of the first call
    for (int i = num_valid; i < tile; ++i)
      data[std::size_t(b) * tile + i] = nan_of<In>();
  const auto res = run_block_sum<T, In, BLOCK, N, A>(data, blocks, num_valid);
  const auto again = run_block_sum<T, In, BLOCK, N, A>(data, blocks, num_valid);
  REQUIRE(std::memcmp(res.data(), again.data(), res.size() * sizeof(double)) == 0);
  for (int b = 0; b < blocks; ++b) {
    for (int call = 0; call < 2; ++call) {
      const std::size_t first = std::size_t(call == 0 ? b : blocks + b) * tile;
      const int count = call == 0 ? num_valid : tile;
      std::vector<double> xs(count);
      double S = 0;
      for (int i = 0; i < count; ++i) {
        xs[i] = to_double(data[first + i]);
        S += std::fabs(xs[i]);
      }
      const mp s = exact_sum(xs);
      const double r = res[2 * b + call];
      const double err = abs_error(r, s);
      const double bound = sum_bound(make_model<T, In, N, A>(S, BLOCK),
                                     std::fabs(s.to_double()) * (1 + std::ldexp(1.0, -50)), S);
      INFO("block ", b, ", call ", call, ": result ", r, ", exact ", s.to_double(), ", S ", S,
           ", error ", err, ", bound ", bound);
      REQUIRE(std::isfinite(r));
      REQUIRE(err <= bound);
    }
  }
}

// Inf, NaN and signed zeros: one block per case, whole tiles of ones (or zeros) with the
// special values dropped in.
template <class T, class In, int BLOCK, int N, BlockReduceAlgorithm A>
void check_specials() {
  constexpr int tile = BLOCK * N;
  constexpr bool has_inf = !std::is_same_v<In, __nv_fp8_e4m3>; // e4m3 has no Inf
  const int cases = 5;
  // the kernel's second call reads tiles [cases, 2 cases): fill them with ones
  std::vector<In> data(std::size_t(2 * cases) * tile, In(1.f));
  auto at = [&](int c, int i) -> In& { return data[std::size_t(c) * tile + i]; };
  // Positions inside the tile for every block size (tiles of 1 or 2 items included).
  at(0, tile > 3 ? 3 : tile - 1) = has_inf ? inf_of<In>(false) : nan_of<In>();
  if (tile >= 2) {
    at(1, tile > 6 ? 5 : 0) = has_inf ? inf_of<In>(false) : nan_of<In>();
    at(1, tile - 1) = has_inf ? inf_of<In>(true) : nan_of<In>();
  }
  at(2, tile / 2) = nan_of<In>();
  for (int i = 0; i < tile; ++i)
    at(3, i) = In(-0.f);
  for (int i = 0; i < tile; ++i)
    at(4, i) = In(i % 2 ? -0.f : 0.f);
  const auto res = run_block_sum<T, In, BLOCK, N, A>(data, cases, tile);
  if (has_inf) {
    CHECK(res[0] == INFINITY);
  } else {
    CHECK(std::isnan(res[0]));
  }
  if (tile >= 2)
    CHECK(std::isnan(res[2])); // inf - inf
  CHECK(std::isnan(res[4]));   // NaN
  // All -0: IEEE summation gives -0, and so does the shuffle tree; a tensor-core sum may give +0
  // (reduce/warp.cuh). Mixed signs: +0 everywhere.
  CHECK(res[6] == 0.0);
  if constexpr (A == BlockReduceAlgorithm::shuffle_tree) {
    CHECK(std::signbit(res[6]));
  }
  CHECK(res[8] == 0.0);
  CHECK(!std::signbit(res[8]));
  for (int c = 0; c < cases; ++c)
    CHECK(res[2 * c + 1] == double(tile));
}

template <class T, class X, int BLOCK, int N>
void check_block_dot(double cond, int num_valid, std::uint64_t seed, int blocks = 8) {
  INFO("seed = ", seed, ", BLOCK = ", BLOCK, ", N = ", N, ", num_valid = ", num_valid,
       ", cond = ", cond);
  constexpr int tile = BLOCK * N;
  std::vector<X> x, y;
  for (int b = 0; b < blocks; ++b) {
    auto [xb, yb] = gen_dot<X>(num_valid, cond, seed + b);
    xb.resize(tile, nan_of<X>()); // poison
    yb.resize(tile, nan_of<X>());
    x.insert(x.end(), xb.begin(), xb.end());
    y.insert(y.end(), yb.begin(), yb.end());
  }
  device_buffer<X> d_x(x), d_y(y);
  device_buffer<double> d_out(blocks);
  block_dot_kernel<T, X, BLOCK, N><<<blocks, BLOCK>>>(d_x.get(), d_y.get(), num_valid, d_out.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto res = d_out.download();
  using V = typename acc_traits<T>::value;
  const double u = std::is_same_v<V, float> ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  for (int b = 0; b < blocks; ++b) {
    std::vector<double> xs(num_valid), ys(num_valid);
    double S = 0;
    for (int i = 0; i < num_valid; ++i) {
      xs[i] = x[std::size_t(b) * tile + i];
      ys[i] = y[std::size_t(b) * tile + i];
      S += std::fabs(xs[i] * ys[i]); // |x y| rounded; below scaled by (1 + 2^-52)
    }
    S *= 1 + std::ldexp(1.0, -50);
    const mp s = exact_dot(xs, ys);
    const double err = abs_error(res[b], s);
    // Combining tree of height (N - 1) + block_levels, products included: h roundings.
    // Dot2: u|s| + gamma_{h+1}^2 S. double_carried<float>: products exact in double,
    // u|s| + (1 + u) gamma_h(2^-53) S. Plain T: gamma_{h+1} S.
    const int h = N + block_levels(BLOCK);
    const double g = gamma(h, u);
    const double s_abs = std::fabs(s.to_double()) * (1 + 4 * u);
    const double bound = acc_traits<T>::carried
                             ? u * s_abs + (1 + u) * gamma(h, std::ldexp(1.0, -53)) * S
                         : acc_traits<T>::compensated ? u * s_abs + g * g * S
                                                      : g * S;
    INFO("block ", b, ": result ", res[b], ", exact ", s.to_double(), ", error ", err, ", bound ",
         bound);
    REQUIRE(err <= bound);
  }
}

// Reduce(x, op) with one float per thread over the first num_valid threads, then over all:
// op = max (exact), left (op(a, b) = a: the result is thread 0's value) and right (thread
// num_valid - 1's value): the latter two check that op is applied in rank order, never swapped.
struct max_op {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct left_op {
  __device__ float operator()(float a, float) const { return a; }
};
struct right_op {
  __device__ float operator()(float, float b) const { return b; }
};
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    block_reduce_kernel(const float* g_in, int num_valid, float* g_out, int* g_mismatch) {
  using BR = tcr::BlockReduce<float, BLOCK>;
  __shared__ typename BR::TempStorage s_reduce;
  const float x = g_in[blockIdx.x * BLOCK + threadIdx.x];
  const float r[6] = {BR(s_reduce).Reduce(x, max_op{}, num_valid),
                      BR(s_reduce).Reduce(x, left_op{}, num_valid),
                      BR(s_reduce).Reduce(x, right_op{}, num_valid),
                      BR(s_reduce).Reduce(x, max_op{}),
                      BR(s_reduce).Reduce(x, left_op{}),
                      BR(s_reduce).Reduce(x, right_op{})};
  __shared__ float s_r[6];
  if (threadIdx.x == 0)
    for (int i = 0; i < 6; ++i) {
      s_r[i] = r[i];
      g_out[6 * blockIdx.x + i] = r[i];
    }
  __syncthreads();
  for (int i = 0; i < 6; ++i)
    if (__float_as_uint(r[i]) != __float_as_uint(s_r[i]))
      atomicOr(g_mismatch, 1);
}

template <int BLOCK>
void check_block_reduce(int num_valid, std::uint64_t seed) {
  INFO("seed = ", seed, ", BLOCK = ", BLOCK, ", num_valid = ", num_valid);
  constexpr int blocks = 4;
  std::vector<float> data = gen_uniform<float>(std::size_t(blocks) * BLOCK, seed);
  device_buffer<float> d_in(data);
  device_buffer<float> d_out(6 * blocks);
  device_buffer<int> d_flag(std::vector<int>{0});
  block_reduce_kernel<BLOCK><<<blocks, BLOCK>>>(d_in.get(), num_valid, d_out.get(), d_flag.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto res = d_out.download();
  for (int b = 0; b < blocks; ++b) {
    const float* x = data.data() + std::size_t(b) * BLOCK;
    float mx = x[0], mx_all = x[0];
    for (int i = 1; i < BLOCK; ++i) {
      if (i < num_valid)
        mx = std::fmax(mx, x[i]);
      mx_all = std::fmax(mx_all, x[i]);
    }
    CHECK(res[6 * b + 0] == mx);
    CHECK(res[6 * b + 1] == x[0]);
    CHECK(res[6 * b + 2] == x[num_valid - 1]);
    CHECK(res[6 * b + 3] == mx_all);
    CHECK(res[6 * b + 4] == x[0]);
    CHECK(res[6 * b + 5] == x[BLOCK - 1]);
  }
  REQUIRE(d_flag.download()[0] == 0);
}

// One block size through Sum (compensated and plain, partial tiles, specials), Reduce and Dot
// (dot2 and plain, with and without num_valid).
template <int BLOCK>
void check_block_size(std::uint64_t seed) {
  constexpr auto shuffle = BlockReduceAlgorithm::shuffle_tree;
  constexpr int tile = 3 * BLOCK;
  for (int nv : {tile, tile - 1, tile / 2 + 1, 1, 0})
    check_block_sum<tcr::neumaier<float>, float, BLOCK, 3, shuffle>(data_kind::ill_conditioned, nv,
                                                                    seed + nv, 2);
  for (int nv : {BLOCK, BLOCK / 2 + 1, 1})
    check_block_sum<float, float, BLOCK, 1, shuffle>(data_kind::uniform, nv, seed + 7 + nv, 2);
  check_specials<tcr::neumaier<float>, float, BLOCK, 3, shuffle>();
  for (int nv : {BLOCK, BLOCK / 2 + 1, 1})
    check_block_reduce<BLOCK>(nv, seed + 11 + nv);
  for (int nv : {2 * BLOCK, BLOCK + 1, 1}) {
    check_block_dot<tcr::dot2<float>, float, BLOCK, 2>(1e8, nv, seed + 13 + nv, 2);
    check_block_dot<float, float, BLOCK, 2>(1.0, nv, seed + 17 + nv, 2);
  }
}

inline constexpr auto chain = BlockReduceAlgorithm::tensor_core_chain;
inline constexpr auto fold = BlockReduceAlgorithm::tensor_core_fold;

// check_block_sum over the partial tiles every tensor-core test sweeps: full, one short, about
// half, a single item.
template <class T, class In, int BLOCK, int N, BlockReduceAlgorithm A>
void sweep(data_kind kind, std::uint64_t seed) {
  constexpr int tile = BLOCK * N;
  for (int nv : {tile, tile - 1, tile / 2 + 3, 1})
    check_block_sum<T, In, BLOCK, N, A>(kind, nv, seed + nv);
}

} // namespace tcr::test::wb
