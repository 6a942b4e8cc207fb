// SPDX-License-Identifier: BSD-3-Clause
// tcr: the warp-level chained tile reduction on tensor cores.
//
// A warp sums tiles of 8-, 16- or 32-bit data by multiplying them with a matrix of ones: with
// B = ones, every row of D = A * B + C is the sum of one row of A (plus C), and products x * 1
// are exact. Which element sits where in A does not matter for a sum, so each lane loads its
// contiguous bytes straight into its A registers.
//
// Input layout (a "lane tile"): a tile is 512 bytes of 8- or 16-bit data (256 __half /
// __nv_bfloat16, 512 fp8) or 1024 bytes of float (256 floats). Lane l holds the tile's bytes
// [l * LB, (l + 1) * LB), LB = lane_tile<In>::bytes (16, or 32 for float), in any order: the sum
// does not depend on where each element goes. load_lane_tile reads that from global or shared
// memory; pack_lane_tile builds it from a thread's items.
//
// Result ownership: lane_tile_sum folds the R tiles into the calling lane's accumulator. Lane
// 4g + t holds row g of D (t = 0, 1) or row g + 8 (t = 2, 3), so lanes l and l ^ 1 receive the
// same values and the 16 even lanes hold disjoint shares: after any number of calls the warp's
// total is the merge of the accumulators of lanes 0, 2, ..., 30. share_of(acc) keeps the
// accumulator in those lanes and returns the empty accumulator in the others, so that a merge
// over all 32 lanes (or a whole block) gives the total. Merging across lanes is the warp layer's
// job (reduce/warp.cuh); this header has no shuffles.
//
// Accumulation policies (both named, both available):
//   chain_in_tensor_core: C carries the running sum through the R MMAs of one call, as in Navarro
//     et al.; the lane folds the final D into its accumulator. One fold per call.
//   fold_out: C = 0 for every MMA; each D is folded into the lane's accumulator on the CUDA cores
//     (with a compensated accumulator the folds add only second-order error), as Ootomo and
//     Yokota do for GEMM.
//
// Error bound (derived from the Hopper accumulation model of Khattak and Mikaitis, with p the
// accumulator's significand bits, f >= 0 extra alignment bits, K the MMA's depth): an MMA aligns
// its K products and C to the largest exponent, truncating each below 2^(e_max + 1 - p - f), sums
// exactly and truncates the result to p bits. So for every entry of D
//     |D - (C + sum_k a_k)| <= (K + 2) 2^(1-p) * (|C| + sum_k |a_k|)        (*)
// (K + 1 alignment truncations of at most 2^(1-p) max|term| each with f = 0, plus one final
// truncation of at most 2^(1-p)|D|; first order: tile_error_bound evaluates it with a safety
// factor of 2, which covers the second-order terms (the errors already carried in C) while
// R (K + 2) 2^(1-p) <= 1/2). Summing (*) over a call of R MMA steps, with S = sum of |x| over
// the data (the bound for the warp's total follows by summing over the rows):
//   fold_out:             |err| <= (K + 2) 2^(1-p) * S                  (independent of R)
//   chain_in_tensor_core: |err| <= R (K + 2) 2^(1-p) * S                (C grows through the chain)
// plus the lane accumulator's own error. p = 24 for f16, bf16 and tf32 inputs. fp8 on sm_90: an
// m16n8k32 runs as two chained f16 m16n8k16 steps (see mma/sm89.cuh), so K = 16, p = 24 and a
// call of R fp8 MMAs is a chain of 2R steps (fold_out: a chain of 2). Split float: 3 steps per
// tile (chain: 3R; fold_out: 1), and S counts the parts, S_parts <= (1 + 2^-7) S.
// bench/mma_characterize.cu measures the real error per type, policy and R on adversarial data
// (H200: bench/results/2026-11-30-h200-4cdebb1/mma_characterize.json.gz).
//
// Exact paths (error 0, proved in the comments below): e4m3 through f16 MMAs (tile_path::
// exact_f16), e5m2 through f16 MMAs in two exponent bands (tile_path::exact_bands_f16, twice the
// MMAs); f16 and bf16 only when their sums fit the accumulator (not in general). With
// exact_f16 every folded D value is a multiple of 2^-9 below 2^15, so a double lane accumulator
// stays exact while its sum is below 2^44 (53 bits above 2^-9): at least 2^44 / 448 > 3.9e10
// e4m3 elements per lane. A device-wide e4m3 sum can thus be exact up to its final merges.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include "../compensated/accumulator.cuh"
#include "../compensated/eft.cuh"
#include "sm80.cuh"
#include "sm89.cuh"

namespace tcr::mma {

// C carries the running sum through the R MMAs of a call.
struct chain_in_tensor_core {};
// C = 0; each D is folded into the lane's accumulator.
struct fold_out {};

// How 8-bit tiles reach the tensor cores.
enum class tile_path {
  native,          // the input type's own MMA (fp8: m16n8k32, about 13 accumulator bits on Hopper)
  exact_f16,       // e4m3 only: converted to f16 (exact) and summed by f16 MMAs, exactly
  exact_bands_f16, // e5m2 only: split into |x| >= 1 and |x| < 1, each band summed exactly in f16
};

template <class In>
struct lane_tile_traits;
template <>
struct lane_tile_traits<__half> {
  using Mma = sm80_m16n8k16_f32_f16_f16_f32;
  static constexpr int words = 4, elements = 8;
};
template <>
struct lane_tile_traits<__nv_bfloat16> {
  using Mma = sm80_m16n8k16_f32_bf16_bf16_f32;
  static constexpr int words = 4, elements = 8;
};
template <>
struct lane_tile_traits<__nv_fp8_e4m3> {
  using Mma = sm89_m16n8k32_f32_e4m3_e4m3_f32;
  static constexpr int words = 4, elements = 16;
};
template <>
struct lane_tile_traits<__nv_fp8_e5m2> {
  using Mma = sm89_m16n8k32_f32_e5m2_e5m2_f32;
  static constexpr int words = 4, elements = 16;
};
// float: each value is split into three bf16 parts (hi + mid + lo == x exactly), so a lane's 8
// floats make 24 bf16 values: three A fragments of bf16 m16n8k16.
template <>
struct lane_tile_traits<float> {
  using Mma = sm80_m16n8k16_f32_bf16_bf16_f32;
  static constexpr int words = 8, elements = 8;
};

template <class In>
inline constexpr bool is_tile_input_v =
    std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16> ||
    std::is_same_v<In, __nv_fp8_e4m3> || std::is_same_v<In, __nv_fp8_e5m2> ||
    std::is_same_v<In, float>;

// One lane's share of a tile: its `bytes` contiguous bytes as 32-bit words.
template <class In>
struct lane_tile {
  static_assert(is_tile_input_v<In>,
                "tcr::mma::lane_tile<In>: In must be __half, __nv_bfloat16, __nv_fp8_e4m3, "
                "__nv_fp8_e5m2 or float");
  static constexpr int words = lane_tile_traits<In>::words;
  static constexpr int elements = lane_tile_traits<In>::elements; // of In, per lane
  static constexpr int bytes = words * 4;
  static constexpr int tile_elements = 32 * elements; // per warp
  uint32_t w[words];
};

// The MMAs one tile costs.
template <class In, tile_path Path = tile_path::native>
inline constexpr int mmas_per_tile_v = std::is_same_v<In, float>            ? 3
                                       : Path == tile_path::exact_f16       ? 2
                                       : Path == tile_path::exact_bands_f16 ? 4
                                                                            : 1;

// The depth-16 MMA steps one tile costs, the unit of tile_error_bound's R: on sm_90 an fp8
// m16n8k32 runs as two chained f16 steps (see mma/sm89.cuh).
template <class In, tile_path Path = tile_path::native>
inline constexpr int steps_per_tile_v =
    mmas_per_tile_v<In, Path>*(sizeof(In) == 1 && Path == tile_path::native ? 2 : 1);

// The steps one accumulation chain of a lane_tile_sum call over R tiles holds: the R to pass to
// tile_error_bound. chain_in_tensor_core: all of them; fold_out: one MMA instruction's (float:
// one bf16 level). The exact paths have no error to bound.
template <class In, class Policy, tile_path Path = tile_path::native>
constexpr int chain_steps(int R) {
  if constexpr (std::is_same_v<Policy, fold_out>)
    return std::is_same_v<In, float> ? 1 : steps_per_tile_v<In, Path>;
  else
    return steps_per_tile_v<In, Path> * R;
}

namespace detail {

template <class In>
TCR_HD uint32_t raw_bits(const In& x) {
  if constexpr (sizeof(In) == 1) {
    uint8_t b;
    std::memcpy(&b, &x, 1);
    return b;
  } else if constexpr (sizeof(In) == 2) {
    uint16_t b;
    std::memcpy(&b, &x, 2);
    return b;
  } else {
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
  }
}

// x == hi + mid + lo exactly, each part a bf16 (returned as its 16 bits). hi is x truncated to
// bf16's 8 significant bits, mid the next 8, lo the last 8; each difference is exact in f32
// (it is x with its leading bits cleared). Precondition for exactness: |x| >= 2^-110 or x == 0
// (so that lo's last bit is not below bf16's smallest subnormal, 2^-133). Inf and NaN go to hi
// unchanged (NaN stays NaN) with mid = lo = 0.
TCR_HD void split_bf16x3(float x, uint32_t& hi, uint32_t& mid, uint32_t& lo) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const bool finite = (bits & 0x7f800000u) != 0x7f800000u;
  if (!finite) {
    const bool nan = (bits & 0x007fffffu) != 0;
    hi = (bits >> 16) | (nan ? 0x0040u : 0u);
    mid = lo = 0;
    return;
  }
  const uint32_t hi_bits = bits & 0xffff0000u;
  float hi_f, r;
  std::memcpy(&hi_f, &hi_bits, 4);
  r = tcr::detail::sub_rn(x, hi_f); // exact: the low 16 significand bits of x
  uint32_t r_bits;
  std::memcpy(&r_bits, &r, 4);
  const uint32_t mid_bits = r_bits & 0xffff0000u;
  float mid_f;
  std::memcpy(&mid_f, &mid_bits, 4);
  const float lo_f = tcr::detail::sub_rn(r, mid_f); // exact, at most 8 significant bits
  uint32_t lo_bits;
  std::memcpy(&lo_bits, &lo_f, 4);
  hi = hi_bits >> 16;
  mid = mid_bits >> 16;
  lo = lo_bits >> 16; // exact: lo's low 16 bits are zero
}

// d[0] == d[1] is row g of D and d[2] == d[3] row g + 8 (every column of D is the same row
// sum): lanes t = 0, 1 of the quad fold row g, lanes t = 2, 3 row g + 8 (one fold per lane).
// (The select is a selp in inline PTX: as a C++ ?: the compiler turns it into a branch and
// duplicates the MMAs and folds on both sides.)
template <class Acc>
__device__ __forceinline__ void fold_d(Acc& acc, const float (&d)[4], bool upper_row) {
  float v;
  asm("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %3, 0;\n\tselp.f32 %0, %1, %2, p;\n\t}"
      : "=f"(v)
      : "f"(d[2]), "f"(d[0]), "r"(static_cast<unsigned>(upper_row)));
  acc = tcr::accumulate(acc, v);
}

// Runs the M A-fragments through Mma against B = ones under Policy, folding into acc. Chains are
// cut after MaxChain MMAs (a fold, then C = 0 again).
template <class Mma, class Policy, int MaxChain, int M, class Acc>
__device__ __forceinline__ void reduce_fragments(const uint32_t (&a)[M][4], Acc& acc) {
  constexpr uint32_t one = [] {
    if constexpr (Mma::K == 32) {
      return Mma::one_x4;
    } else {
      return Mma::one_x2;
    }
  }();
  const uint32_t b[2] = {one, one};
  const float zero[4] = {0.f, 0.f, 0.f, 0.f};
  const bool upper_row = (tcr::detail::lane_id() & 2) != 0;
  if constexpr (std::is_same_v<Policy, fold_out>) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      float d[4];
      Mma::mma(d, a[m], b, zero);
      fold_d(acc, d, upper_row);
    }
  } else {
    static_assert(std::is_same_v<Policy, chain_in_tensor_core>,
                  "tcr::mma: Policy must be chain_in_tensor_core or fold_out");
    float c[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int m = 0; m < M; ++m) {
      Mma::mma(c, a[m], b, c);
      if ((m + 1) % MaxChain == 0 || m + 1 == M) {
        fold_d(acc, c, upper_row);
#pragma unroll
        for (int i = 0; i < 4; ++i)
          c[i] = 0.f;
      }
    }
  }
}

} // namespace detail

// Reads lane's share of the tile at g_tile (global or shared; 16-byte aligned; the tile holds
// lane_tile<In>::tile_elements elements).
template <class In>
__device__ __forceinline__ lane_tile<In> load_lane_tile(const In* g_tile) {
  lane_tile<In> t;
  const uint4* p = reinterpret_cast<const uint4*>(g_tile) + tcr::detail::lane_id() * (t.words / 4);
#pragma unroll
  for (int v = 0; v < t.words / 4; ++v) {
    const uint4 q = p[v];
    t.w[4 * v + 0] = q.x;
    t.w[4 * v + 1] = q.y;
    t.w[4 * v + 2] = q.z;
    t.w[4 * v + 3] = q.w;
  }
  return t;
}

// Packs items [first, first + lane_tile<In>::elements) of a thread's items into a lane tile;
// items past N or of index >= num_valid become +0 (the identity of the sum) and are not read.
template <class In, int N>
__device__ __forceinline__ lane_tile<In> pack_lane_tile(const In (&items)[N], int first,
                                                        int num_valid = N) {
  lane_tile<In> t;
  constexpr int per_word = 4 / (sizeof(In) < 4 ? sizeof(In) : 4);
  constexpr int elems = lane_tile<In>::elements;
  if constexpr (std::is_same_v<In, float>) {
#pragma unroll
    for (int i = 0; i < elems; ++i) {
      const int k = first + i;
      t.w[i] = (k < N && k < num_valid) ? detail::raw_bits(items[k < N ? k : 0]) : 0u;
    }
  } else {
#pragma unroll
    for (int wi = 0; wi < lane_tile<In>::words; ++wi) {
      uint32_t word = 0;
#pragma unroll
      for (int j = 0; j < per_word; ++j) {
        const int k = first + wi * per_word + j;
        const uint32_t bits =
            (k < N && k < num_valid) ? detail::raw_bits(items[k < N ? k : 0]) : 0u;
        word |= bits << (8 * sizeof(In) * j);
      }
      t.w[wi] = word;
    }
  }
  return t;
}

// Folds the R tiles (this lane's share of each) into acc under Policy. Every lane of the warp
// must call (mma.sync is warp-wide). acc is a float, a double, or an accumulator from
// compensated/ (tcr::accumulate(acc, float) must work). See the file comment for who holds what.
// Path = exact_f16 (e4m3 only) or exact_bands_f16 (e5m2 only): every MMA is exact; chains are
// cut after 4 MMAs so that the running sum stays exact (proofs below).
template <class Policy, tile_path Path = tile_path::native, class In, int R, class Acc>
__device__ __forceinline__ void lane_tile_sum(const lane_tile<In> (&tiles)[R], Acc& acc) {
  static_assert(R >= 1, "tcr::mma::lane_tile_sum: R (tiles per call) must be at least 1");
  static_assert(Path != tile_path::exact_f16 || std::is_same_v<In, __nv_fp8_e4m3>,
                "tcr::mma::lane_tile_sum: tile_path::exact_f16 is for __nv_fp8_e4m3 input only");
  static_assert(Path != tile_path::exact_bands_f16 || std::is_same_v<In, __nv_fp8_e5m2>,
                "tcr::mma::lane_tile_sum: tile_path::exact_bands_f16 is for __nv_fp8_e5m2 input "
                "only");
  using Traits = lane_tile_traits<In>;
  if constexpr (std::is_same_v<In, float>) {
    // Fragment m of tile r holds one significance level (0: hi, 1: mid, 2: lo) of the lane's 8
    // floats, so each D row adds parts of like magnitude.
    uint32_t a[3 * R][4];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      uint32_t parts[3][8];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float x;
        std::memcpy(&x, &tiles[r].w[i], 4);
        detail::split_bf16x3(x, parts[0][i], parts[1][i], parts[2][i]);
      }
#pragma unroll
      for (int level = 0; level < 3; ++level) {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          a[3 * r + level][j] = parts[level][2 * j] | (parts[level][2 * j + 1] << 16);
      }
    }
    detail::reduce_fragments<typename Traits::Mma, Policy, 3 * R>(a, acc);
  } else if constexpr (Path == tile_path::exact_f16) {
    // Exactness proof. e4m3 values are 0 or +-m 2^e with m < 16 and e >= -9 (subnormals are
    // multiples of 2^-9, normals 2^-6 .. 448 have 4 significant bits), so every e4m3 value is a
    // multiple of 2^-9 with |x| <= 448 < 2^9. f16 has 11 significant bits and normals down to
    // 2^-14, so the conversion is exact. An f16 MMA with B = ones computes each D entry from 16
    // products x * 1 (exact) and C. Chains hold at most 4 MMAs, so every C, term and partial sum
    // is a multiple of 2^-9 of magnitude at most 4 * 16 * 448 = 28672 < 2^15: at most 24
    // significant bits. The MMA keeps (at least) 24 bits below 2^(e_max + 1) <= 2^15, i.e.
    // every bit down to 2^-9, so no truncation happens during alignment, and the exact result
    // fits the f32 D. Hence D == C + sum exactly; fold_out (one MMA) is the case of length 1.
    // Inf and NaN: e4m3 has no Inf; NaN converts to NaN and propagates.
    uint32_t a[2 * R][4];
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const uint32_t w = tiles[r].w[j];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const __half2_raw v = __nv_cvt_fp8x2_to_halfraw2(
              static_cast<__nv_fp8x2_storage_t>((w >> (16 * h)) & 0xffffu), __NV_E4M3);
          a[2 * r + (2 * j + h) / 4][(2 * j + h) % 4] =
              static_cast<uint32_t>(v.x) | (static_cast<uint32_t>(v.y) << 16);
        }
      }
    }
    detail::reduce_fragments<sm80_m16n8k16_f32_f16_f16_f32, Policy, 4>(a, acc);
  } else if constexpr (Path == tile_path::exact_bands_f16) {
    // Exactness proof. An e5m2 value is the top byte of the f16 with the same value (f16 bits
    // = byte << 8), so the conversion is exact. Band "high" holds the values with |x| >= 1
    // (exponent field >= 15, and Inf/NaN): multiples of 2^-2 with |x| <= 57344 < 2^16. Band
    // "low" holds |x| < 1: multiples of 2^-16 (the subnormal step) with |x| <= 0.875. Each band
    // goes through its own f16 MMAs against ones (a value is +0 in the other band), in chains of
    // at most 4 MMAs. High: |C|, terms and partial sums are multiples of 2^-2 below
    // 4 * 16 * 57344 < 2^22, so at most 24 significant bits, and the MMA keeps every bit down to
    // 2^(22 - 24) = 2^-2 (e_max + 1 <= 22). Low: multiples of 2^-16 below 4 * 16 * 0.875 < 2^6,
    // at most 22 bits, kept down to 2^(6 - 24) < 2^-16. So every D is exact; as for e4m3, fold_out
    // is the chain of length 1. Inf and NaN sit in the high band and propagate.
    uint32_t hi[2 * R][4], lo[2 * R][4];
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const uint32_t w = tiles[r].w[j];                               // 4 e5m2 bytes
        const uint32_t high = __vcmpgeu4(w & 0x7f7f7f7fu, 0x3c3c3c3cu); // 0xff where |x| >= 1
        const uint32_t wh = w & high, wl = w & ~high;
        // bytes b0 b1 -> f16x2 (b0 << 8) | (b1 << 24); bytes b2 b3 likewise
        hi[2 * r + j / 2][2 * (j % 2)] = __byte_perm(wh, 0u, 0x1404);
        hi[2 * r + j / 2][2 * (j % 2) + 1] = __byte_perm(wh, 0u, 0x3424);
        lo[2 * r + j / 2][2 * (j % 2)] = __byte_perm(wl, 0u, 0x1404);
        lo[2 * r + j / 2][2 * (j % 2) + 1] = __byte_perm(wl, 0u, 0x3424);
      }
    }
    detail::reduce_fragments<sm80_m16n8k16_f32_f16_f16_f32, Policy, 4>(hi, acc);
    detail::reduce_fragments<sm80_m16n8k16_f32_f16_f16_f32, Policy, 4>(lo, acc);
  } else {
    uint32_t a[R][4];
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        a[r][j] = tiles[r].w[j];
    }
    detail::reduce_fragments<typename Traits::Mma, Policy, R>(a, acc);
  }
}

// acc in the even lanes (which hold disjoint shares after lane_tile_sum), the empty accumulator
// in the odd ones: the merge of share_of(acc) over all 32 lanes is the warp's total.
template <class Acc>
__device__ __forceinline__ Acc share_of(const Acc& acc) {
  return (tcr::detail::lane_id() & 1) == 0 ? acc : Acc{};
}

// The first-order model bound (*) of the file comment for one call, times 2: the largest
// |err| a call of R MMA steps of depth K, accumulator bits p, may add to a sum whose absolute
// values add up to S (for fold_out pass R = 1). Inputs to the tests' tolerances.
TCR_HD constexpr double tile_error_bound(int R, int K, int p, double S) {
  double two_pow = 1.0; // 2^(1-p)
  for (int i = 1; i < p; ++i)
    two_pow *= 0.5;
  return 2.0 * R * (K + 2) * two_pow * S;
}

} // namespace tcr::mma
