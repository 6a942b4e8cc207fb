// SPDX-License-Identifier: BSD-3-Clause
// tcr: exact (Kulisch-style) long accumulators for sums (thread level, no parallel code).
//
//   exact_sum<float>   the exact sum of float inputs (and of __half, __nv_bfloat16, e4m3 and
//                      e5m2, widened exactly to float) over the whole float range, 2^-149 ..
//                      2^128: a fixed-point number with its last bit at 2^-149, 9 limbs.
//   exact_sum<double>  the same for double inputs (and every input type above), last bit
//                      2^-1074, 66 limbs.
//   exact_sum<float_products>  sums of products of two float-range values (add_products; the
//                      exact Dot and Nrm2 of compensated/exact_binned.cuh build the same
//                      partials from binned doubles), last bit 2^-298, 19 limbs.
//   exact_sum<double_products>  sums of products of two doubles (add_products with double
//                      operands), last bit 2^-2148, 132 limbs.
//   exact_dot_sum<Squares>  Dot (and Nrm2: sums of squares) in the accumulator concept, over
//                      exact_sum<float_products> (the segmented and batched exact modes).
// finish<Out>(p) rounds the exact sum once, to nearest even, into Out (float, double, __half or
// __nv_bfloat16); df32 and dd give hi = RN(s), lo = RN(s - hi) with s - hi computed exactly.
//
// Limb layout. The state is sum_k limb[k] * 2^(32 k + L) with L = -149 (float) or -1074
// (double), limb[k] an int64: radix 2^32 digits with 31 bits of headroom for carry-save adds.
// A finite input is m * 2^(p + L) with m < 2^(F+1) (F = 23 or 52 fraction bits; subnormals
// have the implicit bit clear and the exponent of the smallest normals) and p = max(E, 1) - 1
// (E the biased exponent), so p <= 253 (float) or 2045 (double). m << (p mod 32) is cut into
// 32-bit pieces that go, with the input's sign, into limbs p / 32, p / 32 + 1 (and + 2 for
// double), the highest being limb 8 (float) or 65 (double).
//
// Carry-save bound. A canonical state (below) has every limb but the top one in [0, 2^32); an
// add changes each limb by a piece in [-(2^32 - 1), 2^32 - 1], and a merge of two accumulators
// adds the other side's limbs, one canonical digit plus that side's adds. After c adds (a merge
// counting the other's adds plus one) limb[k] lies in [-c (2^32 - 1), (c + 1) (2^32 - 1)]; for
// c + 1 <= 2^31 that is within 2^63 - 2^31, so normalise's limb + carry (|carry| < 2^31) stays
// inside int64 too: every limb absorbs max_adds = 2^31 - 1 adds. The accumulator counts them per
// add() call (one add and compare per vector, not per element) and normalises before the count
// would pass that. The top limb also holds the carries of the sum: the top pieces are below
// 2^22 (float; 2^19 double) and a normalised part's top is at most its sum |x_i| / 2^(L + 32
// (NL - 1)), so it stays inside int64 while sum |x_i| < 2^169 (float) or 2^1068 (double), which
// every n < 2^41 (float) or 2^44 (double) finite inputs meet.
//
// Canonical form and reproducibility. normalise() propagates carries upward (limb = t mod 2^32,
// carry = floor(t / 2^32), arithmetic shift), leaving limb[k] in [0, 2^32) for k < NL - 1 and the
// top limb signed: the two's complement digits of the exact sum, so the canonical state is a
// function of the exact sum alone (digits of an integer in a fixed radix are unique). partial()
// returns the canonical state, and merge(p, q) = normalise(p + q limb by limb) with flags
// p.flags | q.flags: integer addition is exact, commutative and associative, and so is OR, so
// the merged partial is the canonical form of (sum of all inputs, OR of all flags) whatever the
// tree of merges, the split of the data or the order of the adds: bitwise identical states, and
// finish is a function of the state, so bitwise identical results. Nothing here rounds, so
// contraction (-ffp-contract, -fmad) cannot change a bit: the decomposition reads the encoding
// (memcpy of the bits), never uses floating-point arithmetic.
//
// Special values, as plain summation gives them: flags record +inf, -inf and NaN inputs beside
// the limbs; the result is NaN if a NaN was seen or both infinities were, else the infinity seen.
// A finite exact sum beyond Out's range rounds to +-inf exactly where IEEE RN does (|s| >=
// 2^128 - 2^103 for float). Zeros: the exact sum of floats is a multiple of 2^L, so RN(s) is 0
// only when s is 0; then the result is -0 if every input was -0 (the empty state too: -0 is the
// identity of IEEE addition), +0 otherwise (x + -x and +0 + -0 are +0 under RN), a flag telling
// which. empty_result<Out>() is +0, as for the other reductions.
//
// Cost per float add (expected SASS, integer only): bit cast (0), exponent and fraction by BFE /
// LOP3 (2), implicit bit by ISETP + LOP3 (2), p = max(E, 1) - 1 (2: IMNMX, IADD), k and the
// shift (2: SHF, LOP), the 64-bit m << s (2 SHF: its two halves are the two pieces), the sign
// mask and the conditional negation of a 64-bit piece pair (1 SHF + 4 LOP3/IADD.X), two 64-bit
// limb adds (4 IADD with carry): about 19 integer instructions, plus the addressing of limb[k]:
// a dynamically indexed limb lives in local (or, per warp, shared) memory, 2 read-modify-writes
// of 8 bytes each; kept in registers instead, every limb is updated by a predicated select (about
// 5 instructions per limb, 45 for 9 limbs). Double adds cost about 50% more (3 pieces). The
// PTX of nvcc 13.0 for sm_90 (one float per add() call) matches: 22 integer operations and 2
// local-memory read-modify-writes per add, plus a predicated read-modify-write of flags for the
// -0 rule and of the add counter per call, because the whole state sits in a local frame (88
// bytes; no spills, 27 registers).
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "config.cuh"
#include "convert.cuh"
#include "double_word.cuh"

// Loops over the limbs: unrolled on the device for the short states (exact_sum::unroll_limbs),
// a loop for double's 66; host compilers see nothing.
#if defined(__CUDA_ARCH__)
#define TCR_EXACT_UNROLL_LIMBS _Pragma("unroll (unroll_limbs ? limbs : 1)")
#else
#define TCR_EXACT_UNROLL_LIMBS
#endif

namespace tcr {

// The tag of exact_sum<float_products> and exact_partial<float_products>: exact sums of
// products x y of two float-range values (Dot and Nrm2 in the exact modes).
struct float_products {};
// The tag of exact_sum<double_products> and exact_partial<double_products>: exact sums of
// products x y of two doubles (Dot and Nrm2 with a double operand in the exact modes).
struct double_products {};

namespace detail {
// The format of the values an exact state holds and of the results it rounds to.
template <class T>
struct exact_format;
template <>
struct exact_format<float> {
  using bits_type = std::uint32_t;
  static constexpr int fraction_bits = 23;           // F
  static constexpr int lsb_exponent = -149;          // L: the least subnormal is 2^L
  static constexpr int max_position = 253;           // the largest p of a finite input
  static constexpr bits_type inf_bits = 0x7f800000u; // +inf
  static constexpr bits_type nan_bits = 0x7fc00000u; // the default quiet NaN
  static constexpr int exponent_mask = 0xff;
  // Limbs up to the one the top piece of the largest input reaches.
  static constexpr int limbs = max_position / 32 + (fraction_bits + 31 + 31) / 32;
};
template <>
struct exact_format<double> {
  using bits_type = std::uint64_t;
  static constexpr int fraction_bits = 52;
  static constexpr int lsb_exponent = -1074;
  static constexpr int max_position = 2045;
  static constexpr bits_type inf_bits = 0x7ff0000000000000ull;
  static constexpr bits_type nan_bits = 0x7ff8000000000000ull;
  static constexpr int exponent_mask = 0x7ff;
  static constexpr int limbs = max_position / 32 + (fraction_bits + 31 + 31) / 32;
};
// Sums of products of two float-range values (exact_sum<float_products>, the state of the exact
// Dot and Nrm2: exact_sum::add_products adds products of float-range inputs, the binned Dot of
// compensated/exact_binned.cuh builds the same limbs from integer digits). A product and its
// pieces are multiples of 2^-298 below 2^256, so the last bit is at L = -298; 19 limbs put the
// top limb at 2^(32 * 18 - 298) = 2^278, where it holds the carries of any sum of fewer than
// 2^40 products (|s| < 2^296: the top limb stays below 2^18).
template <>
struct exact_format<float_products> {
  using bits_type = std::uint32_t;
  static constexpr int fraction_bits = 23;
  static constexpr int lsb_exponent = -298;
  static constexpr int limbs = 19;
};
// Sums of products of two doubles (exact_sum<double_products>, the state of the exact Dot and
// Nrm2 with a double operand). A double is M 2^(p - 1074) with M < 2^53 and p = max(E, 1) - 1 <=
// 2045 (add_one's decomposition), so a product is M_x M_y 2^(p_x + p_y + L), L = -2148, with
// M_x M_y < 2^106 and p_x + p_y <= 4090: its top bit is at most bit 4195 (limb 131), and its
// pieces (M_x M_y) << (pos mod 32) reach limbs pos / 32 .. + 4. 132 limbs; the top limb holds
// bits 4192 and up, signed, so sums of fewer than 2^40 products (below 2^2088 in magnitude, bit
// 4236) keep it below 2^45.
template <>
struct exact_format<double_products> {
  using bits_type = std::uint64_t;
  static constexpr int fraction_bits = 52;
  static constexpr int lsb_exponent = -2148;
  static constexpr int limbs = 132;
};
// The 16-bit formats, as results only (finish<__half>, finish<__nv_bfloat16>: one rounding of
// the exact sum, never a rounding to float first).
template <>
struct exact_format<__half> {
  using bits_type = std::uint16_t;
  static constexpr int fraction_bits = 10;
  static constexpr int lsb_exponent = -24;
  static constexpr bits_type inf_bits = 0x7c00u;
  static constexpr bits_type nan_bits = 0x7e00u;
};
template <>
struct exact_format<__nv_bfloat16> {
  using bits_type = std::uint16_t;
  static constexpr int fraction_bits = 7;
  static constexpr int lsb_exponent = -133;
  static constexpr bits_type inf_bits = 0x7f80u;
  static constexpr bits_type nan_bits = 0x7fc0u;
};

// 64 - (number of leading zero bits of x), x != 0: the position of the top set bit plus one.
TCR_HD int bit_width64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(x));
#else
  return 64 - __builtin_clzll(x);
#endif
}

// Flags kept beside the limbs.
enum exact_flag : std::uint32_t {
  exact_pos_inf = 1u,     // a +inf input
  exact_neg_inf = 2u,     // a -inf input
  exact_nan = 4u,         // a NaN input
  exact_not_neg_zero = 8u // an input other than -0 (decides the sign of a zero sum)
};

// The result encodings shared by exact_sum's rounding and the warp's (round_warp in
// compensated/exact_binned.cuh), for V = float, double, __half, __nv_bfloat16.
template <class V>
TCR_HD V value_of_bits(typename exact_format<V>::bits_type b) {
  V v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
template <class V>
inline constexpr
    typename exact_format<V>::bits_type sign_bit_of = typename exact_format<V>::bits_type(1)
                                                      << (8 * sizeof(V) - 1);
// Whether the flags record an Inf or NaN input; then special_result is plain summation's result:
// NaN if a NaN was seen or both infinities were, else the infinity seen.
TCR_HD bool has_special(std::uint32_t flags) {
  return (flags & (exact_nan | exact_pos_inf | exact_neg_inf)) != 0;
}
template <class V>
TCR_HD V special_result(std::uint32_t flags) {
  using VF = exact_format<V>;
  const bool nan = (flags & exact_nan) ||
                   (flags & (exact_pos_inf | exact_neg_inf)) == (exact_pos_inf | exact_neg_inf);
  return value_of_bits<V>(
      nan ? VF::nan_bits : (flags & exact_pos_inf ? VF::inf_bits : VF::inf_bits | sign_bit_of<V>));
}
// A zero exact sum: -0 if every input was -0 (no exact_not_neg_zero), else +0.
template <class V>
TCR_HD V zero_result(std::uint32_t flags) {
  using VB = typename exact_format<V>::bits_type;
  return value_of_bits<V>((flags & exact_not_neg_zero) ? VB(0) : sign_bit_of<V>);
}
// (-1)^negative q 2^t for the rounded significand q < 2^(M + 1) (2^(M + 1) after a carry) and t
// the exponent of its last bit (at least V's subnormal exponent): the biased-exponent field counts
// from the subnormals' t, and a q of M + 1 bits adds the implicit bit's 1 to it; +-inf beyond
// the range.
template <class V>
TCR_HD V encode_rounded(int t, std::uint64_t q, bool negative) {
  using VF = exact_format<V>;
  using VB = typename VF::bits_type;
  std::uint64_t b = (std::uint64_t(t - VF::lsb_exponent) << VF::fraction_bits) + q;
  if (b > std::uint64_t(VF::inf_bits))
    b = VF::inf_bits;
  return value_of_bits<V>(VB(b) | (negative ? sign_bit_of<V> : VB(0)));
}

// A product x y of two floats or two doubles, decomposed for the exact product states: x =
// (-1)^sx Mx 2^(px + L_V) as add_one decomposes an input (Mx with its implicit bit, px =
// max(E, 1) - 1, L_V the format's least subnormal exponent), likewise y, so x y =
// (-1)^(sx ^ sy) Mx My 2^(pos + 2 L_V) with pos = px + py. flags: what the product sets, as IEEE
// multiplication and plain summation give it: NaN for a NaN factor and for Inf times 0, else an
// infinite factor gives the infinity of the product's sign (special: nothing else to add); a zero
// product is -0 exactly where IEEE's is (one factor zero, the signs different), and only then
// lacks exact_not_neg_zero. zero: a factor is zero (nothing to add).
struct product_parts {
  std::uint64_t mx, my;
  int pos;
  bool negative, zero, special;
  std::uint32_t flags;
};
template <class V>
TCR_HD product_parts decompose_product(V x, V y) {
  using VF = exact_format<V>;
  using VB = typename VF::bits_type;
  constexpr int F = VF::fraction_bits;
  constexpr int top = 8 * int(sizeof(VB)) - 1;
  VB ux, uy;
  std::memcpy(&ux, &x, sizeof ux);
  std::memcpy(&uy, &y, sizeof uy);
  const int ex = int(ux >> F) & VF::exponent_mask;
  const int ey = int(uy >> F) & VF::exponent_mask;
  constexpr std::uint64_t frac_mask = (std::uint64_t(1) << F) - 1;
  const std::uint64_t fx = ux & frac_mask;
  const std::uint64_t fy = uy & frac_mask;
  product_parts r;
  r.negative = ((ux ^ uy) >> top) != 0;
  r.zero = (ex == 0 && fx == 0) || (ey == 0 && fy == 0);
  r.special = ex == VF::exponent_mask || ey == VF::exponent_mask;
  if (r.special) {
    const bool nan =
        (ex == VF::exponent_mask && fx != 0) || (ey == VF::exponent_mask && fy != 0) || r.zero;
    r.flags = (nan ? exact_nan : (r.negative ? exact_neg_inf : exact_pos_inf)) | exact_not_neg_zero;
  } else {
    r.flags = r.zero && r.negative ? 0u : std::uint32_t(exact_not_neg_zero);
  }
  r.mx = fx | (std::uint64_t(ex != 0) << F);
  r.my = fy | (std::uint64_t(ey != 0) << F);
  r.pos = (ex > 1 ? ex : 1) - 1 + (ey > 1 ? ey : 1) - 1;
  return r;
}
// The 128-bit product a b as (hi, lo).
TCR_HD void mul_wide(std::uint64_t a, std::uint64_t b, std::uint64_t& hi, std::uint64_t& lo) {
  lo = a * b;
#if defined(__CUDA_ARCH__)
  hi = __umul64hi(a, b);
#else
  hi = std::uint64_t((unsigned __int128)a * b >> 64);
#endif
}
} // namespace detail

// exact_partial<T>: the state of exact_sum<T>, a trivially copyable value type that threads,
// blocks and devices combine with exact_sum<T>::merge(p, q). Value: the exact sum
// sum_k limb[k] 2^(32 k + L) and the flags (header comment). Partials returned by partial() and
// merge() are canonical (limbs 0 .. NL - 2 in [0, 2^32)), so equal sums have equal bits.
template <class T>
struct exact_partial {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, float_products> || std::is_same_v<T, double_products>,
                "tcr::exact_partial<T>: T must be float, double, tcr::float_products or "
                "tcr::double_products");
  using format = detail::exact_format<T>;
  static constexpr int limbs = format::limbs;
  std::int64_t limb[limbs] = {}; // [limbs] radix 2^32 digits, carry-save between normalisations
  std::uint32_t flags = 0;       // detail::exact_flag bits
};

// exact_sum<T>: the exact sum of its inputs (header comment for the layout, the bounds and the
// reproducibility proof). Models the accumulator concept of compensated/reductions.cuh.
template <class T>
struct exact_sum {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, float_products> || std::is_same_v<T, double_products>,
                "tcr::exact_sum<T>: T must be float, double, tcr::float_products or "
                "tcr::double_products");
  using value_type = T;
  using partial_type = exact_partial<T>;
  using compact_type = void;
  using format = detail::exact_format<T>;
  using bits_type = typename format::bits_type;
  static constexpr int limbs = partial_type::limbs;
  // Adds each limb absorbs between normalisations (header comment).
  static constexpr std::uint32_t max_adds = 0x7fffffffu;

  partial_type state{};
  std::uint32_t adds = 0; // adds since the last normalisation (merges count the other's + 1)

  // Folds in x[0 .. N): exact, in any order.
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    static_assert(is_input_type_v<X>, "tcr::exact_sum::add: an input type of tcr");
    static_assert(!(std::is_same_v<T, float> && std::is_same_v<X, double>),
                  "tcr::exact_sum<float>::add: a double input needs exact_sum<double>");
    static_assert(N >= 1 && N <= (1 << 20), "tcr::exact_sum::add: 1 .. 2^20 inputs per call");
    if (std::uint64_t(adds) + std::uint64_t(N) > max_adds)
      normalise();
    adds += std::uint32_t(N);
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      add_one(widen<T>(x[i]));
  }
  // Folds in the products x[i] y[i] of float-range inputs (T = float_products): exact, in any
  // order, integer arithmetic only (add_product; header comment of exact_format<float_products>).
  // T = double_products: products of any two input types, widened to double (add_product_f64).
  template <class X, class Y, int N>
  TCR_HD void add_products(const X (&x)[N], const Y (&y)[N]) {
    static_assert(std::is_same_v<T, float_products> || std::is_same_v<T, double_products>,
                  "tcr::exact_sum::add_products: products need exact_sum<tcr::float_products> "
                  "or exact_sum<tcr::double_products>");
    static_assert(is_input_type_v<X> && is_input_type_v<Y> &&
                      (std::is_same_v<T, double_products> ||
                       (!std::is_same_v<X, double> && !std::is_same_v<Y, double>)),
                  "tcr::exact_sum::add_products: products with a double operand need "
                  "exact_sum<tcr::double_products>");
    static_assert(N >= 1 && N <= (1 << 20), "tcr::exact_sum::add_products: 1 .. 2^20 per call");
    if (std::uint64_t(adds) + std::uint64_t(N) > max_adds)
      normalise();
    adds += std::uint32_t(N);
    TCR_UNROLL
    for (int i = 0; i < N; ++i) {
      if constexpr (std::is_same_v<T, double_products>)
        add_product_f64(widen<double>(x[i]), widen<double>(y[i]));
      else
        add_product(widen<float>(x[i]), widen<float>(y[i]));
    }
  }

  // One value (already reduced elsewhere, or a single input).
  TCR_HD void add(T v) {
    const T x[1] = {v};
    add(x);
  }

  TCR_HD void merge(const exact_sum& o) {
    exact_sum b = o;
    if (std::uint64_t(adds) + b.adds + 1 > max_adds) {
      normalise();
      b.normalise();
    }
    adds += b.adds + 1;
    TCR_UNROLL
    for (int k = 0; k < limbs; ++k)
      state.limb[k] += b.state.limb[k];
    state.flags |= b.state.flags;
  }

  // Carries propagated: the canonical state of the same sum.
  TCR_HD void normalise() {
    canonicalise(state);
    adds = 0;
  }

  TCR_HD partial_type partial() const {
    partial_type p = state;
    canonicalise(p);
    return p;
  }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    partial_type p = a;
    TCR_UNROLL
    for (int k = 0; k < limbs; ++k)
      p.limb[k] += b.limb[k];
    p.flags |= b.flags;
    canonicalise(p);
    return p;
  }

  // The exact sum rounded to nearest even in Out (float, double), or the pair hi = RN(s),
  // lo = RN(s - hi) (df32, dd). p must be canonical (from partial() or merge()).
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    static_assert(std::is_same_v<Out, float> || std::is_same_v<Out, double> ||
                      std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                      std::is_same_v<Out, df32> || std::is_same_v<Out, dd> ||
                      std::is_same_v<Out, partial_type>,
                  "tcr::exact_sum::finish: Out is float, double, __half, __nv_bfloat16, "
                  "tcr::df32, tcr::dd or the partial itself");
    if constexpr (std::is_same_v<Out, partial_type>) {
      return p;
    } else if constexpr (std::is_same_v<Out, df32> || std::is_same_v<Out, dd>) {
      using V = typename Out::value_type;
      V lo = V(0);
      const V hi = round_canonical<V, true>(p, &lo);
      if (!is_finite_bits(hi))
        return Out(hi, V(0));
      return Out(hi, lo);
    } else {
      return round_canonical<Out, false>(p, nullptr);
    }
  }
  template <class Out>
  TCR_HD Out empty_result() const {
    if constexpr (std::is_same_v<Out, partial_type>)
      return partial_type{}; // the identity of merge (it finishes to -0, see exact_finish)
    else if constexpr (std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>)
      return Out(0.0f);
    else
      return Out(0);
  }
  // The sum rounded to T.
  TCR_HD T result() const { return finish<T>(partial()); }
  // RN_Out(s 2^scale) for the exact sum s of the canonical p (Out float or double; scale moves
  // the digits' exponents, so the one rounding happens at the scaled value's precision).
  template <class Out>
  TCR_HD Out finish_scaled(const partial_type& p, int scale) const {
    static_assert(std::is_same_v<Out, float> || std::is_same_v<Out, double>,
                  "tcr::exact_sum::finish_scaled: Out is float or double");
    return round_canonical<Out, false>(p, nullptr, scale);
  }
  // The exponent E of the top bit of a canonical p's exact sum when it is positive and finite
  // (2^E <= s < 2^(E + 1)), else (zero, negative, Inf or NaN) INT_MIN.
  TCR_HD static int top_exponent(const partial_type& p) {
    if (detail::has_special(p.flags) || p.limb[limbs - 1] < 0)
      return INT_MIN;
    for (int k = limbs - 1; k >= 0; --k)
      if (p.limb[k] != 0)
        return format::lsb_exponent + 32 * k + detail::bit_width64(std::uint64_t(p.limb[k])) - 1;
    return INT_MIN;
  }

  // p made canonical in place (carries propagated; the same sum). For callers that keep a partial
  // where a copy would cost (a block's partial in shared memory).
  TCR_HD static void canonicalise(partial_type& p) {
    std::int64_t carry = 0;
    TCR_EXACT_UNROLL_LIMBS
    for (int k = 0; k < limbs - 1; ++k) {
      const std::int64_t t = p.limb[k] + carry;
      p.limb[k] = t & 0xffffffffll;
      carry = t >> 32; // arithmetic: floor(t / 2^32)
    }
    p.limb[limbs - 1] += carry;
  }

private:
  // x = (-1)^sign m 2^(p + L): pieces of m << (p mod 32) into limbs p / 32 and up.
  TCR_HD void add_one(T x) {
    bits_type u;
    std::memcpy(&u, &x, sizeof u);
    constexpr int F = format::fraction_bits;
    const int e = int(u >> F) & format::exponent_mask;
    const std::uint64_t frac = std::uint64_t(u) & ((std::uint64_t(1) << F) - 1);
    const std::int64_t smask = -std::int64_t(u >> (8 * sizeof(bits_type) - 1)); // 0 or -1
    if (e == format::exponent_mask) {                                           // Inf or NaN
      state.flags |=
          frac != 0 ? detail::exact_nan : (smask ? detail::exact_neg_inf : detail::exact_pos_inf);
      state.flags |= detail::exact_not_neg_zero;
      return;
    }
    if (u != (bits_type(1) << (8 * sizeof(bits_type) - 1)))
      state.flags |= detail::exact_not_neg_zero;
    const std::uint64_t m = frac | (std::uint64_t(e != 0) << F);
    const int pos = (e > 1 ? e : 1) - 1;
    const int k = pos >> 5;
    const int s = pos & 31;
    // piece j = floor(m 2^s / 2^(32 j)) mod 2^32; j >= 1 as (m >> 1) >> (32 j - 1 - s), which
    // keeps every shift count in [0, 63].
    const std::int64_t p0 = std::int64_t(std::uint32_t(m << s));
    const std::int64_t p1 = std::int64_t(std::uint32_t((m >> 1) >> (31 - s)));
    state.limb[k] += (p0 ^ smask) - smask;
    state.limb[k + 1] += (p1 ^ smask) - smask;
    if constexpr (F + 1 + 31 > 64) {
      const std::int64_t p2 = std::int64_t(std::uint32_t((m >> 1) >> (63 - s)));
      state.limb[k + 2] += (p2 ^ smask) - smask;
    }
  }

  // x y for floats x = (-1)^sx mx 2^(px - 149), y likewise (add_one's decomposition): the exact
  // product (-1)^(sx ^ sy) mx my 2^(px + py + L), L = -298, mx my < 2^48, px + py <= 506, cut
  // into three pieces of (mx my) << (pos mod 32) for limbs pos / 32 .. + 2 (at most limb 17).
  // Special values and the zero sign: detail::decompose_product's flags.
  TCR_HD void add_product(float x, float y) {
    const detail::product_parts d = detail::decompose_product(x, y);
    state.flags |= d.flags;
    if (d.special || d.zero)
      return;
    const std::uint64_t m = d.mx * d.my;
    const int k = d.pos >> 5;
    const int s = d.pos & 31;
    const std::int64_t smask = d.negative ? -1 : 0;
    // pieces j = floor(m 2^s / 2^(32 j)) mod 2^32, every shift count in [0, 63] (as add_one's)
    const std::int64_t p0 = std::int64_t(std::uint32_t(m << s));
    const std::int64_t p1 = std::int64_t(std::uint32_t((m >> 1) >> (31 - s)));
    const std::int64_t p2 = std::int64_t(std::uint32_t((m >> 1) >> (63 - s)));
    state.limb[k] += (p0 ^ smask) - smask;
    state.limb[k + 1] += (p1 ^ smask) - smask;
    state.limb[k + 2] += (p2 ^ smask) - smask;
  }

  // x y for doubles (T = double_products): x = (-1)^sx Mx 2^(px - 1074) (add_one's
  // decomposition), likewise y; the exact product (-1)^(sx ^ sy) Mx My 2^(px + py + L), L = -2148,
  // with Mx My < 2^106 a 128-bit integer product (two 64-bit multiplies), cut into five pieces of
  // (Mx My) << (pos mod 32) for limbs pos / 32 .. + 4 (at most limb 131). Special values and the
  // zero sign as add_product's.
  TCR_HD void add_product_f64(double x, double y) {
    const detail::product_parts d = detail::decompose_product(x, y);
    state.flags |= d.flags;
    if (d.special || d.zero)
      return;
    std::uint64_t hi, lo; // Mx My
    detail::mul_wide(d.mx, d.my, hi, lo);
    const int k = d.pos >> 5;
    const int sh = d.pos & 31;
    // (hi, lo) << sh as three 64-bit words (the top one below 2^(106 + 31 - 128))
    const std::uint64_t w0 = lo << sh;
    const std::uint64_t w1 = sh != 0 ? (hi << sh) | (lo >> (64 - sh)) : hi;
    const std::uint64_t w2 = sh != 0 ? hi >> (64 - sh) : 0;
    const std::int64_t smask = d.negative ? -1 : 0;
    const std::int64_t piece[5] = {std::int64_t(w0 & 0xffffffffu), std::int64_t(w0 >> 32),
                                   std::int64_t(w1 & 0xffffffffu), std::int64_t(w1 >> 32),
                                   std::int64_t(w2)};
    TCR_UNROLL
    for (int j = 0; j < 5; ++j)
      state.limb[k + j] += (piece[j] ^ smask) - smask;
  }

  template <class V>
  TCR_HD static bool is_finite_bits(V v) {
    typename detail::exact_format<V>::bits_type b;
    std::memcpy(&b, &v, sizeof b);
    return (b & ~(decltype(b)(1) << (8 * sizeof b - 1))) < detail::exact_format<V>::inf_bits;
  }

  // Digit views: the radix-2^32 digits of a value derived from a canonical state, computed from
  // the state itself on each read (no copy of the state: the partial being rounded may live in
  // shared memory, and a copy of double's 66 limbs would go to local memory).
  //
  // magnitude_digits: |a| for a canonical a. a >= 0: its own digits. a < 0: the canonical digits
  // of -a (two's complement), with `low` a's lowest nonzero limb: 0 below it, 2^32 - a_k at it,
  // 2^32 - 1 - a_k above it, and for the top limb -a_top - 1 (-a_top where low is the top limb).
  // These are in [0, 2^32) below the top and sum to -a: the canonical digits of -a (unique).
  struct magnitude_digits {
    const std::int64_t (&a)[limbs];
    bool negative;
    int low;
    TCR_HD std::int64_t operator[](int k) const {
      const std::int64_t d = a[k];
      if (!negative)
        return d;
      if (k < low)
        return 0;
      if (k == limbs - 1)
        return low < limbs - 1 ? -d - 1 : -d;
      return (k == low ? std::int64_t(1) << 32 : (std::int64_t(1) << 32) - 1) - d;
    }
  };
  // remainder_digits: |s - RN(s)| for m = |s| (a digit view), RN(s)'s last bit at 2^sh (sh > 0) and
  // `up` whether RN rounded |s| up: r0 = m mod 2^sh, or 2^sh - r0 where up (then r0 >= 2^(sh-1)
  // > 0). The digits of r0 are m's below bit sh (every limb there is below 2^32: the top bit of
  // m is at or above sh, or sh lies below the top limb); those of 2^sh - r0 are the two's
  // complement digits of -r0 (as in magnitude_digits, `low` r0's lowest nonzero limb) modulo 2^sh.
  template <class Digits>
  struct remainder_digits {
    const Digits& m;
    int sh;
    bool up;
    int low;
    TCR_HD std::int64_t operator[](int k) const {
      const int lo = 32 * k;
      if (lo >= sh)
        return 0;
      const std::int64_t mask = lo + 32 > sh ? (std::int64_t(1) << (sh - lo)) - 1 : 0xffffffffll;
      const std::int64_t d = m[k] & mask;
      if (!up)
        return d;
      if (k < low)
        return 0;
      return ((k == low ? std::int64_t(1) << 32 : (std::int64_t(1) << 32) - 1) - d) & mask;
    }
  };

  // floor(m / 2^pos) mod 2^64 of a digit view m (canonical digits), pos >= 0: limbs below limb
  // pos / 32 are canonical, so they cannot carry into the window.
  // (Both loops run over every limb with constant indices, so that the limbs stay in registers:
  // an index that depends on the data would put the array in local memory, whose latency the
  // single thread that rounds would pay on every access.)
  // Unrolled (registers) for the short states; the 66 limbs of double stay a loop (registers for
  // all of them would cap the occupancy of every kernel that rounds one).
  static constexpr bool unroll_limbs = limbs <= 24;
  // The long state (double's, in memory: a loop, not registers) visits only the limbs that
  // matter: window the three from pos / 32 up, any_below the limbs below pos from the top down
  // until a nonzero one, the top and the lowest nonzero limb found by a scan that stops at the
  // first hit. Each gives what the full loop gives (the full loop's other iterations add nothing).
  template <class Digits>
  TCR_HD static std::uint64_t window(const Digits& a, int pos) {
    std::uint64_t w = 0;
    if constexpr (!unroll_limbs) {
      for (int j = pos >> 5; j < limbs && j <= (pos >> 5) + 2; ++j) {
        const int d = 32 * j - pos;
        if (d > -32 && d < 0)
          w += std::uint64_t(a[j]) >> -d;
        else if (d >= 0 && d < 64)
          w += std::uint64_t(a[j]) << d;
      }
    } else {
      TCR_EXACT_UNROLL_LIMBS
      for (int j = 0; j < limbs; ++j) {
        const int d = 32 * j - pos;
        if (d > -32 && d < 0)
          w += std::uint64_t(a[j]) >> -d; // j = pos / 32: the bits from pos up
        else if (d >= 0 && d < 64)
          w += std::uint64_t(a[j]) << d;
      }
    }
    return w;
  }
  // m mod 2^pos != 0, pos >= 0.
  template <class Digits>
  TCR_HD static bool any_below(const Digits& a, int pos) {
    bool any = false;
    if constexpr (!unroll_limbs) {
      for (int j = (pos - 1) >> 5; j >= 0 && !any; --j) {
        const int lo = 32 * j;
        if (lo + 32 <= pos)
          any = a[j] != 0;
        else
          any = (std::uint64_t(a[j]) & ((std::uint64_t(1) << (pos - lo)) - 1)) != 0;
      }
    } else {
      TCR_EXACT_UNROLL_LIMBS
      for (int j = 0; j < limbs; ++j) {
        const int lo = 32 * j;
        if (lo + 32 <= pos)
          any = any || a[j] != 0;
        else if (lo < pos)
          any = any || (std::uint64_t(a[j]) & ((std::uint64_t(1) << (pos - lo)) - 1)) != 0;
      }
    }
    return any;
  }

  // RN_V of the canonical p; Rest: also *lo = RN_V(s - RN_V(s)) (s - RN_V(s) is exact, a multiple
  // of 2^L; +0 where it is zero; lo untouched where s is not finite). scale: RN_V(s 2^scale)
  // instead (finish_scaled).
  template <class V, bool Rest>
  TCR_HD static V round_canonical(const partial_type& p, V* lo, int scale = 0) {
    if (detail::has_special(p.flags))
      return detail::special_result<V>(p.flags);
    const bool negative = p.limb[limbs - 1] < 0;
    if constexpr (unroll_limbs) {
      // Short states: |s| as a copy, in registers (every loop over it is unrolled).
      partial_type m = p;
      if (negative) {
        TCR_EXACT_UNROLL_LIMBS
        for (int k = 0; k < limbs; ++k)
          m.limb[k] = -m.limb[k];
        canonicalise(m);
      }
      return round_digits<V, Rest>(magnitude_digits{m.limb, false, 0}, negative, p.flags, lo,
                                   scale);
    } else {
      int low = limbs - 1; // the lowest nonzero limb below the top (a negative sum's magnitude)
      for (int k = 0; negative && k < limbs - 1; ++k)
        if (p.limb[k] != 0) {
          low = k;
          break;
        }
      return round_digits<V, Rest>(magnitude_digits{p.limb, negative, low}, negative, p.flags, lo,
                                   scale);
    }
  }

  // RN_V of (-1)^negative m for a finite value's magnitude m (a digit view); a zero m gives -0 if
  // flags lack exact_not_neg_zero, else +0. Rest: also *lo = RN_V of the remainder (above).
  template <class V, bool Rest, class Digits>
  TCR_HD static V round_digits(const Digits& mag, bool negative, std::uint32_t flags, V* lo,
                               int scale = 0) {
    using VF = detail::exact_format<V>;
    int top = -1; // the highest nonzero limb of m
    std::uint64_t top_limb = 0;
    if constexpr (unroll_limbs) {
      TCR_EXACT_UNROLL_LIMBS
      for (int k = 0; k < limbs; ++k) {
        const std::int64_t d = mag[k];
        if (d != 0) {
          top = k;
          top_limb = std::uint64_t(d);
        }
      }
    } else {
      for (int k = limbs - 1; k >= 0; --k) {
        const std::int64_t d = mag[k];
        if (d != 0) {
          top = k;
          top_limb = std::uint64_t(d);
          break;
        }
      }
    }
    if constexpr (Rest)
      *lo = V(0);
    if (top < 0) // the exact sum is zero
      return detail::zero_result<V>(flags);
    constexpr int M = VF::fraction_bits;
    const int L = format::lsb_exponent + scale; // the exponent of the digits' last bit
    const int P = 32 * top + detail::bit_width64(top_limb) - 1; // top bit
    // t: the exponent of the last bit of RN_V(s); sh = t - L: bits of m below it.
    const int t = L + P - M > VF::lsb_exponent ? L + P - M : VF::lsb_exponent;
    const int sh = t - L;
    std::uint64_t q;
    if (sh <= 0) {
      q = window(mag, 0) << -sh; // exact: m < 2^(M + 1 + sh)
    } else {
      q = window(mag, sh);
      const bool half = (window(mag, sh - 1) & 1) != 0;
      const bool sticky = any_below(mag, sh - 1);
      const bool up = half && (sticky || (q & 1));
      // s - RN(s) = (-1)^negative (m mod 2^sh - up 2^sh): for the short states a copy in
      // registers, rounded as a state; for double a digit view of m.
      if constexpr (Rest && unroll_limbs) {
        partial_type r{};
        TCR_EXACT_UNROLL_LIMBS
        for (int j = 0; j < limbs; ++j) {
          const int j_lo = 32 * j;
          if (j_lo + 32 > sh && j_lo < sh)
            r.limb[j] = mag[j] & ((std::int64_t(1) << (sh - j_lo)) - 1);
          else if (j_lo < sh)
            r.limb[j] = mag[j];
          if (up && j == (sh >> 5))
            r.limb[j] -= std::int64_t(1) << (sh & 31);
          if (negative)
            r.limb[j] = -r.limb[j];
        }
        canonicalise(r);
        r.flags = detail::exact_not_neg_zero;
        *lo = round_canonical<V, false>(r, nullptr, scale);
      } else if constexpr (Rest) {
        int r_low = limbs - 1; // the lowest nonzero limb of m mod 2^sh (used where up)
        for (int k = 0; up && 32 * k < sh; ++k) {
          const int k_lo = 32 * k;
          const std::int64_t mask =
              k_lo + 32 > sh ? (std::int64_t(1) << (sh - k_lo)) - 1 : 0xffffffffll;
          if ((mag[k] & mask) != 0) {
            r_low = k;
            break;
          }
        }
        const remainder_digits<Digits> rest{mag, sh, up, r_low};
        *lo = round_digits<V, false>(rest, negative != up, detail::exact_not_neg_zero, nullptr,
                                     scale);
      }
      q += up ? 1 : 0;
    }
    return detail::encode_rounded<V>(t, q, negative); // q 2^t, q < 2^(M + 1) or a carry's
  }
};

namespace detail {
// A norm computed in double (v), rounded to Out.
template <class Out>
TCR_HD Out norm_of_root(double v) {
  if constexpr (std::is_same_v<Out, double>)
    return v;
  else if constexpr (std::is_same_v<Out, float>)
    return static_cast<float>(v);
  else if constexpr (std::is_same_v<Out, __half>)
    return __double2half(v);
  else
    return __double2bfloat16(v);
}
// The norm from the exact sum of squares s rounded to double: sqrt(s) (correctly rounded), then
// rounded to Out (float, double, __half, __nv_bfloat16): within 1 ulp of the true norm (the two
// double roundings add less than 2^-52 relative error before the rounding to Out; a double result
// is at most 0.5 + 2^-1 ulp away).
template <class Out>
TCR_HD Out exact_norm_result(double s) {
  return norm_of_root<Out>(::sqrt(s));
}
// The norm from the exact sum of squares of doubles (any s from 2^-2148 to beyond DBL_MAX, where
// RN_double(s) may underflow or overflow): with 2^E <= s < 2^(E + 1) and k = floor(E / 2),
// s' = s 2^-2k lies in [1, 4), so RN_double(s') rounds at full precision (finish_scaled); then
// v = sqrt(RN_double(s')) in [1, 2] (correctly rounded) and the norm is v 2^k, rounded to Out.
// Within 1 ulp of the true norm sqrt(s') 2^k: RN_double(s') is within 2^-53 relative, so its
// root within 2^-54 relative (at most 2^-53 absolute, half an ulp of [1, 2)), plus sqrt's half an
// ulp: at most 1 ulp of v; v 2^k is exact in double unless the norm is below 2^-1022, where the
// scaling rounds once more to the subnormal spacing (at least 2 ulps of v: at most 1/2 + 1/2 of
// it in all), and a float, __half or __nv_bfloat16 Out rounds once more from a double within 1
// ulp of double (far below half its own ulp: at most 1 ulp in all). Zero, Inf and NaN sums give
// sqrt of them (exact_norm_result).
template <class Out>
TCR_HD Out exact_norm_wide(const exact_partial<double_products>& p) {
  const exact_sum<double_products> s{};
  const int e = exact_sum<double_products>::top_exponent(p);
  if (e == INT_MIN)
    return exact_norm_result<Out>(s.template finish<double>(p));
  const int k = e >= 0 ? e / 2 : -((1 - e) / 2); // floor(e / 2)
  const double v = ::sqrt(s.template finish_scaled<double>(p, -2 * k));
  return norm_of_root<Out>(::scalbn(v, k));
}
} // namespace detail

// exact_dot_sum<Squares>: a thread's exact sum of products x_i y_i (Squares: of x_i^2, Nrm2) of
// float-range inputs, in the limbs of exact_sum<float_products> (add_products: integer
// arithmetic only, so contraction cannot change a bit). Models the accumulator concept of
// compensated/reductions.cuh; partials are exact_partial<float_products>, the same canonical
// states that DeviceReduce's exact Dot and Nrm2 build (binned_exact_dot), so a segment's result
// has the bits of DeviceReduce over the same data. finish<Out>: the exact sum rounded once (Dot);
// Squares: sqrt(RN_double(s)) rounded to Out, within 1 ulp (detail::exact_norm_result).
template <bool Squares>
struct exact_dot_sum {
  using value_type = float;
  using partial_type = exact_partial<float_products>;
  using compact_type = void;
  exact_sum<float_products> sum;

  template <class X, class Y, int N>
  TCR_HD void add(const X (&x)[N], const Y (&y)[N]) {
    static_assert(!Squares, "tcr::exact_dot_sum: two operands for Dot");
    sum.add_products(x, y);
  }
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    static_assert(Squares, "tcr::exact_dot_sum: one operand for Nrm2");
    sum.add_products(x, x);
  }
  TCR_HD void merge(const exact_dot_sum& o) { sum.merge(o.sum); }
  TCR_HD partial_type partial() const { return sum.partial(); }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    return sum.merge(a, b);
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    static_assert(!Squares || !(std::is_same_v<Out, df32> || std::is_same_v<Out, dd>),
                  "tcr::exact_dot_sum: the norm into a float, double, __half or __nv_bfloat16");
    if constexpr (Squares && !std::is_same_v<Out, partial_type>)
      return detail::exact_norm_result<Out>(sum.template finish<double>(p));
    else
      return sum.template finish<Out>(p);
  }
  template <class Out>
  TCR_HD Out empty_result() const {
    return sum.template empty_result<Out>();
  }
  TCR_HD float result() const { return finish<float>(partial()); }
};

template <class T>
inline constexpr bool is_exact_partial_v = false;
template <class T>
inline constexpr bool is_exact_partial_v<exact_partial<T>> = true;

// The partial states of two parts of the data (written by DeviceReduce's exact modes into an
// exact_partial result, or by exact_sum::partial), merged: the state of all of it, bitwise the
// same for any split and any order of merges (header comment).
template <class T>
TCR_HD exact_partial<T> exact_merge(const exact_partial<T>& a, const exact_partial<T>& b) {
  return exact_sum<T>{}.merge(a, b);
}
// The exact sum that p stands for rounded once into Out (exact_sum::finish). The empty partial
// (no part held any input) gives -0, the identity of IEEE addition; DeviceReduce's Sum of no
// elements writes +0 into a value result, as CUB does.
template <class Out, class T>
TCR_HD Out exact_finish(const exact_partial<T>& p) {
  return exact_sum<T>{}.template finish<Out>(p);
}

namespace detail {
// The exact modes' norm from a canonical partial of the sum of squares: sqrt(RN_double(s))
// rounded to Out for products of float-range values, exact_norm_wide's for doubles' products.
template <class Out, class T>
TCR_HD Out exact_norm_of(const exact_partial<T>& p) {
  if constexpr (std::is_same_v<T, double_products>)
    return exact_norm_wide<Out>(p);
  else
    return exact_norm_result<Out>(exact_finish<double>(p));
}
} // namespace detail

} // namespace tcr
