// SPDX-License-Identifier: BSD-3-Clause
// Tests for the fragment maps of mma/sm80.cuh and mma/sm89.cuh: on the host, every map is a
// bijection onto its matrix and agrees with the PTX ISA's formulas at spot points (written here
// independently of the headers); on the GPU, an mma built from the maps reproduces an exact
// integer matrix product (any wrong map gives a wrong D).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>
#include <tcr/mma/sm80.cuh>
#include <tcr/mma/sm89.cuh>
#include "support/cuda_check.hpp"

namespace {

using namespace tcr::mma;

template <class Mma>
void check_bijections() {
  std::vector<int> a(Mma::M * Mma::K, 0), b(Mma::K * Mma::N, 0), c(Mma::M * Mma::N, 0);
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < Mma::a_elements; ++i) {
      const coord p = Mma::a_coord(lane, i);
      REQUIRE((p.row >= 0 && p.row < Mma::M && p.col >= 0 && p.col < Mma::K));
      ++a[p.row * Mma::K + p.col];
    }
    for (int i = 0; i < Mma::b_elements; ++i) {
      const coord p = Mma::b_coord(lane, i);
      REQUIRE((p.row >= 0 && p.row < Mma::K && p.col >= 0 && p.col < Mma::N));
      ++b[p.row * Mma::N + p.col];
    }
    for (int i = 0; i < Mma::c_elements; ++i) {
      const coord p = Mma::c_coord(lane, i);
      REQUIRE((p.row >= 0 && p.row < Mma::M && p.col >= 0 && p.col < Mma::N));
      ++c[p.row * Mma::N + p.col];
    }
  }
  for (int x : a)
    REQUIRE(x == 1);
  for (int x : b)
    REQUIRE(x == 1);
  for (int x : c)
    REQUIRE(x == 1);
}

// Spot values from the PTX ISA formulas: g = lane >> 2, t = lane % 4.
TEST_CASE("fragment maps are bijections and match the PTX ISA formulas") {
  check_bijections<sm80_m16n8k16_f32_f16_f16_f32>();
  check_bijections<sm80_m16n8k16_f32_bf16_bf16_f32>();
  check_bijections<sm80_m16n8k8_f32_tf32_tf32_f32>();
  check_bijections<sm80_m8n8k4_f64_f64_f64_f64>();
  check_bijections<sm89_m16n8k32_f32_e4m3_e4m3_f32>();
  check_bijections<sm89_m16n8k32_f32_e5m2_e5m2_f32>();

  using H = sm80_m16n8k16_f32_f16_f16_f32; // lane 5: g = 1, t = 1
  CHECK(H::a_coord(5, 0) == coord{1, 2});
  CHECK(H::a_coord(5, 3) == coord{9, 3});   // row g+8 for a2,a3; col 2t + (i & 1)
  CHECK(H::a_coord(5, 6) == coord{9, 10});  // a6: row g+8, col 2t + 8
  CHECK(H::a_coord(5, 5) == coord{1, 11});  // a5: row g, col 2t + 1 + 8
  CHECK(H::b_coord(6, 3) == coord{13, 1});  // lane 6: g = 1, t = 2; b3: row 2t + 1 + 8
  CHECK(H::c_coord(31, 3) == coord{15, 7}); // lane 31: g = 7, t = 3
  using T = sm80_m16n8k8_f32_tf32_tf32_f32;
  CHECK(T::a_coord(5, 1) == coord{9, 1}); // a1: row g+8, col t
  CHECK(T::a_coord(5, 2) == coord{1, 5}); // a2: row g, col t+4
  CHECK(T::b_coord(5, 1) == coord{5, 1}); // b1: row t+4, col g
  using D = sm80_m8n8k4_f64_f64_f64_f64;
  CHECK(D::a_coord(5, 0) == coord{1, 1});
  CHECK(D::b_coord(6, 0) == coord{2, 1});
  CHECK(D::c_coord(5, 1) == coord{1, 3});
  using E = sm89_m16n8k32_f32_e4m3_e4m3_f32;
  CHECK(E::a_coord(5, 2) == coord{1, 6});   // a0..a3: row g, col 4t + i
  CHECK(E::a_coord(5, 13) == coord{9, 21}); // a12..a15: row g+8, col 4t + (i & 3) + 16
  CHECK(E::a_coord(5, 9) == coord{1, 21});  // a8..a11: row g
  CHECK(E::b_coord(5, 6) == coord{22, 1});  // b4..b7: row 4t + (i & 3) + 16, col g
}

// ---- hardware check ----------------------------------------------------------------------

template <class T>
__host__ __device__ uint32_t bits_of(const T& x) {
  uint32_t b = 0;
  std::memcpy(&b, &x, sizeof(T) < 4 ? sizeof(T) : 4);
  return b;
}

// A: M x K, B: K x N (both row-major, element type E), C and D: M x N (row-major, Acc).
template <class Mma, class E, class Acc>
__global__ void mma_kernel(const E* A, const E* B, const Acc* C, Acc* D) {
  const int lane = threadIdx.x;
  typename Mma::ARegisters a{};
  typename Mma::BRegisters b{};
  typename Mma::CRegisters c{};
  typename Mma::DRegisters d{};
  if constexpr (std::is_same_v<E, double>) {
    a[0] = A[Mma::a_coord(lane, 0).row * Mma::K + Mma::a_coord(lane, 0).col];
    b[0] = B[Mma::b_coord(lane, 0).row * Mma::N + Mma::b_coord(lane, 0).col];
  } else {
    constexpr int per_reg = sizeof(E) == 4 ? 1 : 4 / int(sizeof(E));
    for (int i = 0; i < Mma::a_elements; ++i) {
      const coord p = Mma::a_coord(lane, i);
      a[i / per_reg] |= bits_of(A[p.row * Mma::K + p.col]) << (8 * sizeof(E) * (i % per_reg));
    }
    for (int i = 0; i < Mma::b_elements; ++i) {
      const coord p = Mma::b_coord(lane, i);
      b[i / per_reg] |= bits_of(B[p.row * Mma::N + p.col]) << (8 * sizeof(E) * (i % per_reg));
    }
  }
  for (int i = 0; i < Mma::c_elements; ++i) {
    const coord p = Mma::c_coord(lane, i);
    c[i] = C[p.row * Mma::N + p.col];
  }
  Mma::mma(d, a, b, c);
  for (int i = 0; i < Mma::c_elements; ++i) {
    const coord p = Mma::c_coord(lane, i);
    D[p.row * Mma::N + p.col] = d[i];
  }
}

// Small integers: every product and sum is exact in every type involved, so D must equal the
// exact product; distinct random values make any misplaced element show.
template <class Mma, class E, class Acc>
void check_hardware(std::uint64_t seed) {
  INFO("seed = ", seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> ab(-3, 3), cd(-8, 8);
  std::vector<E> A(Mma::M * Mma::K), B(Mma::K * Mma::N);
  std::vector<double> Ad(A.size()), Bd(B.size());
  std::vector<Acc> C(Mma::M * Mma::N);
  for (std::size_t i = 0; i < A.size(); ++i)
    Ad[i] = ab(rng), A[i] = E(float(Ad[i]));
  for (std::size_t i = 0; i < B.size(); ++i)
    Bd[i] = ab(rng), B[i] = E(float(Bd[i]));
  for (auto& x : C)
    x = Acc(cd(rng));
  tcr::test::device_buffer<E> dA(A), dB(B);
  tcr::test::device_buffer<Acc> dC(C), dD(C.size());
  mma_kernel<Mma, E, Acc><<<1, 32>>>(dA.get(), dB.get(), dC.get(), dD.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto D = dD.download();
  for (int m = 0; m < Mma::M; ++m) {
    for (int n = 0; n < Mma::N; ++n) {
      double ref = double(C[m * Mma::N + n]);
      for (int k = 0; k < Mma::K; ++k)
        ref += Ad[m * Mma::K + k] * Bd[k * Mma::N + n];
      INFO("D[", m, "][", n, "]");
      REQUIRE(double(D[m * Mma::N + n]) == ref);
    }
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("hardware agrees with the fragment maps: f16 m16n8k16") {
    for (std::uint64_t s = 1; s <= 4; ++s)
      check_hardware<sm80_m16n8k16_f32_f16_f16_f32, __half, float>(100 + s);
  }
  TEST_CASE("hardware agrees with the fragment maps: bf16 m16n8k16") {
    for (std::uint64_t s = 1; s <= 4; ++s)
      check_hardware<sm80_m16n8k16_f32_bf16_bf16_f32, __nv_bfloat16, float>(200 + s);
  }
  TEST_CASE("hardware agrees with the fragment maps: tf32 m16n8k8") {
    for (std::uint64_t s = 1; s <= 4; ++s)
      check_hardware<sm80_m16n8k8_f32_tf32_tf32_f32, float, float>(300 + s);
  }
  TEST_CASE("hardware agrees with the fragment maps: f64 m8n8k4") {
    for (std::uint64_t s = 1; s <= 4; ++s)
      check_hardware<sm80_m8n8k4_f64_f64_f64_f64, double, double>(400 + s);
  }
  TEST_CASE("hardware agrees with the fragment maps: e4m3 m16n8k32") {
    for (std::uint64_t s = 1; s <= 4; ++s)
      check_hardware<sm89_m16n8k32_f32_e4m3_e4m3_f32, __nv_fp8_e4m3, float>(500 + s);
  }
  TEST_CASE("hardware agrees with the fragment maps: e5m2 m16n8k32") {
    for (std::uint64_t s = 1; s <= 4; ++s)
      check_hardware<sm89_m16n8k32_f32_e5m2_e5m2_f32, __nv_fp8_e5m2, float>(600 + s);
  }
}
