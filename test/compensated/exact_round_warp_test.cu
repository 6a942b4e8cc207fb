// SPDX-License-Identifier: BSD-3-Clause
// Tests for detail::round_warp (compensated/exact_binned.cuh): the rounding of an exact partial by
// the 32 lanes of one warp together gives exact_sum<T>::finish's bits (the thread-level rounding
// of compensated/exact.cuh, tested against exact references in exact_test.cpp) in every lane, for
// float, double and product partials into float, double, __half and __nv_bfloat16: random
// canonical states of every magnitude (subnormal to overflowing, top limbs beyond 2^32), both
// signs, states of a few set bits (exact values and ties of every result type), zero states with
// and without the zero-sign flag, and the special-value flags.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>
#include <tcr/compensated/exact_binned.cuh>
#include "support/cuda_check.hpp"
#include "support/gen.hpp"

namespace {

namespace td = tcr::detail;

// Warp w rounds partial w; lane 0 writes the result, and `differs[w]` is set where a lane's
// result has other bits than lane 0's.
template <class V, class T>
__global__ void round_warp_kernel(const tcr::exact_partial<T>* in, V* out, int* differs, int n) {
  const int w = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (w >= n) // warp-uniform
    return;
  const V v = td::round_warp<V>(in[w]);
  unsigned short bits16 = 0;
  unsigned long long bits = 0;
  if constexpr (sizeof(V) == 2) {
    std::memcpy(&bits16, &v, 2);
    bits = bits16;
  } else if constexpr (sizeof(V) == 4) {
    std::uint32_t b32;
    std::memcpy(&b32, &v, 4);
    bits = b32;
  } else {
    std::memcpy(&bits, &v, 8);
  }
  const unsigned long long first = __shfl_sync(0xffffffffu, bits, 0);
  const bool same = __all_sync(0xffffffffu, bits == first);
  if ((threadIdx.x & 31) == 0) {
    out[w] = v;
    differs[w] = same ? 0 : 1;
  }
}

// A canonical state from limbs that need not be: exact_sum::canonicalise (carries propagated).
template <class T>
tcr::exact_partial<T> canonical(tcr::exact_partial<T> p) {
  tcr::exact_sum<T>::canonicalise(p);
  return p;
}

// Random partials of T: kind 0 random digits up to a random top limb (the top limb's magnitude
// up to 2^44), kind 1 a few set bits (2^a +- 2^b +- 2^c: ties and exact values), kind 2 zero
// with either zero sign, kind 3 special-value flags over random digits.
template <class T>
std::vector<tcr::exact_partial<T>> random_partials(int n, std::uint64_t seed) {
  constexpr int NL = tcr::exact_partial<T>::limbs;
  tcr::test::rng64 rng(seed);
  std::vector<tcr::exact_partial<T>> ps(static_cast<std::size_t>(n));
  for (auto& p : ps) {
    const int kind = static_cast<int>(rng.integer(0, 15));
    p = tcr::exact_partial<T>{};
    if (kind < 8) {
      const int top = static_cast<int>(rng.integer(0, NL - 1));
      const int bottom = static_cast<int>(rng.integer(0, top));
      for (int k = bottom; k < top; ++k)
        p.limb[k] = rng.coin() && rng.coin() ? 0 : static_cast<std::int64_t>(rng.next() >> 32);
      if (top == NL - 1)
        p.limb[top] = static_cast<std::int64_t>(rng.next() >> rng.integer(20, 63));
      else
        p.limb[top] = static_cast<std::int64_t>(rng.next() >> 32) | 1;
      if (rng.coin()) // negative: the two's complement digits of -s
        for (int k = 0; k < NL; ++k)
          p.limb[k] = -p.limb[k];
    } else if (kind < 14) {
      const int span = 32 * (NL - 1) + 20; // bit positions whose sum stays in the state
      const int a = static_cast<int>(rng.integer(0, span - 1));
      const auto put = [&](int bit, int sign) {
        p.limb[bit / 32] += sign * (std::int64_t(1) << (bit % 32));
      };
      put(a, 1);
      for (int extra = static_cast<int>(rng.integer(0, 2)); extra > 0; --extra) {
        // below a by a result type's precision (+1 for the half bit) or so: ties and their
        // neighbours
        const int gaps[] = {8, 9, 11, 12, 24, 25, 53, 54};
        int b = a - gaps[rng.integer(0, 7)] - static_cast<int>(rng.integer(-1, 1));
        if (rng.coin())
          b = static_cast<int>(rng.integer(0, a));
        if (b >= 0)
          put(b, rng.coin() ? 1 : -1);
      }
      if (rng.coin())
        for (int k = 0; k < NL; ++k)
          p.limb[k] = -p.limb[k];
    } else if (kind == 14) {
      // zero: the flags decide the sign
    } else {
      for (int k = 0; k < NL - 1; ++k)
        p.limb[k] = static_cast<std::int64_t>(rng.next() >> 32);
      p.flags = static_cast<std::uint32_t>(rng.integer(1, 7));
    }
    if (rng.coin())
      p.flags |= td::exact_not_neg_zero;
    p = canonical(p);
  }
  return ps;
}

template <class V>
std::uint64_t bits_of(const V& v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

template <class V, class T>
void check_round_warp(std::uint64_t seed) {
  INFO("seed = ", seed, ", partial ", sizeof(tcr::exact_partial<T>), " bytes, result ", sizeof(V),
       " bytes");
  const int n = 1 << 15;
  const auto ps = random_partials<T>(n, seed);
  tcr::test::device_buffer<tcr::exact_partial<T>> din(ps);
  tcr::test::device_buffer<V> dout(n);
  tcr::test::device_buffer<int> ddiff(n);
  TCR_CHECK_CUDA(cudaMemset(dout.get(), 0, n * sizeof(V)));
  TCR_CHECK_CUDA(cudaMemset(ddiff.get(), 0, n * sizeof(int)));
  round_warp_kernel<V, T><<<n / 8, 256>>>(din.get(), dout.get(), ddiff.get(), n);
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto got = dout.download();
  const auto diff = ddiff.download();
  int bad = 0, lanes = 0, finite = 0;
  for (int i = 0; i < n; ++i) {
    const V want = tcr::exact_finish<V>(ps[static_cast<std::size_t>(i)]);
    if (bits_of(got[static_cast<std::size_t>(i)]) != bits_of(want)) {
      if (bad < 5)
        MESSAGE("partial ", i, ": device bits ", bits_of(got[static_cast<std::size_t>(i)]),
                ", host ", bits_of(want));
      ++bad;
    }
    lanes += diff[static_cast<std::size_t>(i)];
    finite += (ps[static_cast<std::size_t>(i)].flags & 7u) == 0; // no special-value flag
  }
  CHECK(bad == 0);
  CHECK(lanes == 0);
  CHECK(finite > n / 2); // the generator's mix: mostly finite states
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("round_warp: exact_finish's bits in every lane") {
    check_round_warp<float, float>(0x51);
    check_round_warp<double, float>(0x52);
    check_round_warp<__half, float>(0x53);
    check_round_warp<__nv_bfloat16, float>(0x54);
    check_round_warp<double, double>(0x55);
    check_round_warp<float, double>(0x56);
    check_round_warp<float, tcr::float_products>(0x57);
    check_round_warp<double, tcr::float_products>(0x58);
    check_round_warp<__half, tcr::float_products>(0x59);
    check_round_warp<__nv_bfloat16, tcr::float_products>(0x5a);
  }
}
