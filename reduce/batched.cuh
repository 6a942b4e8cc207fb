// SPDX-License-Identifier: BSD-3-Clause
// tcr: batched BLAS-1 reductions with compensated accuracy, in the style of rocBLAS's batched
// and strided-batched calls: Sum, Asum, Nrm2 and Dot of many vectors in one launch.
//
//   size_t bytes = 0;
//   tcr::DeviceBatchedReduce::Dot(nullptr, bytes, d_x_ptrs, d_y_ptrs, d_out, batch_count,
//                                 d_lengths, stream);                          // size query
//   tcr::DeviceBatchedReduce::Dot(d_temp, bytes, d_x_ptrs, d_y_ptrs, d_out, batch_count,
//                                 d_lengths, stream);                          // pointer arrays
//   tcr::DeviceBatchedReduce::Dot(d_temp, bytes, d_x_ptrs, d_y_ptrs, d_out, batch_count,
//                                 n, stream);                                  // one length
//   tcr::DeviceBatchedReduce::Dot(d_temp, bytes, d_x, incx, stride_x, d_y, incy, stride_y,
//                                 d_out, batch_count, n, stream);              // strided
//
// Batches, vector i for i in [0, batch_count), its result to d_out[i]:
//   pointer arrays (marshalled batches): d_x_ptrs, a device array of batch_count device pointers,
//     and a length each (d_lengths, any integer iterator; a length <= 0 is an empty vector) or
//     one length n for all: vector i is d_x_ptrs[i][0, len_i) (Dot: with d_y_ptrs[i][0, len_i)).
//     The pointers of an empty vector are never read (they may be null).
//   strided: vector i is x_j = d_x[i stride_x + j incx], j in [0, n) (Dot: y_j from d_y, incy,
//     stride_y alike), strides and increments in elements. incx == 1 (Dot: and incy == 1) reads
//     16-byte vectors; any other increment reads one element at a time.
//     incx < 0 is BLAS's backward traversal: x_j = d_x[i stride_x + (n - 1 - j) |incx|] (Dot
//     pairs x_j with y_j, so opposite signs of incx and incy pair a vector with the other one
//     reversed; Sum, Asum, Nrm2 meet the same bound either way, and rocBLAS's rule that Asum and
//     Nrm2 return 0 for incx <= 0 is not followed). incx == 0 is rejected for n > 1 (BLAS would
//     repeat x_0). stride_x may be 0 (every vector the same: one y against many x) or negative.
// Types as tcr::DeviceSegmentedReduce (reduce/segmented.cuh) and tcr::DeviceReduce: inputs
// e4m3, e5m2, half, bfloat16, float, double (Dot: any pair) or integers (Sum, Asum, Dot: exact);
// results (d_out a pointer or an output iterator) float, double, __half, __nv_bfloat16, tcr::df32,
// tcr::dd, and integers for integer sums. An empty vector (n == 0) gets 0. A type outside these
// stops at DeviceSegmentedReduce's static_asserts (the same rules, its name in the message).
//
// Accuracy, per vector (s its exact result, S its sum of |x_j| (Dot: |x_j y_j|), u the unit
// roundoff of the result type), for vectors of at most 2^27 16-byte vectors (2^29 floats; 2^27
// elements for vectors read one at a time), as DeviceSegmentedReduce's per segment:
//   float result:  |res - s| <= 2u|s| + 2^-40 S
//   double result: |res - s| <= 2u|s| + 2^-88 S
//   Nrm2: relative error <= u + 2^-40 (float), u + 2^-100 (double); Inf and NaN stay in their
//   own vector. Accuracy::fast runs the same path; Engine::tensor_core: cudaErrorNotSupported.
//   Accuracy::correctly_rounded / ::reproducible: Sum, Asum and Dot of every floating-point input
//   type (doubles too) give each vector's exact sum (dot product) rounded once, Nrm2 a norm within
//   1 ulp (DeviceSegmentedReduce's exact paths); Nrm2 into df32 / dd: cudaErrorNotSupported.
//
// Reproducibility: each batch runs DeviceSegmentedReduce's kernel with the vectors as its
// segments, so vector i's combining order depends only on its length, its increments and (incx
// == 1, pointer arrays) its pointers' addresses modulo 16 bytes: the same vector gives the same
// bits whatever the other vectors, the batch, the grid or the GPU. A contiguous vector has the
// bits of the same elements given to DeviceSegmentedReduce as one segment at the same address;
// a vector read one element at a time (incx != 1) those of DeviceSegmentedReduce over an
// iterator that yields its elements.
//
// Execution: one kernel launch per call (none for batch_count = 0), no host synchronisation, no
// allocation, capturable in a CUDA graph. Temporary storage as DeviceSegmentedReduce's: none
// (the size query returns 1) where one length n of at most one chunk (65536 floats, 16384
// elements for incx != 1) is given; with a length each, or a longer n, the size query's answer
// (the counters and entries, zeroed by a 128 KB cudaMemsetAsync before the kernel, through
// which the grid shares the long vectors).
//
// Errors (cudaErrorInvalidValue, nothing written, no launch): batch_count < 0 or n < 0; with
// batch_count > 0: temporary storage smaller than the size query's answer, a null or
// misaligned d_out; pointer arrays: a null or misaligned pointer array (with lengths: whatever
// they hold, since the host cannot read them; one length: when n > 0), a null or misaligned
// d_lengths; strided, when n > 0: a null input or one not aligned to its element type, an
// increment of 0 (n > 1), a vector or a batch spanning 2^62 elements or more ((n - 1) |incx| or
// (batch_count - 1) |stride_x|). The pointers inside a pointer array live in device memory,
// where the host cannot check them: each must be aligned to its element type and point to len_i
// readable elements; that, and the strided vectors lying in their allocations, are the caller's
// promise.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include "detail/segmented_kernel.cuh"
#include "detail/sources.cuh"
#include "device.cuh"
#include "segmented.cuh"

namespace tcr {
namespace detail {
namespace batched {

using device::op_kind;

// One length for every vector, indexed as a length iterator is.
struct common_length {
  std::int64_t n;
  __device__ __forceinline__ std::int64_t operator[](std::int64_t) const { return n; }
};

// Marshalled batches: vector s is x[s][0, lengths[s]) (and y[s]); the kernel's locator is the
// vector's index, or -1 for an empty vector, whose pointers are then never read. The launch's
// own sources are not used. Unary reductions pass x as y.
template <class X, class Y, class Lengths>
struct pointer_segments {
  const X* const* x; // [batch] device pointers
  const Y* const* y; // [batch] device pointers
  Lengths lengths;   // [batch] lengths, or common_length
  __device__ __forceinline__ void bounds(std::int64_t s, std::int64_t& first,
                                         std::int64_t& length) const {
    const std::int64_t n = static_cast<std::int64_t>(lengths[s]);
    length = n > 0 ? n : 0;
    first = n > 0 ? s : -1;
  }
  template <int Operand, class S>
  __device__ __forceinline__ auto source(const S&, std::int64_t first) const {
    if constexpr (Operand == 0)
      return first < 0 ? static_cast<const X*>(nullptr) : x[first];
    else
      return first < 0 ? static_cast<const Y*>(nullptr) : y[first];
  }
};

// Strided batches: vector s starts stride_x (stride_y) elements after vector s - 1; the launch's
// sources are pointers to vector 0 (incx == 1) or strided_sources at its first element.
struct strided_segments {
  std::int64_t n;
  std::int64_t stride_x, stride_y;
  __device__ __forceinline__ void bounds(std::int64_t s, std::int64_t& first,
                                         std::int64_t& length) const {
    first = s;
    length = n;
  }
  template <int Operand, class S>
  __device__ __forceinline__ auto source(const S& s, std::int64_t first) const {
    const std::int64_t step = (Operand == 0 ? stride_x : stride_y) * first;
    if constexpr (std::is_pointer_v<S>)
      return s + step;
    else
      return S{s.p + step, s.inc};
  }
};

// The one length of a batch, where there is one (segmented::known_length).
template <class X, class Y>
std::int64_t known_length(const pointer_segments<X, Y, common_length>& s) {
  return s.lengths.n;
}
inline std::int64_t known_length(const strided_segments& s) {
  return s.n;
}

// The host's checks, found by DeviceSegmentedReduce's launch (reduce/segmented.cuh).
template <class X, class Y, class Lengths>
bool valid(const pointer_segments<X, Y, Lengths>& s, std::int64_t num_segments, bool& reads) {
  using device::misaligned_source;
  using device::null_source;
  reads = false; // the segments bring their own pointers
  const auto bad_array = [](const auto* p) { return null_source(p) || misaligned_source(p); };
  if constexpr (std::is_same_v<Lengths, common_length>) {
    if (s.lengths.n < 0)
      return false;
    if (num_segments == 0 || s.lengths.n == 0)
      return true;
  } else {
    if (num_segments == 0)
      return true;
    if (null_source(s.lengths) || misaligned_source(s.lengths))
      return false;
  }
  return !bad_array(s.x) && !bad_array(s.y);
}
inline bool valid(const strided_segments& s, std::int64_t, bool& reads) {
  reads = s.n > 0;
  return s.n >= 0;
}

// |v| * count < 2^62 (count >= 0), without overflow.
inline bool spans_below_2_62(std::int64_t count, std::int64_t v) {
  constexpr std::uint64_t limit = std::uint64_t(1) << 62;
  const std::uint64_t m = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  return count <= 0 || m == 0 || m < limit / static_cast<std::uint64_t>(count);
}

// One operand of a strided batch: n >= 0, x checked when read, its increment and the spans.
template <class T>
bool valid_operand(const T* x, std::int64_t inc, std::int64_t stride, std::int64_t batch_count,
                   std::int64_t n) {
  if (batch_count <= 0 || n <= 0)
    return true;
  return !device::null_source(x) && !device::misaligned_source(x) && (inc != 0 || n == 1) &&
         spans_below_2_62(n - 1, inc) && spans_below_2_62(batch_count - 1, stride);
}

// The strided_source of vector 0 (x_j at x + j inc, or x + (n - 1 - j) |inc| for inc < 0).
template <class T>
device::strided_source<T> strided_from(const T* x, std::int64_t inc, std::int64_t n) {
  const std::int64_t shift = inc < 0 && n > 1 ? (n - 1) * -inc : 0; // below 2^62: checked
  return {x == nullptr ? x : x + shift, inc};
}

template <op_kind Op, class X, class Y, class OutIt, class Lengths>
cudaError_t run_pointers(void* d_temp_storage, std::size_t& temp_storage_bytes,
                         const X* const* x_ptrs, const Y* const* y_ptrs, const OutIt& out,
                         std::int64_t batch_count, const Lengths& lengths, cudaStream_t stream,
                         ReduceOptions options) {
  const pointer_segments<X, Y, Lengths> s{x_ptrs, y_ptrs, lengths};
  return segmented::run<Op>(d_temp_storage, temp_storage_bytes, static_cast<const X*>(nullptr),
                            static_cast<const Y*>(nullptr), out, batch_count, s, stream, options);
}

template <class LengthIt>
LengthIt lengths_of(const LengthIt& lengths) {
  using L = device::it_value_t<LengthIt>;
  static_assert(std::is_integral_v<L> && !std::is_same_v<L, bool>,
                "tcr::DeviceBatchedReduce: the lengths' value type must be an integer");
  return lengths;
}

template <op_kind Op, class X, class Y, class OutIt>
cudaError_t run_strided(void* d_temp_storage, std::size_t& temp_storage_bytes, const X* x,
                        std::int64_t incx, std::int64_t stride_x, const Y* y, std::int64_t incy,
                        std::int64_t stride_y, const OutIt& out, std::int64_t batch_count,
                        std::int64_t n, cudaStream_t stream, ReduceOptions options) {
  constexpr bool binary = Op == op_kind::dot;
  const bool ok = valid_operand(x, incx, stride_x, batch_count, n) &&
                  (!binary || valid_operand(y, incy, stride_y, batch_count, n));
  if (!ok && d_temp_storage != nullptr)
    return cudaErrorInvalidValue;
  const strided_segments s{n, stride_x, stride_y};
  if (incx == 1 && (!binary || incy == 1))
    return segmented::run<Op>(d_temp_storage, temp_storage_bytes, x, y, out, batch_count, s, stream,
                              options);
  const std::int64_t shift_n = ok ? n : 0; // a size query's arguments may be anything
  return segmented::run<Op>(d_temp_storage, temp_storage_bytes, strided_from(x, incx, shift_n),
                            strided_from(y, incy, shift_n), out, batch_count, s, stream, options);
}

} // namespace batched
} // namespace detail

// Three forms of each operation, arguments in DeviceSegmentedReduce's order (inputs, d_out, the
// count, the lengths): pointer arrays with a length each (d_lengths: any random-access iterator
// of integers), pointer arrays with one length n, and strided batches (rocBLAS's x, incx,
// stride_x). d_out: a pointer or a random-access output iterator, batch_count results. tcr's
// ReduceOptions last.
struct DeviceBatchedReduce {
  // sum x_j per vector.
  template <class T, class OutputIt, class LengthIt, detail::segmented::if_offsets<LengthIt> = 0>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes,
                         const T* const* d_x_ptrs, OutputIt d_out, std::int64_t batch_count,
                         LengthIt d_lengths, cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::sum>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_x_ptrs, d_out, batch_count,
        detail::batched::lengths_of(d_lengths), stream, options);
  }
  template <class T, class OutputIt>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes,
                         const T* const* d_x_ptrs, OutputIt d_out, std::int64_t batch_count,
                         std::int64_t n, cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::sum>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_x_ptrs, d_out, batch_count,
        detail::batched::common_length{n}, stream, options);
  }
  template <class T, class OutputIt>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_x,
                         std::int64_t incx, std::int64_t stride_x, OutputIt d_out,
                         std::int64_t batch_count, std::int64_t n, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return detail::batched::run_strided<detail::device::op_kind::sum>(
        d_temp_storage, temp_storage_bytes, d_x, incx, stride_x, d_x, incx, stride_x, d_out,
        batch_count, n, stream, options);
  }

  // sum |x_j| per vector.
  template <class T, class OutputIt, class LengthIt, detail::segmented::if_offsets<LengthIt> = 0>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes,
                          const T* const* d_x_ptrs, OutputIt d_out, std::int64_t batch_count,
                          LengthIt d_lengths, cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::asum>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_x_ptrs, d_out, batch_count,
        detail::batched::lengths_of(d_lengths), stream, options);
  }
  template <class T, class OutputIt>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes,
                          const T* const* d_x_ptrs, OutputIt d_out, std::int64_t batch_count,
                          std::int64_t n, cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::asum>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_x_ptrs, d_out, batch_count,
        detail::batched::common_length{n}, stream, options);
  }
  template <class T, class OutputIt>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_x,
                          std::int64_t incx, std::int64_t stride_x, OutputIt d_out,
                          std::int64_t batch_count, std::int64_t n, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return detail::batched::run_strided<detail::device::op_kind::asum>(
        d_temp_storage, temp_storage_bytes, d_x, incx, stride_x, d_x, incx, stride_x, d_out,
        batch_count, n, stream, options);
  }

  // sqrt(sum x_j^2) per vector, without overflow or underflow for any finite input.
  template <class T, class OutputIt, class LengthIt, detail::segmented::if_offsets<LengthIt> = 0>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes,
                          const T* const* d_x_ptrs, OutputIt d_out, std::int64_t batch_count,
                          LengthIt d_lengths, cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::nrm2>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_x_ptrs, d_out, batch_count,
        detail::batched::lengths_of(d_lengths), stream, options);
  }
  template <class T, class OutputIt>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes,
                          const T* const* d_x_ptrs, OutputIt d_out, std::int64_t batch_count,
                          std::int64_t n, cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::nrm2>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_x_ptrs, d_out, batch_count,
        detail::batched::common_length{n}, stream, options);
  }
  template <class T, class OutputIt>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_x,
                          std::int64_t incx, std::int64_t stride_x, OutputIt d_out,
                          std::int64_t batch_count, std::int64_t n, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return detail::batched::run_strided<detail::device::op_kind::nrm2>(
        d_temp_storage, temp_storage_bytes, d_x, incx, stride_x, d_x, incx, stride_x, d_out,
        batch_count, n, stream, options);
  }

  // sum x_j y_j per vector pair (the same length for both).
  template <class TX, class TY, class OutputIt, class LengthIt,
            detail::segmented::if_offsets<LengthIt> = 0>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes,
                         const TX* const* d_x_ptrs, const TY* const* d_y_ptrs, OutputIt d_out,
                         std::int64_t batch_count, LengthIt d_lengths, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::dot>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_y_ptrs, d_out, batch_count,
        detail::batched::lengths_of(d_lengths), stream, options);
  }
  template <class TX, class TY, class OutputIt>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes,
                         const TX* const* d_x_ptrs, const TY* const* d_y_ptrs, OutputIt d_out,
                         std::int64_t batch_count, std::int64_t n, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return detail::batched::run_pointers<detail::device::op_kind::dot>(
        d_temp_storage, temp_storage_bytes, d_x_ptrs, d_y_ptrs, d_out, batch_count,
        detail::batched::common_length{n}, stream, options);
  }
  template <class TX, class TY, class OutputIt>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, const TX* d_x,
                         std::int64_t incx, std::int64_t stride_x, const TY* d_y, std::int64_t incy,
                         std::int64_t stride_y, OutputIt d_out, std::int64_t batch_count,
                         std::int64_t n, cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::batched::run_strided<detail::device::op_kind::dot>(
        d_temp_storage, temp_storage_bytes, d_x, incx, stride_x, d_y, incy, stride_y, d_out,
        batch_count, n, stream, options);
  }
};

} // namespace tcr
