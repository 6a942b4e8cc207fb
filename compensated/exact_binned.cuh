// SPDX-License-Identifier: BSD-3-Clause
// tcr: the exact sum of float-range inputs at memory bandwidth (device code): per-thread bins of
// doubles in which every addition is exact, spilled as integer digits into the block's limbs of
// an exact_partial (compensated/exact.cuh) before any bin could round. The accumulators of
// Accuracy::correctly_rounded and Accuracy::reproducible (reduce/device.cuh).
//
//   binned_exact_sum<X, Threads>      Sum, Asum of X: float, __half, __nv_bfloat16,
//                                     __nv_fp8_e4m3, __nv_fp8_e5m2 (widened exactly to float)
//   binned_exact_dot<X, Y, Threads, Squares>   Dot (Nrm2: Squares) of those types
//
// Why a double add is exact here. Every input x is a float (widened exactly), so x = k 2^(e - 23)
// with |k| < 2^24 integer, e its exponent (e = -126 for subnormals). Bin b holds the inputs whose
// float bit pattern has (bits >> Shift) & (Bins - 1) = b, i.e. a fixed range of W = 2^(Shift - 23)
// consecutive biased exponents [W b, W b + W) (sign excluded: it is bit 31, masked off). In bin
// b, every x is a multiple of g_b = 2^(max(W b, 1) - 150) (the least spacing of those exponents;
// for W b = 0 the subnormals' 2^-149) and |x| < 2^(W b + W - 127), so x / g_b is an integer of
// magnitude below 2^(W - 1 + 24) for b >= 1 and 2^(W - 2 + 24) for b = 0 (the W exponents, the
// 24-bit significand), and any sum of at most N such inputs is an integer multiple of g_b below
// N 2^(W + 23) in magnitude. With N 2^(W + 23) <= 2^53 that sum is a double (53 bits from g_b
// up), so each bin += x rounds nothing: the bin holds the exact sum of its inputs. A thread
// spills its bins (as the integer digits bin / g_b, exact, into the block's shared carry-save
// limbs: detail::binned_block) and clears them every N inputs it adds:
//   float:     W = 16 (Shift 27, 16 bins), N = 2^14
//   bfloat16:  8 significand bits, so |x / g_b| < 2^(W - 1 + 8): W = 32 (Shift 28, 8 bins),
//              N = 2^13 (2^13 2^(32 + 7) <= 2^52)
//   half, e4m3, e5m2: one bin (the whole range of the type): x is a multiple of 2^-24 (half),
//              2^-9 (e4m3), 2^-16 (e5m2), below 2^16, 2^9, 2^16: ratios below 2^40, 2^18, 2^32,
//              N = 2^13, 2^30, 2^21; the bin is a register. e4m3 sums groups of 64 inputs in
//              float first, exactly (64 (2^18 - 1) < 2^24 multiples of 2^-9), then adds the
//              group's float to the bin: one conversion per 64 inputs.
// Addition alone, no products: floating-point contraction cannot apply, and nothing rounds, so
// the result is a function of the multiset of inputs (the bins, the flushes and the merges are
// exact): bitwise identical for any order, thread count, grid, alignment or split of the data.
//
// Special values. Inf and NaN inputs fall into the top bin (float, bfloat16: biased exponent
// 255) or the one bin and stay there under IEEE addition (inf + finite = inf, inf + -inf = NaN,
// NaN + x = NaN); a spilled non-finite bin sets the partial's flags, which give NaN if a NaN was
// seen or both infinities were, else the infinity (the same rule: plain summation's). A finite
// sum cannot overflow a bin (|bin| < 2^158). Zeros: each bin starts at -0 and stays -0 only
// while every input it took was -0 (IEEE RN: -0 + -0 = -0, -0 + +0 = +0, x + -x = +0), so the
// flags' zero sign is exactly the one the inputs give.
//
// Cost per element (SASS expected): the widening, F2F.F64.F32, then for the bins a shift and a
// mask for the bin, an address, LDS.64, DADD, STS.64 (a register DADD for one bin). The bins
// live in shared memory, bins[b][thread] (stride Threads doubles): a warp's 32 lanes reading
// any mix of bins touch 32 consecutive-thread doubles per bin row, 2 wavefronts, no bank
// conflicts. Shared memory: Bins * Threads * 8 bytes (float, 256 threads: 32 KB).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "config.cuh"
#include "convert.cuh"
#include "exact.cuh"

namespace tcr {
namespace detail {

// The bins of each input type (header comment).
template <class X>
struct exact_bins_of;
// The bins of exact_bins_of: doubles that take the inputs as they are.
struct double_bins {
  using bin_type = double;
  static constexpr int scale_exponent = 0;
};
template <>
struct exact_bins_of<float> : double_bins {
  static constexpr int bins = 16;
  static constexpr int shift = 27;
  static constexpr std::uint32_t max_adds = 1u << 14;
  static constexpr int float_group = 1;
  static constexpr int width = 16;    // biased exponents per bin
  static constexpr int fraction = 23; // fraction bits of the input type
};
template <>
struct exact_bins_of<__nv_bfloat16> : double_bins {
  static constexpr int bins = 8;
  static constexpr int shift = 28;
  static constexpr std::uint32_t max_adds = 1u << 13;
  static constexpr int float_group = 1;
  static constexpr int width = 32;
  static constexpr int fraction = 7;
};
template <>
struct exact_bins_of<__half> : double_bins {
  static constexpr int bins = 1;
  static constexpr int shift = 0;
  static constexpr std::uint32_t max_adds = 1u << 13;
  static constexpr int float_group = 1;
  static constexpr int lsb = -24; // every value is a multiple of 2^lsb
};
template <>
struct exact_bins_of<__nv_fp8_e4m3> : double_bins {
  static constexpr int bins = 1;
  static constexpr int shift = 0;
  static constexpr std::uint32_t max_adds = 1u << 30;
  // 64 inputs (multiples of 2^-9 below 2^9) sum exactly in float: 64 (2^18 - 1) < 2^24.
  static constexpr int float_group = 64;
  static constexpr int lsb = -9; // every value is a multiple of 2^lsb
};
template <>
struct exact_bins_of<__nv_fp8_e5m2> : double_bins {
  static constexpr int bins = 1;
  static constexpr int shift = 0;
  static constexpr std::uint32_t max_adds = 1u << 21;
  static constexpr int float_group = 1;
  static constexpr int lsb = -16; // every value is a multiple of 2^lsb
};
// bfloat16 in float bins (a variant, not yet the default; bench/device_bench_tcr_exact.cu runs
// it as tcr.correctly_rounded.fbins): 32 bins of W = 8 biased exponents (Shift 26) in float, the
// inputs scaled by 2^-16 first (exact: a bfloat16 has 8 significant bits, and x 2^-16 is a
// multiple of 2^-149 even for x = 2^-133, its least subnormal). In bin b every scaled input is a
// multiple of g_b = 2^(max(8 b, 1) - 150) below 2^15 g_b (2^14 g_0 for b = 0), so N = 2^9 of
// them sum exactly in a float (N 2^15 <= 2^24; g_b >= 2^-149, and the top bin's sums stay below
// 2^112 2^9 = 2^121: finite). Against the double bins: a 32-bit LDS / FADD / STS per input
// instead of the 64-bit LDS / DADD / STS and the F2F.F64.F32 (half the shared-memory
// wavefronts, the bottleneck of bfloat16's 2 bytes per input), for a spill 16 times as often
// (every 512 inputs; it skips the bins that are empty in the whole warp).
struct exact_bins_bf16_float {
  using bin_type = float;
  static constexpr int scale_exponent = -16;
  static constexpr int bins = 32;
  static constexpr int shift = 26;
  static constexpr std::uint32_t max_adds = 1u << 9;
  static constexpr int float_group = 1;
  static constexpr int width = 8;
  static constexpr int fraction = 7;
};

inline constexpr std::uint64_t negative_zero_bits = std::uint64_t(1) << 63;

// The digit v / 2^g of a bin value v (g the exponent of its spacing, g >= -1022 so that 2^-g is a
// double), and its flags.
TCR_HD long long bin_digit(double v, int g, std::uint32_t& flags) {
  long long bits;
  std::memcpy(&bits, &v, sizeof bits);
  if (bits == static_cast<long long>(negative_zero_bits))
    return 0; // an empty bin (or only -0 inputs): no flag
  flags |= exact_not_neg_zero;
  if ((bits & 0x7ff0000000000000ll) == 0x7ff0000000000000ll) {
    flags |= (bits & 0x000fffffffffffffll) ? exact_nan : (bits < 0 ? exact_neg_inf : exact_pos_inf);
    return 0;
  }
  const long long scale_bits = static_cast<long long>(1023 - g) << 52;
  double scale; // 2^-g
  std::memcpy(&scale, &scale_bits, sizeof scale);
#if defined(__CUDA_ARCH__)
  return __double2ll_rn(v * scale); // exact: an integer below 2^53
#else
  return static_cast<long long>(v * scale); // exact: an integer below 2^53
#endif
}

// bin_digit for any g >= -1074 (double's pieces and rows: 2^-g exceeds DBL_MAX for g < -1023,
// and its biased exponent 1023 - g would spill into the sign bit). For g < -1022, v is scaled by
// 2^512 first, exactly: v is a multiple of 2^g below 2^(53 + g) in magnitude (no overflow), and
// the product is a double (subnormal v become normal; zeros, Inf and NaN stay what they are).
TCR_HD long long bin_digit_wide(double v, int g, std::uint32_t& flags) {
  if (g < -1022) {
    v *= 0x1p512;
    g += 512;
  }
  return bin_digit(v, g, flags);
}

// *p += d: a shared-memory atomic on the device (the block's carry-save limbs, as unsigned long
// long: the same object representation as the int64 limbs), a plain add on the host (the host
// tests' model of the kernels).
TCR_HD void limb_add(unsigned long long* p, long long d) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, static_cast<unsigned long long>(d));
#else
  *p += static_cast<unsigned long long>(d);
#endif
}

// T 2^pos into the carry-save limbs s_limb (Limbs of them) by limb_add, in three pieces (the
// block-level comment below).
template <int Limbs>
TCR_HD void atomic_add_scaled(unsigned long long* s_limb, long long t, int pos) {
  const int k = pos >> 5;
  const int s = pos & 31;
  const unsigned long long lo = static_cast<unsigned long long>(t) << s;
  const long long hi = s != 0 ? (t >> (64 - s)) : (t >> 63);
  const long long piece[3] = {static_cast<long long>(lo & 0xffffffffull),
                              static_cast<long long>(lo >> 32), hi};
  TCR_UNROLL
  for (int j = 0; j < 3; ++j) {
    if (piece[j] == 0)
      continue;
    const int at = k + j;
    const long long d = at < Limbs - 1 ? piece[j] : piece[j] * (1ll << (32 * (at - (Limbs - 1))));
    limb_add(s_limb + (at < Limbs - 1 ? at : Limbs - 1), d);
  }
}

// What T 2^pos adds to limb `at` of Limbs carry-save limbs: atomic_add_scaled's piece there, the
// pieces beyond the top limb folded into it, shifted (0 where no piece lands). For a thread
// that owns a limb and sums the contributions of many totals with plain adds.
template <int Limbs>
TCR_HD long long limb_piece(long long t, int pos, int at) {
  const int j = at - (pos >> 5);
  const int s = pos & 31;
  const unsigned long long lo = static_cast<unsigned long long>(t) << s;
  const long long hi = s != 0 ? (t >> (64 - s)) : (t >> 63);
  const long long piece[3] = {static_cast<long long>(lo & 0xffffffffull),
                              static_cast<long long>(lo >> 32), hi};
  long long d = 0;
  TCR_UNROLL
  for (int i = 0; i < 3; ++i) {
    const int to = (pos >> 5) + i;
    if ((at < Limbs - 1 ? i == j : to >= Limbs - 1) && piece[i] != 0)
      d += to <= Limbs - 1 ? piece[i] : piece[i] * (1ll << (32 * (to - (Limbs - 1))));
  }
  return d;
}

// Carry propagation of Limbs carry-save limbs held by the 32 lanes of a warp as segments of 32:
// lane i holds v[j] = limb 32 j + i (0 beyond the top limb). Ends with the canonical digits
// (exact_sum::canonicalise's, the same function of the sum) in the same places. Per segment:
//   v = x + 2^32 c with x = v mod 2^32, c = floor(v / 2^32), |c| < 2^31 (the carry-save bound);
//   lane i's c moves to lane i + 1 as y + 2^32 h, y = c mod 2^32 and h = -[c < 0] (|c| < 2^32),
//   so the segment's value is X + Y - H 2^32 (digit vectors X, Y in [0, 2^32), H in {0, 1}):
//   X + Y by a carry-lookahead over the lanes' ballots (a lane generates a carry, t >= 2^32, or
//   propagates one, its digit 2^32 - 1, never both), then - H by a borrow-lookahead (a lane
//   generates a borrow, digit < its H bit, or propagates one, digit = its H bit, never both).
//   For generate bits g and propagate bits p with g & p = 0, the carries into the bits are
//   ((g | p) + g) ^ (g | p) ^ g: the carry bits of the binary sum a + b with a = g | p, b = g.
// The top limb takes its carries whole (signed, no digit); a segment's carries out of lane 31
// (its c, its h, the lookaheads' carries out of bit 31) enter the next segment's lane 0, within
// the bound of a carry (|sum| < 2^31 + 3). A collective of one whole warp.
#if defined(__CUDACC__)
template <int Limbs>
__device__ __forceinline__ void canonicalise_warp(long long (&v)[(Limbs + 31) / 32]) {
  constexpr unsigned full = 0xffffffffu;
  constexpr long long M = 0xffffffffll;
  const int lane = static_cast<int>(threadIdx.x & 31);
  long long in = 0; // the previous segment's carries, into this segment's lane 0
  TCR_UNROLL
  for (int j = 0; j < (Limbs + 31) / 32; ++j) {
    const int k = 32 * j + lane;
    const bool digit = k < Limbs - 1; // a digit lane (not the top limb, not beyond it)
    const bool top = k == Limbs - 1;
    const long long w = v[j] + (lane == 0 ? in : 0);
    const long long x = digit ? (w & M) : w;
    const long long c = digit ? (w >> 32) : 0;
    long long cp = __shfl_up_sync(full, c, 1); // lane i - 1's carry
    if (lane == 0)
      cp = 0;
    const long long y = digit ? (cp & M) : cp;  // the top limb takes it whole
    const bool h = digit && cp < 0;             // -2^32 of cp, one limb up
    const unsigned hm = __ballot_sync(full, h); // bit i: lane i's h (belongs to lane i + 1)
    const unsigned hb = hm << 1;                // bit i: the H digit of lane i
    // X + Y.
    const long long t = x + y;
    const long long s0 = digit ? (t & M) : t;
    const unsigned ga = __ballot_sync(full, digit && t > M);
    const unsigned pa = __ballot_sync(full, digit && s0 == M);
    const unsigned long long suma = static_cast<unsigned long long>(ga | pa) + ga;
    const unsigned ca = static_cast<unsigned>(suma) ^ (ga | pa) ^ ga; // carries into the lanes
    const long long s1 = digit ? ((s0 + ((ca >> lane) & 1)) & M) : s0 + ((ca >> lane) & 1);
    // - H.
    const long long hd = (hb >> lane) & 1;
    const unsigned gb = __ballot_sync(full, digit && s1 < hd);
    const unsigned pb = __ballot_sync(full, digit && s1 == hd);
    const unsigned long long sumb = static_cast<unsigned long long>(gb | pb) + gb;
    const unsigned cb = static_cast<unsigned>(sumb) ^ (gb | pb) ^ gb; // borrows into the lanes
    const long long s2 = s1 - hd - ((cb >> lane) & 1);
    v[j] = digit ? (s2 & M) : (top || k < Limbs ? s2 : 0);
    // Into the next segment: lane 31's c and h, the carry and the borrow out of bit 31.
    const long long c31 = __shfl_sync(full, c, 31);
    in = c31 - static_cast<long long>(hm >> 31) + static_cast<long long>(suma >> 32) -
         static_cast<long long>(sumb >> 32);
  }
}
#endif
} // namespace detail

#if defined(__CUDACC__)
namespace detail {
// The block-level combine of the binned accumulators (exact integer arithmetic throughout, so
// the order of the adds and atomics does not matter: the same bits whatever it is). Where many
// threads would add to one 64-bit shared word (sm_90 has no 64-bit shared atomic add: atomicAdd
// there is a compare-and-swap loop, ATOMS.CAST.SPIN.64, which contention serialises), the warp
// sums first (shuffles) or each word gets one owner that adds with plain loads and stores.
//
// A bin value v of bin b is an integer multiple of the bin's spacing g_b = 2^(L + pos_b) (L the
// partial's last bit) below 2^53 g_b in magnitude (the bin bounds), so its digit v / g_b is an
// int64, exactly (a multiplication by a power of two and a conversion of an integer-valued
// double). The digits of one bin over a block of at most 256 threads sum below 2^61 in int64.
// Each bin total T goes into the partial's carry-save limbs as T 2^pos_b = hi 2^64 + lo (lo the
// unsigned low 64 bits of T 2^(pos_b mod 32), hi = T >> (64 - s), arithmetic): three pieces,
// the low two in [0, 2^32), the top one below 2^31 in magnitude; pieces beyond the top limb go
// into it, shifted (the top limb's bound). Carry-save limbs of a block stay inside int64: the
// bin totals put at most a few pieces below 2^32 on a limb, and so does each spill of a thread
// (at most 6 pieces a limb: 2^35), so a block absorbs 2^27 spills, i.e. 2^41 inputs (a spill per
// 2^14 floats; 2^13 for bfloat16, half and products: 2^40), more than any grid gives one block.

// The OR over a warp's lanes (every lane gets it; shuffles, so that sm_75 compiles it too).
__device__ __forceinline__ std::uint32_t warp_or(std::uint32_t v) {
  TCR_UNROLL
  for (int d = 16; d >= 1; d /= 2)
    v |= __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

// The 64-bit sum over a warp's lanes (every lane gets it).
__device__ __forceinline__ long long warp_sum64(long long v) {
  TCR_UNROLL
  for (int d = 16; d >= 1; d /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

// The maximum over a warp's lanes (every lane gets it).
__device__ __forceinline__ int warp_max(int v) {
  TCR_UNROLL
  for (int d = 16; d >= 1; d /= 2) {
    const int o = __shfl_xor_sync(0xffffffffu, v, d);
    v = o > v ? o : v;
  }
  return v;
}

// A block's exact_partial<T> in shared memory, as raw storage (a __shared__ variable takes no
// initialiser: its users zero it with zero_partial). Tag separates the partials of different
// users in one kernel. Its limbs take carry-save adds by shared atomics (as unsigned long long:
// the same object representation as the int64 limbs).
template <class Tag, class T>
__device__ exact_partial<T>& shared_partial() {
  __shared__ alignas(exact_partial<T>) unsigned char s_partial[sizeof(exact_partial<T>)];
  return *reinterpret_cast<exact_partial<T>*>(s_partial);
}
template <class T>
__device__ unsigned long long* limbs_of(exact_partial<T>& p) {
  return reinterpret_cast<unsigned long long*>(p.limb);
}

// s = the empty partial (every byte zero, padding too: the partial is copied out whole), by
// the block's Threads threads; the caller's barrier follows.
template <int Threads, class T>
__device__ void zero_partial(exact_partial<T>& s) {
  static_assert(sizeof(exact_partial<T>) % 8 == 0, "exact_partial: whole 8-byte words");
  constexpr int words = int(sizeof(exact_partial<T>) / 8);
  unsigned long long* w = reinterpret_cast<unsigned long long*>(&s);
  if constexpr (words <= Threads) {
    if (int(threadIdx.x) < words) // one store per thread: no loop to compile
      w[threadIdx.x] = 0;
  } else {
    for (int k = threadIdx.x; k < words; k += Threads)
      w[k] = 0;
  }
}

// The limbs of a partial as the lanes of one warp hold them for canonicalise_warp: lane i has
// limb 32 j + i in v[j] (0 beyond the top limb).
template <class T>
using warp_limbs = long long[(exact_partial<T>::limbs + 31) / 32];

// RN_V of the exact sum that the canonical partial s stands for (V: float, double, __half,
// __nv_bfloat16), by the 32 lanes of one warp together: exact_sum<T>::finish<V>'s result, bit for
// bit, in every lane. Lane i reads limbs 32 j + i. The steps of exact_sum::round_canonical and
// round_digits, each over the limbs at once instead of one limb after another:
//   - special values from the flags (uniform);
//   - a negative sum's magnitude digits (exact_sum::magnitude_digits, the two's complement of
//     the canonical digits): `low`, its lowest nonzero limb below the top, by a ballot;
//   - the top nonzero limb of the magnitude (a ballot) and its bit width: the top bit P, the
//     last kept bit sh = t - L (t the exponent of RN_V's last bit);
//   - q = floor(m / 2^sh) mod 2^64, the sum of every limb's shifted part (the parts occupy
//     disjoint bits of the 64-bit window, apart from the top limb, which exact_sum::window adds
//     in the same way: modulo 2^64); the half bit (bit sh - 1) and the sticky bit (any bit below
//     it) by ballots; q + up, the exponent field and the sign as in round_digits.
// SASS for sm_90 (nvcc 13.0): about 190 instructions (float and product partials into float or
// double), against 590 (float) and 1000 (products) for exact_finish on one thread; on the H200
// the exact modes' small sizes gain 0.3-1.3 us per call (Dot of 2^10 floats 9.6 -> 8.4 us).
template <class V, class T>
__device__ V round_warp(const exact_partial<T>& s) {
  using F = exact_format<T>;
  using VF = exact_format<V>;
  constexpr int NL = exact_partial<T>::limbs;
  constexpr int J = (NL + 31) / 32;
  constexpr unsigned full = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::uint32_t flags = s.flags;
  if (has_special(flags))
    return special_result<V>(flags);
  const bool negative = s.limb[NL - 1] < 0;
  long long a[J];
  TCR_UNROLL
  for (int j = 0; j < J; ++j)
    a[j] = 32 * j + lane < NL ? s.limb[32 * j + lane] : 0;
  if (negative) {
    int low = NL - 1; // the lowest nonzero limb below the top
    TCR_UNROLL
    for (int j = J - 1; j >= 0; --j) {
      const unsigned nz = __ballot_sync(full, 32 * j + lane < NL - 1 && a[j] != 0);
      if (nz != 0u)
        low = 32 * j + __ffs(nz) - 1;
    }
    TCR_UNROLL
    for (int j = 0; j < J; ++j) {
      const int k = 32 * j + lane;
      const long long d = a[j];
      if (k >= NL || k < low)
        a[j] = 0;
      else if (k == NL - 1)
        a[j] = low < NL - 1 ? -d - 1 : -d;
      else
        a[j] = (k == low ? (1ll << 32) : (1ll << 32) - 1) - d;
    }
  }
  int top = -1; // the highest nonzero limb of the magnitude
  TCR_UNROLL
  for (int j = 0; j < J; ++j) {
    const unsigned nz = __ballot_sync(full, a[j] != 0);
    if (nz != 0u)
      top = 32 * j + 31 - __clz(static_cast<int>(nz));
  }
  if (top < 0) // the exact sum is zero
    return zero_result<V>(flags);
  long long own_top = 0; // this lane's limb in the top limb's slot
  TCR_UNROLL
  for (int j = 0; j < J; ++j)
    if (j == top / 32)
      own_top = a[j];
  const auto top_limb = static_cast<unsigned long long>(__shfl_sync(full, own_top, top % 32));
  constexpr int M = VF::fraction_bits;
  constexpr int L = F::lsb_exponent;
  const int P = 32 * top + bit_width64(top_limb) - 1; // the top bit
  const int t = L + P - M > VF::lsb_exponent ? L + P - M : VF::lsb_exponent;
  const int sh = t - L; // bits of the magnitude below RN_V's last bit
  const int pos = sh > 0 ? sh : 0;
  long long part = 0; // this lane's limbs' bits of floor(m / 2^pos) mod 2^64
  bool half = false, sticky = false;
  TCR_UNROLL
  for (int j = 0; j < J; ++j) {
    const int lo = 32 * (32 * j + lane); // the limb's lowest bit
    const auto u = static_cast<unsigned long long>(a[j]);
    const int d = lo - pos;
    if (d > -32 && d < 0)
      part += static_cast<long long>(u >> -d);
    else if (d >= 0 && d < 64)
      part += static_cast<long long>(u << d);
    if (sh > 0) {            // (the top limb may pass 2^32: its bits are read as 64)
      const int hb = sh - 1; // the half bit
      if (hb >= lo && hb < lo + 64)
        half = half || ((u >> (hb - lo)) & 1u) != 0;
      if (lo < hb) // bits below the half bit
        sticky = sticky || (hb - lo >= 64 ? u != 0 : (u & ((1ull << (hb - lo)) - 1)) != 0);
    }
  }
  auto q = static_cast<unsigned long long>(warp_sum64(part));
  if (sh <= 0) {
    q <<= -sh; // exact: m < 2^(M + 1 + sh)
  } else {
    const bool h = __any_sync(full, half);
    const bool st = __any_sync(full, sticky);
    q += h && (st || (q & 1u)) ? 1u : 0u;
  }
  return encode_rounded<V>(t, q, negative);
}

// Whether round_warp gives Out: the plain floating-point results.
template <class Out>
inline constexpr bool warp_roundable_v =
    std::is_same_v<Out, float> || std::is_same_v<Out, double> || std::is_same_v<Out, __half> ||
    std::is_same_v<Out, __nv_bfloat16>;
// exact_finish<Out>(p) by the 32 lanes of one warp together, the same bits in every lane:
// round_warp for the plain floating-point results, exact_finish itself (in every lane) else.
template <class Out, class T>
__device__ Out warp_exact_finish(const exact_partial<T>& p) {
  if constexpr (warp_roundable_v<Out>)
    return round_warp<Out>(p);
  else
    return exact_finish<Out>(p);
}

// The carry-save partial s (in shared memory, all its adds done and visible to the warp) made
// canonical in place by the 32 lanes of one warp (canonicalise_warp), then a __syncwarp: every
// lane may read it after. Lane i holds limbs i, i + 32, ... (at most 3: no lane holds it whole).
template <class T>
__device__ void canonical_in_place_warp(exact_partial<T>& s) {
  constexpr int L = exact_partial<T>::limbs;
  const int lane = static_cast<int>(threadIdx.x & 31);
  warp_limbs<T> v;
  TCR_UNROLL
  for (int j = 0; j < (L + 31) / 32; ++j)
    v[j] = 32 * j + lane < L ? s.limb[32 * j + lane] : 0;
  canonicalise_warp<L>(v);
  TCR_UNROLL
  for (int j = 0; j < (L + 31) / 32; ++j)
    if (32 * j + lane < L)
      s.limb[32 * j + lane] = v[j];
  __syncwarp();
}

// The block's carry-save partial s (all its adds done and behind a barrier) made canonical in
// place, by warp 0 (canonicalise_warp: the digits of exact_sum::canonicalise), then a barrier:
// every thread may read it after. No thread holds it whole (a copy of double's 66 limbs would
// take 132 registers or a local frame); a lane holds at most 3 limbs.
template <class T>
__device__ const exact_partial<T>& canonical_in_place(exact_partial<T>& s) {
  if (threadIdx.x < 32)
    canonical_in_place_warp(s);
  __syncthreads();
  return s;
}

// The flags word of a partial in shared memory, written whole (with its padding: the partial is
// copied out whole) by one thread.
template <class T>
__device__ void store_flags_word(exact_partial<T>& s, std::uint32_t flags) {
  static_assert(sizeof(exact_partial<T>) == 8 * (exact_partial<T>::limbs + 1),
                "exact_partial: the flags and their padding are the last 8-byte word");
  reinterpret_cast<unsigned long long*>(&s)[exact_partial<T>::limbs] = flags;
}

// The merge of count canonical partials g[0 .. count) (written by other blocks of this grid:
// read from L2), a collective of the block's Threads threads; the result, canonical, in shared
// memory, read by every thread. Warp w sums limbs w, w + warps, ...: each lane adds those limbs of
// partials lane, lane + 32, ... (carry-save: at most 64 canonical digits, below 2^38), the warp
// sums them (below 2^43) and lane 0 stores the limb: every limb has one writer, no atomics. Warp
// 0 also ORs the flags. Then warp 0 propagates the carries (canonical_in_place). A lane loads
// `batch` partials' words at once (up to 8 words: float's 2 limbs per warp of 256 threads, 4
// partials), so that the loop waits for one L2 round trip per batch instead of one per partial
// (528 blocks: 17 round trips in a row). The sums are of integers, so the batching changes no bit.
// (H200: 16 words made the grid kernels of products and squares 1-9% slower at 2^22..2^28 by
// their register allocation; 8 words leave them as fast or faster.)
//
// Partials of doubles (66 limbs and the flags: 536 bytes) are read whole instead
// (merge_whole_partials): the layout above reads limb k of 32 partials per warp load, 32 sectors
// for 256 bytes, and the f64 Sum's last block (a grid of 512 at 2^20) left a tail of about 22 us
// on one SM (H100, ncu: 64.8 k cycles elapsed, 20.9 k active on the average SM); reading whole
// partials took 2^20 from 36.4 to 24.6 us.
//
// One batch of either layout: limb[r] += word first + r word_step of partials i0 + j step
// (j < Batch, those below count; words below the limbs only), loaded together before any add;
// flags |= their flags words where flag_reader.
template <int Batch, int Words, class T>
__device__ __forceinline__ void
add_partial_words(const exact_partial<T>* g, int count, int i0, int step, int first, int word_step,
                  bool flag_reader, long long (&limb)[Words], std::uint32_t& flags) {
  constexpr int L = exact_partial<T>::limbs;
  long long w[Batch][Words];
  std::uint32_t f[Batch];
  TCR_UNROLL
  for (int j = 0; j < Batch; ++j) {
    const int i = i0 + step * j;
    const long long* src = reinterpret_cast<const long long*>(g + i);
    TCR_UNROLL
    for (int r = 0; r < Words; ++r)
      w[j][r] = i < count && first + r * word_step < L ? __ldcg(src + first + r * word_step) : 0;
    f[j] = flag_reader && i < count
               ? static_cast<std::uint32_t>(__ldcg(reinterpret_cast<const int*>(&g[i].flags)))
               : 0u;
  }
  TCR_UNROLL
  for (int j = 0; j < Batch; ++j) {
    TCR_UNROLL
    for (int r = 0; r < Words; ++r)
      limb[r] += w[j][r];
    flags |= f[j];
  }
}
template <class T, int Threads>
__device__ const exact_partial<T>& merge_limbwise(const exact_partial<T>* g, int count) {
  struct merged;
  constexpr int L = exact_partial<T>::limbs;
  constexpr int warps = Threads / 32;
  exact_partial<T>& s = shared_partial<merged, T>();
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  constexpr int per_warp = (L + warps - 1) / warps; // limbs k = warp + r warps
  constexpr int batch = per_warp >= 8 ? 1 : 8 / per_warp;
  long long limb[per_warp] = {};
  std::uint32_t flags = 0;
  for (int i0 = lane; i0 < count; i0 += 32 * batch)
    add_partial_words<batch>(g, count, i0, 32, warp, warps, warp == 0, limb, flags);
  TCR_UNROLL
  for (int r = 0; r < per_warp; ++r) {
    const long long t = warp_sum64(limb[r]);
    if (lane == 0 && warp + r * warps < L)
      s.limb[warp + r * warps] = t;
  }
  if (warp == 0) {
    flags = warp_or(flags);
    if (lane == 0)
      store_flags_word(s, flags);
  }
  __syncthreads();
  return canonical_in_place(s);
}

// merge_partials_block's result (the same integer sums, so the same canonical partial) with
// coalesced reads: warp w sums partials w, w + warps, ... (`batch` of them in flight), lane l
// their limbs l, l + 32, ... (a warp load reads 256 consecutive bytes of one partial); the warps'
// sums meet in shared memory, where thread k adds limb k over the warps. Each lane's sum holds
// at most count / warps canonical digits, far inside int64, as the warp sums above.
template <class T, int Threads>
__device__ const exact_partial<T>& merge_whole_partials(const exact_partial<T>* g, int count) {
  struct merged_whole;
  constexpr int L = exact_partial<T>::limbs;
  constexpr int warps = Threads / 32;
  constexpr int per_lane = (L + 31) / 32; // limbs lane, lane + 32, ... of each partial
  constexpr int batch = 4;                // partials per warp in flight
  __shared__ long long s_warp[warps][L];
  __shared__ std::uint32_t s_flags[warps];
  exact_partial<T>& s = shared_partial<merged_whole, T>();
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  long long limb[per_lane] = {};
  std::uint32_t flags = 0;
  for (int i0 = warp; i0 < count; i0 += warps * batch)
    add_partial_words<batch>(g, count, i0, warps, lane, 32, lane == 0, limb, flags);
  TCR_UNROLL
  for (int r = 0; r < per_lane; ++r)
    if (lane + 32 * r < L)
      s_warp[warp][lane + 32 * r] = limb[r];
  if (lane == 0)
    s_flags[warp] = flags;
  __syncthreads();
  for (int k = threadIdx.x; k < L; k += Threads) {
    long long t = 0;
    TCR_UNROLL
    for (int v = 0; v < warps; ++v)
      t += s_warp[v][k];
    s.limb[k] = t;
  }
  if (threadIdx.x == 0) {
    std::uint32_t all = 0;
    for (int v = 0; v < warps; ++v)
      all |= s_flags[v];
    store_flags_word(s, all);
  }
  __syncthreads();
  return canonical_in_place(s);
}

// The merge of the comment above merge_limbwise, in the layout that suits T: whole partials for
// the long states (double's 66 limbs, double_products' 132).
template <class T, int Threads>
__device__ const exact_partial<T>& merge_partials_block(const exact_partial<T>* g, int count) {
  if constexpr (exact_partial<T>::limbs > 32)
    return merge_whole_partials<T, Threads>(g, count);
  else
    return merge_limbwise<T, Threads>(g, count);
}

// Whether the calling lanes are the whole warp (an opportunistic test: lanes that happen to run
// together; a false answer only costs the slower per-lane path).
__device__ __forceinline__ bool whole_warp() {
  return __activemask() == 0xffffffffu;
}
} // namespace detail
#endif

#if defined(__CUDACC__)
namespace detail {
// The shared state of a block of binned accumulators: Bins bins per thread (bins[b][thread]),
// the block's carry-save limbs of an exact_partial<T> (the spills of threads that pass their
// add limit, then the block's bin totals), the bin totals and the flags. Everything an
// accumulator keeps besides is a register (no local memory: a per-thread state in local memory
// costs a write and a read of its frame per thread, which at mid sizes is as much traffic as the
// input). `Tag` separates the shared arrays of different accumulator types in one kernel. `B`:
// the bins' type (double; float for exact_bins_bf16_float), which hold the inputs times
// 2^BinScale (the spacings are those of the inputs).
template <class Tag, class T, int Bins, int Threads, class B = double, int BinScale = 0>
struct binned_block {
  static constexpr int limbs = exact_partial<T>::limbs;
  static constexpr int L = exact_format<T>::lsb_exponent;

  // A bin's sum of inputs as a double, exactly: the bin times 2^-BinScale (a float bin's
  // subnormals too: no ftz conversion).
  __device__ static double widen_bin(const B& v) {
    static_assert(BinScale <= 0 && BinScale > -64, "bins of inputs scaled by 2^-k");
    if constexpr (std::is_same_v<B, float>) {
      double d;
      asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(v));
      return d * static_cast<double>(std::uint64_t(1) << -BinScale);
    } else {
      static_assert(BinScale == 0, "double bins hold the inputs as they are");
      return v;
    }
  }
  __device__ static B* bins_of_thread() {
    __shared__ B s_bins[Bins * Threads];
    return s_bins + threadIdx.x;
  }
  // The block's carry-save partial (shared memory).
  __device__ static exact_partial<T>& block_sum() { return shared_partial<Tag, T>(); }
  __device__ static unsigned long long* limb_array() { return limbs_of(block_sum()); }
  // The bin totals (one bin: the warps' totals of it).
  static constexpr int warps = Threads / 32;
  static constexpr int totals = Bins > 1 ? Bins : warps;
  __device__ static long long* total_array() {
    __shared__ long long s_total[totals];
    return s_total;
  }
  __device__ static std::uint32_t* flags_word() { return &block_sum().flags; }

  // Empty bins (-0 each), zero limbs and flags; a barrier (a collective of the block).
  __device__ static void prepare(bool shared_bins) {
    if (shared_bins) {
      B* b = bins_of_thread();
      TCR_UNROLL
      for (int k = 0; k < Bins; ++k)
        b[k * Threads] = B(-0.0);
    }
    zero_partial<Threads>(block_sum());
    __syncthreads();
  }

  // A digit d of spacing 2^g into the block's limbs; where the whole warp runs this together
  // (whole_warp(), with the same g in every lane), the warp's sum of the digits by lane 0 (each
  // digit below 2^53, the sum below 2^58): one set of atomics per warp, not 32 contending ones.
  __device__ static void add_digit(long long d, int g, bool together) {
    if (together) {
      d = warp_sum64(d);
      if ((threadIdx.x & 31) != 0)
        return;
    }
    if (d != 0)
      atomic_add_scaled<limbs>(limb_array(), d, g - L);
  }

  // This thread's bins (or its one register bin `one`) into the block's limbs, digit by digit,
  // and cleared. Rare (once per add limit): not inlined, and with no `this`, so that nothing of
  // the accumulator needs an address.
  template <class Spacing>
  __device__ static __noinline__ void spill(bool shared_bins, double one) {
    std::uint32_t flags = 0;
    const bool together = whole_warp(); // the bins' spacings are the same in every lane
    if (shared_bins) {
      B* b = bins_of_thread();
#pragma unroll 1
      for (int k = 0; k < Bins; ++k) {
        const B v = b[k * Threads];
        if constexpr (std::is_same_v<B, float>) {
          // Float bins spill every 512 inputs: skip the bins no lane has touched (-0), for the
          // whole warp at once where it runs together (a uniform branch around the warp sum).
          const bool empty = __float_as_uint(v) == 0x80000000u;
          if (together ? __all_sync(0xffffffffu, empty) : empty)
            continue;
        }
        add_digit(bin_digit(widen_bin(v), Spacing::exponent(k), flags), Spacing::exponent(k),
                  together);
        b[k * Threads] = B(-0.0);
      }
    } else {
      add_digit(bin_digit(one, Spacing::exponent(0), flags), Spacing::exponent(0), together);
    }
    if (flags != 0)
      atomicOr(flags_word(), flags);
  }

  // The block's partial (a collective; the result, canonical, in shared memory, read by every
  // thread until the block's next prepare). Warp w sums bins w, w + warps, ... over the block's
  // threads as integer digits (lane i: threads i, i + 32, ...; consecutive doubles, no bank
  // conflicts; below 2^61 for 256 threads) and stores each total (one bin: every warp its sum
  // of it); then warp 0 adds every total's pieces to the limbs it holds (limb_piece: each limb
  // one owner, plain adds) and propagates the carries (canonicalise_warp). No 64-bit atomics.
  template <class Spacing>
  __device__ static const exact_partial<T>& partial(bool shared_bins, double one) {
    __syncthreads(); // every thread's bins and spills are in
    std::uint32_t flags = 0;
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int warp = static_cast<int>(threadIdx.x >> 5);
    if (shared_bins) {
      const B* all = bins_of_thread() - threadIdx.x;
#pragma unroll 1
      for (int b = warp; b < Bins; b += warps) {
        const int g = Spacing::exponent(b);
        long long sum = 0;
        TCR_UNROLL
        for (int j = 0; j < Threads / 32; ++j)
          sum += bin_digit(widen_bin(all[b * Threads + lane + 32 * j]), g, flags);
        sum = warp_sum64(sum);
        if (lane == 0)
          total_array()[b] = sum;
      }
    } else {
      const long long sum = warp_sum64(bin_digit(one, Spacing::exponent(0), flags));
      if (lane == 0)
        total_array()[warp] = sum;
    }
    flags = warp_or(flags);
    if (lane == 0 && flags != 0)
      atomicOr(flags_word(), flags);
    __syncthreads();
    exact_partial<T>& s = block_sum();
    if (warp == 0) {
      warp_limbs<T> v;
      TCR_UNROLL
      for (int j = 0; j < (limbs + 31) / 32; ++j) {
        const int k = 32 * j + lane;
        long long d = k < limbs ? s.limb[k] : 0;
#pragma unroll 1
        for (int b = 0; b < totals; ++b) {
          const long long t = total_array()[b]; // the same in every lane: a uniform branch
          if (t != 0)
            d += limb_piece<limbs>(t, Spacing::exponent(Bins > 1 ? b : 0) - L, k);
        }
        v[j] = k < limbs ? d : 0;
      }
      canonicalise_warp<limbs>(v);
      TCR_UNROLL
      for (int j = 0; j < (limbs + 31) / 32; ++j)
        if (32 * j + lane < limbs)
          s.limb[32 * j + lane] = v[j];
    }
    __syncthreads();
    return s;
  }
};

// The shared state of binned accumulators that keep one partial per warp instead of one per
// block (Sum of the f64 rows, Dot of doubles: binned_exact_sum_f64 and binned_exact_dot_f64 with
// PerWarp, the accumulators of the segmented exact kernel of doubles, where a warp folds a
// segment alone or the warps of a block fold one together): the bins as binned_block's
// (bins[b][thread], stride Threads), and warp w's carry-save limbs and flags in partial w. A
// spill adds to the limbs of its own warp; the slow path's atomics likewise. The carry-save
// bound of binned_block holds for each warp's limbs and for their sum over the block (the same
// spills, spread over more words).
template <class Tag, class T, int Bins, int Threads>
struct binned_warps {
  static constexpr int limbs = exact_partial<T>::limbs;
  static constexpr int L = exact_format<T>::lsb_exponent;
  static constexpr int warps = Threads / 32;

  __device__ static double* bins_of_thread() {
    __shared__ double s_bins[Bins * Threads];
    return s_bins + threadIdx.x;
  }
  // Partial w of the block's warps (raw storage: zeroed by prepare_warp).
  __device__ static exact_partial<T>* partials() {
    __shared__ alignas(exact_partial<T>) unsigned char s[warps * sizeof(exact_partial<T>)];
    return reinterpret_cast<exact_partial<T>*>(s);
  }
  __device__ static exact_partial<T>& warp_sum() { return partials()[threadIdx.x >> 5]; }
  __device__ static unsigned long long* limb_array() { return limbs_of(warp_sum()); }
  __device__ static std::uint32_t* flags_word() { return &warp_sum().flags; }

  // This thread's bins -0, its warp's partial zero (every byte), then a __syncwarp: a collective
  // of the whole warp.
  __device__ static void prepare_warp() {
    double* b = bins_of_thread();
    TCR_UNROLL
    for (int k = 0; k < Bins; ++k)
      b[k * Threads] = -0.0;
    constexpr int words = int(sizeof(exact_partial<T>) / 8);
    unsigned long long* w = reinterpret_cast<unsigned long long*>(&warp_sum());
    for (int k = static_cast<int>(threadIdx.x & 31); k < words; k += 32)
      w[k] = 0;
    __syncwarp();
  }
};
} // namespace detail
#endif

// binned_exact_sum<X, Threads>: the exact sum of inputs X (header comment), in blocks of
// Threads threads (the bins' stride). The accumulator of reduce/detail/device_kernel.cuh's exact
// modes: prepare() (a collective, before the first add), add(x) per thread, then the collectives
// block_partial() (the block's canonical exact_partial<float>, in shared memory: every thread
// reads it) and, in the last block, merge_partials(g, count) (likewise); merge, finish and
// empty_result as compensated/reductions.cuh's accumulators. There is no per-thread partial(): a
// thread's spills go straight into the block's shared limbs. Equal sums have equal partials
// (canonical), so equal results. Policy: the bins (detail::exact_bins_of<X>, or a variant such
// as detail::exact_bins_bf16_float for X = __nv_bfloat16).
template <class X, int Threads, class Policy = detail::exact_bins_of<X>>
struct binned_exact_sum {
  using policy = Policy;
  using bin_type = typename policy::bin_type;
  static constexpr int bins = policy::bins;
  static constexpr int threads = Threads;
  static constexpr bool shared_bins = bins > 1;
  static_assert(Threads >= 32 && Threads % 32 == 0, "tcr::binned_exact_sum: whole warps");
  static_assert(bins == 1 || bins * Threads * sizeof(bin_type) <= 48 * 1024,
                "tcr::binned_exact_sum: the bins of a block fit 48 KB of static shared memory");
  static_assert(bins == 1 || std::is_same_v<bin_type, double> || policy::float_group == 1,
                "tcr::binned_exact_sum: float bins take the inputs one by one");
  using value_type = float;
  using partial_type = exact_partial<float>;
  using compact_type = void;

  double one_bin = -0.0;  // the bin of the one-bin types (a register)
  std::uint32_t adds = 0; // inputs since the last spill

  // The exponent of bin b's spacing g_b (header comment).
  struct spacing {
    TCR_HD static constexpr int exponent(int b) {
      if constexpr (bins > 1) {
        // At most the spacing of the top input position (exact_format<float>::max_position), so
        // that a digit's three pieces land within the limbs (atomic_add_scaled, limb_piece): for
        // exact_bins_bf16_float's top bin (2^114) only, whose digits then stay below 2^34. A
        // spacing below the bin's least is still a spacing of all its inputs.
        constexpr int top =
            detail::exact_format<float>::max_position + detail::exact_format<float>::lsb_exponent;
        constexpr bool clamped = policy::width * (bins - 1) - 127 - policy::fraction > top;
        const int g = (policy::width * b > 1 ? policy::width * b : 1) - 127 - policy::fraction;
        if constexpr (clamped)
          return g < top ? g : top;
        else
          return g;
      } else {
        return policy::lsb;
      }
    }
  };

#if defined(__CUDACC__)
  using block = detail::binned_block<binned_exact_sum, float, bins, Threads, bin_type,
                                     policy::scale_exponent>;

  __device__ void prepare() {
    block::prepare(shared_bins);
    one_bin = -0.0;
    adds = 0;
  }

  // Spills now where n more inputs could pass the add limit: then adds of up to n inputs in all
  // may follow with Checked = false (no check, so no possible call of the spill with loaded
  // values live across it: the kernels reserve before the loads of a partial round).
  __device__ void reserve(std::uint32_t n) {
    if (adds + n > policy::max_adds) {
      block::template spill<spacing>(shared_bins, one_bin);
      one_bin = -0.0;
      adds = 0;
    }
  }
  template <bool Checked = true, int N>
  __device__ void add(const X (&x)[N]) {
    static_assert(N >= 1 && std::uint32_t(N) <= policy::max_adds, "tcr::binned_exact_sum::add");
    if constexpr (Checked)
      reserve(std::uint32_t(N));
    adds += std::uint32_t(N);
    float f[N];
    widen_all(x, f);
    if constexpr (bins > 1 && std::is_same_v<bin_type, float>) {
      // bin + x 2^scale_exponent in one FFMA, exact (policy comment), written out so that no
      // -ftz=true can flush the subnormal products and sums the bottom bins hold.
      static_assert(policy::scale_exponent <= 0 && policy::scale_exponent > -32, "a power 2^-k");
      constexpr float scale = 1.0f / static_cast<float>(1u << -policy::scale_exponent);
      float* b = block::bins_of_thread();
      TCR_UNROLL
      for (int i = 0; i < N; ++i) {
        std::uint32_t u;
        std::memcpy(&u, &f[i], sizeof u);
        float& bin = b[((u >> policy::shift) & (bins - 1)) * Threads];
        float r;
        asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(f[i]), "f"(scale), "f"(bin));
        bin = r;
      }
    } else if constexpr (bins > 1) {
      double* b = block::bins_of_thread();
      TCR_UNROLL
      for (int i = 0; i < N; ++i) {
        std::uint32_t u;
        std::memcpy(&u, &f[i], sizeof u);
        b[((u >> policy::shift) & (bins - 1)) * Threads] += static_cast<double>(f[i]);
      }
    } else if constexpr (policy::float_group > 1) {
      // Groups of float_group inputs summed in float first, exactly (policy comment).
      TCR_UNROLL
      for (int i0 = 0; i0 < N; i0 += policy::float_group) {
        float g = f[i0];
        TCR_UNROLL
        for (int i = i0 + 1; i < N && i < i0 + policy::float_group; ++i)
          g += f[i];
        one_bin += static_cast<double>(g);
      }
    } else {
      TCR_UNROLL
      for (int i = 0; i < N; ++i)
        one_bin += static_cast<double>(f[i]);
    }
  }

  __device__ const partial_type& block_partial() const {
    return block::template partial<spacing>(shared_bins, one_bin);
  }
  __device__ const partial_type& merge_partials(const partial_type* g, int count) const {
    return detail::merge_partials_block<float, Threads>(g, count);
  }
#endif

  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    return exact_merge(a, b);
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    return exact_finish<Out>(p);
  }
#if defined(__CUDACC__)
  // finish by the 32 lanes of one warp together, the same bits in every lane.
  template <class Out>
  __device__ Out warp_finish(const partial_type& p) const {
    return detail::warp_exact_finish<Out>(p);
  }
#endif
  template <class Out>
  TCR_HD Out empty_result() const {
    return exact_sum<float>{}.template empty_result<Out>();
  }
};

#if defined(__CUDACC__)
namespace detail {
// The windows of rows of binned_exact_sum_f64 and binned_exact_dot_f64 (Rows: window_bins,
// bin_spacing_exponent(first row, k), piece_spacing_exponent(biased exponent)), over the block
// state Block (binned_block). A piece outside the window (or subnormal, or Inf / NaN, or +0) into
// the block's limbs, exactly.
template <class Block, class Rows>
__device__ __noinline__ void add_outside_piece(double p, int e) {
  std::uint32_t flags = 0;
  const int g = Rows::piece_spacing_exponent(e);
  const long long d = bin_digit_wide(p, g, flags);
  if (d != 0)
    atomic_add_scaled<Block::limbs>(Block::limb_array(), d, g - Block::L);
  if (flags != 0)
    atomicOr(Block::flags_word(), flags);
}
// The window's rows into the block's limbs (digits), and cleared. A lane without a window
// (first_row < 0: it has added nothing, its rows are -0) takes part with zero digits. Where
// the whole warp runs this together and every window is the same, the warp sums each row's
// digits (each below 2^53, the sum below 2^58) and lane 0 adds them: one set of atomics per
// warp; else each lane adds its own.
template <class Block, class Rows>
__device__ __noinline__ void spill_window_rows(int first_row) {
  std::uint32_t flags = 0;
  double* b = Block::bins_of_thread();
  bool together = whole_warp();
  int row0 = first_row;
  if (together) {
    const int top = warp_max(first_row);
    together = __all_sync(0xffffffffu, first_row < 0 || first_row == top);
    row0 = together ? top : first_row;
  }
  if (row0 < 0)
    return; // no lane of this warp (or this lane, alone) has a window
#pragma unroll 1
  for (int k = 0; k < Rows::window_bins; ++k) {
    const double v = b[k * Rows::threads];
    // A row that no lane of the warp has touched (-0 in every lane) adds nothing: skipped, for
    // the whole warp at once (a uniform branch around the warp sum).
    if (together && __all_sync(0xffffffffu, __double_as_longlong(v) ==
                                                static_cast<long long>(negative_zero_bits)))
      continue;
    const int g = Rows::bin_spacing_exponent(row0, k);
    long long d = bin_digit_wide(v, g, flags);
    b[k * Rows::threads] = -0.0;
    if (together) {
      d = warp_sum64(d);
      if ((threadIdx.x & 31) != 0)
        continue;
    }
    if (d != 0)
      atomic_add_scaled<Block::limbs>(Block::limb_array(), d, g - Block::L);
  }
  if (flags != 0)
    atomicOr(Block::flags_word(), flags);
}
} // namespace detail
#endif

// binned_exact_sum_f64<Threads>: the exact sum of doubles (Sum, Asum of f64), the interface of
// binned_exact_sum, its partial exact_partial<double>.
//
// Pieces. A double x (53 significant bits) is cut into hi = x with its low 27 fraction bits
// cleared (26 significant bits) and lo = x - hi (exact, below 2^27 ulp(x): at most 27
// significant bits; computed as -(hi - x), so a zero lo is -0 and leaves the zero sign alone;
// lo = -0 for Inf and NaN). A piece p with exponent e (unbiased) and at most 27 significant bits
// is a multiple of 2^(e - 26). Rows of 16 biased exponents: in row r (E in [16 r, 16 r + 16)),
// every normal piece is a multiple of g_r = 2^(16 r - 1023 - 26) below 2^(16 r + 16 - 1023), a
// ratio of 2^42, so 2^11 pieces sum exactly in a double (2^53), and for r <= 126 that sum stays
// below 2^(2032 - 1023 + 11) = 2^1020: finite.
//
// Window. All 128 rows would take 1 KB of shared memory per thread; a thread keeps a window of 8
// rows (128 exponents: data of a dynamic range up to 2^128 stays in it), base .. base + 7,
// chosen from the largest finite first input of the warp where it runs its first add together
// (that input's row - 3, clamped to 1 .. 119 so that row 0, whose subnormal pieces break the
// ratio, and rows 127 (Inf, NaN, sums that could overflow) never enter the window), so that a
// warp's lanes share their window and its spills sum across the warp. Any window gives the same
// exact sum: the choice only decides which pieces take the slow path below. Zero pieces are -0
// (split's lo where it vanishes; hi only for a -0 input) or +0 (hi of a +0 input): -0 is
// skipped, since it adds nothing and keeps the zero sign; +0 takes the slow path (its flag). A
// piece outside the window goes to the block's limbs at once, exactly, as the digit p / 2^(E - 1023
// - 26) for a normal piece (E its biased exponent; below 2^27) and p / 2^-1074 for a subnormal one
// (E = 0; a multiple of 2^-1074 below 2^-1022: below 2^52) at its position
// (detail::atomic_add_scaled): slow, but any data is summed exactly. Every 2^11 pieces, and at the
// end, a thread spills its window into the block's limbs (digits, as binned_block::spill). The
// spacings of row 1 and of the low pieces are below 2^-1022, so their digits take
// detail::bin_digit_wide (2^-g beyond the doubles). The split, the rows and the spacings are
// TCR_HD, so that the host tests model the kernel's path with the same code.
//
// Paired rows (Paired = true; a variant, not yet the default: bench/device_bench_tcr_exact.cu runs
// it as tcr.correctly_rounded.rows2): each row of the window has two bins, one for the hi pieces
// and one for the lo pieces of the inputs x in that row (by x's exponent), so one exponent, one
// window test and one address serve both pieces, and a lo piece is added as bin - (hi - x), the
// split's negation folded into the add (a - b is a + (-b) exactly, zeros included). The hi bins
// are the single rows' bins (above), each now taking only hi pieces. For x in row r >= 1
// (normal, E in [16 r, 16 r + 16)), lo is a multiple of ulp(x) = 2^(E - 1075) >= 2^(16 r - 1075)
// below 2^27 ulp(x) < 2^(16 r + 16 - 1048): a ratio of 2^42 again, so each bin takes 2^11 inputs
// exactly (the inputs, not the pieces: 2^11 inputs between spills where the single rows take
// 2^10), with lo spacing 2^(16 r - 1075) (>= 2^-1059). Inputs outside the window take the slow
// path piece by piece, as above. Twice the shared memory (16 bins: 32 KB for 256 threads).
template <int Threads, bool Paired = false, bool PerWarp = false>
struct binned_exact_sum_f64 {
  static constexpr int window = 8;
  static constexpr int threads = Threads;
  static constexpr std::uint32_t max_pieces = 1u << 11;
  // Adds to a bin per input: two pieces into one row, or one into each of a row's two bins.
  static constexpr std::uint32_t adds_per_input = Paired ? 1 : 2;
  static constexpr int window_bins = Paired ? 2 * window : window;
  static_assert(Threads >= 32 && Threads % 32 == 0, "tcr::binned_exact_sum_f64: whole warps");
  using value_type = double;
  using partial_type = exact_partial<double>;
  using compact_type = void;

  int base = -1;            // the window's first row (-1: not chosen yet)
  std::uint32_t pieces = 0; // since the last spill

  static constexpr int L = detail::exact_format<double>::lsb_exponent;

  // The exponent of row r's spacing g_r (header comment).
  TCR_HD static constexpr int spacing_exponent(int row) {
    return 16 * row - 1023 - 26 > L ? 16 * row - 1023 - 26 : L;
  }
  // The exponent of the spacing of the lo bin of row r >= 1 (paired rows: header comment).
  TCR_HD static constexpr int lo_spacing_exponent(int row) { return 16 * row - 1075; }
  // The spacing exponent of bin k of a window whose first row is row0 (single rows: row row0 + k;
  // paired: the hi bins, then the lo bins).
  TCR_HD static constexpr int bin_spacing_exponent(int row0, int k) {
    return k < window ? spacing_exponent(row0 + k) : lo_spacing_exponent(row0 + k - window);
  }
  // The exponent of the spacing of a piece outside the window, E its biased exponent: every
  // piece is a multiple of it (header comment; E = 0: a subnormal piece, a multiple of 2^L).
  TCR_HD static constexpr int piece_spacing_exponent(int e) { return e != 0 ? e - 1023 - 26 : L; }
  // The window's first row for a first input of biased exponent e (header comment).
  TCR_HD static constexpr int first_row(int e) {
    return (e >> 4) - 3 < 1 ? 1 : ((e >> 4) - 3 > 127 - window ? 127 - window : (e >> 4) - 3);
  }
  // Whether a piece of biased exponent e goes into the window of first row `base`, and its row k
  // there (subnormal pieces never do: they break row 0's ratio).
  TCR_HD static bool in_window(int e, int base, unsigned& k) {
    k = static_cast<unsigned>((e >> 4) - base);
    return k < static_cast<unsigned>(window) && e != 0;
  }
  // The biased exponent of x (the kernels' add path: exponent_field).
  TCR_HD static int biased_exponent(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return static_cast<int>((b >> 52) & 0x7ff);
  }
  // x = hi + lo, the pieces (header comment).
  // Inf and NaN stay whole (clearing a NaN's low bits could leave an Inf).
  TCR_HD static void split(double x, double& hi, double& lo) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    if (biased_exponent(x) == 0x7ff) {
      hi = x;
      lo = -0.0;
      return;
    }
    hi = clear_low_bits(x);
    lo = -(hi - x);
  }
  // x with its low 27 fraction bits cleared (split's hi).
  TCR_HD static double clear_low_bits(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    b &= ~std::uint64_t(0x7ffffff);
    double hi;
    std::memcpy(&hi, &b, sizeof hi);
    return hi;
  }

#if defined(__CUDACC__)
  using block =
      std::conditional_t<PerWarp,
                         detail::binned_warps<binned_exact_sum_f64, double, window_bins, Threads>,
                         detail::binned_block<binned_exact_sum_f64, double, window_bins, Threads>>;

  // A collective of the block (PerWarp: of the warp, for its own partial).
  __device__ void prepare() {
    if constexpr (PerWarp)
      block::prepare_warp();
    else
      block::prepare(true);
    base = -1;
    pieces = 0;
  }
  // PerWarp, every lane of the warp together, before its first add: the window of the warp's
  // lanes from their first inputs (a lane without one passes +0), as warp_first_row chooses it
  // where the whole warp adds together, so that the lanes share it and spill together.
  __device__ void choose_warp_window(double first) {
    static_assert(PerWarp, "tcr::binned_exact_sum_f64: the window of a warp's partial");
    const int e = biased_exponent(first);
    base = first_row(detail::warp_max(e == 0x7ff ? 0 : e));
  }
  // PerWarp: this thread's window into its warp's limbs (a collective of the whole warp where it
  // runs together), cleared; then the warp's partial holds every input its lanes added.
  __device__ void spill_warp() {
    static_assert(PerWarp, "tcr::binned_exact_sum_f64: the window of a warp's partial");
    spill_window(base);
  }

  template <int N>
  __device__ void add(const double (&x)[N]) {
    constexpr std::uint32_t adds = adds_per_input * std::uint32_t(N);
    static_assert(adds <= max_pieces, "tcr::binned_exact_sum_f64::add");
    if (pieces + adds > max_pieces) {
      spill_window(base);
      pieces = 0;
    }
    pieces += adds;
    if (base < 0)
      base = warp_first_row(x[0]);
    double* b = block::bins_of_thread();
    TCR_UNROLL
    for (int i = 0; i < N; ++i) {
      if constexpr (Paired) {
        const int e = exponent_field(x[i]);
        unsigned k;
        if (in_window(e, base, k)) { // finite and normal: split without the Inf / NaN test
          const double hi = clear_low_bits(x[i]);
          b[k * Threads] += hi;
          b[(k + window) * Threads] -= hi - x[i]; // + lo (header comment)
        } else {
          double hi, lo;
          split(x[i], hi, lo);
          add_outside_unless_negative_zero(hi, exponent_field(hi));
          add_outside_unless_negative_zero(lo, exponent_field(lo));
        }
      } else {
        double hi, lo;
        split(x[i], hi, lo);
        add_piece(b, hi);
        add_piece(b, lo);
      }
    }
  }

  __device__ const partial_type& block_partial() const {
    spill_window(base); // every thread: a warp's spill is a collective where it can be
    __syncthreads();
    return detail::canonical_in_place(block::block_sum());
  }
  __device__ const partial_type& merge_partials(const partial_type* g, int count) const {
    return detail::merge_partials_block<double, Threads>(g, count);
  }
#endif

  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    return exact_merge(a, b);
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    return exact_finish<Out>(p);
  }
#if defined(__CUDACC__)
  // finish by one warp together (as binned_exact_sum's).
  template <class Out>
  __device__ Out warp_finish(const partial_type& p) const {
    return detail::warp_exact_finish<Out>(p);
  }
#endif
  template <class Out>
  TCR_HD Out empty_result() const {
    return exact_sum<double>{}.template empty_result<Out>();
  }

private:
#if defined(__CUDACC__)
  // The window of the lanes that run this together: first_row of the largest finite first input
  // of the warp where the whole warp runs this together (so that its lanes share one window and
  // their spills sum across the warp; a zero, Inf or NaN first input of one lane does not move
  // it: a zero leader used to pin it at row 1, where every later input took the slow path), else
  // of the lane's own first input. Any window gives the same exact sum; this one only decides
  // which pieces take the slow path.
  __device__ static int warp_first_row(double x) {
    const int e = biased_exponent(x);
    const int finite = e == 0x7ff ? 0 : e;
    return first_row(detail::whole_warp() ? detail::warp_max(finite) : finite);
  }
  // biased_exponent from the high word alone (what the add path's SASS wants).
  __device__ static int exponent_field(double p) {
    return static_cast<int>(static_cast<unsigned>(__double2hiint(p)) >> 20) & 0x7ff;
  }
  __device__ void add_piece(double* b, double p) const {
    const int e = exponent_field(p);
    unsigned k;
    if (in_window(e, base, k))
      b[k * Threads] += p;
    else
      add_outside_unless_negative_zero(p, e);
  }
  __device__ static void add_outside_unless_negative_zero(double p, int e) {
    if (!is_negative_zero(p))
      add_outside(p, e);
  }
  // -0 adds nothing and leaves the zero sign alone (header comment), so it is skipped: every lo
  // of a double with at most 26 significant bits (a float widened, for one) is -0.
  __device__ static bool is_negative_zero(double p) {
    return __double_as_longlong(p) == static_cast<long long>(detail::negative_zero_bits);
  }
  __device__ static void add_outside(double p, int e) {
    detail::add_outside_piece<block, binned_exact_sum_f64>(p, e);
  }
  __device__ static void spill_window(int first_row) {
    detail::spill_window_rows<block, binned_exact_sum_f64>(first_row);
  }
#endif
};

namespace detail {
// The bins of the exact Dot and Nrm2 (binned_exact_dot): products and their pieces binned by
// their double exponent E (biased), 16 exponents a bin, from E = 720 (2^-303: below the least
// nonzero piece, 2^-298) to E = 1279 (2^256: above the largest finite product): 35 bins, the
// bin index clamped, so zeros (E = 0) go to bin 0 and Inf / NaN (E = 2047) to the top bin.
inline constexpr int product_bin_base = 720 >> 4;                       // 45
inline constexpr int product_bins = (1279 >> 4) - product_bin_base + 1; // 35
// A piece has at most 24 significant bits, so in a bin of 16 exponents it is an integer
// multiple of the bin's least spacing below 2^(16 + 23): 2^14 pieces sum exactly (header).
inline constexpr std::uint32_t product_max_pieces = 1u << 14;

// Whether products of X and Y values are exact in float-significand pieces of 24 bits without
// a split: both significands of at most 12 bits (half, bfloat16, fp8).
template <class X>
inline constexpr int significand_bits = std::is_same_v<X, float>           ? 24
                                        : std::is_same_v<X, __half>        ? 11
                                        : std::is_same_v<X, __nv_bfloat16> ? 8
                                        : std::is_same_v<X, __nv_fp8_e4m3> ? 4
                                                                           : 3;
} // namespace detail

namespace detail {
// What binned_exact_dot and binned_exact_dot_f64 share (Derived: the accumulator): Dot's adds of
// (x, y) and Nrm2's of x (squares), the operands widened exactly to W and passed to
// Derived::add_products<Checked>; merge, finish (the Dot's exact sum rounded once; Nrm2's
// detail::exact_norm_of) and empty_result over exact_partial<T>.
template <class Derived, class X, class Y, bool Squares, class W, class T>
struct binned_products {
  using partial_type = exact_partial<T>;
  using compact_type = void;

#if defined(__CUDACC__)
  template <bool Checked = true, int N>
  __device__ void add(const X (&x)[N], const Y (&y)[N]) {
    static_assert(!Squares, "tcr: binned exact Dot: two operands");
    W wx[N], wy[N];
    widen_all(x, wx);
    widen_all(y, wy);
    static_cast<Derived*>(this)->template add_products<Checked>(wx, wy);
  }
  template <bool Checked = true, int N>
  __device__ void add(const X (&x)[N]) {
    static_assert(Squares, "tcr: binned exact Nrm2: one operand");
    W wx[N];
    widen_all(x, wx);
    static_cast<Derived*>(this)->template add_products<Checked>(wx, wx);
  }
#endif

  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    return exact_merge(a, b);
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    static_assert(!Squares || !(std::is_same_v<Out, df32> || std::is_same_v<Out, dd>),
                  "tcr: the exact norm into a float, double, __half or __nv_bfloat16 result");
    if constexpr (Squares && !std::is_same_v<Out, partial_type>)
      return exact_norm_of<Out>(p);
    else
      return exact_finish<Out>(p);
  }
  template <class Out>
  TCR_HD Out empty_result() const {
    return exact_sum<T>{}.template empty_result<Out>();
  }
};
} // namespace detail

// binned_exact_dot<X, Y, Threads, Squares>: the exact sum of products x_i y_i (Squares: of
// x_i^2, one operand) of float-range inputs, in blocks of Threads threads; the same interface as
// binned_exact_sum, its partial exact_partial<float_products>. finish<Out> rounds the exact sum
// once (Dot); with Squares (Nrm2), the result is sqrt(RN_double(s)) rounded to Out: within 1 ulp
// of the true norm (the two double roundings add less than 2^-52 relative error before the
// rounding to Out; for a double result, RN(s) then a correctly rounded sqrt: at most
// 0.5 + 2^-1 u, under 1 ulp).
//
// Exactness. Each product p = x y of two floats is exact in double (24 + 24 < 53 significand
// bits, exponents within double's range), and a multiple of 2^-298 (x and y are multiples of
// 2^-149). p is cut into hi = p with its low 29 fraction bits cleared (24 significant bits) and
// lo = p - hi (below 2^-23 |p|, a multiple of p's last bit 2^(e - 47): at most 24 significant
// bits); both are exact, multiples of 2^-298 (lo is computed as -(hi - p): the same value, and
// -0 rather than +0 where lo vanishes, so a zero lo leaves the zero sign alone); where both
// significands have at most 12 bits p itself has at most 24 and is not cut. Each piece goes to
// the bin of its own exponent, where the argument of binned_exact_sum applies with 16 exponents
// and 24 bits: every bin holds an exact sum for up to 2^14 pieces, after which the thread spills
// its bins into the block's limbs. Contraction: p - hi may become an FMA of x, y and -hi, which
// computes the same exact value (p is exact), so contraction changes nothing. A non-finite p
// goes whole into the top bin (lo = -0 then, never Inf - Inf).
// e4m3 x e4m3 (Dot and Nrm2 of e4m3; one_bin): one register bin instead. An e4m3 value is a
// multiple of 2^-9 below 2^8.81 (448) with 4 significant bits, so a product is exact in float
// (8 significant bits, normal: at least 2^-18) and a multiple of 2^-18 below 2^17.62 (448^2 =
// 200704); 2^17 of them and any partial sum of them lie below 2^35 = 2^(53 - 18), where doubles
// hold every multiple of 2^-18: a double bin sums 2^17 products exactly, in any order, then
// spills its digit (spacing 2^-18) into the block's limbs as the many-bin case does. Per product:
// the float product, its widening and a DADD (no exponent, address or shared memory); the bin
// starts at -0 and keeps IEEE's zero sign as the shared bins do; e4m3 has NaN but no Inf, and its
// NaN products make the bin NaN, flagged at the spill.
template <class X, class Y, int Threads, bool Squares>
struct binned_exact_dot : detail::binned_products<binned_exact_dot<X, Y, Threads, Squares>, X, Y,
                                                  Squares, float, float_products> {
  static constexpr bool one_bin =
      std::is_same_v<X, __nv_fp8_e4m3> && (Squares || std::is_same_v<Y, __nv_fp8_e4m3>);
  static constexpr int bins = one_bin ? 1 : detail::product_bins;
  static constexpr int threads = Threads;
  static constexpr bool split = detail::significand_bits<X> + detail::significand_bits<Y> > 24;
  static_assert(Threads >= 32 && Threads % 32 == 0, "tcr::binned_exact_dot: whole warps");
  static_assert(bins * Threads * 8 <= 48 * 1024,
                "tcr::binned_exact_dot: the bins of a block fit 48 KB of static shared memory");
  using value_type = float;
  using partial_type = exact_partial<float_products>;
  static constexpr std::uint32_t pieces_per_product = split ? 2 : 1;
  // Pieces (products) a bin takes between spills (the header comments above).
  static constexpr std::uint32_t max_pieces = one_bin ? 1u << 17 : detail::product_max_pieces;

  double one = -0.0;        // the one bin (one_bin)
  std::uint32_t pieces = 0; // since the last spill

  // The exponent of bin b's spacing: 2^(E - 1023 - 23) for its least exponent E, but at least
  // 2^-298 (every piece is a multiple of it); the one bin's: 2^-18.
  struct spacing {
    TCR_HD static constexpr int exponent(int b) {
      if constexpr (one_bin)
        return -18;
      else
        return 16 * (b + detail::product_bin_base) - 1023 - 23 > -298
                   ? 16 * (b + detail::product_bin_base) - 1023 - 23
                   : -298;
    }
  };

#if defined(__CUDACC__)
  using block = detail::binned_block<binned_exact_dot, float_products, bins, Threads>;

  __device__ void prepare() {
    block::prepare(!one_bin);
    one = -0.0;
    pieces = 0;
  }

  // As binned_exact_sum's: n more products (squares) may follow with Checked = false.
  __device__ void reserve(std::uint32_t n) {
    if (pieces + n * pieces_per_product > max_pieces) {
      block::template spill<spacing>(!one_bin, one);
      one = -0.0;
      pieces = 0;
    }
  }
  __device__ const partial_type& block_partial() const {
    return block::template partial<spacing>(!one_bin, one);
  }
  __device__ const partial_type& merge_partials(const partial_type* g, int count) const {
    return detail::merge_partials_block<float_products, Threads>(g, count);
  }

  // finish by one warp together (as binned_exact_sum's; the norm: sqrt of round_warp<double>).
  template <class Out>
  __device__ Out warp_finish(const partial_type& p) const {
    if constexpr (Squares && !std::is_same_v<Out, partial_type>)
      return detail::exact_norm_result<Out>(detail::round_warp<double>(p));
    else
      return detail::warp_exact_finish<Out>(p);
  }
#endif

private:
#if defined(__CUDACC__)
  friend detail::binned_products<binned_exact_dot, X, Y, Squares, float, float_products>;
  template <bool Checked, int N>
  __device__ void add_products(const float (&fx)[N], const float (&fy)[N]) {
    static_assert(std::uint32_t(N) * pieces_per_product <= max_pieces,
                  "tcr::binned_exact_dot::add");
    if constexpr (Checked)
      reserve(std::uint32_t(N));
    pieces += std::uint32_t(N) * pieces_per_product;
    if constexpr (one_bin) {
      TCR_UNROLL
      for (int i = 0; i < N; ++i)
        one = __dadd_rn(one, static_cast<double>(__fmul_rn(fx[i], fy[i]))); // exact (above)
    } else {
      double* b = block::bins_of_thread();
      TCR_UNROLL
      for (int i = 0; i < N; ++i) {
        const double p = static_cast<double>(fx[i]) * static_cast<double>(fy[i]);
        if constexpr (split) {
          const long long pb = __double_as_longlong(p);
          const double hi = __longlong_as_double(pb & ~0x1fffffffll);
          const bool finite = (pb & 0x7ff0000000000000ll) != 0x7ff0000000000000ll;
          const double lo = finite ? -(hi - p) : -0.0;
          add_piece(b, hi);
          add_piece(b, lo);
        } else {
          add_piece(b, p);
        }
      }
    }
  }
  __device__ static void add_piece(double* b, double v) {
    const int e = static_cast<int>(static_cast<unsigned>(__double2hiint(v)) >> 20) & 0x7ff;
    int k = (e >> 4) - detail::product_bin_base;
    k = k < 0 ? 0 : (k > bins - 1 ? bins - 1 : k);
    b[k * Threads] += v;
  }
#endif
};

// binned_exact_dot_f64<X, Y, Threads, Squares>: the exact sum of products x_i y_i (Squares: of
// x_i^2) where an operand is double (the other widened to double, exactly); the interface of
// binned_exact_dot, its partial exact_partial<double_products> (compensated/exact.cuh: last bit
// 2^-2148, 132 limbs). finish<Out> rounds the exact sum once (Dot); with Squares (Nrm2) the
// result is detail::exact_norm_wide's (within 1 ulp of the true norm over the whole range).
//
// Exactness. A product x y of doubles x = Mx 2^qx, y = My 2^qy (integers Mx, My < 2^53,
// q = max(E, 1) - 1075 for the biased exponent E) splits into hi = RN(x y) and lo = x y - hi,
// computed as fma(x, y, -hi) (explicit roundings: contraction cannot merge them). lo is exact
// whenever hi is finite and qx + qy >= -1074: x y is a multiple of 2^(qx + qy) below
// 2^(106 + qx + qy), so ulp(hi) <= 2^(53 + qx + qy) and lo, a multiple of 2^(qx + qy) with
// |lo| <= ulp(hi) / 2, is an integer below 2^53 times 2^(qx + qy) >= 2^-1074: a double, and the
// FMA's one rounding returns it. Both conditions hold for max(Ex, 1) + max(Ey, 1) in
// [1076, 3067] (then |x y| < 2^(Ex + Ey - 2044) <= 2^1023, and for normal or subnormal operands
// qx + qy >= -1074; |x y| >= 2^-970, so hi is normal), and for any finite product with a zero
// operand (hi = +-0 with IEEE's sign, lo = 0). Other products (Inf or NaN operands, products
// beyond double's range or too small for lo) take the slow path: the 106-bit integer product
// Mx My (two 64-bit multiplies) goes into the block's limbs at once as two digits below 2^53
// (add_product_outside), with IEEE's special values and zero sign (detail::decompose_product).
//
// Bins. hi and lo are cut as binned_exact_sum_f64 cuts a double (hi piece: 26 significant bits,
// lo piece: at most 27), and the four pieces go to the rows (16 exponents each) of their own
// exponents, in a window of 12 rows per thread (24 KB of shared memory for 256 threads): the
// argument of binned_exact_sum_f64 holds for each row (pieces multiples of the row's spacing g_r
// below 2^42 g_r). A product puts at most two pieces into one row: hi's two pieces are at least
// 26 exponents apart, so are lo's, and |lo| <= 2^-53 |hi| (only hi's low piece and lo's high
// piece can share a row). So a thread spills its window every 2^10 products (2^11 pieces a row).
// The window's first row is 7 rows below the row of the largest first product of the lanes that
// start together (its pieces reach about 80 exponents below it): it holds the products within
// about 2^64 above it and every piece of them; pieces outside go to the limbs exactly, one by one
// (zero lo are skipped: hi carries the zero sign). Any window gives the same exact sum.
//
// Cost per product (both operands in range): the widening of non-double operands, a DMUL, a DFMA,
// two piece splits (a DADD each) and four window tests and bin adds (LDS.64, DADD, STS.64).
template <class X, class Y, int Threads, bool Squares, bool PerWarp = false>
struct binned_exact_dot_f64
    : detail::binned_products<binned_exact_dot_f64<X, Y, Threads, Squares, PerWarp>, X, Y, Squares,
                              double, double_products> {
  static constexpr int window = 12;
  static constexpr int window_bins = window;
  static constexpr int threads = Threads;
  // Products between spills (two pieces per row and product at most: header comment).
  static constexpr std::uint32_t max_products = 1u << 10;
  static_assert(Threads >= 32 && Threads % 32 == 0, "tcr::binned_exact_dot_f64: whole warps");
  static_assert(window * Threads * 8 <= 48 * 1024,
                "tcr::binned_exact_dot_f64: the bins of a block fit 48 KB of static shared memory");
  using value_type = double;
  using partial_type = exact_partial<double_products>;
  using rows = binned_exact_sum_f64<Threads>; // the rows' spacings, the split

  int base = -1;              // the window's first row (-1: not chosen yet)
  std::uint32_t products = 0; // since the last spill

  TCR_HD static constexpr int bin_spacing_exponent(int row0, int k) {
    return rows::spacing_exponent(row0 + k);
  }
  TCR_HD static constexpr int piece_spacing_exponent(int e) {
    return rows::piece_spacing_exponent(e);
  }
  // The window's first row for a product of biased exponent about e (header comment).
  TCR_HD static constexpr int first_row(int e) {
    return (e >> 4) - 7 < 1 ? 1 : ((e >> 4) - 7 > 127 - window ? 127 - window : (e >> 4) - 7);
  }
  // Whether hi = RN(x y), lo = fma(x, y, -hi) give x y exactly, from the biased exponents and
  // whether an operand is zero (header comment).
  TCR_HD static bool two_prod_exact(int ex, int ey, bool zero) {
    const int sx = ex > 1 ? ex : 1;
    const int sy = ey > 1 ? ey : 1;
    return ex != 0x7ff && ey != 0x7ff &&
           (zero || static_cast<unsigned>(sx + sy - 1076) <= static_cast<unsigned>(3067 - 1076));
  }

#if defined(__CUDACC__)
  using block = std::conditional_t<
      PerWarp, detail::binned_warps<binned_exact_dot_f64, double_products, window_bins, Threads>,
      detail::binned_block<binned_exact_dot_f64, double_products, window_bins, Threads>>;

  // A collective of the block (PerWarp: of the warp, for its own partial).
  __device__ void prepare() {
    if constexpr (PerWarp)
      block::prepare_warp();
    else
      block::prepare(true);
    base = -1;
    products = 0;
  }
  // PerWarp, every lane of the warp together, before its first add: the window from the lanes'
  // first products (a lane without one passes zeros), as binned_exact_sum_f64's.
  __device__ void choose_warp_window(double x, double y) {
    static_assert(PerWarp, "tcr::binned_exact_dot_f64: the window of a warp's partial");
    base = first_row(detail::warp_max(product_exponent(x, y)));
  }
  // PerWarp: this thread's window into its warp's limbs (binned_exact_sum_f64's).
  __device__ void spill_warp() {
    static_assert(PerWarp, "tcr::binned_exact_dot_f64: the window of a warp's partial");
    spill_window(base);
  }
  // n more products may follow with Checked = false (as binned_exact_dot's).
  __device__ void reserve(std::uint32_t n) {
    if (products + n > max_products) {
      spill_window(base);
      products = 0;
    }
  }
  __device__ const partial_type& block_partial() const {
    spill_window(base); // every thread: a warp's spill is a collective where it can be
    __syncthreads();
    return detail::canonical_in_place(block::block_sum());
  }
  __device__ const partial_type& merge_partials(const partial_type* g, int count) const {
    return detail::merge_partials_block<double_products, Threads>(g, count);
  }

  // finish by one warp together: round_warp for the Dot; the norm by every lane alone.
  template <class Out>
  __device__ Out warp_finish(const partial_type& p) const {
    if constexpr (Squares && !std::is_same_v<Out, partial_type>)
      return detail::exact_norm_wide<Out>(p);
    else
      return detail::warp_exact_finish<Out>(p);
  }
#endif

private:
#if defined(__CUDACC__)
  friend detail::binned_products<binned_exact_dot_f64, X, Y, Squares, double, double_products>;
  __device__ static int exponent_field(double p) {
    return static_cast<int>(static_cast<unsigned>(__double2hiint(p)) >> 20) & 0x7ff;
  }
  __device__ static bool is_zero(double v) {
    return (__double_as_longlong(v) << 1) == 0;
  }
  // The biased exponent of x y, about (0 for a zero, Inf or NaN operand): for the window's
  // choice only.
  __device__ static int product_exponent(double x, double y) {
    const int ex = exponent_field(x), ey = exponent_field(y);
    if (is_zero(x) || is_zero(y) || ex == 0x7ff || ey == 0x7ff)
      return 0;
    const int e = (ex > 1 ? ex : 1) + (ey > 1 ? ey : 1) - 1023;
    return e < 0 ? 0 : (e > 2046 ? 2046 : e);
  }
  // The window: first_row of the largest first product of the warp where the whole warp runs
  // this together (a zero first product of one lane does not pull the window down), else of the
  // lane's own.
  __device__ static int warp_first_row(double x, double y) {
    const int e = product_exponent(x, y);
    return first_row(detail::whole_warp() ? detail::warp_max(e) : e);
  }
  template <bool Checked, int N>
  __device__ void add_products(const double (&x)[N], const double (&y)[N]) {
    static_assert(std::uint32_t(N) <= max_products, "tcr::binned_exact_dot_f64::add");
    if constexpr (Checked)
      reserve(std::uint32_t(N));
    products += std::uint32_t(N);
    if (base < 0)
      base = warp_first_row(x[0], y[0]);
    double* b = block::bins_of_thread();
    TCR_UNROLL
    for (int i = 0; i < N; ++i) {
      const bool zero = is_zero(x[i]) || is_zero(y[i]);
      if (two_prod_exact(exponent_field(x[i]), exponent_field(y[i]), zero)) {
        const double hi = __dmul_rn(x[i], y[i]);
        const double lo = __fma_rn(x[i], y[i], -hi);
        add_double(b, hi);
        if (!is_zero(lo))
          add_double(b, lo);
      } else {
        add_product_outside(x[i], y[i]);
      }
    }
  }
  // v's two pieces (rows::split's, v finite) into the window or the limbs.
  __device__ void add_double(double* b, double v) const {
    const double hi = rows::clear_low_bits(v);
    add_piece(b, hi);
    add_piece(b, __dsub_rn(-0.0, __dsub_rn(hi, v))); // -(hi - v): -0 where it vanishes
  }
  __device__ void add_piece(double* b, double p) const {
    const int e = exponent_field(p);
    const auto k = static_cast<unsigned>((e >> 4) - base); // the row in the window
    if (k < static_cast<unsigned>(window) && e != 0)       // (subnormal pieces never: as rows')
      b[k * Threads] += p;
    else if (__double_as_longlong(p) != static_cast<long long>(detail::negative_zero_bits))
      detail::add_outside_piece<block, binned_exact_dot_f64>(p, e); // -0 adds nothing
  }
  __device__ static void spill_window(int first_row) {
    detail::spill_window_rows<block, binned_exact_dot_f64>(first_row);
  }
  // A product that TwoProd does not give exactly (header comment) into the block's limbs: the
  // 106-bit integer Mx My at bit px + py of the limbs (last bit 2^-2148), as two digits below
  // 2^53; the flags detail::decompose_product gives.
  __device__ static __noinline__ void add_product_outside(double x, double y) {
    const detail::product_parts d = detail::decompose_product(x, y);
    if (!d.special && !d.zero) {
      std::uint64_t hi, lo; // Mx My
      detail::mul_wide(d.mx, d.my, hi, lo);
      const auto d0 = static_cast<long long>(lo & ((1ull << 53) - 1));
      const auto d1 = static_cast<long long>((hi << 11) | (lo >> 53));
      if (d0 != 0)
        detail::atomic_add_scaled<block::limbs>(block::limb_array(), d.negative ? -d0 : d0, d.pos);
      if (d1 != 0)
        detail::atomic_add_scaled<block::limbs>(block::limb_array(), d.negative ? -d1 : d1,
                                                d.pos + 53);
    }
    if (d.flags != 0)
      atomicOr(block::flags_word(), d.flags);
  }
#endif
};

} // namespace tcr
