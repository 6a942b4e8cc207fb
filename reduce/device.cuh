// tcr: device-wide reductions, a drop-in for cub::DeviceReduce::Sum with compensated accuracy.
//
//   size_t bytes = 0;
//   tcr::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, n, stream);     // size query
//   tcr::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, stream);      // one kernel launch
//   tcr::DeviceReduce::Sum(d_in, d_out, n, stream);                     // or: allocates itself
//
// Operations: Sum, Asum (sum of |x|), Dot (sum x_i y_i), Nrm2 (sqrt(sum x_i^2)), and the generic
// Reduce(op, init). Inputs: __nv_fp8_e4m3, __nv_fp8_e5m2, __half, __nv_bfloat16, float, double
// (Dot: any pair of them). Results: float, double, or the unevaluated pairs tcr::df32 and tcr::dd
// (compensated/double_word.cuh): dd carries the double machinery's pair unrounded
// (|hi + lo - s| <= 2^-104 |s| + 2^-100 S); df32 is the float machinery's double value split
// into a float pair (|hi + lo - s| <= 2^-47 |s| + 2^-42 S, for results above 2^-100).
//
// Accuracy (Accuracy::compensated, the default; s the exact result, S = sum |x_i| (Dot:
// sum |x_i y_i|), u the unit roundoff of the result type):
//   float result:  |res - s| <= 2u|s| + 2^-40 S   for every n < 2^35
//   double result: |res - s| <= 2u|s| + 2^-88 S
//   Nrm2: relative error <= u + 2^-40 (float), u + 2^-100 (double), no overflow or underflow
//   for any finite input.
// (A result below the normal range also rounds to the subnormal grid: add half its spacing,
// 2^-150 for float, 2^-1075 for double.)
// Finite inputs whose exact result is finite give a finite result (intermediate overflow is
// caught and rescaled on a rare path); Inf and NaN propagate as in plain summation (Nrm2: NaN if
// any element is NaN, else +inf if any is infinite). How: compensated/wide.cuh.
//
// Accuracy::fast: |res - s| <= u|s| + c u S with c = fast_error_constant<In, Out>() below,
// independent of n. Sum and Asum of __half and __nv_bfloat16 run the seed paper's method on
// tensor cores: chains of 4 MMAs with FP32 accumulators (c = 289 from the Hopper model of
// mma/tile_sum.cuh), each chain's result folded into a compensated accumulator, compensated
// merges. Every other operation and type runs the compensated path, which meets the fast bound
// with c = 1 (its error before the final rounding is below 2^-40 S <= 2^-16 u S for a float
// result and 2^-88 S for a double one).
// Accuracy::double_word runs the compensated path (the double machinery for double, dd and
// inputs of type double; ask for a df32 / dd result to get the unrounded pair).
// Engine: Engine::automatic picks by measurement (bench/results/): CUDA cores for every
// compensated operation (fp8 sums run as exact plain-float chunks there, faster than the exact
// tensor-core path), tensor cores for fast Sum / Asum of half and bfloat16 from 2^16 elements.
// Engine::tensor_core forces the tensor cores where a path exists in the requested mode: fp8 Sum /
// Asum (exact f16 MMAs, any mode) and half / bfloat16 Sum / Asum in fast mode; elsewhere it gives
// cudaErrorNotSupported. Engine::cuda_core always works.
//
// Execution: one kernel launch for every n (including n = 0, which writes 0, or init for
// Reduce); no host synchronisation, no allocation in the two-phase form, capturable in a CUDA
// graph. Results are bitwise identical run to run on the same GPU (fixed combining order, no
// floating-point atomics). Calls on different streams need separate temporary storage.
// temp_storage_bytes depends only on num_items and the types and never shrinks as num_items
// grows. The temporary storage need not be initialised (see reduce/detail/device_kernel.cuh for
// the arrival counter that lives in it and its 2^-48 residual risk on never-used storage).
//
// Errors (nothing is written): cudaErrorInvalidValue for num_items < 0, a null d_out, a null
// input with num_items > 0, an input not aligned to its element size, temporary storage smaller
// than the size query returned; cudaErrorNotSupported for a forced engine that is unavailable.
// Any alignment of the inputs to whole elements works: heads and tails are handled.
#pragma once

#include <cuda_runtime.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include "reduce/detail/device_kernel.cuh"
#include "reduce/detail/device_traits.cuh"

namespace tcr {

enum class Accuracy { compensated, fast, double_word };
enum class Engine { automatic, tensor_core, cuda_core };
struct ReduceOptions {
  Accuracy accuracy = Accuracy::compensated;
  Engine engine = Engine::automatic;
};

// The constant c of Accuracy::fast's bound |res - s| <= u|s| + c u S for Sum and Asum of In into
// Out (u: Out's unit roundoff; Dot and Nrm2 run the compensated path: c = 1). Half and bfloat16
// on tensor cores: a chain of R = 4 m16n8k16 MMAs (K = 16, 24-bit accumulator) adds at most
// mma::tile_error_bound(4, 16, 24, S_chain) = 2 * 4 * 18 * 2^-23 S_chain = 288 u_f S_chain, and
// the chains' S_chain add up to S; the compensated folds and merges and the final rounding
// to Out add u|s| plus less than u_f S (the compensated path's 2^-40 S). For a double result
// (u = 2^-53) the same absolute error is 289 * 2^29 u S. Everything else: c = 1.
template <class In, class Out>
constexpr double fast_error_constant() {
  constexpr bool tc = std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>;
  constexpr bool double_result = std::is_same_v<Out, double> || std::is_same_v<Out, dd>;
  if constexpr (!tc)
    return 1.0;
  else if constexpr (double_result)
    return 289.0 * 536870912.0; // 289 u_f = 289 * 2^29 u_d
  else
    return 289.0;
}

namespace detail {
namespace device {

template <class T>
struct nondeduced {
  using type = T;
};

// Partials needed for n elements of elem_bytes each: at least bytes_per_block of input per block,
// at most max_grid blocks. Monotone in n.
inline std::int64_t partials_for(std::int64_t n, int elem_bytes) {
  if (n <= 0)
    return 1;
  const std::int64_t items = elem_bytes < bytes_per_block ? bytes_per_block / elem_bytes : 1;
  const std::int64_t blocks = n / items + (n % items != 0);
  return blocks < max_grid ? blocks : max_grid;
}

template <class Acc>
std::size_t temp_bytes_for(std::int64_t n, int elem_bytes) {
  const std::size_t partials = static_cast<std::size_t>(partials_for(n, elem_bytes)) * sizeof(Acc);
  return storage_align + header_bytes +
         (partials + storage_align - 1) / storage_align * storage_align;
}

inline constexpr int max_devices = 64;

// Blocks of this kernel that fit the device at once (SMs x occupancy), cached per kernel and
// device (a template argument, not a parameter: kernels of one type, such as one traits K at two
// unroll depths, have occupancies of their own).
template <auto Kernel>
int resident_blocks(int device) {
  static std::atomic<int> cache[max_devices] = {};
  if (device >= 0 && device < max_devices) {
    const int cached = cache[device].load(std::memory_order_relaxed);
    if (cached > 0)
      return cached;
  }
  int sms = 0;
  int per_sm = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, block_threads, 0) !=
          cudaSuccess) {
    return 1; // correct, only slow; the launch reports any real error
  }
  int blocks = sms * (per_sm > 0 ? per_sm : 1);
  if (blocks > max_grid)
    blocks = max_grid;
  if (device >= 0 && device < max_devices)
    cache[device].store(blocks, std::memory_order_relaxed);
  return blocks;
}

inline unsigned long long arrival_key(std::uintptr_t storage, int grid) {
  std::uint64_t z = static_cast<std::uint64_t>(storage) ^ (static_cast<std::uint64_t>(grid) << 40) ^
                    0x74637252656475ull;       // "tcrRedu"
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; // splitmix64 finaliser
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return z << 16; // 48-bit key, count bits clear
}

template <class T>
bool aligned_to_element(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

// How the multi-block kernel is launched: Unroll, the vectors each thread has in flight per
// operand.
template <int Unroll>
struct launch_tuning {
  static constexpr int unroll = Unroll;
};
// Chosen by measurement (bench/results/2026-11-30-h200-tuning, tcr_tuning_bench, cold L2, time
// against CUB): 4 vectors in flight, and 4 per operand for Dot with the double machinery (f64
// Dot 2^28: 1.015x against 1.13x with 2; 2^22: 1.15x against 1.23x; f32 -> double Dot 2^28:
// 1.04x against 1.17x; 88 and 96 registers, 2 blocks per SM either way); other Dots 2 (f32: equal
// at 2^28, 2 ahead at 2^22). 8 in flight did not help f32 / f16 Sum (f32 2^28 253.9 against
// 254.8 us, 4 blocks per SM instead of 6) and slowed f64 Sum / Nrm2. Inputs of one block keep
// block_threads: 512 or 1024 threads were slower or equal at 2^10..2^13 elements, except f32
// Dot at 2^12 (512: 2.91 against 3.34 us).
template <class K>
using default_tuning =
    launch_tuning<!std::is_void_v<typename K::y_type> && !wide_partials_v<K> ? 2 : 4>;

// Size query, checks, and the launch, for any traits K.
template <class K, class Tuning = default_tuning<K>>
cudaError_t run(void* d_temp_storage, std::size_t& temp_storage_bytes, const void* x, const void* y,
                void* out, std::int64_t n, cudaStream_t stream, const K& k,
                bool engine_available = true) {
  using X = typename K::x_type;
  using Y = typename K::y_type;
  constexpr bool binary = !std::is_void_v<Y>;
  using YL = std::conditional_t<binary, Y, X>;
  constexpr int elem_bytes = sizeof(X) > sizeof(YL) ? sizeof(X) : sizeof(YL);
  constexpr int V = K::vec_items;
  using Acc = typename K::partial_type; // what temp storage holds, one per block

  if (!engine_available)
    return cudaErrorNotSupported;
  const std::size_t needed = temp_bytes_for<Acc>(n, elem_bytes);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (n < 0 || out == nullptr || temp_storage_bytes < needed)
    return cudaErrorInvalidValue;
  if (n > 0 && (x == nullptr || (binary && y == nullptr)))
    return cudaErrorInvalidValue;
  if (n > 0 && (!aligned_to_element<X>(x) || (binary && !aligned_to_element<YL>(y))))
    return cudaErrorInvalidValue;

  // Vector region: starts where the wider operand is 16-byte aligned; the narrower one must
  // then be aligned to its own vector size, else every element goes through the scalar loop.
  std::int64_t head = 0;
  std::int64_t nvec = 0;
  if constexpr (V > 1) {
    const bool x_wide = sizeof(X) >= sizeof(YL);
    const std::uintptr_t a_wide = reinterpret_cast<std::uintptr_t>(x_wide ? x : y);
    head = static_cast<std::int64_t>(((16 - a_wide % 16) % 16) / elem_bytes);
    if (head > n)
      head = n;
    bool ok = true;
    if constexpr (binary) {
      const std::uintptr_t a_narrow = reinterpret_cast<std::uintptr_t>(x_wide ? y : x);
      const std::size_t narrow_bytes = x_wide ? sizeof(YL) : sizeof(X);
      ok = (a_narrow + head * narrow_bytes) % (V * narrow_bytes) == 0;
    }
    if (ok) {
      nvec = (n - head) / V;
    } else {
      head = 0;
    }
  }

  kernel_params p{};
  p.x = x;
  p.y = y;
  p.n = n;
  p.head = head;
  p.nvec = nvec;
  p.out = out;
  constexpr int unroll = Tuning::unroll;
  const std::int64_t bytes = n * elem_bytes;
  if (bytes > bytes_per_block && bytes <= single_block_bytes_v<K> && n <= single_block_items) {
    // Mid-small inputs: one block of 512 or 1024 threads (see single_block_threads_v), no
    // partials and no arrival word; one round of 4 vectors (2 per operand for Dot) per thread.
    constexpr int threads = single_block_threads_v<K>;
    reduce_kernel<K, binary ? 2 : 4, threads><<<1, threads, 0, stream>>>(p, k);
    return cudaPeekAtLastError();
  }

  const std::int64_t by_size = partials_for(n, elem_bytes);
  if (by_size == 1) {
    // Small inputs (at most bytes_per_block bytes, n = 0 included): the multi-block kernel with
    // a grid of one block, no partials.
    reduce_kernel<K, unroll><<<1, block_threads, 0, stream>>>(p, k);
    return cudaPeekAtLastError();
  }

  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess)
    return err;
  constexpr auto kernel = reduce_kernel<K, unroll>;
  int grid = resident_blocks<kernel>(device);
  if (grid > by_size)
    grid = static_cast<int>(by_size);

  const std::uintptr_t base =
      (reinterpret_cast<std::uintptr_t>(d_temp_storage) + storage_align - 1) / storage_align *
      storage_align;
  p.arrival = reinterpret_cast<unsigned long long*>(base);
  p.partials = reinterpret_cast<unsigned char*>(base + header_bytes);
  p.key = arrival_key(base, grid);
  kernel<<<grid, block_threads, 0, stream>>>(p, k);
  return cudaPeekAtLastError();
}

// Single-call form: size query, stream-ordered allocation, the call, stream-ordered free. The
// fresh allocation's header (the arrival word) is zeroed first, so this form never reads
// uninitialised memory (no residual 2^-48 risk; compute-sanitizer initcheck stays quiet); it
// costs one small memset on the stream, next to the allocation itself.
template <class F>
cudaError_t with_temp_storage(cudaStream_t stream, F&& call) {
  std::size_t bytes = 0;
  cudaError_t err = call(nullptr, bytes);
  if (err != cudaSuccess)
    return err;
  void* d_temp = nullptr;
  err = cudaMallocAsync(&d_temp, bytes, stream);
  if (err != cudaSuccess)
    return err;
  err = cudaMemsetAsync(d_temp, 0, storage_align + header_bytes, stream); // covers the aligned word
  if (err == cudaSuccess)
    err = call(d_temp, bytes);
  const cudaError_t free_err = cudaFreeAsync(d_temp, stream);
  return err != cudaSuccess ? err : free_err;
}

template <class Out>
inline constexpr bool is_result_type_v =
    std::is_same_v<Out, float> || std::is_same_v<Out, double> || std::is_same_v<Out, df32> ||
    std::is_same_v<Out, dd>;

} // namespace device
} // namespace detail

struct DeviceReduce {
  // sum x_i. See the header comment for the bound.
  template <class In, class Out>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                         Out* d_out, std::int64_t num_items, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return unary<detail::device::op_kind::sum>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                               num_items, stream, options);
  }
  template <class In, class Out>
  static cudaError_t Sum(const In* d_in, Out* d_out, std::int64_t num_items,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Sum(t, b, d_in, d_out, num_items, stream, options);
    });
  }

  // sum |x_i|.
  template <class In, class Out>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                          Out* d_out, std::int64_t num_items, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return unary<detail::device::op_kind::asum>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                num_items, stream, options);
  }
  template <class In, class Out>
  static cudaError_t Asum(const In* d_in, Out* d_out, std::int64_t num_items,
                          cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Asum(t, b, d_in, d_out, num_items, stream, options);
    });
  }

  // sqrt(sum x_i^2), without overflow or underflow for any finite input.
  template <class In, class Out>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_x,
                          Out* d_out, std::int64_t num_items, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return unary<detail::device::op_kind::nrm2>(d_temp_storage, temp_storage_bytes, d_x, d_out,
                                                num_items, stream, options);
  }
  template <class In, class Out>
  static cudaError_t Nrm2(const In* d_x, Out* d_out, std::int64_t num_items,
                          cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Nrm2(t, b, d_x, d_out, num_items, stream, options);
    });
  }

  // sum x_i y_i.
  template <class InX, class InY, class Out>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, const InX* d_x,
                         const InY* d_y, Out* d_out, std::int64_t num_items,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    static_assert(
        is_input_type_v<InX> && is_input_type_v<InY>,
        "tcr::DeviceReduce::Dot: inputs must be e4m3, e5m2, half, bfloat16, float or double");
    static_assert(detail::device::is_result_type_v<Out>,
                  "tcr::DeviceReduce::Dot: the result must be float, double, tcr::df32 or tcr::dd");
    using K = detail::device::traits<detail::device::op_kind::dot, InX, InY, Out>;
    return detail::device::run(d_temp_storage, temp_storage_bytes, d_x, d_y, d_out, num_items,
                               stream, K{}, options.engine != Engine::tensor_core);
  }
  template <class InX, class InY, class Out>
  static cudaError_t Dot(const InX* d_x, const InY* d_y, Out* d_out, std::int64_t num_items,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Dot(t, b, d_x, d_y, d_out, num_items, stream, options);
    });
  }

  // init op x_0 op x_1 ... for an associative and commutative op (as CUB: threads take the
  // elements grid-strided; the combining order is fixed, so results are reproducible; no accuracy
  // contract beyond op's own). Each x_i is converted to Out first; n = 0 writes init.
  template <class In, class Out, class Op>
  static cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                            Out* d_out, std::int64_t num_items, Op op,
                            typename detail::device::nondeduced<Out>::type init,
                            cudaStream_t stream = 0) {
    static_assert(
        std::is_trivially_copyable_v<Out> && std::is_default_constructible_v<Out>,
        "tcr::DeviceReduce::Reduce: Out must be trivially copyable and default-constructible");
    static_assert(std::is_trivially_copyable_v<Op>,
                  "tcr::DeviceReduce::Reduce: op is passed to the kernel by value");
    using K = detail::device::reduce_traits<In, Out, Op>;
    return detail::device::run(d_temp_storage, temp_storage_bytes, d_in, nullptr, d_out, num_items,
                               stream, K{op, init});
  }
  template <class In, class Out, class Op>
  static cudaError_t Reduce(const In* d_in, Out* d_out, std::int64_t num_items, Op op,
                            typename detail::device::nondeduced<Out>::type init,
                            cudaStream_t stream = 0) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Reduce(t, b, d_in, d_out, num_items, op, init, stream);
    });
  }

private:
  template <detail::device::op_kind Op, class In, class Out>
  static cudaError_t unary(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                           Out* d_out, std::int64_t num_items, cudaStream_t stream,
                           ReduceOptions options) {
    static_assert(is_input_type_v<In>,
                  "tcr::DeviceReduce: input must be e4m3, e5m2, half, bfloat16, float or double");
    static_assert(detail::device::is_result_type_v<Out>,
                  "tcr::DeviceReduce: the result must be float, double, tcr::df32 or tcr::dd");
    using namespace detail::device;
    constexpr bool sum_like = Op == op_kind::sum || Op == op_kind::asum;
    constexpr bool tc_exact = is_fp8_v<In> && sum_like; // exact MMAs: any accuracy mode
    constexpr bool tc_fast =
        (std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>)&&sum_like;
    if constexpr (tc_exact || tc_fast) {
      // automatic, by measurement (bench/results/2026-11-30-h200-37a88d7, cold L2): fp8 sums are
      // faster on CUDA cores (exact plain-float chunks) at every size (e5m2 2^30: 291 against
      // 311 us; e4m3 equal at 2^28..2^30, 0.1-0.2 us faster below). Fast f16 / bf16 sums are
      // faster on tensor cores from 2^18 elements (f16 2^28: 127.6 against 131.0 us; 2^22: 7.68
      // against 8.06 us), equal at 2^14 and slower at 2^10 (2.52 against 2.37 us).
      constexpr std::int64_t fast_tc_min_items = std::int64_t(1) << 16;
      const bool use_tc =
          options.engine == Engine::tensor_core ||
          (tc_fast && options.engine == Engine::automatic && num_items >= fast_tc_min_items);
      const bool allowed = tc_exact || options.accuracy == Accuracy::fast;
      if (use_tc && allowed)
        return run(d_temp_storage, temp_storage_bytes, d_in, nullptr, d_out, num_items, stream,
                   tc_traits<Op, In, Out>{});
      if (use_tc && options.engine == Engine::tensor_core) // f16 / bf16: MMAs round
        return cudaErrorNotSupported;
    }
    return run(d_temp_storage, temp_storage_bytes, d_in, nullptr, d_out, num_items, stream,
               traits<Op, In, In, Out>{}, options.engine != Engine::tensor_core);
  }
};

} // namespace tcr
