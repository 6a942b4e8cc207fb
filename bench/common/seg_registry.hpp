// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the table of segmented and batched methods (tcr_bench_segmented,
// tcr_bench_segmented_cub35; bench/segmented_main.cpp runs it). Each bench/segmented_*.cu adds
// its cases at static-initialisation time, with the workload it reads and the points (segment
// size, scale) it runs at. The workloads are built by the main program, once per point, on the
// device (inputs: fill_random, never zeros) or from a fixed seed on the host (lengths):
//   uniform   2^scale elements in segments of `size` (offsets i * size, i in [0, segments]);
//             size 0: the whole array (the read-only kernel's point)
//   powerlaw  about 2^scale elements in segments of lengths with P(len) ~ len^-1.5, len in
//             [1, 2^20] (seed fixed), the last one cut to end at exactly 2^scale
//   pointers  2^scale vector pairs of lengths uniform in [64, 4096] (seed fixed), each vector at
//             a 16-byte aligned place of one array (x, and y for two inputs): pointer arrays
//   strided   2^scale vectors of `size` elements back to back (stride = size, incx = 1)
// Names: seg/<impl>/<type>/<form>/<size>/<scale>, size an integer, "var" (powerlaw, pointers) or
// "all" (the read-only kernel over the whole array).
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "common/registry.hpp"
#include "common/types.hpp"

namespace tcr::bench {

enum class workload { uniform, powerlaw, pointers, strided };

// The arguments of one call. Results are float, one per segment, at out.
struct seg_args {
  const void* x;             // the input array (pointers: the array the vectors lie in)
  const void* y;             // the second input (two-input cases), else null
  std::int64_t span;         // elements of x (and y) the segments lie in
  std::int64_t segments;     // segments or vectors
  int size;                  // uniform, strided: elements per segment; else 0
  const int* offsets;        // uniform, powerlaw: [segments + 1] offsets; else null
  const void* const* x_ptrs; // pointers: [segments] vector starts in x
  const void* const* y_ptrs; // pointers: [segments] vector starts in y
  const int* lengths;        // pointers: [segments] lengths
  std::int64_t items;        // elements the call reduces per input (the sum of the lengths)
  void* out;                 // [segments] results (float; double for f64 inputs)
  cudaStream_t stream;
};

// One method at its points. call(nullptr, bytes, args) writes the temporary storage it needs to
// bytes and does nothing else; call(temp, bytes, args), temp never null, enqueues the work.
struct seg_case {
  std::string impl; // tcr.fixed, tcr.offsets, cub.offsets, cub35.fixed, read, ...
  dtype type;
  workload load;
  std::string form;        // sum, sum.powerlaw, dot.pointers, dot.strided, nrm2.strided
  bool two = false;        // reads x and y
  bool span = false;       // counts the bytes of the whole span(s) read, padding included (read)
  std::string note;        // what the method is, for --tcr_list and the JSON context
  std::vector<int> sizes;  // segment sizes (uniform, strided; 0: the whole array); {-1}: "var"
  std::vector<int> scales; // log2 of the total elements (uniform, powerlaw) or of the vectors
  std::function<cudaError_t(void* temp, std::size_t& temp_bytes, const seg_args&)> call;
};

inline std::vector<seg_case>& seg_cases() {
  static std::vector<seg_case> table;
  return table;
}

// The points of issue 12's uniform sum: f32 at 2^26 and 2^28 elements, segments of 8 .. 65536;
// f16 and bf16 at 2^26, segments of 8 .. 16384.
inline std::vector<int> uniform_sizes(dtype t) {
  std::vector<int> s{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384};
  if (t == dtype::f32)
    s.push_back(65536);
  return s;
}
inline std::vector<int> uniform_scales(dtype t) {
  return t == dtype::f32 ? std::vector<int>{26, 28} : std::vector<int>{26};
}
// Accuracy::fast against the default: fewer points (the same path runs, see reduce/segmented.cuh).
inline std::vector<int> fast_sizes() {
  return {8, 64, 512, 4096, 16384};
}

inline constexpr int powerlaw_scale = 26;
inline constexpr int batch_scale = 16;    // 2^16 vectors (pointers, strided)
inline constexpr int strided_size = 1024; // elements per strided vector

// A case for the uniform sum of type t at its issue-12 points.
inline seg_case uniform_case(const std::string& impl, dtype t, const std::string& note,
                             std::function<cudaError_t(void*, std::size_t&, const seg_args&)> f) {
  seg_case c;
  c.impl = impl;
  c.type = t;
  c.load = workload::uniform;
  c.form = "sum";
  c.note = note;
  c.sizes = uniform_sizes(t);
  c.scales = uniform_scales(t);
  c.call = std::move(f);
  return c;
}

// A case for the power-law sum (f32).
inline seg_case powerlaw_case(const std::string& impl, dtype t, const std::string& note,
                              std::function<cudaError_t(void*, std::size_t&, const seg_args&)> f) {
  seg_case c;
  c.impl = impl;
  c.type = t;
  c.load = workload::powerlaw;
  c.form = "sum.powerlaw";
  c.note = note;
  c.sizes = {-1};
  c.scales = {powerlaw_scale};
  c.call = std::move(f);
  return c;
}

} // namespace tcr::bench
