// SPDX-License-Identifier: BSD-3-Clause
// tcr example consumer: an FP32-accurate GEMM on the tensor cores (issue 15), header-only.
//
//   #include <tcr/examples/gemm/gemm.cuh>   (build tree; or copy this one header: it needs only
//                                            tcr's compensated/, mma/ and reduce/warp.cuh)
//   std::size_t bytes = 0;
//   tcr::gemm::sgemm(nullptr, bytes, Layout::row_major, Layout::row_major, Layout::row_major,
//                    m, n, k, alpha, d_a, lda, d_b, ldb, beta, d_c, ldc);      // size query
//   cudaMalloc(&d_temp, bytes);
//   tcr::gemm::sgemm(d_temp, bytes, ...same arguments..., stream);            // C = aAB + bC
//   tcr::gemm::sgemm(d_temp, bytes, ..., stream, {d_row_sum, d_row_sumsq});  // and row stats
//
// C = alpha A B + beta C for float A (m x k), B (k x n), C (m x n), each row- or column-major
// with its leading dimension, any m, n, k >= 1. As in BLAS, beta = 0 means C is not read (it
// may hold NaN), and alpha = 0 gives beta C whatever A and B hold (they are still read and
// split, but not multiplied in). Bitwise reproducible: every sum has a fixed order (no atomics on
// data), and the split of k into slices depends on the shape only, not on the GPU.
//
// Method. Every row i of A is scaled by 2^ea_i and every column j of B by 2^eb_j (powers of two,
// exact) so that its largest magnitude lies in [2^14, 2^15), then split into Terms = 2 fp16 terms:
//     y = a 2^ea,  yh = RN16(y),  yl = RN16(y - yh)      (y - yh is exact in float)
// and likewise z = b 2^eb -> zh, zl. The tensor cores (tcr::mma's sm80 m16n8k16 f16 MMA with
// f32 accumulators, mma.sync) form yh zh + yh zl + yl zh (Products = 4 adds yl zl) for every k.
// Terms = 3 splits once more (hi, mid, lo: every float exactly, outside fp16's subnormals) and
// forms the 6 products of order at most 2.
// The (hi, hi) products chain over Chain k16-steps in one MMA f32 accumulator, which starts
// from the carried error of the previous fold; the cross products chain in a second one (Cross,
// the default: they are 2^-11 of the first's size, so the alignment truncation they add there is
// that much smaller). Each chain is then folded into a float sum s by TwoSum (s + chain = s' + e
// exactly; e plus the cross chain starts the next chain). So the MMA's truncating accumulation
// only ever sees a chain's worth of terms, and its error does not grow with k. The result
// (s + e) 2^-(ea_i + eb_j), then alpha, beta.
//
// Accuracy (u = 2^-24; S_ij = sum_k |a_ik b_kj|; amax_i = max_k |a_ik|, bmax_j = max_k |b_kj|;
// finite inputs and results; proofs at split_terms, gemm_error_model and gemm_kernel below): the
// product before alpha and beta, P_ij, satisfies
//     |AB_ij - P_ij| <= (e_split + e_mma) S_ij + 2^-38 k amax_i bmax_j + u |P_ij|       (**)
// with e_split = 12.004 u (Products = 3; 8.002 u with 4; three terms 0.00782 u, and 2^-38 (1 +
// 2^-9) for the floor's constant) and e_mma = 36 Chain 2^-23 (1 + 2^-7)
// (Chain = 8, the default: 580.5 u; Chain = 4: 290.25 u; one accumulator, Cross = false:
// 36 Products Chain 2^-23): a worst case independent of k, where cuBLAS SGEMM's is about k u S
// (its error grows with k; here only the 2^-38 floor does, and it is 2^-14 u per term). The
// floor comes from fp16's subnormals: an entry far below its row's (column's) maximum keeps an
// absolute accuracy of 2^-39 amax, not a relative one. gemm_error_model() returns the constants;
// the tests assert (**) entry by entry against an exact reference. Then C = alpha P + beta C
// rounds twice (u |alpha P| + u |alpha P + beta C|, as SGEMM). Non-finite inputs: a row of A or
// column of B holding Inf or NaN is not scaled (its finite entries above 65504 become Inf in
// fp16), so the entries of C that depend on it are Inf or NaN, though not always the same one as
// SGEMM gives. Results below float's normal range are rounded twice (the float sum, then the
// scaling back): within 2^-149 more.
//
// Row statistics (optional, the fused epilogue): row_sum[i] = sum_j C_ij and row_sumsq[i] =
// sum_j C_ij^2 of the C written, each a tcr::double_carried<float> sum (doubles, fixed order:
// the lane's values, a 4-lane tcr::WarpReduce, the block's 4 warps, the column blocks in order),
// so |row_sum - exact| <= u |exact| + 2^-40 sum_j |C_ij| while n <= 2^19 (block_sum.cuh's bound
// with tree height h <= 8 + 2 + 2 + n / 128 <= 4096).
//
// Errors (nothing is launched and nothing written): cudaErrorInvalidValue for m, n or k <= 0,
// a null A, B or C, a leading dimension below its minimum (row-major A: lda >= k, column-major:
// lda >= m; B: ldb >= n or >= k; C: ldc >= n or >= m), or temp_bytes below the size query's.
// A size query (d_temp == nullptr) checks only m, n and k. C must not overlap A, B or the
// workspace. Launch errors are returned as they come (the workspace may then hold partial data).
//
// Tuning (template parameters; measured on the H200, bench/results/2026-12-02-h200-gemm-*):
// Chain, k16-steps per fold (default 8); Terms, 2 or 3 (2); Products, 3 or 4 for two terms (3),
// 6 for three; BlockK, k per pipeline stage, 32 or 64 (64; three terms: 32); Stages (2); Cross
// (true). The error grows with Chain and not with k, the speed with Chain: on uniform [-1, 1]
// data at 4096^3, Chain 4 / 8 / 16 give errors 1.4e-7 / 2.2e-7 / 4.1e-7 (SGEMM 2.8e-6) at
// 1.72-1.80x / 2.01-2.06x / 2.12-2.15x SGEMM's speed over three runs (8192^3: 1.80-1.86x /
// 2.13-2.17x / 2.27-2.31x); one accumulator (Cross = false) about doubles the error at the same
// speed (Chain 8: 6.1e-7, 2.00-2.03x). The default is below SGEMM's error on every shape and k
// measured (k = 256 .. 65536, uniform data and exponents spread over 2^-20 .. 2^20; the
// closest, k = 256 spread: 2.75e-7 against 3.18e-7); sgemm<4> is the accurate choice, sgemm<16>
// the fast one. Three terms (sgemm<4, 3>) make the split exact but gain little, the chains'
// truncation being what is left: 1.36e-7 at 4096^3 against sgemm<4>'s 1.44e-7, at 0.98x SGEMM's
// speed. Tiles: 128 x 128 per block of 8 warps (64 x 32 each), cp.async stages of the 2 Terms
// fp16 tiles, swizzled shared memory read by ldmatrix, with (two terms) the next k16-step's
// fragments loading during this one's MMAs; the folds' float sums live in shared memory (64
// KiB), which frees the registers for the two chains and that double buffer. One block per SM
// (255 registers a thread, no spills); shapes of fewer than 128 tiles of 128 x 128 split k
// (splits_for), the last slice merging the slices' partials with 16 loads in flight (1024^3:
// 0.90-0.98x SGEMM, from 0.55x with one load at a time).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tcr/compensated/block_sum.cuh>
#include <tcr/mma/sm80.cuh>
#include <tcr/reduce/warp.cuh>

namespace tcr::gemm {

enum class Layout { row_major, col_major };

// Optional outputs of the fused epilogue (device arrays of m floats, or null).
struct RowStats {
  float* row_sum = nullptr;
  float* row_sumsq = nullptr;
};

// The constants of the bound (**) above, for a caller or a test: the product before alpha and
// beta, P_ij, satisfies |AB_ij - P_ij| <= split * S_ij + mma * S_ij + small * k * amax_i * bmax_j
// + final_rounding * |P_ij|.
struct ErrorModel {
  double split;          // representation error of the two-term split, per |a b|
  double mma;            // the MMAs' alignment truncation inside one chain, per |a b|
  double small;          // fp16 subnormal floor, per k amax bmax
  double final_rounding; // the float rounding of s + e
};
// The products a (Terms, Products) split forms, in order: A part a_part[i] times B part b_part[i].
// Two terms: (hi, hi), (hi, lo), (lo, hi) [, (lo, lo)]; three (hi, mid, lo): every pair of order
// at most 2, (0, 0), (0, 1), (1, 0), (0, 2), (1, 1), (2, 0).
template <int Terms>
struct ProductOrder {
  static_assert(Terms == 2 || Terms == 3, "tcr::gemm: Terms is 2 or 3");
  static constexpr int most = Terms == 2 ? 4 : 6;
  // Terms 2: (0, 0) (0, 1) (1, 0) (1, 1); Terms 3: (0, 0) (0, 1) (1, 0) (0, 2) (1, 1) (2, 0).
  __host__ __device__ static constexpr int a_part(int i) {
    return i == 2 || i == 4 ? 1 : i == 5 ? 2 : Terms == 2 && i == 3 ? 1 : 0;
  }
  __host__ __device__ static constexpr int b_part(int i) {
    return i == 1 || i == 4 ? 1 : i == 3 ? (Terms == 2 ? 1 : 2) : 0;
  }
};
template <int Terms>
constexpr int default_products = Terms == 2 ? 3 : 6;

template <int Chain, int Terms = 2, int Products = default_products<Terms>, bool Cross = true>
constexpr ErrorModel gemm_error_model() {
  static_assert((Terms == 2 && (Products == 3 || Products == 4)) || (Terms == 3 && Products == 6),
                "tcr::gemm: two terms form 3 or 4 products, three terms 6");
  constexpr int chain = Chain;
  // Split (derivation at split_terms; scaled units): two terms leave |y - yh - yl| <= 2^-22 |y| +
  // 2^-25 (1 + 2^-11); the product error per |y z| is (2^-22 + 2^-22 (1 + 2^-22)) from the
  // dropped parts of y and z, plus |yl zl| <= 2^-22 (1 + 2^-11)^2 when it is dropped (Products =
  // 3): at most 3.001 * 2^-22 = 12.004 u (8.002 u with Products = 4). Three terms leave
  // |y - t0 - t1 - t2| <= 2^-33 |y| + 2^-25 (1 + 2^-10); the dropped parts of y and z and the
  // dropped products t1 u2, t2 u1 (each <= 2^-33 (1 + 2^-10) |y z|) and t2 u2 (2^-44) add up to
  // at most 4.004 * 2^-33 = 0.00782 u. The subnormal floors (the 2^-25 terms) give the "small"
  // term, 2^-39 amax bmax per product for each operand; three terms add t1 u2-type floors below
  // 2^-9 of that.
  // MMA: tile_sum.cuh's model (*), per MMA (16 + 2) 2^-23 of the magnitudes it adds (C
  // included).
  // Cross (the default): the (0, 0) chain is Chain MMAs, its C starting from the carried error
  // plus the previous cross chain, so each of its terms is counted at most Chain times: Chain 18
  // 2^-23. The cross chain, (Products - 1) Chain MMAs from 0, adds terms of at most 2^-10 (1 +
  // 2^-10) |y z| (the two first-order products) + 2^-22 |y z| each (the others): at most
  // (Products - 1) Chain 18 2^-23 (2^-10 + 4 2^-22) (1 + 2^-10) <= Chain 18 2^-23 0.0049, and
  // feeding it into the next (0, 0) chain adds Chain 18 2^-23 2^-10 of the previous chain's:
  // together under 2^-7 of the (0, 0) part. One accumulator (Cross = false): P = Products MMAs
  // per k16-step for Chain steps, every term of the chain and C counted at most P Chain times:
  // P Chain 18 2^-23. Either is times (1 + 2^-20) for the carried error and the split's parts
  // summing slightly above S, and doubled as tile_sum.cuh does, for second-order terms.
  constexpr double split = Terms == 3      ? 4.004 * 0x1p-33
                           : Products == 4 ? 8.002 * 0x1p-24
                                           : 12.004 * 0x1p-24;
  constexpr double mma =
      Cross ? 2.0 * chain * 18.0 * 0x1p-23 * (1 + 0x1p-7) : 2.0 * Products * chain * 18.0 * 0x1p-23;
  constexpr double small = Terms == 3 ? 0x1p-38 * (1 + 0x1p-9) : 0x1p-38;
  return ErrorModel{split, mma, small, 0x1p-24};
}

namespace detail {

constexpr int block_m = 128, block_n = 128, threads = 256;

constexpr int group_m = 8; // block rasterisation (L2 reuse)
static_assert(block_m == block_n, "one tile shape for A and B");

// The main loop's shared-memory pipeline: BlockK (32 or 64) k per stage, Stages stages, each
// holding the 2 Terms fp16 tiles of [128][BlockK]: A's parts, then B's.
template <int BlockK, int Stages, int Terms>
struct Pipe {
  static_assert(BlockK == 32 || BlockK == 64, "tcr::gemm: BlockK is 32 or 64");
  static constexpr int chunks = BlockK / 8; // 16-byte chunks per tile row
  static constexpr int tile_bytes = block_m * BlockK * 2;
  static constexpr int tiles = 2 * Terms;
  static constexpr int stage_bytes = tiles * tile_bytes;
  static constexpr int pipe_bytes = Stages * stage_bytes;
  static constexpr int smem_bytes = pipe_bytes + threads * 64 * 4; // + the folds' sums
  static_assert(smem_bytes <= 227 * 1024,
                "tcr::gemm: BlockK x Stages too large for sm_90's 227 KiB of shared memory per "
                "block (two terms: BlockK 32 at most 5 stages, BlockK 64 2; three terms: BlockK "
                "32 at most 3)");
  // Byte offset of chunk c of tile row r: the chunk index is XORed with a function of r so that
  // the 8 rows an ldmatrix phase reads (same c) hit 8 distinct 16-byte bank groups.
  __device__ __forceinline__ static std::uint32_t swizzle(int r, int c) {
    const int x = chunks == 8 ? (r & 7) : ((r >> 1) & 3);
    return static_cast<std::uint32_t>(r * BlockK * 2 + ((c ^ x) << 4));
  }
};

inline std::size_t round_up(std::size_t x, std::size_t to) {
  return (x + to - 1) / to * to;
}

// The workspace: split operands [rows][kp] fp16 (k contiguous), the rows' scale exponents, the
// rows' max |x| bits, and the row-statistics partials with their arrival counters.
struct Workspace {
  std::size_t mp, np, kp, m_blocks, n_blocks, splits;
  std::size_t a_part[3], b_part[3], a_exp, b_exp, a_max, b_max, counters, tile_counters, partials,
      split_partials, zero_end;
  std::size_t bytes;
};

// Split-k: a shape with fewer than 128 output tiles (one block per SM, 132 SMs on the H200)
// splits k into up to 128 / tiles slices of at least 4 x 64 k each. It depends on the shape
// only, so the result does not depend on the GPU.
inline std::size_t splits_for(std::size_t tiles, std::size_t kp) {
  std::size_t s = tiles >= 128 ? 1 : 128 / tiles;
  const std::size_t most = kp / 256 > 0 ? kp / 256 : 1;
  s = s < most ? s : most;
  return s < 16 ? s : 16;
}
inline Workspace plan(int m, int n, int k, int terms) {
  Workspace w{};
  w.mp = round_up(static_cast<std::size_t>(m), block_m);
  w.np = round_up(static_cast<std::size_t>(n), block_n);
  w.kp = round_up(static_cast<std::size_t>(k), 64); // every BlockK divides it
  w.m_blocks = w.mp / block_m;
  w.n_blocks = w.np / block_n;
  w.splits = splits_for(w.m_blocks * w.n_blocks, w.kp);
  std::size_t at = 0;
  auto take = [&](std::size_t bytes) {
    const std::size_t here = at;
    at = round_up(at + bytes, 256);
    return here;
  };
  for (int t = 0; t < 3; ++t)
    w.a_part[t] = t < terms ? take(w.mp * w.kp * 2) : 0;
  for (int t = 0; t < 3; ++t)
    w.b_part[t] = t < terms ? take(w.np * w.kp * 2) : 0;
  w.a_exp = take(w.mp * 4);
  w.b_exp = take(w.np * 4);
  w.a_max = take(w.mp * 4); // zeroed per call from here ...
  w.b_max = take(w.np * 4);
  w.counters = take(w.m_blocks * 4);
  w.tile_counters = take(w.m_blocks * w.n_blocks * 4);
  w.zero_end = at; // ... to here
  w.partials = take(w.n_blocks * w.mp * 2 * sizeof(double));
  w.split_partials =
      take(w.splits > 1 ? w.splits * w.m_blocks * w.n_blocks * block_m * block_n * 8 : 0);
  w.bytes = at;
  return w;
}

// An operand seen as rows over k: element (r, kk) at p[r * row_stride + kk * k_stride]; A's rows
// are C's rows, B's "rows" are C's columns.
struct OperandView {
  const float* p;
  long long row_stride, k_stride;
  int rows, k;
};

// Pass 1: max |x| of every row, as float bits (monotone for |x|; NaN's bits exceed Inf's).
// blockIdx.z: 0 for A, 1 for B. A block of 32 x 8 threads covers 32 rows and max_span k at a
// time (grid-stride over both, so any shape fits the grid's limits), reading along whichever
// dimension is contiguous (view_of makes one stride 1), 8 independent loads in flight per
// thread. A template so that the header can be included by several translation units.
constexpr int max_span = 256;
template <int = 0>
__global__ void __launch_bounds__(256)
    row_max_kernel(OperandView a, OperandView b, unsigned* g_a_max, unsigned* g_b_max) {
  const OperandView v = blockIdx.z == 0 ? a : b;
  unsigned* g_max = blockIdx.z == 0 ? g_a_max : g_b_max;
  const int x = threadIdx.x, y = threadIdx.y;
  __shared__ unsigned s_max[8][32];
  for (long long r0 = blockIdx.y * 32ll; r0 < v.rows; r0 += gridDim.y * 32ll)
    for (long long k_begin = blockIdx.x * static_cast<long long>(max_span); k_begin < v.k;
         k_begin += gridDim.x * static_cast<long long>(max_span)) {
      const long long k_end = min(static_cast<long long>(v.k), k_begin + max_span);
      if (v.k_stride == 1) { // lanes along k, rows y + 8 i
        unsigned r_max[4] = {0, 0, 0, 0};
        for (long long k0 = k_begin; k0 < k_end; k0 += 64)
          TCR_UNROLL
        for (int i = 0; i < 4; ++i) {
          const long long r = r0 + y + 8 * i;
          TCR_UNROLL
          for (int h = 0; h < 2; ++h) {
            const long long kk = k0 + x + 32 * h;
            if (r < v.rows && kk < k_end)
              r_max[i] = max(r_max[i], __float_as_uint(fabsf(v.p[r * v.row_stride + kk])));
          }
        }
        TCR_UNROLL
        for (int i = 0; i < 4; ++i) {
          for (int off = 16; off > 0; off >>= 1)
            r_max[i] = max(r_max[i], __shfl_xor_sync(0xffffffffu, r_max[i], off));
          const long long r = r0 + y + 8 * i;
          if (x == 0 && r < v.rows)
            atomicMax(g_max + r, r_max[i]);
        }
      } else { // lanes along rows, k = k_begin + y + 8 j
        const long long r = r0 + x;
        unsigned r_max = 0;
        if (r < v.rows)
          for (long long k0 = k_begin + y; k0 < k_end; k0 += 64) {
            float r_x[8];
            TCR_UNROLL
            for (int j = 0; j < 8; ++j)
              r_x[j] = k0 + 8 * j < k_end ? v.p[r + (k0 + 8 * j) * v.k_stride] : 0.f;
            TCR_UNROLL
            for (int j = 0; j < 8; ++j)
              r_max = max(r_max, __float_as_uint(fabsf(r_x[j])));
          }
        __syncthreads(); // s_max is free (previous span)
        s_max[y][x] = r_max;
        __syncthreads();
        if (y == 0 && r < v.rows) {
          for (int j = 1; j < 8; ++j)
            r_max = max(r_max, s_max[j][x]);
          atomicMax(g_max + r, r_max);
        }
      }
    }
}

// The scale exponent that puts a row's max |x| into [2^14, 2^15): 14 - floor(log2 max). A zero
// or non-finite max is not scaled.
__device__ inline int scale_exponent(unsigned max_bits) {
  const float mx = __uint_as_float(max_bits);
  if (max_bits == 0 || !isfinite(mx))
    return 0;
  return 14 - ilogbf(mx);
}

// The split of one scaled value y = x 2^e (|y| < 2^15) into Terms fp16 parts: r_0 = y,
// t_i = RN16(r_i), r_(i+1) = r_i - t_i (two terms: yh = t_0, yl = t_1). Derivation of the split
// error (used by gemm_error_model): each r_(i+1) is exact in float (Sterbenz: t_i is 0 or within
// a factor 2 of r_i, also among fp16's subnormals). |r_i - t_i| <= 2^-11 |r_i| when t_i is a
// normal fp16 (|r_i| >= 2^-14), else <= 2^-25 (half the smallest subnormal). So two terms leave
// |y - t_0 - t_1| <= 2^-22 |y| + 2^-25 (1 + 2^-11), with |t_1| <= (1 + 2^-11)(2^-11 |y| +
// 2^-25); three leave |y - t_0 - t_1 - t_2| <= 2^-33 |y| + 2^-25 (1 + 2^-11 + 2^-22). Values with
// |y| < 2^-126 (x below 2^-140 of the row's max) round to 0 in the scaling itself (float's
// subnormals are exact, so ldexpf only rounds below 2^-149: within the 2^-25 floor). A non-finite
// y keeps its t_0 and zero parts after it.
template <int Terms>
struct SplitParts {
  __half t[Terms];
};
template <int Terms>
__device__ inline SplitParts<Terms> split_terms(float x, int e) {
  SplitParts<Terms> r;
  const float y = ldexpf(x, e);
  float rest = y;
  TCR_UNROLL
  for (int i = 0; i < Terms; ++i) {
    r.t[i] = __float2half_rn(rest);
    rest = isfinite(y) ? __fsub_rn(rest, __half2float(r.t[i])) : 0.f;
  }
  return r;
}

// The split operands' planes: [Terms][rows_padded][kp] fp16 each (k contiguous).
struct Planes {
  __half* a[3];
  __half* b[3];
};

// Pass 2: the scaled split of every element into Terms planes [rows_padded][kp] (zeros in the
// padding), and each row's exponent. A block of 32 x 8 threads covers 32 rows and 64 k at a time
// (grid-stride over the padded shape); it reads through a shared tile along the contiguous
// dimension and writes half2 pairs.
template <int Terms>
__global__ void __launch_bounds__(256)
    split_kernel(OperandView a, OperandView b, const unsigned* g_a_max, const unsigned* g_b_max,
                 Planes planes, int* g_a_exp, int* g_b_exp, long long a_rows_padded,
                 long long b_rows_padded, long long kp) {
  const bool is_a = blockIdx.z == 0;
  const OperandView v = is_a ? a : b;
  const unsigned* g_max = is_a ? g_a_max : g_b_max;
  __half* const* g_part = is_a ? planes.a : planes.b;
  int* g_exp = is_a ? g_a_exp : g_b_exp;
  const long long rows_padded = is_a ? a_rows_padded : b_rows_padded;
  __shared__ float s_tile[32][65]; // [row][k]
  __shared__ int s_exp[32];
  const int x = threadIdx.x, y = threadIdx.y;
  for (long long r0 = blockIdx.y * 32ll; r0 < rows_padded; r0 += gridDim.y * 32ll)
    for (long long k0 = blockIdx.x * 64ll; k0 < kp; k0 += gridDim.x * 64ll) {
      __syncthreads(); // the previous tile's readers are done
      if (v.k_stride == 1) {
        TCR_UNROLL
        for (int i = 0; i < 4; ++i)
          TCR_UNROLL
        for (int h = 0; h < 2; ++h) {
          const int row = y + 8 * i;
          const long long r = r0 + row, kk = k0 + x + 32 * h;
          s_tile[row][x + 32 * h] = r < v.rows && kk < v.k ? v.p[r * v.row_stride + kk] : 0.f;
        }
      } else {
        TCR_UNROLL
        for (int j = 0; j < 8; ++j) {
          const int kq = y + 8 * j;
          const long long kk = k0 + kq, r = r0 + x;
          s_tile[x][kq] = r < v.rows && kk < v.k ? v.p[r + kk * v.k_stride] : 0.f;
        }
      }
      if (y == 0) {
        const long long r = r0 + x;
        const int e = r < v.rows ? scale_exponent(g_max[r]) : 0;
        s_exp[x] = e;
        if (k0 == 0)
          g_exp[r] = e;
      }
      __syncthreads();
      TCR_UNROLL
      for (int i = 0; i < 4; ++i) {
        const int row = y + 8 * i;
        const SplitParts<Terms> t0 = split_terms<Terms>(s_tile[row][2 * x], s_exp[row]);
        const SplitParts<Terms> t1 = split_terms<Terms>(s_tile[row][2 * x + 1], s_exp[row]);
        const std::size_t at = static_cast<std::size_t>(r0 + row) * kp + k0 + 2 * x;
        TCR_UNROLL
        for (int t = 0; t < Terms; ++t)
          *reinterpret_cast<__half2*>(g_part[t] + at) = __halves2half2(t0.t[t], t1.t[t]);
      }
    }
}

__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(std::uint32_t s_dst, const void* g_src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s_dst), "l"(g_src));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t s_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s_addr));
}

struct GemmParams {
  const __half *a_part[3], *b_part[3]; // [mp][kp], [np][kp] each (Terms of them)
  const int *a_exp, *b_exp;
  float* c;
  long long c_row_stride, c_col_stride;
  int m, n, kp;
  int m_blocks, n_blocks;
  float alpha, beta;
  double* partials;   // [n_blocks][mp][2] row statistics of each column block
  unsigned* counters; // [m_blocks] arrivals
  float *row_sum, *row_sumsq;
  int splits;              // k slices (1: no split)
  float2* split_partials;  // [splits][tiles][64][threads] (s, e) of each slice's block
  unsigned* tile_counters; // [tiles] arrivals of the slices
};

// The main kernel. Warp w owns rows (w % 2) 64 .. +64 and columns (w / 2) 32 .. +32 of the
// block's 128 x 128 tile: 4 x 4 m16n8 accumulators per lane, the (hi, hi) chain (r_chain), the
// cross chain (r_cross, with Cross) and the fold (s_sum). Proof of the MMA part of the bound:
// the (hi, hi) chain is one MMA per k16-step for Chain steps (with Cross = false all 3 or 4
// products go there: P MMAs a step), its C starting at the carried TwoSum error e of the
// previous fold (|e| <= u|s|) plus the previous cross chain; by tile_sum.cuh's model (*) each
// MMA's error is at most 18 2^-23 of the magnitudes it adds, which summed over a chain is Chain
// 18 2^-23 (|C_0| + the chain's sum of |terms|), or P Chain 18 2^-23 with one accumulator. The
// cross chain starts from 0 and adds terms of at most 2^-10 (1 + 2^-10) |y z| (and 2^-22 |y z|)
// (gemm_error_model has the sum). The fold s + chain = s' + e' is exact (TwoSum), so the only
// other errors are RN(e' + cross) and the final RN(s + e) (u |P|) and the |e| carried in
// (second order, covered by the factor 2 of gemm_error_model).
template <int Chain, int Terms, int Products, bool Stats, int BlockK, int Stages, bool Cross>
__global__ void __launch_bounds__(threads, 1) gemm_kernel(GemmParams p) {
  using P = Pipe<BlockK, Stages, Terms>;
  using Order = ProductOrder<Terms>;
  static_assert((Terms == 2 && (Products == 3 || Products == 4)) || (Terms == 3 && Products == 6),
                "tcr::gemm: two terms form 3 or 4 products, three terms 6");
  static_assert(Chain >= 1 && Chain <= 64, "tcr::gemm: Chain is 1 .. 64 k16-steps");
  using Mma = tcr::mma::sm80_m16n8k16_f32_f16_f16_f32;
  extern __shared__ __align__(128) unsigned char s_raw[];

  // Grouped rasterisation: group_m block rows share their B panels while they run. Split-k:
  // blocks [slice tiles, (slice + 1) tiles) compute k-tiles [slice, slice + 1) k_tiles / splits.
  const int tiles = p.m_blocks * p.n_blocks;
  const int slice = blockIdx.x / tiles, id = blockIdx.x % tiles;
  const int per_group = group_m * p.n_blocks;
  const int group = id / per_group;
  const int first_m = group * group_m;
  const int rows_in_group = min(p.m_blocks - first_m, group_m);
  const int bm = first_m + (id % per_group) % rows_in_group;
  const int bn = (id % per_group) / rows_in_group;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp & 1, wn = warp >> 1;
  const std::size_t kp = static_cast<std::size_t>(p.kp);
  const __half* g_src[P::tiles]; // A's parts, then B's
  TCR_UNROLL
  for (int t = 0; t < Terms; ++t) {
    g_src[t] = p.a_part[t] + static_cast<std::size_t>(bm) * block_m * kp;
    g_src[Terms + t] = p.b_part[t] + static_cast<std::size_t>(bn) * block_n * kp;
  }
  const std::uint32_t s_base = smem_address(s_raw);

  auto load_stage = [&](int stage, int kt) {
    const std::uint32_t s_stage = s_base + stage * P::stage_bytes;
    TCR_UNROLL
    for (int op = 0; op < P::tiles; ++op) {
      TCR_UNROLL
      for (int i = 0; i < block_m * P::chunks / threads; ++i) {
        const int q = tid + i * threads, r = q / P::chunks, c = q % P::chunks;
        cp_async16(s_stage + op * P::tile_bytes + P::swizzle(r, c),
                   g_src[op] + r * kp + static_cast<std::size_t>(kt) * BlockK + c * 8);
      }
    }
  };

  // The chain lives in registers, its fold s in shared memory (each thread's own 64 floats,
  // float4 j of thread tid at s_sum[j][tid]: no other thread touches them, so no barrier), which
  // leaves the registers for two sets of fragments: those of the next k16-step load while the
  // MMAs of this one run.
  float r_chain[4][4][4]; // [mi][ni][c register], this lane's 64 entries of the warp tile
  // Cross: the (hi, lo), (lo, hi) [, (lo, lo)] products chain in their own accumulators, which
  // are 2^-11 of the (hi, hi) chain's size, so their truncations are that much smaller.
  float r_cross[4][4][4];
  float4* s_sum = reinterpret_cast<float4*>(s_raw + P::pipe_bytes); // [16][threads]
  TCR_UNROLL
  for (int mi = 0; mi < 4; ++mi)
    TCR_UNROLL
  for (int ni = 0; ni < 4; ++ni) {
    TCR_UNROLL
    for (int i = 0; i < 4; ++i)
      r_chain[mi][ni][i] = r_cross[mi][ni][i] = 0.f;
    s_sum[(mi * 4 + ni) * threads + tid] = make_float4(0.f, 0.f, 0.f, 0.f);
  }

  // Folds accumulator (mi, ni)'s chain into its sum: s + chain = s' + e exactly (TwoSum), e
  // starts the next chain.
  auto fold_one = [&](int mi, int ni) {
    float4& s4 = s_sum[(mi * 4 + ni) * threads + tid];
    float r_s[4] = {s4.x, s4.y, s4.z, s4.w};
    TCR_UNROLL
    for (int i = 0; i < 4; ++i) {
      const auto [s, e] = tcr::two_sum(r_s[i], r_chain[mi][ni][i]);
      r_s[i] = s;
      if constexpr (Cross) {
        r_chain[mi][ni][i] = __fadd_rn(e, r_cross[mi][ni][i]);
        r_cross[mi][ni][i] = 0.f;
      } else {
        r_chain[mi][ni][i] = e;
      }
    }
    s4 = make_float4(r_s[0], r_s[1], r_s[2], r_s[3]);
  };

  // The fragments of one k16-step: [part][tile][register].
  struct Fragments {
    std::uint32_t a[Terms][4][4], b[Terms][4][2];
  };
  // ldmatrix addresses. A (x4 = the m16 x k16 fragment): lane l reads row l % 16, chunk
  // 2 kk + l / 16 of its m-tile. B (x4 = two n8 x k16 fragments): lane l reads row
  // l % 8 + 8 (l / 16), chunk 2 kk + (l / 8) % 2. The tiles' row offsets (mi 16, pair 16) are
  // multiples of 8, so the swizzle depends on the lane only: one base per operand and k16-step,
  // the tile offsets are immediates.
  constexpr int row_bytes = BlockK * 2;
  const int a_row = wm * 64 + (lane & 15), b_row = wn * 32 + (lane & 7) + ((lane >> 4) << 3);
  auto chunk_offset = [&](int row, int chunk) {
    return static_cast<std::uint32_t>(P::swizzle(row, chunk) - row * row_bytes);
  };
  auto load_fragments = [&](Fragments& f, int stage, int kk) {
    const std::uint32_t s_stage = s_base + stage * P::stage_bytes;
    const std::uint32_t a_at =
        s_stage + a_row * row_bytes + chunk_offset(a_row, kk * 2 + (lane >> 4));
    const std::uint32_t b_at = s_stage + Terms * P::tile_bytes + b_row * row_bytes +
                               chunk_offset(b_row, kk * 2 + ((lane >> 3) & 1));
    TCR_UNROLL
    for (int h = 0; h < Terms; ++h) {
      TCR_UNROLL
      for (int mi = 0; mi < 4; ++mi)
        ldmatrix_x4(f.a[h][mi], a_at + h * P::tile_bytes + mi * 16 * row_bytes);
      TCR_UNROLL
      for (int pair = 0; pair < 2; ++pair) {
        std::uint32_t r[4];
        ldmatrix_x4(r, b_at + h * P::tile_bytes + pair * 16 * row_bytes);
        f.b[h][2 * pair][0] = r[0];
        f.b[h][2 * pair][1] = r[1];
        f.b[h][2 * pair + 1][0] = r[2];
        f.b[h][2 * pair + 1][1] = r[3];
      }
    }
  };

  // Pipeline: tiles 0 .. Stages-1 in flight first; at the last k16-step of tile kt every warp
  // has its fragments of tile kt in registers, so after one barrier stage kt % Stages takes
  // tile kt + Stages while the fragments of tile kt + 1 load.
  const int all_k_tiles = p.kp / BlockK;
  const int kt_begin = static_cast<int>(static_cast<long long>(slice) * all_k_tiles / p.splits);
  const int k_tiles =
      static_cast<int>(static_cast<long long>(slice + 1) * all_k_tiles / p.splits) - kt_begin;
  TCR_UNROLL
  for (int op = 0; op < P::tiles; ++op)
    g_src[op] += static_cast<std::size_t>(kt_begin) * BlockK;
  constexpr int kk_steps = BlockK / 16;
  TCR_UNROLL
  for (int s = 0; s < Stages; ++s) {
    if (s < k_tiles)
      load_stage(s, s);
    cp_async_commit();
  }
  cp_async_wait<Stages - 1>();
  __syncthreads();
  // Two terms double-buffer the fragments (the next k16-step's load while this one's MMAs run);
  // three terms' 72 fragment registers a set leave room for one set only (it reloads after the
  // MMAs).
  constexpr bool double_buffer = Terms == 2;
  Fragments frag[double_buffer ? 2 : 1];
  load_fragments(frag[0], 0, 0);

  int steps = 0; // k16-steps since the last fold
  for (int kt = 0; kt < k_tiles; ++kt) {
    TCR_UNROLL
    for (int kk = 0; kk < kk_steps; ++kk) {
      Fragments& cur = frag[double_buffer ? (kk & 1) : 0];
      Fragments& next = frag[double_buffer ? ((kk + 1) & 1) : 0];
      auto fetch_next = [&] {
        if (kk + 1 < kk_steps) {
          load_fragments(next, kt % Stages, kk + 1);
        } else if (kt + 1 < k_tiles) {
          cp_async_wait<Stages - 2>();
          __syncthreads(); // tile kt + 1 has landed; nobody reads stage kt % Stages any more
          if (kt + Stages < k_tiles)
            load_stage(kt % Stages, kt + Stages);
          cp_async_commit();
          load_fragments(next, (kt + 1) % Stages, 0);
        }
      };
      if constexpr (double_buffer)
        fetch_next();
      // The products in ProductOrder's order, each over all 16 accumulators before the next,
      // so 16 independent MMAs hide each one's latency.
      TCR_UNROLL
      for (int prod = 0; prod < Products; ++prod)
        TCR_UNROLL
      for (int mi = 0; mi < 4; ++mi)
        TCR_UNROLL
      for (int ni = 0; ni < 4; ++ni) {
        float(&acc)[4] = (Cross && prod != 0) ? r_cross[mi][ni] : r_chain[mi][ni];
        Mma::mma(acc, cur.a[Order::a_part(prod)][mi], cur.b[Order::b_part(prod)][ni], acc);
      }
      if constexpr (!double_buffer)
        fetch_next();
      if (++steps == Chain) {
        TCR_UNROLL
        for (int mi = 0; mi < 4; ++mi)
          TCR_UNROLL
        for (int ni = 0; ni < 4; ++ni)
          fold_one(mi, ni);
        steps = 0;
      }
    }
  }
  cp_async_wait<0>();
  if (steps != 0) {
    TCR_UNROLL
    for (int mi = 0; mi < 4; ++mi)
      TCR_UNROLL
    for (int ni = 0; ni < 4; ++ni)
      fold_one(mi, ni);
  }
  float r_sum[4][4][4];
  TCR_UNROLL
  for (int mi = 0; mi < 4; ++mi)
    TCR_UNROLL
  for (int ni = 0; ni < 4; ++ni) {
    const float4 s4 = s_sum[(mi * 4 + ni) * threads + tid];
    r_sum[mi][ni][0] = s4.x;
    r_sum[mi][ni][1] = s4.y;
    r_sum[mi][ni][2] = s4.z;
    r_sum[mi][ni][3] = s4.w;
  }

  // Split-k: every slice stores its (s, e); the last slice to arrive at this tile merges all
  // of them in slice order (so the bits do not depend on the arrival order): (S, E) += (s, e)
  // by TwoSum on S, E collecting the errors and the e's (|E| <= about u |S|, so its own
  // roundings are of order u^2 S).
  if (p.splits > 1) {
    __shared__ bool s_last_slice;
    const std::size_t tile_at = static_cast<std::size_t>(bm) * p.n_blocks + bn;
    float2* g_tile = p.split_partials + tile_at * 64 * threads;
    const std::size_t slice_stride = static_cast<std::size_t>(tiles) * 64 * threads;
    TCR_UNROLL
    for (int j = 0; j < 64; ++j)
      g_tile[slice * slice_stride + j * threads + tid] =
          make_float2(r_sum[j / 16][(j / 4) % 4][j % 4], r_chain[j / 16][(j / 4) % 4][j % 4]);
    __threadfence();
    __syncthreads();
    if (tid == 0)
      s_last_slice =
          atomicAdd(p.tile_counters + tile_at, 1u) == static_cast<unsigned>(p.splits - 1);
    __syncthreads();
    if (!s_last_slice)
      return;
    __threadfence();
    // Slice by slice, 16 entries' loads in flight at a time (L2 loads, .cg: the other slices'
    // stores were fenced before their arrivals).
    TCR_UNROLL
    for (int j = 0; j < 64; ++j)
      r_sum[j / 16][(j / 4) % 4][j % 4] = r_chain[j / 16][(j / 4) % 4][j % 4] = 0.f;
    for (int sl = 0; sl < p.splits; ++sl) {
      const float2* g_slice = g_tile + sl * slice_stride + tid;
      TCR_UNROLL
      for (int j0 = 0; j0 < 64; j0 += 16) {
        float2 part[16];
        TCR_UNROLL
        for (int j = 0; j < 16; ++j)
          part[j] = __ldcg(g_slice + (j0 + j) * threads);
        TCR_UNROLL
        for (int j = 0; j < 16; ++j) {
          float& big = r_sum[(j0 + j) / 16][((j0 + j) / 4) % 4][(j0 + j) % 4];
          float& err = r_chain[(j0 + j) / 16][((j0 + j) / 4) % 4][(j0 + j) % 4];
          const auto [sum, e] = tcr::two_sum(big, part[j].x);
          big = sum;
          err = __fadd_rn(err, __fadd_rn(e, part[j].y));
        }
      }
    }
  }

  // Epilogue: P = (s + e) 2^-(ea + eb), then alpha P + beta C.
  const int g = lane >> 2, t = lane & 3;
  const int row_base = bm * block_m + wm * 64, col_base = bn * block_n + wn * 32;
  int col_exp[4][2];
  TCR_UNROLL
  for (int ni = 0; ni < 4; ++ni)
    TCR_UNROLL
  for (int c = 0; c < 2; ++c)
    col_exp[ni][c] = p.b_exp[col_base + ni * 8 + 2 * t + c];
  using RowAcc = tcr::double_carried<float>;
  RowAcc r_rsum[4][2], r_rssq[4][2]; // [mi][g or g + 8]
  TCR_UNROLL
  for (int mi = 0; mi < 4; ++mi)
    TCR_UNROLL
  for (int h = 0; h < 2; ++h) {
    const int row = row_base + mi * 16 + g + 8 * h;
    const int re = p.a_exp[row];
    TCR_UNROLL
    for (int ni = 0; ni < 4; ++ni)
      TCR_UNROLL
    for (int c = 0; c < 2; ++c) {
      const int col = col_base + ni * 8 + 2 * t + c;
      const int i = 2 * h + c;
      if (row < p.m && col < p.n) {
        const float prod =
            ldexpf(__fadd_rn(r_sum[mi][ni][i], r_chain[mi][ni][i]), -(re + col_exp[ni][c]));
        float* g_c = p.c + row * p.c_row_stride + col * p.c_col_stride;
        const float ap = p.alpha == 0.f ? 0.f : __fmul_rn(p.alpha, prod);
        const float out = p.beta == 0.f ? ap : __fmaf_rn(p.beta, *g_c, ap);
        *g_c = out;
        if constexpr (Stats) {
          r_rsum[mi][h].add(out);
          r_rssq[mi][h].add(out, out);
        }
      }
    }
  }
  if constexpr (Stats) {
    // Quad (4 lanes of one g), then the block's 4 column warps, then the column blocks.
    using Quad = tcr::WarpReduce<RowAcc, tcr::WarpReduceAlgorithm::shuffle_tree, 4>;
    double* s_part = reinterpret_cast<double*>(s_raw); // [4 wn][128 rows][2]
    __syncthreads(); // every warp is done with the pipeline's shared memory
    TCR_UNROLL
    for (int mi = 0; mi < 4; ++mi)
      TCR_UNROLL
    for (int h = 0; h < 2; ++h) {
      const RowAcc sum = Quad().Sum(r_rsum[mi][h]);
      const RowAcc ssq = Quad().Sum(r_rssq[mi][h]);
      if (t == 0) {
        const int r = wm * 64 + mi * 16 + g + 8 * h;
        s_part[(wn * block_m + r) * 2 + 0] = sum.sum;
        s_part[(wn * block_m + r) * 2 + 1] = ssq.sum;
      }
    }
    __syncthreads();
    const std::size_t mp = static_cast<std::size_t>(p.m_blocks) * block_m;
    if (tid < block_m) {
      RowAcc sum, ssq;
      for (int w = 0; w < 4; ++w) {
        sum.merge(RowAcc{s_part[(w * block_m + tid) * 2 + 0]});
        ssq.merge(RowAcc{s_part[(w * block_m + tid) * 2 + 1]});
      }
      double* g_part = p.partials + (static_cast<std::size_t>(bn) * mp + bm * block_m + tid) * 2;
      g_part[0] = sum.sum;
      g_part[1] = ssq.sum;
    }
    // The last column block of this block row merges the partials in column order.
    __shared__ bool s_last;
    __threadfence();
    __syncthreads();
    if (tid == 0)
      s_last = atomicAdd(p.counters + bm, 1u) == static_cast<unsigned>(p.n_blocks - 1);
    __syncthreads();
    if (s_last && tid < block_m) {
      __threadfence();
      const int row = bm * block_m + tid;
      RowAcc sum, ssq;
      constexpr int batch = 8; // loads in flight (L2, .cg), merged in column-block order
      for (int b0 = 0; b0 < p.n_blocks; b0 += batch) {
        double2 part[batch];
        TCR_UNROLL
        for (int b = 0; b < batch; ++b)
          if (b0 + b < p.n_blocks)
            part[b] = __ldcg(reinterpret_cast<const double2*>(
                p.partials + (static_cast<std::size_t>(b0 + b) * mp + row) * 2));
        TCR_UNROLL
        for (int b = 0; b < batch; ++b)
          if (b0 + b < p.n_blocks) {
            sum.merge(RowAcc{part[b].x});
            ssq.merge(RowAcc{part[b].y});
          }
      }
      if (row < p.m) {
        if (p.row_sum)
          p.row_sum[row] = sum.result();
        if (p.row_sumsq)
          p.row_sumsq[row] = ssq.result();
      }
    }
  }
}

inline OperandView view_of(Layout layout, const float* p, int ld, int rows, int k,
                           bool rows_are_first_index) {
  // rows_are_first_index: the operand's rows index its first dimension (A: m x k); else its
  // second (B: k x n, whose "rows" are its columns).
  const bool row_major = layout == Layout::row_major;
  long long first_stride = row_major ? ld : 1, second_stride = row_major ? 1 : ld;
  return rows_are_first_index ? OperandView{p, first_stride, second_stride, rows, k}
                              : OperandView{p, second_stride, first_stride, rows, k};
}

template <int Chain, int Terms, int Products, bool Stats, int BlockK, int Stages, bool Cross>
cudaError_t launch_gemm(const GemmParams& params, unsigned grid, cudaStream_t stream) {
  auto kernel = gemm_kernel<Chain, Terms, Products, Stats, BlockK, Stages, Cross>;
  constexpr int bytes = Pipe<BlockK, Stages, Terms>::smem_bytes;
  // The shared-memory opt-in, once per device (for devices 0 .. 63; others every call).
  static std::atomic<std::uint64_t> s_done{0};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess)
    return err;
  const std::uint64_t bit = device < 64 ? std::uint64_t{1} << device : 0;
  if (bit == 0 || (s_done.load(std::memory_order_acquire) & bit) == 0) {
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess)
      return err;
    s_done.fetch_or(bit, std::memory_order_acq_rel);
  }
  kernel<<<grid, threads, bytes, stream>>>(params);
  return cudaGetLastError();
}

} // namespace detail

// C = alpha A B + beta C (see the header comment). d_temp == nullptr: size query.
template <int Chain = 8, int Terms = 2, int Products = default_products<Terms>,
          int BlockK = Terms == 2 ? 64 : 32, int Stages = 2, bool Cross = true>
cudaError_t sgemm(void* d_temp, std::size_t& temp_bytes, Layout layout_a, Layout layout_b,
                  Layout layout_c, int m, int n, int k, float alpha, const float* a, int lda,
                  const float* b, int ldb, float beta, float* c, int ldc,
                  cudaStream_t stream = nullptr, RowStats stats = {}) {
  if (m <= 0 || n <= 0 || k <= 0)
    return cudaErrorInvalidValue;
  static_assert((Terms == 2 && (Products == 3 || Products == 4)) || (Terms == 3 && Products == 6),
                "tcr::gemm: two terms form 3 or 4 products, three terms 6");
  const detail::Workspace w = detail::plan(m, n, k, Terms);
  if (w.splits * w.m_blocks * w.n_blocks > 0x7fffffffu || w.kp > 0x7fffffffu)
    return cudaErrorInvalidValue;
  if (d_temp == nullptr) {
    temp_bytes = w.bytes;
    return cudaSuccess;
  }
  const bool a_row = layout_a == Layout::row_major, b_row = layout_b == Layout::row_major,
             c_row = layout_c == Layout::row_major;
  if (a == nullptr || b == nullptr || c == nullptr || temp_bytes < w.bytes)
    return cudaErrorInvalidValue;
  if (lda < (a_row ? k : m) || ldb < (b_row ? n : k) || ldc < (c_row ? n : m))
    return cudaErrorInvalidValue;

  unsigned char* ws = static_cast<unsigned char*>(d_temp);
  auto at = [&](std::size_t off) { return ws + off; };
  cudaError_t err = cudaMemsetAsync(at(w.a_max), 0, w.zero_end - w.a_max, stream);
  if (err != cudaSuccess)
    return err;

  const detail::OperandView va = detail::view_of(layout_a, a, lda, m, k, true);
  const detail::OperandView vb = detail::view_of(layout_b, b, ldb, n, k, false);
  auto* a_max = reinterpret_cast<unsigned*>(at(w.a_max));
  auto* b_max = reinterpret_cast<unsigned*>(at(w.b_max));
  const dim3 tile_block(32, 8);
  // The passes' grids (each loops over what its grid does not cover).
  auto capped = [](std::size_t x) { return static_cast<unsigned>(x < 65535 ? x : 65535); };
  const unsigned rows32 = capped((w.mp > w.np ? w.mp : w.np) / 32);
  const unsigned spans =
      capped((static_cast<std::size_t>(k) + detail::max_span - 1) / detail::max_span);
  detail::row_max_kernel<<<dim3(spans, rows32, 2), tile_block, 0, stream>>>(va, vb, a_max, b_max);
  if ((err = cudaGetLastError()) != cudaSuccess)
    return err;
  detail::Planes planes{};
  for (int t = 0; t < Terms; ++t) {
    planes.a[t] = reinterpret_cast<__half*>(at(w.a_part[t]));
    planes.b[t] = reinterpret_cast<__half*>(at(w.b_part[t]));
  }
  auto* a_exp = reinterpret_cast<int*>(at(w.a_exp));
  auto* b_exp = reinterpret_cast<int*>(at(w.b_exp));
  detail::split_kernel<Terms><<<dim3(capped(w.kp / 64), rows32, 2), tile_block, 0, stream>>>(
      va, vb, a_max, b_max, planes, a_exp, b_exp, static_cast<long long>(w.mp),
      static_cast<long long>(w.np), static_cast<long long>(w.kp));
  if ((err = cudaGetLastError()) != cudaSuccess)
    return err;

  detail::GemmParams params{};
  for (int t = 0; t < Terms; ++t) {
    params.a_part[t] = planes.a[t];
    params.b_part[t] = planes.b[t];
  }
  params.a_exp = a_exp;
  params.b_exp = b_exp;
  params.c = c;
  params.c_row_stride = c_row ? ldc : 1;
  params.c_col_stride = c_row ? 1 : ldc;
  params.m = m;
  params.n = n;
  params.kp = static_cast<int>(w.kp);
  params.m_blocks = static_cast<int>(w.m_blocks);
  params.n_blocks = static_cast<int>(w.n_blocks);
  params.alpha = alpha;
  params.beta = beta;
  params.partials = reinterpret_cast<double*>(at(w.partials));
  params.counters = reinterpret_cast<unsigned*>(at(w.counters));
  params.row_sum = stats.row_sum;
  params.row_sumsq = stats.row_sumsq;
  params.splits = static_cast<int>(w.splits);
  params.split_partials = reinterpret_cast<float2*>(at(w.split_partials));
  params.tile_counters = reinterpret_cast<unsigned*>(at(w.tile_counters));
  const unsigned grid = static_cast<unsigned>(w.splits * w.m_blocks * w.n_blocks);
  if (stats.row_sum != nullptr || stats.row_sumsq != nullptr)
    return detail::launch_gemm<Chain, Terms, Products, true, BlockK, Stages, Cross>(params, grid,
                                                                                    stream);
  return detail::launch_gemm<Chain, Terms, Products, false, BlockK, Stages, Cross>(params, grid,
                                                                                   stream);
}

} // namespace tcr::gemm
