// SPDX-License-Identifier: BSD-3-Clause
// tcr: device-wide reductions, a drop-in for cub::DeviceReduce::Sum with compensated accuracy.
//
//   size_t bytes = 0;
//   tcr::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, n, stream);     // size query
//   tcr::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, stream);      // one kernel launch
//   tcr::DeviceReduce::Sum(d_in, d_out, n, stream);                     // or: allocates itself
//
// Operations: Sum, Asum (sum of |x|), Dot (sum x_i y_i), Nrm2 (sqrt(sum x_i^2)), the generic
// Reduce(op, init) and TransformReduce, Min, Max, ArgMin, ArgMax (CUB's rules:
// reduce/detail/extrema.cuh). Inputs: any random-access iterator (reduce/detail/sources.cuh)
// whose value type is __nv_fp8_e4m3, __nv_fp8_e5m2, __half, __nv_bfloat16, float, double (Dot:
// any pair of them) or, for Sum, Asum and Dot, an integer type (exact: integer_sum_accumulator).
// Results: float, double, __half, __nv_bfloat16 (rounded once from the accurate value:
// compensated/narrow.cuh), or the unevaluated pairs tcr::df32 and tcr::dd
// (compensated/double_word.cuh): dd carries the double machinery's pair unrounded
// (|hi + lo - s| <= 2^-104 |s| + 2^-100 S); df32 is the float machinery's double value split
// into a float pair (|hi + lo - s| <= 2^-47 |s| + 2^-42 S, for results above 2^-100); integer
// sums also into any integer type (modulo 2^bits) and tcr::int128.
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
// any element is NaN, else +inf if any is infinite). How: compensated/reductions.cuh.
// Zeros follow IEEE summation: a Sum of -0 terms is -0, except on the tensor-core engines (their
// MMAs return +0 for a zero sum) and for e5m2 input (the exact two-band split of
// compensated/chunked.cuh, exact_band_sums_e5m2, returns +0 for a zero chunk).
//
// Accuracy::fast: |res - s| <= u|s| + c u S with c = fast_error_constant<In, Out>() below,
// independent of n. Sum and Asum of __half and __nv_bfloat16 run the seed paper's method on
// tensor cores: chains of 4 MMAs with FP32 accumulators (c = 289 from the Hopper model of
// mma/tile_sum.cuh), each chain's result folded into a compensated accumulator, compensated
// merges. Every other operation and type runs the compensated path, which meets the fast bound
// with c = 1 (its error before the final rounding is below 2^-40 S <= 2^-16 u S for a float
// result and 2^-88 S for a double one).
// The unrounded pair: ask for a tcr::df32 or tcr::dd result.
//
// Accuracy::correctly_rounded: the exact sum (sum |x_i|, dot) rounded once to nearest even into
// the result type (float, double, __half, __nv_bfloat16; df32 and dd give hi = RN(s),
// lo = RN(s - hi)); Nrm2: sqrt(RN_double(s)) rounded to the result, within 1 ulp of the exact
// norm. Accuracy::reproducible runs the same exact accumulation: the result depends only on the
// input values (not on the GPU, grid, block size, alignment, offset or stream), and is correctly
// rounded too. Inf and NaN as in plain summation; zeros: -0 only when every term is -0; n = 0
// gives +0. Every input type for Sum and Asum (f64: binned_exact_sum_f64, pieces of 26 and 27
// bits binned by exponent); Dot and Nrm2 of the float-range types, in any pairing (products exact
// in double); Dot and Nrm2 with a double operand (binned_exact_dot_f64: TwoProd pieces binned by
// exponent, products beyond its range exactly as integers; the norm within 1 ulp over the whole
// range). Nrm2 into df32 / dd and Engine::tensor_core give cudaErrorNotSupported. How, and the
// proofs: compensated/exact_binned.cuh, compensated/exact.cuh. Sum, Asum, Dot and Nrm2 into a float
// or a double (of doubles: Sum and Asum) first run a certified double-word pass
// (certify_first_accumulator in compensated/certified.cuh: the value with a rigorous error bound;
// Nrm2: of the sum of squares) and return its rounding where every value within the bound rounds to
// it, which is then the exact sum's rounding (Nrm2: the root of RN_double of the sum of squares);
// only where it does not (exact ties, condition numbers from about 1e16 up for float results, zero,
// Inf or NaN results, an overflow on the way) does the exact pass run, in the same kernel: the same
// bits either way, the input read once more. Beyond one block this pass is one thread-block
// cluster up to 512 KB of input (256 KB for Dot and Nrm2) where the device has clusters (compute
// capability 9.0+), else, and above, a cooperative launch (every block resident at once; both
// capturable in a graph; a device that refuses either gets the next: the one big block, the
// cooperative grid, the plain exact grid). A d_out of type tcr::exact_partial<float> (Sum, Asum of
// the float-range types), exact_partial<double> (f64), exact_partial<tcr::float_products> (Dot,
// Nrm2) or exact_partial<tcr::double_products> (Dot, Nrm2 with a double operand) receives the
// canonical partial state instead (exact modes only, else cudaErrorInvalidValue): merge the
// partials of parts of the data with tcr::exact_merge, in any order, and round with
// tcr::exact_finish<Out> (the empty partial gives -0): the same bits as one call on all of it.
// Certified results: a d_out whose value type is tcr::certified<float> or tcr::certified<double>
// (compensated/certified.cuh) receives {value, error_bound} from Sum, Asum, Dot and Nrm2, with
// |value - s| <= error_bound (Nrm2: s the exact norm), from the same single launch. value is
// what the plain call gives into float / double; the bound is the proven bound of the
// accumulator that produced it, evaluated in the same pass, every step of it rounded upward.
// Accuracy::compensated (and ::fast, which runs the compensated path for a certified result):
// float results carry a running bound of what the chunks, folds and merges lost, never above
// 2^-24 |value| + 2^-42 S + 2^-150 (S = sum |x_i|, Dot: sum |x_i y_i|); double results
// 2^-53 |value| + 2^-99 S + 2^-1074 with S summed beside the value; at most half the contract
// above plus rounding. Nrm2: about u |value|. The exact modes: the distance to the exact value,
// from the exact remainder RN(s - value), to a factor 1 + 2^-21 (0 where the value is exact).
// A NaN value gets a NaN bound, an infinite one +inf; n = 0 gives {+0, 0}; more than 2^35
// elements give the bound +inf. The bound costs about one extra FP64 operation per element or
// less on the compensated path (not measured yet). Inputs: the floating-point types;
// certified<float> takes no double operand (use certified<double>). Engine::tensor_core gives
// cudaErrorNotSupported (certified calls always run on the CUDA cores); otherwise the checks and
// errors are the plain call's. Constants, proofs, tightness: compensated/certified.cuh.
// Engine: Engine::automatic picks by measurement (the plan table below): CUDA cores for every
// compensated operation (fp8 sums run as exact plain-float chunks there, faster than the exact
// tensor-core path), tensor cores for fast Sum / Asum of half and bfloat16 from 2^16 elements.
// Engine::tensor_core forces the tensor cores where a path exists in the requested mode: fp8 Sum /
// Asum (exact f16 MMAs, any mode) and half / bfloat16 Sum / Asum in fast mode; elsewhere, and on
// a GPU of compute capability below 8.0, it gives cudaErrorNotSupported. Engine::cuda_core always
// works. Any architecture list compiles (a fat binary with sm_75, say): the tensor-core engines'
// kernels add on the CUDA cores in passes for architectures without the MMAs, and the host never
// chooses them on such a GPU (Engine::automatic falls back to the CUDA cores).
//
// Structure: this header holds the API, the argument checks, the choice of accumulator
// (compensated/reductions.cuh) and the launch plan; reduce/detail/device_kernel.cuh the one
// kernel (load -> accumulate -> block reduce -> arrive -> the last block merges), which reaches
// the tensor cores only through the warp layer (reduce/warp.cuh).
//
// Execution: one kernel launch for every n (including n = 0, which writes 0, or init for
// Reduce); no host synchronisation, no allocation in the two-phase form, capturable in a CUDA
// graph. Reproducibility: no floating-point atomics; the combining order depends only on n, the
// inputs' addresses modulo 16 bytes and the grid, which depends only on n, the GPU's SM count and
// the kernel's occupancy on that GPU model. So the same call on the same data gives the same bits
// run to run on one GPU (and on any GPU of the same model); another GPU model, a MIG slice or the
// same data at another offset may round differently (within the bounds above). Calls on
// different streams need separate temporary storage.
// temp_storage_bytes depends only on num_items and the types and never shrinks as num_items
// grows. The temporary storage need not be initialised (see reduce/detail/device_kernel.cuh for
// the arrival counter that lives in it and its 2^-48 residual risk on never-used storage).
//
// Errors (nothing is written): cudaErrorInvalidValue for num_items < 0, a null or misaligned
// output pointer, a null input pointer with num_items > 0, an input pointer not aligned to its
// element size, temporary storage smaller than the size query returned (iterators other than
// pointers cannot be checked); cudaErrorNotSupported for a forced engine that is unavailable
// (the tensor-core engines also need pointer inputs).
// Any alignment of the inputs to whole elements works: heads and tails are handled.
#pragma once

#include <cuda_runtime.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include "../compensated/certified.cuh"
#include "../compensated/exact.cuh"
#include "../compensated/exact_binned.cuh"
#include "../compensated/reductions.cuh"
#include "detail/device_kernel.cuh"
#include "detail/extrema.cuh"
#include "detail/sources.cuh"
#include "key_value_pair.cuh"
#include "warp.cuh"

namespace tcr {

enum class Accuracy { compensated, fast, reproducible, correctly_rounded };
enum class Engine { automatic, tensor_core, cuda_core };
struct ReduceOptions {
  Accuracy accuracy = Accuracy::compensated;
  Engine engine = Engine::automatic;
};

// The constant c of Accuracy::fast's bound |res - s| <= u|s| + c u S for Sum and Asum of In into
// Out (u: Out's unit roundoff). Half and bfloat16 on tensor cores: a chain of R = 4 depth-16 MMA
// steps with a 24-bit accumulator adds at most mma::tile_error_bound(4, 16, 24, S_chain)
// (= 288 u_f S_chain), and the chains' S_chain add up to S; the compensated folds and merges and
// the final rounding to Out add u|s| plus less than u_f S (the compensated path's 2^-40 S). For a
// double result (u = 2^-53) the same absolute error is (288 + 1) 2^29 u S. Everything else runs
// the compensated path: c = 1.
template <class In, class Out>
constexpr double fast_error_constant() {
  constexpr bool tc = std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>;
  constexpr bool double_result = std::is_same_v<Out, double> || std::is_same_v<Out, dd>;
  constexpr double u_f = 1.0 / 16777216.0; // 2^-24
  constexpr double c_f = mma::tile_error_bound(4, 16, 24, 1.0) / u_f + 1.0;
  if constexpr (!tc)
    return 1.0;
  else if constexpr (double_result)
    return c_f * 536870912.0; // u_f = 2^29 u_d
  else
    return c_f;
}

namespace detail {
namespace device {

enum class op_kind { sum, asum, dot, nrm2, reduce };

template <class T>
struct nondeduced {
  using type = T;
};

template <class Out>
inline constexpr bool is_double_result_v = std::is_same_v<Out, double> || std::is_same_v<Out, dd>;

// The accumulator of each operation: float-result machinery, or double-result machinery where
// any operand or the result is double. XS, YS: the sources (pointers by default), OutIt: where
// the result goes.
template <op_kind Op, class X, class Y, class Out, class XS = const X*, class YS = const Y*,
          class OutIt = Out*>
struct reduction_for {
  static constexpr bool double_result =
      std::is_same_v<X, double> || std::is_same_v<Y, double> || is_double_result_v<Out>;
  using machinery = std::conditional_t<double_result, double, float>;
  using accumulator =
      std::conditional_t<Op == op_kind::dot, dot_accumulator<machinery>,
                         std::conditional_t<Op == op_kind::nrm2, nrm2_accumulator<machinery>,
                                            sum_accumulator<machinery>>>;
  static constexpr bool binary = Op == op_kind::dot;
  using type = reduction<accumulator, X, std::conditional_t<binary, Y, void>, Out,
                         Op == op_kind::asum, XS, std::conditional_t<binary, YS, const X*>, OutIt>;
};

// The launch plan of one reduction. Chosen by measurement on the H200 with tcr_tuning_bench
// (bench/results/2026-11-30-h200-tuning/) and the one-block runs of
// bench/results/2026-11-30-h200-8bf8d38/; other architectures use the same plan.
struct launch_plan {
  int threads;                   // per block of the grid
  int unroll;                    // 16-byte vectors per operand in flight per thread
  int one_block_threads;         // inputs of more than bytes_per_block bytes but at most
  int one_block_bytes;           //   one_block_threads * one_block_bytes bytes (of the wider
  std::int64_t one_block_max;    //   operand) and one_block_max elements run as one block of
  int one_block_unroll;          //   one_block_threads threads with this unroll
  std::int64_t tensor_core_from; // Engine::automatic: tensor cores from this many elements
  std::int64_t spread_bytes = 0; // where > 0, the grid has at most max(spread_floor, bytes of
  int spread_floor = 0;          //   the wider operand / spread_bytes) blocks
};
// (The tensor-core threshold applies where a tensor-core path exists in the mode asked for.)

template <op_kind Op, class R>
constexpr launch_plan plan_for() {
  using X = typename R::x_type;
  // The double machinery's thread state would spill under the 64-register cap of 1024 threads.
  constexpr bool heavy = sizeof(typename R::accumulator::partial_type) > 16;
  constexpr bool half_sum = (Op == op_kind::sum || Op == op_kind::asum) &&
                            (std::is_same_v<X, __half> || std::is_same_v<X, __nv_bfloat16>);
  launch_plan p{};
  p.threads = 256;
  p.unroll = R::binary && !heavy ? 2 : 4;
  p.one_block_threads = heavy ? 512 : 1024;
  p.one_block_bytes = 64;
  p.one_block_max = std::int64_t(1) << 15;
  p.one_block_unroll = R::binary ? 2 : 4;
  // Accuracy::fast half and bfloat16 sums only; fp8 sums are faster on the CUDA cores.
  p.tensor_core_from = half_sum ? std::int64_t(1) << 16 : std::numeric_limits<std::int64_t>::max();
  return p;
}

// plan_for as a type, so that a tuning benchmark can launch with another plan.
template <op_kind Op, class R>
struct default_plan {
  static constexpr launch_plan value = plan_for<Op, R>();
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

template <class P>
std::size_t temp_bytes_for(std::int64_t n, int elem_bytes) {
  const std::size_t partials = static_cast<std::size_t>(partials_for(n, elem_bytes)) * sizeof(P);
  return storage_align + header_bytes +
         (partials + storage_align - 1) / storage_align * storage_align;
}

inline constexpr int max_devices = 64;

// Tests only: a positive value caps the grid of the next launches from this host thread (as a
// GPU with fewer SMs would); 0, the default, leaves the grid to the occupancy query.
inline thread_local int grid_limit_for_tests = 0;

// compute() for this device, cached in cache (one slot per device, 0 = not known yet). compute
// returns a positive value, or 0 where its query failed: that answer is not cached and the
// caller's fallback is returned instead.
template <class Compute>
int per_device(std::atomic<int> (&cache)[max_devices], int device, int fallback,
               Compute&& compute) {
  const bool slot = device >= 0 && device < max_devices;
  if (slot) {
    const int cached = cache[device].load(std::memory_order_relaxed);
    if (cached > 0)
      return cached;
  }
  const int value = compute();
  if (value <= 0)
    return fallback;
  if (slot)
    cache[device].store(value, std::memory_order_relaxed);
  return value;
}

// Blocks of this kernel that fit the device at once (SMs x occupancy), cached per kernel and
// device; 1 where the queries fail (correct, only slow; the launch reports any real error).
template <auto Kernel, int Threads>
int resident_blocks(int device) {
  static std::atomic<int> cache[max_devices] = {};
  return per_device(cache, device, 1, [&] {
    int sms = 0;
    int per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, Threads, 0) != cudaSuccess)
      return 0;
    const int blocks = sms * (per_sm > 0 ? per_sm : 1);
    return blocks < max_grid ? blocks : max_grid;
  });
}

// Whether the device has the m16n8k16 MMAs of the tensor-core engines (compute capability 8.0
// or newer), cached per device. A failed query counts as no (the CUDA cores always work).
inline bool has_tensor_cores(int device) {
  static std::atomic<int> cache[max_devices] = {}; // 1 no, 2 yes
  return per_device(cache, device, 1, [&] {
           int major = 0;
           if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
               cudaSuccess)
             return 0;
           return major >= 8 ? 2 : 1;
         }) == 2;
}

inline unsigned long long arrival_key(std::uintptr_t storage, int grid) {
  std::uint64_t z = static_cast<std::uint64_t>(storage) ^ (static_cast<std::uint64_t>(grid) << 40) ^
                    0x74637252656475ull;       // "tcrRedu"
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; // splitmix64 finaliser
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return z << 16; // 48-bit key, count bits clear
}

// The vector region: it starts where the wider operand is 16-byte aligned; the narrower one must
// then be aligned to its own vector size, else every element goes through the scalar loop.
template <class R>
void split_vector_region(kernel_params<R>& p) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int V = R::vector_items;
  p.head = 0;
  p.nvec = 0;
  if constexpr (V > 1) {
    constexpr int eb = R::elem_bytes;
    const bool x_wider = sizeof(X) >= sizeof(Y);
    const std::uintptr_t a_x = reinterpret_cast<std::uintptr_t>(p.x);
    const std::uintptr_t a_y = reinterpret_cast<std::uintptr_t>(p.y);
    const std::uintptr_t a_wider = x_wider ? a_x : a_y;
    std::int64_t head = static_cast<std::int64_t>(((16 - a_wider % 16) % 16) / eb);
    if (head > p.n)
      head = p.n;
    bool ok = true;
    if constexpr (R::binary) {
      const std::uintptr_t a_narrower = x_wider ? a_y : a_x;
      const std::size_t narrower_bytes = x_wider ? sizeof(Y) : sizeof(X);
      ok = (a_narrower + head * narrower_bytes) % (V * narrower_bytes) == 0;
    }
    if (ok) {
      p.head = head;
      p.nvec = (p.n - head) / V;
    }
  }
}

// The kernel's parameters for sources x, y (y unused when R is unary) and output out.
template <class R, class XS, class YS, class OutIt>
kernel_params<R> params_for(const XS& x, const YS& y, const OutIt& out, std::int64_t n) {
  kernel_params<R> p{};
  p.x = x;
  if constexpr (R::binary)
    p.y = y;
  else if constexpr (std::is_same_v<XS, typename R::y_source>)
    p.y = x; // a placeholder, never read
  p.out = out;
  p.n = n;
  return p;
}

// Tests and benchmarks: false makes the next launches from this host thread run the exact modes'
// certify-first calls (certify_first_of) through the exact pass alone (one block:
// certify_first_kernel's `certify`; grids: the plain exact grid).
inline thread_local bool certify_first_enabled = true;
// Tests and benchmarks only: false routes the certify-first inputs that one thread-block cluster
// would take (certify_first_cluster_kernel) to the one big block or the cooperative grid, as on a
// GPU without clusters.
inline thread_local bool certify_cluster_enabled = true;
// Tests only: the certify-first cluster launches made from this host thread (so that a test
// can tell that its inputs took the cluster and not a fall-back).
inline thread_local unsigned long long certify_cluster_launches = 0;

// One block of Threads threads (at most MaxBytes bytes of the wider operand) through
// certify_first_kernel: First (certify_first_of in reduce/device.cuh) gives the certified
// reduction RC, its pass with all the block's vectors in flight; R the exact one with Unroll.
template <class First, class R, int Threads, int Unroll, std::int64_t MaxBytes>
cudaError_t launch_certify_first(const kernel_params<R>& p, cudaStream_t stream,
                                 const typename R::accumulator& fresh) {
  using RC = typename First::type;
  static_assert(MaxBytes % (std::int64_t(Threads) * 16) == 0, "whole vectors per thread");
  // All the vectors the certified pass may read in flight at once: the block's reach, or less
  // where it stops at max_items (the narrow types' sums and e4m3 products: 16 vectors of 256 fp8
  // inputs each would spill).
  constexpr std::int64_t round_bytes = std::int64_t(Threads) * 16;
  constexpr std::int64_t item_bytes =
      First::max_items < MaxBytes / R::elem_bytes ? First::max_items * R::elem_bytes : MaxBytes;
  constexpr int unroll_c = static_cast<int>((item_bytes + round_bytes - 1) / round_bytes);
  kernel_params<RC> pc =
      params_for<RC>(p.x, p.y, static_cast<typename RC::out_iterator>(nullptr), p.n);
  split_vector_region<RC>(pc);
  certify_first_kernel<RC, R, typename First::decision, Threads, unroll_c, Unroll>
      <<<1, Threads, 0, stream>>>(pc, typename RC::accumulator{}, p, fresh,
                                  certify_first_enabled && p.n > 0 && p.n <= First::max_items);
  return cudaPeekAtLastError();
}

// Whether the device runs cooperative launches (cudaDevAttrCooperativeLaunch), cached per device;
// a failed query counts as no (the plain grid always works).
inline bool cooperative_launch(int device) {
  static std::atomic<int> cache[max_devices] = {}; // 1 no, 2 yes
  return per_device(cache, device, 1, [&] {
           int yes = 0;
           if (cudaDeviceGetAttribute(&yes, cudaDevAttrCooperativeLaunch, device) != cudaSuccess)
             return 0;
           return yes ? 2 : 1;
         }) == 2;
}

// Inputs of up to this many bytes (of the wider operand) beyond one block certify first in one
// thread-block cluster (certify_first_cluster_kernel), where the device has clusters.
inline constexpr std::int64_t cluster_certify_bytes = std::int64_t(512) << 10;
// Sum, Asum (and Nrm2 of 16-bit inputs) of up to this many bytes certify first on a cooperative
// grid of at most two blocks per SM.
inline constexpr std::int64_t certify_spread_bytes = std::int64_t(16) << 20;

// The launch of one thread-block cluster of k blocks of `threads` threads on `stream`; its
// cluster attribute lives in `a`, which must outlive the launch call.
inline cudaLaunchConfig_t one_cluster(int k, int threads, cudaStream_t stream,
                                      cudaLaunchAttribute& a) {
  a = cudaLaunchAttribute{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = static_cast<unsigned>(k);
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(k));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.stream = stream;
  cfg.attrs = &a;
  cfg.numAttrs = 1;
  return cfg;
}

// The largest cluster of Kernel (Threads threads a block) that the device schedules, of
// max_certify_cluster (a non-portable size, allowed here) or 8 blocks; 0 where it has no
// clusters (compute capability below 9.0) or a query fails. Cached per kernel and device.
template <auto Kernel, int Threads>
int certify_cluster_size(int device) {
  static std::atomic<int> cache[max_devices] = {}; // the size + 1
  return per_device(cache, device, 1,
                    [&] {
                      int clusters = 0;
                      if (cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device) !=
                          cudaSuccess)
                        return 0;
                      if (clusters == 0)
                        return 1;
                      for (int k : {max_certify_cluster, 8}) {
                        if (k > 8 && cudaFuncSetAttribute(
                                         Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed,
                                         1) != cudaSuccess) {
                          (void)cudaGetLastError();
                          continue;
                        }
                        cudaLaunchAttribute a;
                        const cudaLaunchConfig_t cfg = one_cluster(k, Threads, nullptr, a);
                        int active = 0;
                        if (cudaOccupancyMaxActiveClusters(&active, Kernel, &cfg) == cudaSuccess &&
                            active > 0)
                          return k + 1;
                        (void)cudaGetLastError();
                      }
                      return 1;
                    }) -
         1;
}

// Streaming multiprocessors of the device, cached; 1 where the query fails.
inline int sm_count(int device) {
  static std::atomic<int> cache[max_devices] = {};
  return per_device(cache, device, 1, [&] {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return 0;
    return sms;
  });
}

// The certified partials of a certify-first grid (one per block), after the exact partials.
template <class First>
std::size_t certify_bytes(std::int64_t n, int elem_bytes) {
  using PC = typename First::type::accumulator::partial_type;
  return static_cast<std::size_t>(partials_for(n, elem_bytes)) * sizeof(PC);
}

// The certified pass's parameters (certify_first_of's reduction, First::type) for a certify-first
// grid or cluster: R's sources; its partials after R's in the temporary storage at base.
template <class First, class R>
kernel_params<typename First::type> certified_params(const kernel_params<R>& p,
                                                     std::uintptr_t base) {
  using RC = typename First::type;
  using P = typename R::accumulator::partial_type;
  kernel_params<RC> pc =
      params_for<RC>(p.x, p.y, static_cast<typename RC::out_iterator>(nullptr), p.n);
  split_vector_region<RC>(pc);
  pc.partials = reinterpret_cast<unsigned char*>(base + header_bytes) +
                (temp_bytes_for<P>(p.n, R::elem_bytes) - storage_align - header_bytes);
  return pc;
}

template <class First>
struct certifies : std::bool_constant<First::enabled> {};
template <>
struct certifies<void> : std::false_type {};
template <class First>
struct certifies_grid : std::bool_constant<First::enabled && First::grid> {};
template <>
struct certifies_grid<void> : std::false_type {};

// Whether a grid input of n elements certifies first now (First certifies grids: certifies_grid).
template <class First>
bool certifies_grid_now(std::int64_t n) {
  return certify_first_enabled && n <= First::max_grid_items;
}

// Size query, checks, the plan and the launch of reduction R with engine E on p (its sources,
// output and n set). First: void, or where the exact modes certify a double-word result first,
// certify_first_of (below).
template <op_kind Op, class R, engine_kind E, class Plan = default_plan<Op, R>, class First = void>
cudaError_t launch(void* d_temp_storage, std::size_t& temp_storage_bytes, kernel_params<R> p,
                   cudaStream_t stream, const typename R::accumulator& fresh) {
  using P = typename R::accumulator::partial_type;
  constexpr int eb = R::elem_bytes;
  const std::int64_t n = p.n;

  constexpr bool certify = certifies<First>::value;
  // Certify-first grids keep their certified partials after the exact ones (certify_first_of).
  std::size_t needed = temp_bytes_for<P>(n, eb);
  if constexpr (certifies_grid<First>::value)
    needed += certify_bytes<First>(n, eb);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (n < 0 || null_source(p.out) || misaligned_source(p.out) || temp_storage_bytes < needed)
    return cudaErrorInvalidValue;
  if (n > 0 && (null_source(p.x) || (R::binary && null_source(p.y))))
    return cudaErrorInvalidValue;
  if (n > 0 && (misaligned_source(p.x) || (R::binary && misaligned_source(p.y))))
    return cudaErrorInvalidValue;

  split_vector_region<R>(p);
  const std::int64_t bytes = n * eb;
  constexpr launch_plan c = Plan::value;
  const std::int64_t by_size = partials_for(n, eb);
  const std::uintptr_t base =
      (reinterpret_cast<std::uintptr_t>(d_temp_storage) + storage_align - 1) / storage_align *
      storage_align;
  p.arrival = reinterpret_cast<unsigned long long*>(base);
  p.partials = reinterpret_cast<unsigned char*>(base + header_bytes);
  if constexpr (certifies_grid<First>::value) {
    // Certify-first inputs beyond one default block's bytes_per_block and up to the cluster's
    // reach (halved where each input costs more: Dot reads two operands, Nrm2 squares): one
    // thread-block cluster of by_size blocks (at most max_certify_cluster), where the device
    // has clusters. H200, cold L2, CUB 3.0.1's time / tcr's against the one big block and the
    // cooperative grid before, in one run (bench/results/2026-12-06-s24/h200-call10-ab.txt):
    // f32 Sum 2^15 0.68 -> 1.07, 2^16 0.68 -> 1.05; f64 Sum 2^12 .. 2^15 0.67-0.70 ->
    // 1.08-1.10; f32 Dot 2^14 .. 2^16 0.64-0.65 -> 0.89-0.90; f64 Dot 2^12 .. 2^15 0.70-0.73 ->
    // 1.06-1.07; f32 Nrm2 2^14 .. 2^16 0.63-0.64 -> 0.93-0.94 (bf16 Nrm2 at 2^14, two blocks
    // instead of the big one: 0.74 -> 0.69). Dot and Nrm2 over 512 KB of input took longer than
    // on the grid (H100, f32 Dot 2^17: 0.86 -> 0.72).
    using RC = typename First::type;
    constexpr std::int64_t cluster_reach =
        First::binary || First::norm ? cluster_certify_bytes / 2 : cluster_certify_bytes;
    if (by_size > 1 && bytes <= cluster_reach && certifies_grid_now<First>(n) &&
        certify_cluster_enabled) {
      int device = 0;
      const cudaError_t err = cudaGetDevice(&device);
      if (err != cudaSuccess)
        return err;
      constexpr auto kernel = certify_first_cluster_kernel<RC, R, typename First::decision,
                                                           c.threads, First::grid_unroll, c.unroll>;
      const int most = certify_cluster_size<kernel, c.threads>(device);
      if (most > 0) {
        int k = by_size < most ? static_cast<int>(by_size) : most;
        if (grid_limit_for_tests > 0 && k > grid_limit_for_tests)
          k = grid_limit_for_tests;
        p.key = arrival_key(base, k);
        const kernel_params<RC> pc = certified_params<First>(p, base);
        cudaLaunchAttribute a;
        const cudaLaunchConfig_t cfg = one_cluster(k, c.threads, stream, a);
        const cudaError_t e =
            cudaLaunchKernelEx(&cfg, kernel, pc, typename RC::accumulator{}, p, fresh);
        if (e == cudaSuccess) {
          ++certify_cluster_launches;
          return cudaSuccess;
        }
        (void)cudaGetLastError(); // not launched: the paths below instead
      }
    }
  }
  // (A plan whose one big block reads no more than bytes_per_block has no such inputs: the exact
  // Dot's; its kernel is not compiled.)
  constexpr std::int64_t one_block_reach = std::int64_t(c.one_block_threads) * c.one_block_bytes;
  if constexpr (one_block_reach > bytes_per_block) {
    if (bytes > bytes_per_block && bytes <= one_block_reach && n <= c.one_block_max) {
      // Mid-small inputs: one big block, no partials and no arrival word (whose three dependent
      // L2 round trips cost more than the block's extra reduction levels).
      if constexpr (certify) {
        return launch_certify_first<First, R, c.one_block_threads, c.one_block_unroll,
                                    one_block_reach>(p, stream, fresh);
      } else {
        reduce_kernel<R, c.one_block_threads, c.one_block_unroll, E, false>
            <<<1, c.one_block_threads, 0, stream>>>(p, fresh);
        return cudaPeekAtLastError();
      }
    }
  }
  if (by_size == 1) {
    // Small inputs (at most bytes_per_block bytes, n = 0 included): a grid of one block.
    if constexpr (certify) {
      return launch_certify_first<First, R, c.threads, c.unroll, bytes_per_block>(p, stream, fresh);
    } else {
      reduce_kernel<R, c.threads, c.unroll, E, false><<<1, c.threads, 0, stream>>>(p, fresh);
      return cudaPeekAtLastError();
    }
  }
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess)
    return err;
  // The grid: at most `resident` blocks (those of the kernel that fit the device at once).
  const auto grid_for = [&](int resident) {
    int grid = resident;
    if (grid_limit_for_tests > 0 && grid > grid_limit_for_tests)
      grid = grid_limit_for_tests; // tests of reproducibility: another GPU's grid
    if (grid > by_size)
      grid = static_cast<int>(by_size);
    constexpr launch_plan cp = Plan::value;
    if constexpr (cp.spread_bytes > 0) {
      const std::int64_t spread = bytes / cp.spread_bytes;
      const std::int64_t cap = spread > cp.spread_floor ? spread : cp.spread_floor;
      if (grid > cap)
        grid = static_cast<int>(cap);
    }
    return grid;
  };
  if constexpr (certifies_grid<First>::value) {
    using RC = typename First::type;
    if (certifies_grid_now<First>(n) && cooperative_launch(device)) {
      constexpr auto kernel = certify_first_grid_kernel<RC, R, typename First::decision, c.threads,
                                                        First::grid_unroll, c.unroll>;
      // Sum, Asum and 16-bit Nrm2 of up to certify_spread_bytes: at most two blocks per SM.
      // Every block merges every block's certified partial after the grid barrier, which takes
      // longer the more blocks there are (H200, cold L2, bench/results/2026-12-06-s24/
      // h200-call10-ab.txt: f32 Sum 2^22 14.00 -> 12.01 us with 264 blocks, bf16 Nrm2 2^23
      // 21.8 -> 16.0; H100: one block per SM, 132, took 14.6 us at 2^22 against 13.3 for 264,
      // and 7.2 against 5.7 us for 64 blocks at 2^18). Larger inputs need the resident grid's
      // loads in flight (H100: 2^24 .. 2^28 took 10-80% longer with 132 blocks), and so do the
      // Dot's pass over two operands (H100: f32 Dot 2^22 19.4 -> 20.7 us with 264) and the Nrm2
      // of wider inputs (H200: f32 Nrm2 2^22 12.2 -> 13.5 us; H100: 14.9 either way).
      constexpr bool spread_cap =
          !First::binary && !(First::norm && sizeof(typename R::x_type) > 2);
      int grid = grid_for(resident_blocks<kernel, c.threads>(device));
      const int most = 2 * sm_count(device);
      if (spread_cap && bytes <= certify_spread_bytes && grid > most)
        grid = most;
      p.key = arrival_key(base, grid);
      kernel_params<RC> pc = certified_params<First>(p, base);
      typename RC::accumulator fc{};
      void* args[] = {&pc, &fc, &p, const_cast<typename R::accumulator*>(&fresh)};
      const cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3(unsigned(grid)),
                                                        dim3(c.threads), args, 0, stream);
      if (e != cudaErrorCooperativeLaunchTooLarge)
        return e;
      // Fewer SMs than the device reports (a partitioned device): the plain grid instead.
      (void)cudaGetLastError();
    }
  }
  constexpr auto kernel = reduce_kernel<R, c.threads, c.unroll, E, true>;
  const int grid = grid_for(resident_blocks<kernel, c.threads>(device));
  p.key = arrival_key(base, grid);
  kernel<<<grid, c.threads, 0, stream>>>(p, fresh);
  return cudaPeekAtLastError();
}

// Reduction R on the CUDA cores (the operations without a tensor-core path); y is not read when
// R is unary.
template <op_kind Op, class R, class XS, class YS, class OutIt>
cudaError_t launch_cuda_cores(void* d_temp_storage, std::size_t& temp_storage_bytes, const XS& x,
                              const YS& y, const OutIt& out, std::int64_t n, cudaStream_t stream,
                              const typename R::accumulator& fresh) {
  return launch<Op, R, engine_kind::cuda_core>(d_temp_storage, temp_storage_bytes,
                                               params_for<R>(x, y, out, n), stream, fresh);
}

// Sum, Asum, Dot, Nrm2 of elements X (and Y) into Out: whether the types make sense, each misuse
// stopped by one static_assert (shared by DeviceReduce and DeviceSegmentedReduce). Integer
// inputs are summed exactly (integer_sum_accumulator), floating-point ones compensated.
template <op_kind Op, class X, class Y, class Out>
constexpr bool sum_like_types_ok() {
  if constexpr (is_integer_input_v<X>) {
    static_assert(Op != op_kind::nrm2, "tcr: Nrm2: integer inputs are not supported (pass a "
                                       "transform iterator that converts them to float or double)");
    constexpr bool dot_ok =
        Op != op_kind::dot || (is_integer_input_v<Y> && sizeof(X) <= 4 && sizeof(Y) <= 4);
    static_assert(dot_ok, "tcr: Dot of integers: both operands integers of at most 32 bits");
    constexpr bool out_ok =
        is_result_type_v<Out> || is_integer_input_v<Out> || std::is_same_v<Out, int128>;
    static_assert(out_ok, "tcr: the result of an integer reduction must be an integer, float, "
                          "double, __half, __nv_bfloat16, tcr::df32, tcr::dd or tcr::int128");
    return Op != op_kind::nrm2 && dot_ok && out_ok;
  } else {
    constexpr bool in_ok = is_input_type_v<X> && is_input_type_v<Y>;
    static_assert(in_ok, "tcr: the inputs' value types must be e4m3, e5m2, half, bfloat16, "
                         "float, double or an integer type (use Reduce or TransformReduce for "
                         "others)");
    static_assert(is_result_type_v<Out>, "tcr: the result must be float, double, __half, "
                                         "__nv_bfloat16, tcr::df32 or tcr::dd");
    return in_ok && is_result_type_v<Out>;
  }
}

// The reduction of Sum, Asum, Dot, Nrm2 (for types that sum_like_types_ok accepts).
template <bool Integer, op_kind Op, class X, class Y, class Out, class XS, class YS, class OutIt>
struct sum_like_reduction {
  using type = typename reduction_for<Op, X, Y, Out, XS, YS, OutIt>::type;
};
template <op_kind Op, class X, class Y, class Out, class XS, class YS, class OutIt>
struct sum_like_reduction<true, Op, X, Y, Out, XS, YS, OutIt> {
  static constexpr bool binary = Op == op_kind::dot;
  using type = reduction<integer_sum_accumulator<Op == op_kind::asum>, X,
                         std::conditional_t<binary, Y, void>, Out, false, XS,
                         std::conditional_t<binary, YS, const X*>, OutIt>;
};
template <op_kind Op, class X, class Y, class Out, class XS, class YS, class OutIt>
using sum_like_reduction_t =
    typename sum_like_reduction<is_integer_input_v<X>, Op, X, Y, Out, XS, YS, OutIt>::type;

// Reduce's types: whether they make sense (shared as above).
template <class Out, class Op>
constexpr bool reduce_types_ok() {
  constexpr bool out_ok = std::is_trivially_copyable_v<Out> && std::is_default_constructible_v<Out>;
  static_assert(out_ok, "tcr: Reduce: the result type must be trivially copyable and "
                        "default-constructible");
  static_assert(std::is_trivially_copyable_v<Op>, "tcr: Reduce: op is passed to the kernel by "
                                                  "value");
  constexpr bool binary_op = std::is_invocable_r_v<Out, const Op&, const Out&, const Out&>;
  static_assert(binary_op, "tcr: Reduce: op must take two values of the result type and return "
                           "one (a binary operator such as cuda::std::plus<T> or "
                           "cuda::maximum<T>)");
  return out_ok && std::is_trivially_copyable_v<Op> && binary_op;
}

// Accuracy::reproducible and Accuracy::correctly_rounded: the exact accumulators of
// compensated/exact_binned.cuh, in blocks of the bins' thread count.
template <op_kind Op, class X, class Y, class Out>
struct exact_accumulator_of {
  static constexpr bool dot_like = Op == op_kind::dot || Op == op_kind::nrm2;
  static constexpr bool double_operand = std::is_same_v<X, double> || std::is_same_v<Y, double>;
  // Nrm2 into a pair has no exact path (cudaErrorNotSupported).
  static constexpr bool supported =
      !(Op == op_kind::nrm2 && (std::is_same_v<Out, df32> || std::is_same_v<Out, dd>));
  // Doubles in paired rows (a hi and a lo bin per row: compensated/exact_binned.cuh): H100,
  // 2^28 / 2^30 doubles of 53 significant bits, 751 / 2885 us against 1144 / 3766 with single
  // rows (CUB 705 / 2789; bench/results/2026-12-05-h100-s19/); single rows are 7-9% faster up to
  // 2^18.
  using type = std::conditional_t<
      dot_like,
      std::conditional_t<double_operand, binned_exact_dot_f64<X, Y, 256, Op == op_kind::nrm2>,
                         binned_exact_dot<X, Y, 128, Op == op_kind::nrm2>>,
      std::conditional_t<std::is_same_v<X, double>, binned_exact_sum_f64<256, true>,
                         binned_exact_sum<X, 256>>>;
};
template <class A, class = void>
struct exact_threads_of : std::integral_constant<int, 256> {};
template <class A>
struct exact_threads_of<A, std::void_t<decltype(A::threads)>>
    : std::integral_constant<int, A::threads> {};
// Up to 64 KB (32 KB for Nrm2's blocks of 128 threads; Dot: 16 KB) run as one block whose
// threads have all their vectors in flight at once (16; f64: 8, two rounds, half the code), so
// that no grid protocol (the partials' stores, the arrival atomic, the last block's merge: three
// dependent L2 round trips and a second block-level combine) follows the loads; the bins' shared
// memory caps the block at the accumulator's thread count, so the block's reach grows by the
// unroll instead. For float inputs (where it was measured), the grid has at most
// max(256, bytes / 32 KB) blocks: the last block's merge reads every block's partial (products:
// 19 limbs), and from about 4 MB to 16 MB fewer, fuller blocks finish sooner (H200, f32 at 2^22,
// 16 MB: Dot 29.9 -> 28.5 us, Nrm2 35.3 -> 31.1 us with 528 blocks instead of 660 and 792; 2^20
// is faster with 256 than with 132, 2^24 with the whole resident grid). For doubles (66-limb
// partials) at most max(128, bytes / 64 KB) blocks (H100, the f64 Sum with the whole-partial
// merge: 2^20 24.6 -> 18.9 us, 2^22 37.1 -> 33.1, 2^18 and from 2^24 the same; max(32,
// bytes / 128 KB) took 30.2 us at 2^22 but 16.8 / 22.8 at 2^18 / 2^20, max(128, bytes / 32 KB)
// 19.1 / 37.2 at 2^20 / 2^22).
template <op_kind Op, class R>
struct exact_plan {
  static constexpr int threads = exact_threads_of<typename R::accumulator>::value;
  static constexpr bool one_block_unrolled = !R::binary;
  static constexpr launch_plan value = {
      threads,
      std::is_same_v<typename R::x_type, double> ? 2 : 4,
      threads,
      one_block_unrolled ? 256 : 64,
      std::int64_t(1) << 15,
      !one_block_unrolled                          ? 4
      : std::is_same_v<typename R::x_type, double> ? 8
                                                   : 16,
      std::numeric_limits<std::int64_t>::max(),
      std::is_same_v<typename R::x_type, float>    ? std::int64_t(32) << 10
      : std::is_same_v<typename R::x_type, double> ? std::int64_t(64) << 10
                                                   : 0,
      std::is_same_v<typename R::x_type, double> ? 128 : 256};
};

// The certify-first decisions (Decision of certify_first_kernel, certify_first_grid_kernel):
// whether the certificate decides the exact modes' result, and that result. Sum, Asum, Dot: the
// exact sum's rounding to float (decides_float) or double (decides_double).
struct decide_rounding {
  TCR_HD static bool apply(const certified<double>& c, float& r) { return decides_float(c, r); }
  TCR_HD static bool apply(const certified_double_word& c, double& r) {
    return decides_double(c, r);
  }
};
// Nrm2: the exact modes' norm is sqrt(RN_double(s)) rounded to Out (detail::exact_norm_result,
// compensated/exact.cuh), s the sum of squares; where the certificate of s decides RN_double(s),
// the same function of it is the result. For squares of doubles the exact norm is
// detail::exact_norm_wide's, sqrt(RN_double(s 2^-2k)) 2^k: where d = RN_double(s) >= 2^-1021, s
// is normal and so is s 2^-2k in [1, 4), so RN_double(s 2^-2k) = d 2^-2k (scaling by a power of
// two commutes with rounding in the normal range), its correctly rounded root is RN(sqrt(d)) 2^-k
// (likewise) and the scaled result RN(sqrt(d)): the same value. Smaller d (s may be subnormal,
// where RN_double rounds at a coarser spacing than the scaled sum) are left undecided; sums of
// squares of float-range inputs are zero or at least 2^-298, so this costs them nothing.
struct decide_norm {
  template <class Out>
  TCR_HD static bool apply(const certified_double_word& c, Out& r) {
    double d = 0.0;
    if (!decides_double(c, d) || !(d >= 0x1p-1021))
      return false;
    r = tcr::detail::exact_norm_result<Out>(d);
    return true;
  }
};

// The exact modes' certify-first pass (certify_first_kernel and, beyond one block,
// certify_first_grid_kernel in reduce/detail/device_kernel.cuh) for results of type float or
// double: Sum, Asum, Dot and Nrm2 of the float-range types, Sum and Asum of doubles, Dot with a
// double operand and Nrm2 of doubles (certify_first_accumulator::add_product: TwoProd pairs).
// A certified double-word reduction of the same sources (certify_first_accumulator, or
// certify_first_squares for Nrm2: compensated/certified.cuh) decides the exact modes' result
// where its interval allows (Decision: decide_rounding, decide_norm), and the exact pass runs only
// where it does not, in the same kernel; the result's bits are the exact pass's either way. A
// grid that cannot decide reads its input twice (the certified pass, then the exact one): about
// twice the exact pass's time on such data (exact ties, condition numbers from about 1e16 up for
// float results, a zero, Inf or NaN result, an overflow on the way). Sums of half and fp8 inputs
// certify up to max_items elements only:
// their exact pass is cheap (small exact chunk sums), and the certificate's nine double operations
// per input cost more from there (H100, 2026-12-05, cold L2, certify-first against the exact pass
// alone: f32 Sum 2^10 3.42 / 5.09 us, 2^14 4.84 / 6.74; bf16 2^15 6.22 / 7.58; f16 2^13 3.96 /
// 4.12 but 2^14 5.29 / 5.07, 2^15 5.77 / 5.20; e4m3 2^12 3.68 / 3.87, 2^13 4.09 / 3.96, 2^15
// 6.39 / 5.04; Dot f32 2^12 3.84 / 8.93, e4m3 2^14 5.93 / 10.83; CUB 2.6-5.4 us;
// bench/results/2026-12-05-h100-s20/call1/). Double results, Sum and Asum of doubles, Dot with a
// double operand and Nrm2 certify at every size, as the Dot does. H100, 2026-12-06, cold L2, CUB
// 3.0.1's time / tcr's (bench/results/2026-12-06-h100-s23/): f64 Sum 0.71-1.00 from 2^10 to 2^28
// (the exact pass alone 0.49-0.97), f64 Dot 0.72-1.13, f64 Nrm2 0.73-1.07 (the exact pass alone
// 0.29-0.66), f32 Nrm2 0.68-1.08.
template <op_kind Op, class X, class Y, class Out, class XS, class YS>
struct certify_first_of {
  static constexpr bool binary = Op == op_kind::dot;
  static constexpr bool norm = Op == op_kind::nrm2;
  static constexpr bool doubles = std::is_same_v<X, double> || std::is_same_v<Y, double>;
  static constexpr bool f64_sum = !binary && !norm && std::is_same_v<X, double>;
  static constexpr bool float_or_double = std::is_same_v<Out, float> || std::is_same_v<Out, double>;
  static constexpr bool enabled = float_or_double && (!doubles || f64_sum || binary || norm);
  // Exact passes as cheap as the certificate from a few thousand elements on: sums of half and
  // fp8 (one register bin), and Dot / Nrm2 of e4m3 with e4m3 (binned_exact_dot's one bin; given
  // the e4m3 sum's threshold, not measured yet).
  static constexpr bool e4m3_products =
      (binary || norm) && std::is_same_v<X, __nv_fp8_e4m3> && (norm || std::is_same_v<Y, X>);
  static constexpr bool cheap_exact =
      e4m3_products || (!binary && !norm &&
                        (std::is_same_v<X, __half> || std::is_same_v<X, __nv_fp8_e4m3> ||
                         std::is_same_v<X, __nv_fp8_e5m2>));
  static constexpr std::int64_t max_items = !cheap_exact ? std::numeric_limits<std::int64_t>::max()
                                            : std::is_same_v<X, __half> ? std::int64_t(1) << 13
                                                                        : std::int64_t(1) << 12;
  // Grid inputs (certify_first_grid_kernel, launched cooperatively): up to max_grid_items
  // elements, grid_unroll vectors per operand in flight. Against the exact pass alone (H100,
  // 2026-12-05, bench/results/2026-12-05-h100-s20/call2/): f32 Sum 1.04-1.34x as fast up to 2^21
  // (2^18: 6.17 against 8.22 us, CUB 5.45), the same from 2^22; Dot of every type 1.04-1.67x;
  // bfloat16 Sum 1.09-1.23x at 2^18..2^21, 0.91-0.98x at 2^16, 2^17, 2^22 and 2^30 (its exact
  // pass is cheap at the ends): up to 2^21 only. Half and fp8 sums and e4m3 products stay on the
  // exact pass.
  static constexpr bool grid = !cheap_exact;
  static constexpr std::int64_t max_grid_items =
      std::is_same_v<X, __nv_bfloat16> && !binary && !norm ? std::int64_t(1) << 21 : max_items;
  static constexpr int grid_unroll = binary ? 2 : 4;
  using out_type = std::conditional_t<std::is_same_v<Out, float> && !norm, certified<double>,
                                      certified_double_word>;
  using decision = std::conditional_t<norm, decide_norm, decide_rounding>;
  using accumulator = std::conditional_t<norm, certify_first_squares, certify_first_accumulator>;
  using type =
      reduction<accumulator, X, std::conditional_t<binary, Y, void>, out_type, Op == op_kind::asum,
                XS, std::conditional_t<binary, YS, const X*>, out_type*>;
};

// Sum, Asum, Dot, Nrm2 in the exact modes. Nrm2 into df32 or dd has no exact path
// (cudaErrorNotSupported, after the size query and before anything runs), nor have the
// tensor-core engines.
template <op_kind Op, class X, class Y, class Out, class XS, class YS, class OutIt>
cudaError_t run_exact(void* d_temp_storage, std::size_t& temp_storage_bytes, const XS& xs,
                      const YS& ys, const OutIt& out, std::int64_t n, cudaStream_t stream,
                      ReduceOptions options) {
  using E = exact_accumulator_of<Op, X, Y, Out>;
  if constexpr (E::supported) {
    using Acc = typename E::type;
    constexpr bool binary = Op == op_kind::dot;
    using R = reduction<Acc, X, std::conditional_t<binary, Y, void>, Out, Op == op_kind::asum, XS,
                        std::conditional_t<binary, YS, const X*>, OutIt>;
    if (d_temp_storage != nullptr && options.engine == Engine::tensor_core)
      return cudaErrorNotSupported;
    return launch<Op, R, engine_kind::cuda_core, exact_plan<Op, R>,
                  certify_first_of<Op, X, Y, Out, XS, YS>>(
        d_temp_storage, temp_storage_bytes, params_for<R>(xs, ys, out, n), stream, Acc{});
  } else {
    (void)xs, (void)ys, (void)out, (void)n, (void)stream, (void)options;
    if (d_temp_storage == nullptr) {
      temp_storage_bytes = 1;
      return cudaSuccess;
    }
    return cudaErrorNotSupported;
  }
}

// Sum, Asum, Dot, Nrm2 of the floating-point input types.
template <op_kind Op, class X, class Y, class Out, class XS, class YS, class OutIt>
cudaError_t run_floating(void* d_temp_storage, std::size_t& temp_storage_bytes, const XS& xs,
                         const YS& ys, const OutIt& out, std::int64_t n, cudaStream_t stream,
                         ReduceOptions options) {
  if (options.accuracy == Accuracy::reproducible || options.accuracy == Accuracy::correctly_rounded)
    return run_exact<Op, X, Y, Out>(d_temp_storage, temp_storage_bytes, xs, ys, out, n, stream,
                                    options);
  using R = sum_like_reduction_t<Op, X, Y, Out, XS, YS, OutIt>;
  const typename R::accumulator fresh{};
  const kernel_params<R> p = params_for<R>(xs, ys, out, n);
  constexpr bool sum_like = Op == op_kind::sum || Op == op_kind::asum;
  // The tensor-core engines work on the vector path (inputs through pointers).
  constexpr bool exact_tc = R::vectorised && is_fp8_v<X> && sum_like; // exact MMAs: any mode
  constexpr bool chain_tc =
      R::vectorised && (std::is_same_v<X, __half> || std::is_same_v<X, __nv_bfloat16>)&&sum_like;
  // A tensor-core path exists for this operation and type in this mode: fp8 sums (exact MMAs,
  // any mode), half / bfloat16 sums in Accuracy::fast (their MMAs round).
  const bool tc_path = exact_tc || (chain_tc && options.accuracy == Accuracy::fast);
  constexpr launch_plan plan = plan_for<Op, R>();
  bool use_tc = tc_path && (options.engine == Engine::tensor_core ||
                            (options.engine == Engine::automatic && n >= plan.tensor_core_from));
  // A GPU without the MMAs: automatic falls back to the CUDA cores, tensor_core says so. (The
  // size query needs no device: both engines need the same temporary storage.)
  if (use_tc && d_temp_storage != nullptr) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || !has_tensor_cores(device)) {
      if (options.engine == Engine::tensor_core)
        return cudaErrorNotSupported;
      use_tc = false;
    }
  }
  if constexpr (exact_tc) {
    if (use_tc)
      return launch<Op, R, engine_kind::tensor_core_exact>(d_temp_storage, temp_storage_bytes, p,
                                                           stream, fresh);
  } else if constexpr (chain_tc) {
    if (use_tc)
      return launch<Op, R, engine_kind::tensor_core_chain>(d_temp_storage, temp_storage_bytes, p,
                                                           stream, fresh);
  }
  if (options.engine == Engine::tensor_core)
    return cudaErrorNotSupported; // no tensor-core path in this mode (their MMAs round)
  return launch<Op, R, engine_kind::cuda_core>(d_temp_storage, temp_storage_bytes, p, stream,
                                               fresh);
}

// Sum, Asum, Dot, Nrm2 into tcr::certified<T> (compensated/certified.cuh): the accumulator of
// the mode asked for, wrapped so that its result carries its error bound; always on the CUDA
// cores (the tensor-core engines fold MMA results, not the inputs whose magnitudes the bound
// needs: Engine::tensor_core gives cudaErrorNotSupported after the size query). Accuracy::fast
// runs the compensated path, which meets fast's bound, and certifies that. The machinery
// follows T as for a plain T result (double where an operand is double).
template <op_kind Op, class X, class Y, class T, class XS, class YS, class OutIt>
cudaError_t run_certified(void* d_temp_storage, std::size_t& temp_storage_bytes, const XS& xs,
                          const YS& ys, const OutIt& out, std::int64_t n, cudaStream_t stream,
                          ReduceOptions options) {
  constexpr bool in_ok = is_input_type_v<X> && is_input_type_v<Y>;
  static_assert(in_ok, "tcr: a certified result: the inputs' value types must be e4m3, e5m2, "
                       "half, bfloat16, float or double");
  constexpr bool narrow_ok =
      !(std::is_same_v<T, float> && (std::is_same_v<X, double> || std::is_same_v<Y, double>));
  static_assert(narrow_ok, "tcr: a certified result of double inputs is tcr::certified<double>");
  constexpr bool binary = Op == op_kind::dot;
  constexpr bool norm = Op == op_kind::nrm2;
  using Out = certified<T>;
  using YT = std::conditional_t<binary, Y, void>;
  using YSrc = std::conditional_t<binary, YS, const X*>;
  const bool unproven = n >= certified_max_items;
  if constexpr (!in_ok || !narrow_ok) {
    return cudaErrorInvalidValue; // not reached: a static_assert stops the build
  } else if (options.accuracy == Accuracy::reproducible ||
             options.accuracy == Accuracy::correctly_rounded) {
    using E = exact_accumulator_of<Op, X, Y, T>;
    if constexpr (E::supported) {
      // Sums of float-range values are multiples of 2^-149, of doubles of 2^-1074, dots of
      // float-range values of 2^-298: coarser than half T's subnormal spacing except Dot into
      // float.
      constexpr bool grid_exact = !binary || std::is_same_v<T, double>;
      using Acc = certified_exact<typename E::type, norm, grid_exact>;
      using R = reduction<Acc, X, YT, Out, Op == op_kind::asum, XS, YSrc, OutIt>;
      if (d_temp_storage != nullptr && options.engine == Engine::tensor_core)
        return cudaErrorNotSupported;
      Acc fresh{};
      fresh.unproven = unproven;
      return launch<Op, R, engine_kind::cuda_core, exact_plan<Op, R>>(
          d_temp_storage, temp_storage_bytes, params_for<R>(xs, ys, out, n), stream, fresh);
    } else {
      return run_exact<Op, X, Y, T>(d_temp_storage, temp_storage_bytes, xs, ys, out, n, stream,
                                    options); // the size query, then cudaErrorNotSupported
    }
  } else {
    // The float machinery's Sum, Asum and Dot carry a running bound; Nrm2 and the double
    // machinery the sum of magnitudes.
    using Inner = typename reduction_for<Op, X, Y, T>::accumulator;
    constexpr bool running = !norm && !reduction_for<Op, X, Y, T>::double_result;
    using Acc = std::conditional_t<running, certified_float_accumulator,
                                   certified_accumulator<Inner, norm>>;
    using R = reduction<Acc, X, YT, Out, Op == op_kind::asum, XS, YSrc, OutIt>;
    if (d_temp_storage != nullptr && options.engine == Engine::tensor_core)
      return cudaErrorNotSupported;
    Acc fresh{};
    fresh.unproven = unproven;
    return launch<Op, R, engine_kind::cuda_core>(d_temp_storage, temp_storage_bytes,
                                                 params_for<R>(xs, ys, out, n), stream, fresh);
  }
}

// Sum, Asum, Dot, Nrm2: the accumulator, the engine (options and plan), the launch. x, y: input
// iterators (y = x when unary), out: an output iterator.
template <op_kind Op, class XIt, class YIt, class OutIt>
cudaError_t run(void* d_temp_storage, std::size_t& temp_storage_bytes, const XIt& x, const YIt& y,
                const OutIt& out, std::int64_t n, cudaStream_t stream, ReduceOptions options) {
  using X = it_value_t<XIt>;
  using Y = it_value_t<YIt>;
  using Out = out_value_t<OutIt, X>;
  const auto xs = source_of(x);
  const auto ys = source_of(y);
  using XS = std::remove_const_t<decltype(xs)>;
  using YS = std::remove_const_t<decltype(ys)>;
  if constexpr (is_exact_partial_v<Out>) {
    // The exact modes' partial state as the result (a value to merge with exact_merge).
    using E = exact_accumulator_of<Op, X, Y, Out>;
    static_assert(is_input_type_v<X> && is_input_type_v<Y> && E::supported,
                  "tcr: an exact_partial result: Sum, Asum, Dot or Nrm2 of floating-point input "
                  "types");
    static_assert(std::is_same_v<Out, typename E::type::partial_type>,
                  "tcr: the exact partial of Sum and Asum of double inputs is "
                  "tcr::exact_partial<double>, of the other input types tcr::exact_partial<float>; "
                  "of Dot and Nrm2, tcr::exact_partial<tcr::float_products> "
                  "(tcr::exact_partial<tcr::double_products> with a double operand)");
    if (options.accuracy != Accuracy::reproducible &&
        options.accuracy != Accuracy::correctly_rounded && d_temp_storage != nullptr)
      return cudaErrorInvalidValue;
    return run_exact<Op, X, Y, Out>(d_temp_storage, temp_storage_bytes, xs, ys, out, n, stream,
                                    options);
  } else if constexpr (is_certified_v<Out>) {
    return run_certified<Op, X, Y, typename Out::value_type>(d_temp_storage, temp_storage_bytes, xs,
                                                             ys, out, n, stream, options);
  } else if constexpr (!sum_like_types_ok<Op, X, Y, Out>()) {
    return cudaErrorInvalidValue; // not reached: a static_assert stops the build
  } else if constexpr (is_integer_input_v<X>) {
    if (options.engine == Engine::tensor_core)
      return cudaErrorNotSupported;
    using R = sum_like_reduction_t<Op, X, Y, Out, XS, YS, OutIt>;
    return launch_cuda_cores<Op, R>(d_temp_storage, temp_storage_bytes, xs, ys, out, n, stream,
                                    typename R::accumulator{});
  } else {
    return run_floating<Op, X, Y, Out>(d_temp_storage, temp_storage_bytes, xs, ys, out, n, stream,
                                       options);
  }
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

// num_items of any integer type (as CUB templates it), as a 64-bit count; an unsigned count
// above INT64_MAX becomes -1, which the checks reject (cudaErrorInvalidValue, nothing written).
template <class NumItemsT>
std::int64_t items_of(NumItemsT n) {
  static_assert(std::is_integral_v<NumItemsT> && !std::is_same_v<NumItemsT, bool>,
                "tcr::DeviceReduce: num_items must be an integer (int, long long, size_t, ...)");
  if constexpr (std::is_unsigned_v<NumItemsT> && sizeof(NumItemsT) >= sizeof(std::int64_t))
    return n > static_cast<NumItemsT>(std::numeric_limits<std::int64_t>::max())
               ? -1
               : static_cast<std::int64_t>(n);
  else
    return static_cast<std::int64_t>(n);
}

// Extrema: Min / Max (Arg: ArgMin / ArgMax) with CUB's rules (reduce/detail/extrema.cuh).
template <bool Arg, bool Max, class InputIt, class OutIt, class Out>
cudaError_t run_extremum(void* d_temp_storage, std::size_t& temp_storage_bytes, const InputIt& in,
                         const OutIt& out, std::int64_t n, cudaStream_t stream) {
  using T = it_value_t<InputIt>;
  const auto xs = source_of(in);
  using XS = std::remove_const_t<decltype(xs)>;
  if constexpr (!extremum_types_ok<T>()) {
    return cudaErrorInvalidValue; // not reached: the static_assert above stops the build
  } else if constexpr (Arg) {
    using Acc = arg_extremum_accumulator<T, Max>;
    using S = indexed_source<XS, T>;
    using R =
        reduction<Acc, typename Acc::pair, void, Out, false, S, const typename Acc::pair*, OutIt>;
    return launch_cuda_cores<op_kind::reduce, R>(d_temp_storage, temp_storage_bytes, S{xs}, xs, out,
                                                 n, stream, Acc{});
  } else {
    using Acc = extremum_accumulator<T, Max>;
    using R = reduction<Acc, T, void, Out, false, XS, const T*, OutIt>;
    return launch_cuda_cores<op_kind::reduce, R>(d_temp_storage, temp_storage_bytes, xs, xs, out, n,
                                                 stream, Acc{});
  }
}

// Reduce and TransformReduce: source xs (its elements of type X), op and init.
template <class X, class XS, class OutIt, class Op, class Init>
cudaError_t run_reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, const XS& xs,
                       const OutIt& out, std::int64_t n, Op op, const Init& init,
                       cudaStream_t stream) {
  using Out = out_value_t<OutIt, Init>;
  if constexpr (reduce_types_ok<Out, Op>()) {
    using Acc = reduce_accumulator<Out, Op>;
    using R = reduction<Acc, X, void, Out, false, XS, const X*, OutIt>;
    const Acc fresh{op, static_cast<Out>(init)};
    return launch_cuda_cores<op_kind::reduce, R>(d_temp_storage, temp_storage_bytes, xs, xs, out, n,
                                                 stream, fresh);
  } else {
    return cudaErrorInvalidValue; // not reached: a static_assert stops the build
  }
}

} // namespace device
} // namespace detail

// Every entry point takes CUB's arguments in CUB's order: d_in any random-access input iterator
// (a pointer, thrust::device_ptr, a counting or transform iterator; pointers and pointer wrappers
// with get() are read as 16-byte vectors, other iterators one element at a time), d_out a pointer
// or an output iterator, num_items any integer type. The two-phase form (size query with
// d_temp_storage == nullptr, then the call) and a single-call form that allocates its own
// temporary storage on the stream.
struct DeviceReduce {
  // sum x_i. See the header comment for the bound; integer inputs: the exact sum, converted once
  // (integer results wrap modulo 2^bits, as CUB's integer sums).
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return detail::device::run<detail::device::op_kind::sum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, detail::device::items_of(num_items),
        stream, options);
  }
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Sum(InputIt d_in, OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Sum(t, b, d_in, d_out, num_items, stream, options);
    });
  }

  // sum |x_i|.
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                          OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return detail::device::run<detail::device::op_kind::asum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, detail::device::items_of(num_items),
        stream, options);
  }
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Asum(InputIt d_in, OutputIt d_out, NumItemsT num_items,
                          cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Asum(t, b, d_in, d_out, num_items, stream, options);
    });
  }

  // sqrt(sum x_i^2), without overflow or underflow for any finite input.
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_x,
                          OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return detail::device::run<detail::device::op_kind::nrm2>(
        d_temp_storage, temp_storage_bytes, d_x, d_x, d_out, detail::device::items_of(num_items),
        stream, options);
  }
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Nrm2(InputIt d_x, OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Nrm2(t, b, d_x, d_out, num_items, stream, options);
    });
  }

  // sum x_i y_i.
  template <class InputItX, class InputItY, class OutputIt, class NumItemsT>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, InputItX d_x,
                         InputItY d_y, OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return detail::device::run<detail::device::op_kind::dot>(
        d_temp_storage, temp_storage_bytes, d_x, d_y, d_out, detail::device::items_of(num_items),
        stream, options);
  }
  template <class InputItX, class InputItY, class OutputIt, class NumItemsT>
  static cudaError_t Dot(InputItX d_x, InputItY d_y, OutputIt d_out, NumItemsT num_items,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Dot(t, b, d_x, d_y, d_out, num_items, stream, options);
    });
  }

  // init op x_0 op x_1 ... for an associative and commutative op (as CUB: threads take the
  // elements grid-strided; the combining order is fixed, so results are reproducible; no accuracy
  // contract beyond op's own). The result type is d_out's value type (init's type where d_out
  // names none); each x_i is converted to it first; n = 0 writes init.
  template <class InputIt, class OutputIt, class NumItemsT, class ReductionOpT, class T>
  static cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, NumItemsT num_items, ReductionOpT reduction_op, T init,
                            cudaStream_t stream = 0) {
    const auto xs = detail::device::source_of(d_in);
    return detail::device::run_reduce<detail::device::it_value_t<InputIt>>(
        d_temp_storage, temp_storage_bytes, xs, d_out, detail::device::items_of(num_items),
        reduction_op, init, stream);
  }
  template <class InputIt, class OutputIt, class NumItemsT, class ReductionOpT, class T>
  static cudaError_t Reduce(InputIt d_in, OutputIt d_out, NumItemsT num_items,
                            ReductionOpT reduction_op, T init, cudaStream_t stream = 0) {
    return detail::device::with_temp_storage(stream, [&](void* t, std::size_t& b) {
      return Reduce(t, b, d_in, d_out, num_items, reduction_op, init, stream);
    });
  }

  // init op f(x_0) op f(x_1) ... (transform_op f, device-callable, applied as each element is
  // read); otherwise as Reduce. For a compensated sum of transformed values, pass a transform
  // iterator to Sum instead.
  template <class InputIt, class OutputIt, class ReductionOpT, class TransformOpT, class T,
            class NumItemsT>
  static cudaError_t TransformReduce(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                     InputIt d_in, OutputIt d_out, NumItemsT num_items,
                                     ReductionOpT reduction_op, TransformOpT transform_op, T init,
                                     cudaStream_t stream = 0) {
    static_assert(std::is_trivially_copyable_v<TransformOpT>,
                  "tcr::DeviceReduce::TransformReduce: transform_op is passed to the kernel by "
                  "value");
    using V = detail::device::it_value_t<InputIt>;
    using X = std::decay_t<std::invoke_result_t<const TransformOpT&, V>>;
    const auto xs = detail::device::source_of(d_in);
    using S = detail::device::transform_source<std::remove_const_t<decltype(xs)>, TransformOpT, X>;
    return detail::device::run_reduce<X>(d_temp_storage, temp_storage_bytes, S{xs, transform_op},
                                         d_out, detail::device::items_of(num_items), reduction_op,
                                         init, stream);
  }

  // The least element by `<` (CUB's cuda::minimum rule; reduce/detail/extrema.cuh has the NaN
  // and tie rules and the one difference from CUB); numeric_limits<T>::max() for n = 0.
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    using Out = detail::device::out_value_t<OutputIt, detail::device::it_value_t<InputIt>>;
    return detail::device::run_extremum<false, false, InputIt, OutputIt, Out>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, detail::device::items_of(num_items),
        stream);
  }
  // The greatest element; numeric_limits<T>::lowest() for n = 0.
  template <class InputIt, class OutputIt, class NumItemsT>
  static cudaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    using Out = detail::device::out_value_t<OutputIt, detail::device::it_value_t<InputIt>>;
    return detail::device::run_extremum<false, true, InputIt, OutputIt, Out>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, detail::device::items_of(num_items),
        stream);
  }

  // The first least element and its index (ties: the smallest index), written to d_min_out and
  // d_index_out; n = 0 writes numeric_limits<T>::max() and index 1, as CUB.
  template <class InputIt, class ExtremumOutIt, class IndexOutIt>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            ExtremumOutIt d_min_out, IndexOutIt d_index_out, std::int64_t num_items,
                            cudaStream_t stream = 0) {
    return arg<false>(d_temp_storage, temp_storage_bytes, d_in, d_min_out, d_index_out, num_items,
                      stream);
  }
  // The same, written as one KeyValuePair<int, T> {index, value} (CUB's older overload).
  template <class InputIt, class OutputIt>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, int num_items, cudaStream_t stream = 0) {
    return arg_pair<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
  }
  // The first greatest element and its index; n = 0 writes numeric_limits<T>::lowest(), index 1.
  template <class InputIt, class ExtremumOutIt, class IndexOutIt>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            ExtremumOutIt d_max_out, IndexOutIt d_index_out, std::int64_t num_items,
                            cudaStream_t stream = 0) {
    return arg<true>(d_temp_storage, temp_storage_bytes, d_in, d_max_out, d_index_out, num_items,
                     stream);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, int num_items, cudaStream_t stream = 0) {
    return arg_pair<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
  }

private:
  template <bool Max, class InputIt, class ExtremumOutIt, class IndexOutIt>
  static cudaError_t arg(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         ExtremumOutIt d_extremum_out, IndexOutIt d_index_out,
                         std::int64_t num_items, cudaStream_t stream) {
    using T = detail::device::it_value_t<InputIt>;
    using E = detail::device::out_value_t<ExtremumOutIt, T>;
    using OutIt = detail::device::paired_output<ExtremumOutIt, IndexOutIt>;
    return detail::device::run_extremum<true, Max, InputIt, OutIt, KeyValuePair<std::int64_t, E>>(
        d_temp_storage, temp_storage_bytes, d_in, OutIt{d_extremum_out, d_index_out}, num_items,
        stream);
  }
  template <bool Max, class InputIt, class OutputIt>
  static cudaError_t arg_pair(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                              OutputIt d_out, int num_items, cudaStream_t stream) {
    using T = detail::device::it_value_t<InputIt>;
    using Out = detail::device::out_value_t<OutputIt, KeyValuePair<int, T>>;
    return detail::device::run_extremum<true, Max, InputIt, OutputIt, Out>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
  }
};

} // namespace tcr
