// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: CSR SpMV y = A x with a logical warp (tcr::WarpReduce, L lanes) per row, and
// the two kernel skeletons every solver step is made of:
//   spmv_kernel<Shape>(epi) rows by logical warps of Shape::lanes lanes; lane 0 of each hands
//                           the row's accumulator to epi.row (store y, fold the step's dots)
//   vector_kernel(op)       elements by threads, op.element(i) (vector updates, dots)
// Both end, when the step has dot products, in grid_reduce and the step's scalar algebra
// (op.finish) in the last block, so a solver iteration needs no host round trip.
//
// Row accumulators: tcr::dot2<float> / dot2<double> (compensated rows: |y_i - s_i| <= u|s_i| +
// (1 + u) gamma_{2h} (u + (1 + u) gamma_h) sum_j |a_ij x_j|, h = ceil(nnz_i / L) + log2 L the
// height of the row's tree: each lane's chain, then the warp tree; compensated/accumulators.cuh)
// or float / double (plain rows: gamma_{h'} sum_j |a_ij x_j| with h' = ceil(nnz_i / L) + log2 L,
// as a cuSPARSE row). y_i is the accumulator's result rounded once to the vector type.
#pragma once

#include <cstdint>
#include <tcr/reduce/warp.cuh>
#include "csr.hpp"
#include "device.cuh"

namespace krylov {

// A CSR matrix in device memory (32-bit indices: check_csr guarantees they fit).
template <class M>
struct csr_view {
  int rows = 0;
  const int* row_ptr = nullptr; // [rows + 1]
  const int* col = nullptr;     // [nnz]
  const M* val = nullptr;       // [nnz]
};

// The device copy of a host matrix, its values rounded to M.
template <class M>
struct device_csr {
  int rows = 0;
  std::int64_t nnz = 0;
  dev_array<int> row_ptr, col;
  dev_array<M> val;
  template <class T>
  explicit device_csr(const csr<T>& A) : rows(static_cast<int>(A.rows)), nnz(A.nnz()) {
    std::vector<int> rp(A.row_ptr.begin(), A.row_ptr.end());
    row_ptr = dev_array<int>(rp);
    col = dev_array<int>(A.col);
    val = dev_array<M>(std::vector<M>(A.val.begin(), A.val.end()));
  }
  csr_view<M> view() const { return {rows, row_ptr.get(), col.get(), val.get()}; }
  int lanes_per_row() const { return krylov::lanes_per_row(rows, nnz); }
};

// A double-word vector element: the device keeps df32 vectors as float2 (hi, lo).
struct df32_elem {
  float hi, lo;
};

// An element widened to double (exact for float, double and df32 pairs of nearby exponents).
__device__ __forceinline__ double wide(float v) {
  return v;
}
__device__ __forceinline__ double wide(double v) {
  return v;
}
__device__ __forceinline__ double wide(df32_elem v) {
  return static_cast<double>(v.hi) + static_cast<double>(v.lo);
}

template <class A, class M, class X>
__device__ __forceinline__ void add_matrix_product(A& acc, M a, X x) {
  add_product(acc, a, x);
}
// a * (hi + lo): two exact products in a compensated accumulator.
template <class A, class M>
__device__ __forceinline__ void add_matrix_product(A& acc, M a, df32_elem x) {
  add_product(acc, a, x.hi);
  add_product(acc, a, x.lo);
}

struct merge_fn {
  template <class A>
  __device__ __forceinline__ A operator()(const A& a, const A& b) const {
    return tcr::merge(a, b);
  }
};

// A step without dot products.
struct no_dots {};

template <class Op>
inline constexpr int dots_of_v = std::is_same_v<typename Op::dots_t, no_dots> ? 0 : 1;

// This lane's share of row entries [begin, end): entries begin + lane, + L, + 2L, ... folded
// into acc in that order (the order, and so the bits, do not depend on the path taken).
template <int L, class Acc, class M, class Epi>
__device__ __forceinline__ void lane_row(Acc& acc, const csr_view<M>& A, const Epi& epi, int begin,
                                         int end, int lane) {
  for (int k = begin + lane; k < end; k += L)
    add_matrix_product(acc, A.val[k], epi.x_at(A.col[k]));
}

// How rows map to lanes: a logical warp of `lanes` lanes per row, lane l taking entries l,
// l + lanes, l + 2 lanes, ... of it, and `rows` rows per trip. Rows of at most per_lane * lanes
// entries take a straight-line path that issues every load of col and val of the trip's rows,
// then every load of x, before the first product: the dependent chain row_ptr -> col -> x costs
// three memory latencies per trip, not two per entry. Longer rows take lane_row's loop, which
// folds the same entries in the same order (the same bits).
template <int Lanes, int PerLane, int Rows>
struct row_shape {
  static_assert(Lanes == 4 || Lanes == 8 || Lanes == 32, "row_shape: 4, 8 or 32 lanes a row");
  static constexpr int lanes = Lanes, per_lane = PerLane, rows = Rows;
};
// The shapes lanes_per_row (csr.hpp) picks from the mean row length: 4 lanes x 2 entries, two
// rows a trip, for 2D 5-point and 3D 7-point stencils (every row of 8 or fewer entries); 8 lanes
// x 4 entries, one row a trip, for the 27-point stencil (27 of 32 slots busy; its three-level
// tree costs a warp 6 shuffles and 3 merges for 4 rows, where 32 lanes a row cost 10 and 5 a
// row); 32 lanes x 2 entries, two rows a trip, above a mean of 32. Every shape has 4 loads of
// col and val in flight per lane.
using row_shape_4 = row_shape<4, 2, 2>;
using row_shape_8 = row_shape<8, 4, 1>;
using row_shape_32 = row_shape<32, 2, 2>;

// Rows by logical warps (Shape above): rows row, row + stride, ... row + (rows - 1) stride per
// trip. Every thread reaches grid_reduce (the trip count is the same for the lanes of a row).
template <class Shape, class Epi>
__global__ void __launch_bounds__(block_threads) spmv_kernel(Epi epi, grid_workspace ws) {
  constexpr int L = Shape::lanes, E = Shape::per_lane, R = Shape::rows;
  using row_acc = typename Epi::row_acc;
  using dots_t = typename Epi::dots_t;
  using M = std::remove_cv_t<std::remove_pointer_t<decltype(epi.A.val)>>;
  using X = decltype(epi.x_at(0));
  using warp_reduce = tcr::WarpReduce<row_acc, tcr::WarpReduceAlgorithm::shuffle_tree, L>;
  if (!epi.active())
    return;
  epi.load();
  dots_t dots{};
  const auto A = epi.A;
  const int lane = static_cast<int>(threadIdx.x) % L;
  const std::int64_t first =
      (static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x) / L;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * block_threads / L;
  for (std::int64_t row = first; row < A.rows; row += R * stride) {
    bool has[R];
    int b[R], e[R];
    bool fits = true;
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const std::int64_t i = row + j * stride;
      has[j] = j == 0 || i < A.rows;
      b[j] = has[j] ? A.row_ptr[i] : 0;
      e[j] = has[j] ? A.row_ptr[i + 1] : 0;
      fits = fits && e[j] - b[j] <= E * L;
    }
    row_acc acc[R] = {};
    if (fits) {
      bool in[R * E];
      int c[R * E];
      M v[R * E];
      X x[R * E];
#pragma unroll
      for (int t = 0; t < R * E; ++t) { // slot t: row t / E, entry lane + (t % E) L
        const int k = b[t / E] + lane + (t % E) * L;
        in[t] = k < e[t / E];
        c[t] = in[t] ? A.col[k] : 0;
        v[t] = in[t] ? A.val[k] : M(0);
      }
#pragma unroll
      for (int t = 0; t < R * E; ++t)
        if (in[t])
          x[t] = epi.x_at(c[t]);
#pragma unroll
      for (int t = 0; t < R * E; ++t)
        if (in[t])
          add_matrix_product(acc[t / E], v[t], x[t]);
    } else {
#pragma unroll
      for (int j = 0; j < R; ++j)
        lane_row<L>(acc[j], A, epi, b[j], e[j], lane);
    }
#pragma unroll
    for (int j = 0; j < R; ++j)
      acc[j] = warp_reduce().ReduceToLane0(acc[j], merge_fn{});
    if (lane == 0) {
#pragma unroll
      for (int j = 0; j < R; ++j)
        if (has[j])
          epi.row(static_cast<int>(row + j * stride), acc[j], dots);
    }
  }
  if constexpr (dots_of_v<Epi>) {
    if (grid_reduce(dots, ws) && threadIdx.x == 0)
      epi.finish(dots);
  }
}

template <class Op>
__global__ void __launch_bounds__(block_threads)
    vector_kernel(Op op, std::int64_t n, grid_workspace ws) {
  using dots_t = typename Op::dots_t;
  if (!op.active())
    return;
  op.load();
  dots_t dots{};
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * block_threads;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x; i < n;
       i += stride)
    op.element(i, dots);
  if constexpr (dots_of_v<Op>) {
    if (grid_reduce(dots, ws) && threadIdx.x == 0)
      op.finish(dots);
  }
}

// Blocks of `kernel` (block_threads threads) one SM holds at once, at most blocks_per_sm: a
// grid-stride grid of blocks_per_sm blocks an SM for a kernel of more than 32 registers a thread
// would run its last blocks as a second wave on a mostly idle GPU. Fixed by the binary and the
// GPU (the process uses one), so the launch shape, and the combining order, stay run to run.
template <class Kernel>
int resident_blocks(Kernel kernel) {
  int n = 0;
  KRYLOV_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block_threads, 0));
  return n < 1 ? 1 : (n > blocks_per_sm ? blocks_per_sm : n);
}

template <class Shape, class Epi>
void launch_spmv_shaped(const launch_shape& ls, const Epi& epi, grid_workspace ws,
                        cudaStream_t stream) {
  static const int per_sm = resident_blocks(spmv_kernel<Shape, Epi>);
  const int blocks = ls.blocks(epi.A.rows, block_threads / Shape::lanes, per_sm);
  spmv_kernel<Shape><<<blocks, block_threads, 0, stream>>>(epi, ws);
}

// The launches, shaped by launch_shape and the kernel's residency alone (reproducible combining
// order); lanes from lanes_per_row (csr.hpp).
template <class Epi>
void launch_spmv(const launch_shape& ls, int lanes, Epi epi, grid_workspace ws,
                 cudaStream_t stream) {
  if (lanes == 32)
    launch_spmv_shaped<row_shape_32>(ls, epi, ws, stream);
  else if (lanes == 8)
    launch_spmv_shaped<row_shape_8>(ls, epi, ws, stream);
  else
    launch_spmv_shaped<row_shape_4>(ls, epi, ws, stream);
  KRYLOV_CUDA(cudaGetLastError());
}

template <class Op>
void launch_vector(const launch_shape& ls, std::int64_t n, Op op, grid_workspace ws,
                   cudaStream_t stream) {
  static const int per_sm = resident_blocks(vector_kernel<Op>);
  vector_kernel<<<ls.blocks(n, block_threads, per_sm), block_threads, 0, stream>>>(op, n, ws);
  KRYLOV_CUDA(cudaGetLastError());
}

// Epilogue pieces shared by the steps: always active, nothing to load.
struct always_active {
  __device__ bool active() const { return true; }
  __device__ void load() {}
};

// y = A x, nothing else (the SpMV tests and the plain product).
template <class M, class X, class Y, class RowAcc>
struct spmv_plain : always_active {
  using row_acc = RowAcc;
  using dots_t = no_dots;
  csr_view<M> A;
  const X* x;
  Y* y;
  __device__ X x_at(int j) const { return x[j]; }
  __device__ void row(int i, const RowAcc& acc, no_dots&) const {
    y[i] = static_cast<Y>(tcr::result(acc));
  }
};

// The true residual r = b - A x with dot2<double> rows (every product of float or double data
// exact, the sum compensated: b - A x within about 2^-104 sum |a_ij x_j| + 2^-53 |r_i|), stored
// to r_out in the solver's vector type, and ||r||^2 by dot2<double> into *rr_out.
template <class M, class X, class B, class R>
struct true_residual_epi : always_active {
  using row_acc = tcr::dot2<double>;
  using dots_t = acc_array<tcr::dot2<double>, 1>;
  csr_view<M> A;
  const X* x;
  const B* b;
  R* r_out;
  double* rr_out;
  __device__ X x_at(int j) const { return x[j]; }
  __device__ void row(int i, row_acc acc, dots_t& dots) const {
    acc.add(-1.0, wide(b[i]));
    const double r = -acc.result();
    store(r_out + i, r);
    dots.a[0].add(r, r);
  }
  __device__ void finish(const dots_t& d) const { *rr_out = d.a[0].result(); }
  __device__ static void store(float* p, double v) { *p = static_cast<float>(v); }
  __device__ static void store(double* p, double v) { *p = v; }
  __device__ static void store(df32_elem* p, double v) {
    const float h = static_cast<float>(v);
    *p = {h, static_cast<float>(v - static_cast<double>(h))};
  }
};

// ||v||^2 by dot2<double> (the norm of b, once per solve).
template <class V>
struct norm2_op : always_active {
  using dots_t = acc_array<tcr::dot2<double>, 1>;
  const V* v;
  double* out;
  __device__ void element(std::int64_t i, dots_t& d) const {
    const double w = wide(v[i]);
    d.a[0].add(w, w);
  }
  __device__ void finish(const dots_t& d) const { *out = d.a[0].result(); }
};

} // namespace krylov
