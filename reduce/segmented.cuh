// SPDX-License-Identifier: BSD-3-Clause
// tcr: segmented reductions, a drop-in for cub::DeviceSegmentedReduce with compensated accuracy.
//
//   size_t bytes = 0;
//   tcr::DeviceSegmentedReduce::Sum(nullptr, bytes, d_in, d_out, num_segments,
//                                   d_offsets, d_offsets + 1, stream);        // size query
//   tcr::DeviceSegmentedReduce::Sum(d_temp, bytes, d_in, d_out, num_segments,
//                                   d_offsets, d_offsets + 1, stream);        // one launch
//   tcr::DeviceSegmentedReduce::Sum(d_temp, bytes, d_in, d_out, num_segments,
//                                   segment_size, stream);                    // fixed size
//
// Operations, per segment: Sum, Asum, Dot (two inputs, the same segments in both), Nrm2,
// Reduce(op, init), Min, Max, ArgMin, ArgMax. Segments are given either by begin / end offset
// iterators (any integer type; segment i is [begin[i], end[i]), empty where end[i] <= begin[i];
// segments may overlap, leave gaps and be of any and very different lengths), or by a fixed
// segment_size (segment i is [i segment_size, (i + 1) segment_size), CCCL 3.2's overload).
// d_out[i] receives segment i's result. Input, result and element types as tcr::DeviceReduce
// (reduce/device.cuh): floating-point inputs into float, double, __half, __nv_bfloat16,
// tcr::df32 or tcr::dd; integer Sum / Asum / Dot exact (integer_sum_accumulator, results
// rounded once, integers wrap); Min / Max / ArgMin / ArgMax with the rules of
// reduce/detail/extrema.cuh. An empty segment gets CUB's value: 0 for Sum, Asum, Dot and Nrm2,
// init for Reduce, numeric_limits<T>::max() / lowest() for Min / Max, and {1, max()} /
// {1, lowest()} for ArgMin / ArgMax.
// ArgMin / ArgMax write one pair per segment, {index, extremum}, the index relative to the
// segment's start (ties: the smallest index): KeyValuePair<int, T> by default (CUB), any type
// with Key / Value members (tcr::KeyValuePair, cub::KeyValuePair), or a pair with first /
// second (cuda::std::pair, CCCL 3.2's fixed-size overload).
//
// Accuracy, per segment (s its exact result, S its sum of |x_i| (Dot: |x_i y_i|), u the unit
// roundoff of the result type), as tcr::DeviceReduce's Accuracy::compensated:
//   float result:  |res - s| <= 2u|s| + 2^-40 S
//   double result: |res - s| <= 2u|s| + 2^-88 S
//   Nrm2: relative error <= u + 2^-40 (float), u + 2^-100 (double); df32 / dd / half / bfloat16
//   results as in reduce/device.cuh; Inf and NaN stay in their own segment.
// for segments of at most 2^27 16-byte vectors of the wider operand (2^29 floats, 2^28 doubles,
// 2^30 halves; 2^27 elements for inputs read one at a time): the proofs of compensated/chunked.cuh
// bound the height of the folds and merges by 2^16 and, for float results, the tree of partials
// by 64 levels; a segment of k chunks (below) has a tree of 8 + ceil(k / 256) + 8 levels. A
// longer segment's result is computed the same way, without the proven bound. Accuracy::fast
// runs the same compensated path (its bound holds with c = 1), except on the tensor cores.
// Accuracy::reproducible and Accuracy::correctly_rounded (one path): Sum and Asum of f32, f16,
// bf16, e4m3 and e5m2 give each segment's exact sum (of |x_i|) rounded once to nearest even into
// the result (float, double, __half, __nv_bfloat16; df32 / dd: hi = RN(s), lo = RN(s - hi)), as
// tcr::DeviceReduce's exact modes do; Dot of any two of these types the exact dot product rounded
// once, Nrm2 sqrt(RN_double(sum x_i^2)) rounded to the result (float, double, __half,
// __nv_bfloat16): within 1 ulp of the exact norm, one of its two neighbours. The same kernel
// folds exact_sum<float> (Sum, Asum) or exact_dot_sum (Dot, Nrm2; compensated/exact.cuh: integer
// limbs, any order gives the same state) in every team, so the bits depend on the segment's
// values alone, and Dot and Nrm2 have the bits of tcr::DeviceReduce's exact Dot and Nrm2 over the
// same segment (the same canonical partial, the same rounding); an empty segment gives +0, one of
// -0s (Dot: of -0 products) only -0; NaN and Inf as plain summation (Dot: IEEE's products, Inf * 0
// is NaN). About 7-11x the compensated path's time (the H200, 2^26 floats; Dot and Nrm2: see
// bench/results). Where an operand is double (Sum and Asum of f64, Dot with a double operand and
// any other, Nrm2 of f64) the results are the same (the exact value rounded once; Nrm2 within 1
// ulp over the whole range, squares beyond DBL_MAX and below 2^-1074 included), with the bits of
// tcr::DeviceReduce's exact modes over the same values, from a kernel of their own
// (reduce/detail/segmented_exact_f64_kernel.cuh: a warp per segment of at most 4096 elements,
// the whole block per longer one, one block per long segment as CUB's offsets overload; no
// temporary storage: the size query answers 1). Integer inputs are exact in every mode. Nrm2
// into df32 / dd has no exact segmented path: those calls return cudaErrorNotSupported after the
// argument checks (the size query answers as for the other modes) and write nothing, as does
// Engine::tensor_core in these modes.
// Tensor cores: the fixed-size Sum and Asum of e4m3 (any mode; exact MMA chains, so the
// compensated contract) and of __half (Accuracy::fast: the bound of tcr::DeviceReduce's fast
// __half sums, c = fast_error_constant) take a tensor-core row path (each segment a row of an MMA
// operand against ones; reduce/detail/segmented_rows_kernel.cuh) for segment sizes that are
// multiples of 32 (e4m3) or 16 (__half) up to 4096, an input aligned to 8 bytes and a GPU of
// compute capability 8.0 or newer. Engine::tensor_core asks for it and gives
// cudaErrorNotSupported where it does not apply (after the argument checks); Engine::automatic
// takes it where rows_automatic_min / _max (below, by measurement) say it is faster (__half
// sizes 64 to 1024); cuda_core never.
// Its results need not have the CUDA-core path's bits (other roundings in fast mode; a zero sum
// is +0), but are reproducible in the same way (they depend on the segment and the GPU alone).
//
// Reproducibility: each segment's combining order depends only on its length and its inputs'
// addresses modulo 16 bytes: a segment of n <= 4096 elements is folded by a team of T lanes of
// one warp, T a function of n alone (the smallest power of two >= n / (4 V), capped at 32; V the
// elements of a 16-byte vector of the wider operand, 1 for iterators: 1 lane for at most 16
// floats, 32 from 257), longer ones in chunks of 16384 vectors (65536 floats; 16384 elements for
// iterators), each folded by a block of 256 threads, in the fixed pattern of
// reduce/detail/segmented_kernel.cuh (lane or thread r takes vectors r, r + T, ...; a fixed
// shuffle tree over the T lanes, then for blocks a fixed BlockReduce; the totals of a segment's
// k chunks: thread t folds totals t, t + 256, ..., then a BlockReduce). So the same segment gives
// the same bits run to run, on any GPU, whatever the other segments (which team, warp or blocks
// take it), the grid, or whether it came through offsets or the fixed-size overload (the
// accumulators pin every rounding with _rn steps; Reduce's op is the caller's own code, which
// the compiler may contract differently for another architecture).
//
// Execution: one kernel launch for the whole batch (none for num_segments = 0), no host
// synchronisation, no allocation, capturable in a CUDA graph. The fixed-size overload with
// segments of at most 4096 elements runs a kernel of its own (segmented_fixed_kernel.cuh: one
// tier for all, four segments per team in flight below tier 5 and one a warp at tier 5, the same
// combining order), except for the exact Dot and Nrm2, whose results do not depend on the
// kernel: their one segmented_kernel per reduction serves every size (one copy of their large
// accumulator code to compile, not two). Segments of more than 4096 elements get whole blocks
// and are offered to the grid (a segment of several chunks chunk by chunk): blocks claim them
// through counters in the temporary storage, which the launch zeroes first (one
// cudaMemsetAsync of 128 KB on the stream, before the kernel).
// Temporary storage: none where the host knows that no segment is longer than one chunk (the
// fixed-size overload up to 65536 floats; the size query returns 1, as CUB's, and any storage is
// accepted); else the size query's answer (about 0.4 MB for float results: 2048 share entries, a
// pool of 16384 chunk partials; a segment that finds them used up is taken by one block alone,
// with the same bits).
//
// Errors (cudaErrorInvalidValue, nothing written, no launch): num_segments < 0; segment_size < 0
// or num_segments * segment_size beyond 2^63; with num_segments > 0: temporary storage smaller
// than the size query's answer, a null d_out, a null or misaligned offset pointer, a null input
// (offsets: whatever the segments hold, since the host cannot read them; fixed size: when
// segment_size > 0), an input or output pointer not aligned to its element type. A segment whose
// end offset lies below its begin offset lives in device memory, where the host cannot check it: it
// is read as an empty segment (as CUB does). Offsets and segment ends are the caller's promise:
// every element of every segment must lie in d_in (and d_y); an index that does not fit the index
// type of ArgMin's pair is truncated.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include "../compensated/exact.cuh"
#include "../compensated/reductions.cuh"
#include "detail/device_kernel.cuh"
#include "detail/extrema.cuh"
#include "detail/segmented_exact_f64_kernel.cuh"
#include "detail/segmented_fixed_kernel.cuh"
#include "detail/segmented_kernel.cuh"
#include "detail/segmented_rows_kernel.cuh"
#include "detail/sources.cuh"
#include "device.cuh"
#include "key_value_pair.cuh"

namespace tcr {
namespace detail {
namespace segmented {

using device::op_kind;

// The offset overloads take iterators; an integer in that place is a segment size (the
// fixed-size overloads), so the offset overloads step aside for it.
template <class It>
using if_offsets = std::enable_if_t<!std::is_integral_v<It>, int>;

inline constexpr std::size_t temp_bytes = 1; // where none is used: nonzero, as CUB

// The host's checks of the segments: offset pointers not null and aligned (when there are
// segments); a fixed size not negative and the whole batch within 2^63 elements. `reads` says
// whether the launch's sources (d_in, d_y) are read, so must be checked; segments that bring
// their own (reduce/batched.cuh) check those in their own valid and say no.
template <class BeginIt, class EndIt>
bool valid(const offset_segments<BeginIt, EndIt>& s, std::int64_t num_segments, bool& reads) {
  reads = true;
  return num_segments == 0 ||
         (!device::null_source(s.begin) && !device::null_source(s.end) &&
          !device::misaligned_source(s.begin) && !device::misaligned_source(s.end));
}
inline bool valid(const fixed_segments& s, std::int64_t num_segments, bool& reads) {
  reads = s.size > 0;
  return s.size >= 0 &&
         (s.size == 0 || num_segments <= std::numeric_limits<std::int64_t>::max() / s.size);
}

template <class BeginIt, class EndIt>
offset_segments<BeginIt, EndIt> offsets_of(const BeginIt& begin, const EndIt& end) {
  using B = device::it_value_t<BeginIt>;
  using E = device::it_value_t<EndIt>;
  static_assert(std::is_integral_v<B> && std::is_integral_v<E> && !std::is_same_v<B, bool> &&
                    !std::is_same_v<E, bool>,
                "tcr::DeviceSegmentedReduce: the offset iterators' value type must be an integer");
  return {begin, end};
}

// Whether a launch over these segments may meet a segment of more than one chunk (then the grid
// shares its chunks through temporary storage): unless the host knows every length.
template <class R, class Segments>
bool may_share(const Segments& segments) {
  const std::int64_t n = known_length(segments);
  return n == unknown_length || n > chunk_items<R>;
}
template <class R, class Segments>
std::size_t temp_bytes_for(const Segments& segments) {
  return may_share<R>(segments) ? share_bytes<typename R::accumulator::partial_type>() : temp_bytes;
}

// The host's checks of a call with temporary storage: cudaErrorInvalidValue or cudaSuccess.
// `required`: the temporary storage the launch needs (the size query's answer).
template <class R, class Segments>
cudaError_t check(std::size_t temp_storage_bytes, const segmented_params<R, Segments>& p,
                  std::size_t required) {
  using device::misaligned_source;
  using device::null_source;
  bool reads = false;
  if (p.num_segments < 0 || !valid(p.segments, p.num_segments, reads))
    return cudaErrorInvalidValue;
  if (p.num_segments == 0)
    return cudaSuccess;
  if (null_source(p.out) || misaligned_source(p.out) || temp_storage_bytes < required)
    return cudaErrorInvalidValue;
  if (reads && (null_source(p.x) || misaligned_source(p.x)))
    return cudaErrorInvalidValue;
  if (R::binary && reads && (null_source(p.y) || misaligned_source(p.y)))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}
template <class R, class Segments>
cudaError_t check(std::size_t temp_storage_bytes, const segmented_params<R, Segments>& p) {
  return check(temp_storage_bytes, p, temp_bytes_for<R>(p.segments));
}

// Waves of resident blocks in an offsets launch (segmented_kernel's warp tiles, grid-strided)
// and in a fixed-size one (segmented_fixed_kernel's tiles).
// One wave where block-tier chunks may be shared (offsets and pointer arrays: the lengths are
// unknown): a block lists its tiles' block-tier segments and publishes them only when it runs,
// so a second wave's blocks published theirs after the first wave's had stopped helping. On an
// H100, 2^12 segments of 16384 floats by offsets took 512 blocks, 396 at once and 116 after (132
// us; one wave: 123); the power-law lengths 0.51 -> 0.62 of the read-only kernel; pointer-array
// Dot within 1%. Two waves where nothing is shared (batches of one length up to one chunk): with
// one, strided Nrm2 of 1024 floats ran 3% slower.
inline constexpr int tile_waves = 2;
inline constexpr int fixed_waves = 2;
// grid capped at `waves` times the blocks of Kernel that fit the GPU at once (one where the
// occupancy queries fail: correct, only slow); the device query's error otherwise.
template <auto Kernel>
cudaError_t cap_to_waves(std::int64_t& grid, int waves) {
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess)
    return err;
  const std::int64_t cap =
      std::int64_t(device::resident_blocks<Kernel, segmented_threads>(device)) * waves;
  if (grid > cap)
    grid = cap;
  return cudaSuccess;
}
// A grid capped by device::grid_limit_for_tests (tests of reproducibility: another GPU's grid).
inline int capped_for_tests(int grid) {
  const int limit = device::grid_limit_for_tests;
  return limit > 0 && grid > limit ? limit : grid;
}

// A call in a mode or with an engine that has no path for it: the checks' error, else
// cudaErrorNotSupported (bad arguments say so first; nothing is written).
template <class R, class Segments>
cudaError_t not_supported_after_checks(std::size_t temp_storage_bytes,
                                       const segmented_params<R, Segments>& p) {
  const cudaError_t err = check(temp_storage_bytes, p);
  return err != cudaSuccess ? err : cudaErrorNotSupported;
}

// Kernel (segmented_kernel or segmented_block_kernel) over the shaped launch p on `grid` blocks
// (before the caps), after a memset of the sharing counters where chunks may be shared.
template <auto Kernel, class R, class Segments>
cudaError_t launch_shaped(void* d_temp_storage, segmented_params<R, Segments> p, std::int64_t grid,
                          cudaStream_t stream, const typename R::accumulator& fresh) {
  const bool share = may_share<R>(p.segments);
  if (share) {
    // One wave (tile_waves' comment); for fewer blocks with tiles than that, the rest of the wave
    // helps with their block-tier chunks from the start (a segment of one chunk too), so that few
    // long segments do not go one after another through few blocks (on the H200, 1024 offsets
    // segments of 65536 floats: 128 blocks of tiles of 8). Block-per-segment launches keep a
    // block for each segment beyond the wave.
    std::int64_t wave = segmented_max_grid;
    const cudaError_t err = cap_to_waves<Kernel>(wave, 1);
    if (err != cudaSuccess)
      return err;
    if (!p.block_per_segment || grid < wave)
      grid = wave;
  } else if (!p.block_per_segment) {
    // Warps loop over their tiles, each reading its next tile's bounds ahead.
    const cudaError_t err = cap_to_waves<Kernel>(grid, tile_waves);
    if (err != cudaSuccess)
      return err;
  }
  grid = capped_for_tests(static_cast<int>(grid));
  if (share) {
    const std::uintptr_t base =
        (reinterpret_cast<std::uintptr_t>(d_temp_storage) + share_align - 1) / share_align *
        share_align;
    p.state = reinterpret_cast<share_state*>(base);
    p.entries = reinterpret_cast<share_entry*>(base + share_align);
    p.pool = reinterpret_cast<unsigned char*>(base + share_zeroed_bytes);
    const cudaError_t err = cudaMemsetAsync(p.state, 0, share_zeroed_bytes, stream);
    if (err != cudaSuccess)
      return err;
  }
  Kernel<<<static_cast<int>(grid), segmented_threads, 0, stream>>>(p, fresh);
  return cudaPeekAtLastError();
}

// The one launch of reduction R over num_segments > 0 checked segments (after a memset of the
// sharing counters where chunks may be shared).
template <class R, class Segments>
cudaError_t launch_checked(void* d_temp_storage, const segmented_params<R, Segments>& p,
                           cudaStream_t stream, const typename R::accumulator& fresh) {
  // The exact Dot and Nrm2 take segmented_kernel for every size: their results do not depend on
  // the kernel, and one instance of their large code per reduction keeps the compile time down.
  if constexpr (std::is_same_v<Segments, fixed_segments> &&
                !exact_products_v<typename R::accumulator::partial_type>) {
    if (p.segments.size <= segmented_warp_max) { // one tier for all: segmented_fixed_kernel
      fixed_params<R> fp{p.x, p.y, p.out, p.segments, p.num_segments, tier_of<R>(p.segments.size)};
      const int slots = fixed_slots<R>(p.segments.size, fp.tier);
      const int unroll = fixed_team_unroll(slots, fp.tier);
      const std::int64_t per_block = std::int64_t(segmented_warps) * (32 >> fp.tier) * unroll;
      std::int64_t grid = (p.num_segments + per_block - 1) / per_block;
      // Below tier 5, warps loop over their tiles (loading the next before folding this one); at
      // tier 5 (a segment a warp, no pipeline) a block for every 8 segments (fixed_tiles' comment).
      if (fp.tier < 5) {
        const cudaError_t err = cap_to_waves<segmented_fixed_kernel<R>>(grid, fixed_waves);
        if (err != cudaSuccess)
          return err;
      } else if (grid > segmented_max_grid) {
        grid = segmented_max_grid;
      }
      segmented_fixed_kernel<R>
          <<<capped_for_tests(static_cast<int>(grid)), segmented_threads, 0, stream>>>(fp, fresh,
                                                                                       slots);
      return cudaPeekAtLastError();
    }
  }
  segmented_params<R, Segments> shaped = p;
  shaped.per_warp = segments_per_warp(p.num_segments);
  shaped.block_per_segment = known_length(p.segments) > segmented_warp_max;
  // Warp tiles of per_warp segments (block_per_segment: a block per segment).
  shaped.tiles =
      shaped.block_per_segment ? p.num_segments : (p.num_segments - 1) / shaped.per_warp + 1;
  const std::int64_t blocks =
      shaped.block_per_segment ? shaped.tiles : (shaped.tiles - 1) / segmented_warps + 1;
  const std::int64_t grid = blocks < segmented_max_grid ? blocks : segmented_max_grid;
  if constexpr (!is_offset_segments_v<Segments>) // (offsets: the host never knows the lengths)
    if (shaped.block_per_segment)
      return launch_shaped<segmented_block_kernel<R, Segments>>(d_temp_storage, shaped, grid,
                                                                stream, fresh);
  return launch_shaped<segmented_kernel<R, Segments>>(d_temp_storage, shaped, grid, stream, fresh);
}

// The size query, or the checks and then the launch.
template <class R, class Segments>
cudaError_t launch(void* d_temp_storage, std::size_t& temp_storage_bytes,
                   const segmented_params<R, Segments>& p, cudaStream_t stream,
                   const typename R::accumulator& fresh) {
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = temp_bytes_for<R>(p.segments);
    return cudaSuccess;
  }
  const cudaError_t checked = check(temp_storage_bytes, p);
  if (checked != cudaSuccess || p.num_segments == 0)
    return checked;
  return launch_checked(d_temp_storage, p, stream, fresh);
}

template <class R, class Segments, class XS, class YS, class OutIt>
segmented_params<R, Segments> params_for(const XS& x, const YS& y, const OutIt& out,
                                         std::int64_t num_segments, const Segments& segments) {
  segmented_params<R, Segments> p{};
  p.x = x;
  if constexpr (R::binary)
    p.y = y;
  p.out = out;
  p.segments = segments;
  p.num_segments = num_segments;
  return p;
}

// Engine::automatic takes the tensor-core row path for fixed sizes in [rows_automatic_min,
// rows_automatic_max] (max 0: never), chosen by measurement against segmented_fixed_kernel on
// the CUDA cores: __half in Accuracy::fast 1.21-1.26x from 64 to 1024, 0.75x / 0.87x at 16 / 32,
// 0.93x at 2048 (bench/results/2026-12-01-h200-segmented-25e1cd5/); e4m3 not measured.
template <class X>
inline constexpr std::int64_t rows_automatic_min = 64;
template <class X>
inline constexpr std::int64_t rows_automatic_max = std::is_same_v<X, __half> ? 1024 : 0;

// The tensor-core row path (reduce/detail/segmented_rows_kernel.cuh) for a fixed-size Sum or
// Asum of __half (Accuracy::fast) or e4m3 (any mode) through a pointer: whether it applies
// (sizes a multiple of row_multiple, at most segmented_warp_max, an input aligned to 8 bytes,
// a GPU with the MMAs) and is asked for or chosen; launched into *launched. p is checked and
// has segments.
template <op_kind Op, class R, class Segments>
cudaError_t try_rows(const segmented_params<R, Segments>& p, cudaStream_t stream,
                     const typename R::accumulator& fresh, ReduceOptions options, bool& launched) {
  using X = typename R::x_type;
  launched = false;
  if constexpr (std::is_same_v<Segments, fixed_segments> && R::vectorised &&
                (Op == op_kind::sum || Op == op_kind::asum) && row_input_v<X>) {
    const std::int64_t n = p.segments.size;
    const bool mode_ok = std::is_same_v<X, __nv_fp8_e4m3> || options.accuracy == Accuracy::fast;
    const bool fits = n > 0 && n % row_multiple<X> == 0 && n <= segmented_warp_max &&
                      reinterpret_cast<std::uintptr_t>(p.x) % 8 == 0;
    const bool wanted = options.engine == Engine::tensor_core ||
                        (options.engine == Engine::automatic && n >= rows_automatic_min<X> &&
                         n <= rows_automatic_max<X>);
    if (!mode_ok || !fits || !wanted)
      return cudaSuccess;
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess)
      return err;
    if (!device::has_tensor_cores(device))
      return cudaSuccess;
    rows_params<R> rp{p.x, p.out, p.num_segments, n};
    const std::int64_t blocks =
        ((p.num_segments + 15) / 16 + rows_threads / 32 - 1) / (rows_threads / 32);
    const int grid = static_cast<int>(blocks < rows_max_grid ? blocks : rows_max_grid);
    segmented_rows_kernel<R, Op == op_kind::asum><<<grid, rows_threads, 0, stream>>>(rp, fresh);
    launched = true;
    return cudaPeekAtLastError();
  } else {
    (void)p, (void)stream, (void)fresh, (void)options;
    return cudaSuccess;
  }
}

// Accuracy::reproducible and Accuracy::correctly_rounded: Sum and Asum of the float-range input
// types fold exact_sum<float>, Dot and Nrm2 of float-range inputs exact_dot_sum
// (compensated/exact.cuh: the exact sum (of products) in integer limbs, merged exactly) in the
// kernel's teams, so each result is the segment's exact sum rounded once (Nrm2: the square root of
// the exact sum of squares, within 1 ulp). Where an operand is double, the exact state is too
// long for the teams' partials: segmented_exact_f64_kernel.cuh folds each segment into per-warp
// limbs instead (binned_exact_sum_f64 / binned_exact_dot_f64, PerWarp), with the same results
// (the exact value rounded once; Nrm2 within 1 ulp). The norm into df32 / dd has no exact path
// (run: cudaErrorNotSupported after the checks); integer inputs are exact in every mode and take
// the usual path.
// Whether Dot's second operand is an integer.
template <op_kind Op, class Y>
inline constexpr bool integer_dot_operand_v = (Op == op_kind::dot) && is_integer_input_v<Y>;
template <op_kind Op, class X, class Y, class Out>
inline constexpr bool exact_segmented_v =
    Op != op_kind::reduce && !is_integer_input_v<X> && !integer_dot_operand_v<Op, Y> &&
    !(Op == op_kind::nrm2 && (std::is_same_v<Out, df32> || std::is_same_v<Out, dd>));
// Whether an operand is double (the exact path of segmented_exact_f64_kernel.cuh).
template <op_kind Op, class X, class Y>
inline constexpr bool double_operand_v = std::is_same_v<X, double> ||
                                         (Op == op_kind::dot && std::is_same_v<Y, double>);
template <op_kind Op, class X, class Y>
using exact_segmented_accumulator = std::conditional_t<
    double_operand_v<Op, X, Y>,
    std::conditional_t<Op == op_kind::dot,
                       binned_exact_dot_f64<X, Y, segmented_threads, false, true>,
                       std::conditional_t<Op == op_kind::nrm2,
                                          binned_exact_dot_f64<X, X, segmented_threads, true, true>,
                                          binned_exact_sum_f64<segmented_threads, true, true>>>,
    std::conditional_t<
        Op == op_kind::dot, exact_dot_sum<false>,
        std::conditional_t<Op == op_kind::nrm2, exact_dot_sum<true>, exact_sum<float>>>>;

// The launch of segmented_exact_f64_kernel over num_segments > 0 checked segments: groups of up
// to segmented_warps segments (fewer where there are too few segments to fill two waves of
// blocks), at most two waves of blocks, grid-strided.
template <class R, class Segments>
cudaError_t launch_exact_f64(const segmented_params<R, Segments>& p, cudaStream_t stream) {
  using Acc = typename R::accumulator;
  constexpr auto kernel = segmented_exact_f64_kernel<R, Segments, Acc>;
  std::int64_t wave = segmented_max_grid;
  const cudaError_t err = cap_to_waves<kernel>(wave, 1);
  if (err != cudaSuccess)
    return err;
  f64_params<R, Segments> fp{p.x, p.y, p.out, p.segments, p.num_segments, 0, segmented_warps};
  while (fp.per_group > 1 && (p.num_segments + fp.per_group - 1) / fp.per_group < 2 * wave)
    fp.per_group /= 2;
  fp.groups = (p.num_segments + fp.per_group - 1) / fp.per_group;
  std::int64_t grid = fp.groups < 2 * wave ? fp.groups : 2 * wave;
  kernel<<<capped_for_tests(static_cast<int>(grid)), segmented_threads, 0, stream>>>(fp, Acc{});
  return cudaPeekAtLastError();
}

template <op_kind Op, class X, class Y, class Out, class XS, class YS, class OutIt, class Segments>
cudaError_t run_exact(void* d_temp_storage, std::size_t& temp_storage_bytes, const XS& xs,
                      const YS& ys, const OutIt& out, std::int64_t num_segments,
                      const Segments& segments, cudaStream_t stream, ReduceOptions options) {
  static_assert(exact_segmented_v<Op, X, Y, Out>, "an exact segmented path exists for these types");
  using Acc = exact_segmented_accumulator<Op, X, Y>;
  constexpr bool binary = Op == op_kind::dot;
  using R = device::reduction<Acc, X, std::conditional_t<binary, Y, void>, Out, Op == op_kind::asum,
                              XS, std::conditional_t<binary, YS, const X*>, OutIt>;
  const segmented_params<R, Segments> p = params_for<R>(xs, ys, out, num_segments, segments);
  // Doubles need no temporary storage: the size query answers temp_bytes, as where none is used.
  constexpr bool f64 = double_operand_v<Op, X, Y>;
  const std::size_t required = f64 ? temp_bytes : temp_bytes_for<R>(segments);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = required;
    return cudaSuccess;
  }
  const cudaError_t checked = check(temp_storage_bytes, p, required);
  if (checked != cudaSuccess)
    return checked;
  if (options.engine == Engine::tensor_core)
    return cudaErrorNotSupported; // no tensor-core exact path
  if (num_segments == 0)
    return cudaSuccess;
  if constexpr (f64)
    return launch_exact_f64(p, stream);
  else
    return launch_checked(d_temp_storage, p, stream, Acc{});
}

// Sum, Asum, Dot, Nrm2: the accumulator of tcr::DeviceReduce for the types (integers exact);
// the tensor-core row path where it applies and is asked for (or chosen), else the kernel.
template <op_kind Op, class XIt, class YIt, class OutIt, class Segments>
cudaError_t run(void* d_temp_storage, std::size_t& temp_storage_bytes, const XIt& x, const YIt& y,
                const OutIt& out, std::int64_t num_segments, const Segments& segments,
                cudaStream_t stream, ReduceOptions options) {
  using X = device::it_value_t<XIt>;
  using Y = device::it_value_t<YIt>;
  using Out = device::out_value_t<OutIt, X>;
  const auto xs = device::source_of(x);
  const auto ys = device::source_of(y);
  using XS = std::remove_const_t<decltype(xs)>;
  using YS = std::remove_const_t<decltype(ys)>;
  if constexpr (!device::sum_like_types_ok<Op, X, Y, Out>()) {
    return cudaErrorInvalidValue; // not reached: a static_assert stops the build
  } else {
    using R = device::sum_like_reduction_t<Op, X, Y, Out, XS, YS, OutIt>;
    const typename R::accumulator fresh{};
    const segmented_params<R, Segments> p = params_for<R>(xs, ys, out, num_segments, segments);
    const bool exact_mode = options.accuracy == Accuracy::reproducible ||
                            options.accuracy == Accuracy::correctly_rounded;
    if constexpr (exact_segmented_v<Op, X, Y, Out>) {
      if (exact_mode)
        return run_exact<Op, X, Y, Out>(d_temp_storage, temp_storage_bytes, xs, ys, out,
                                        num_segments, segments, stream, options);
    } else if constexpr (!is_integer_input_v<X>) {
      if (exact_mode && d_temp_storage != nullptr)
        return not_supported_after_checks(temp_storage_bytes, p); // no exact path for this case
    }
    if (d_temp_storage != nullptr && options.engine != Engine::cuda_core) {
      cudaError_t err = check(temp_storage_bytes, p);
      if (err != cudaSuccess || num_segments == 0)
        return err;
      bool launched = false;
      err = try_rows<Op>(p, stream, fresh, options, launched);
      if (err != cudaSuccess || launched)
        return err;
      if (options.engine == Engine::tensor_core)
        return cudaErrorNotSupported; // no tensor-core path for this case
      return launch_checked(d_temp_storage, p, stream, fresh);
    }
    return launch(d_temp_storage, temp_storage_bytes, p, stream, fresh);
  }
}

// Reduce(op, init): op applied in the segment's fixed order, init folded in once (as CUB).
template <class InputIt, class OutIt, class Op, class Init, class Segments>
cudaError_t run_reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, const InputIt& in,
                       const OutIt& out, std::int64_t num_segments, const Segments& segments, Op op,
                       const Init& init, cudaStream_t stream) {
  using X = device::it_value_t<InputIt>;
  using Out = device::out_value_t<OutIt, Init>;
  const auto xs = device::source_of(in);
  using XS = std::remove_const_t<decltype(xs)>;
  if constexpr (device::reduce_types_ok<Out, Op>()) {
    using Acc = reduce_accumulator<Out, Op>;
    using R = device::reduction<Acc, X, void, Out, false, XS, const X*, OutIt>;
    const Acc fresh{op, static_cast<Out>(init)};
    return launch(d_temp_storage, temp_storage_bytes,
                  params_for<R>(xs, xs, out, num_segments, segments), stream, fresh);
  } else {
    return cudaErrorInvalidValue; // not reached: the static_assert above stops the build
  }
}

template <class O, class = void>
struct is_pair_like : std::false_type {};
template <class O>
struct is_pair_like<O, std::void_t<typename O::first_type, typename O::second_type>>
    : std::true_type {};

// ArgMin / ArgMax into a pair with first / second (cuda::std::pair) as well as Key / Value.
template <class T, bool Max>
struct arg_accumulator : device::arg_extremum_accumulator<T, Max> {
  using base = device::arg_extremum_accumulator<T, Max>;
  using typename base::partial_type;
  template <class O>
  TCR_HD O finish(const partial_type& p) const {
    if constexpr (is_pair_like<O>::value) {
      using KV = KeyValuePair<typename O::first_type, typename O::second_type>;
      const KV r = base::template finish<KV>(p);
      return O{r.key, r.value};
    } else {
      return base::template finish<O>(p);
    }
  }
  template <class O>
  TCR_HD O empty_result() const {
    return finish<O>(partial_type{typename base::pair{}, false});
  }
};

// Min / Max (Arg: ArgMin / ArgMax).
template <bool Arg, bool Max, class InputIt, class OutIt, class Segments>
cudaError_t run_extremum(void* d_temp_storage, std::size_t& temp_storage_bytes, const InputIt& in,
                         const OutIt& out, std::int64_t num_segments, const Segments& segments,
                         cudaStream_t stream) {
  using T = device::it_value_t<InputIt>;
  const auto xs = device::source_of(in);
  using XS = std::remove_const_t<decltype(xs)>;
  if constexpr (!device::extremum_types_ok<T>()) {
    return cudaErrorInvalidValue; // not reached: the static_assert above stops the build
  } else if constexpr (Arg) {
    using Out = device::out_value_t<OutIt, KeyValuePair<int, T>>;
    using Acc = arg_accumulator<T, Max>;
    using S = device::indexed_source<XS, T>;
    using Pair = typename Acc::pair;
    using R = device::reduction<Acc, Pair, void, Out, false, S, const Pair*, OutIt>;
    return launch(d_temp_storage, temp_storage_bytes,
                  params_for<R>(S{xs}, xs, out, num_segments, segments), stream, Acc{});
  } else {
    using Out = device::out_value_t<OutIt, T>;
    using Acc = device::extremum_accumulator<T, Max>;
    using R = device::reduction<Acc, T, void, Out, false, XS, const T*, OutIt>;
    return launch(d_temp_storage, temp_storage_bytes,
                  params_for<R>(xs, xs, out, num_segments, segments), stream, Acc{});
  }
}

} // namespace segmented
} // namespace detail

// Every entry point takes CUB's arguments in CUB's order, in two forms: begin / end offset
// iterators (d_begin_offsets, d_end_offsets; for contiguous segments, offsets and offsets + 1),
// and the fixed-size overload (num_segments, segment_size). d_in: any random-access input
// iterator (pointers and pointer wrappers with get() are read as 16-byte vectors); d_out: a
// pointer or a random-access output iterator, num_segments results. Sum, Asum, Dot and Nrm2
// take tcr's ReduceOptions last.
struct DeviceSegmentedReduce {
  // sum x_i per segment.
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, std::int64_t num_segments, BeginOffsetIt d_begin_offsets,
                         EndOffsetIt d_end_offsets, cudaStream_t stream = 0,
                         ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::sum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream, options);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, std::int64_t num_segments, int segment_size,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::sum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream, options);
  }

  // sum |x_i| per segment.
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                          OutputIt d_out, std::int64_t num_segments, BeginOffsetIt d_begin_offsets,
                          EndOffsetIt d_end_offsets, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::asum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream, options);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                          OutputIt d_out, std::int64_t num_segments, int segment_size,
                          cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::asum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream, options);
  }

  // sqrt(sum x_i^2) per segment, without overflow or underflow for any finite input.
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_x,
                          OutputIt d_out, std::int64_t num_segments, BeginOffsetIt d_begin_offsets,
                          EndOffsetIt d_end_offsets, cudaStream_t stream = 0,
                          ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::nrm2>(
        d_temp_storage, temp_storage_bytes, d_x, d_x, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream, options);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_x,
                          OutputIt d_out, std::int64_t num_segments, int segment_size,
                          cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::nrm2>(
        d_temp_storage, temp_storage_bytes, d_x, d_x, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream, options);
  }

  // sum x_i y_i per segment (segment i of both inputs: the same offsets).
  template <class InputItX, class InputItY, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, InputItX d_x,
                         InputItY d_y, OutputIt d_out, std::int64_t num_segments,
                         BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::dot>(
        d_temp_storage, temp_storage_bytes, d_x, d_y, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream, options);
  }
  template <class InputItX, class InputItY, class OutputIt>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, InputItX d_x,
                         InputItY d_y, OutputIt d_out, std::int64_t num_segments, int segment_size,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::segmented::run<detail::device::op_kind::dot>(
        d_temp_storage, temp_storage_bytes, d_x, d_y, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream, options);
  }

  // init op x_0 op x_1 ... per segment (op associative; applied in the segment's fixed order);
  // an empty segment gets init. The result type is d_out's value type (init's where it names
  // none).
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            class ReductionOpT, class T, detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, std::int64_t num_segments,
                            BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets,
                            ReductionOpT reduction_op, T initial_value, cudaStream_t stream = 0) {
    return detail::segmented::run_reduce(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), reduction_op, initial_value,
        stream);
  }
  template <class InputIt, class OutputIt, class ReductionOpT, class T>
  static cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, std::int64_t num_segments, int segment_size,
                            ReductionOpT reduction_op, T initial_value, cudaStream_t stream = 0) {
    return detail::segmented::run_reduce(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, reduction_op, initial_value, stream);
  }

  // The least element per segment (numeric_limits<T>::max() for an empty one).
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, std::int64_t num_segments, BeginOffsetIt d_begin_offsets,
                         EndOffsetIt d_end_offsets, cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<false, false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, std::int64_t num_segments, int segment_size,
                         cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<false, false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream);
  }

  // The greatest element per segment (numeric_limits<T>::lowest() for an empty one).
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, std::int64_t num_segments, BeginOffsetIt d_begin_offsets,
                         EndOffsetIt d_end_offsets, cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<false, true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         OutputIt d_out, std::int64_t num_segments, int segment_size,
                         cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<false, true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream);
  }

  // The first least element per segment and its index within the segment, as one pair
  // {index, value} (KeyValuePair<int, T> by default); {1, numeric_limits<T>::max()} for an
  // empty segment.
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, std::int64_t num_segments,
                            BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets,
                            cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<true, false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, std::int64_t num_segments, int segment_size,
                            cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<true, false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream);
  }

  // The first greatest element per segment and its index; {1, numeric_limits<T>::lowest()} for
  // an empty segment.
  template <class InputIt, class OutputIt, class BeginOffsetIt, class EndOffsetIt,
            detail::segmented::if_offsets<BeginOffsetIt> = 0>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, std::int64_t num_segments,
                            BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets,
                            cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<true, true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::offsets_of(d_begin_offsets, d_end_offsets), stream);
  }
  template <class InputIt, class OutputIt>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            OutputIt d_out, std::int64_t num_segments, int segment_size,
                            cudaStream_t stream = 0) {
    return detail::segmented::run_extremum<true, true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments,
        detail::segmented::fixed_segments{segment_size}, stream);
  }
};

} // namespace tcr
