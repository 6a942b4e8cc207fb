// SPDX-License-Identifier: BSD-3-Clause
// tcr diagnostics (not a tcr path, not a benchmark of record): how fast the offsets form of small
// segments could be with the least machinery, to size the gap of tcr.offsets (its small segments
// run at about a third of the read-only kernel's bandwidth; see README's segmented section).
// probe.lean<U> sums f32 segments given by int offsets (begin = offsets[s], end = offsets[s + 1]):
// lane l of a warp takes segments t U 32 + u 32 + l (u < U) of its tile t, grid-strided, loads the
// U segments' bounds together, then their elements together (16-byte vectors where the segment's
// start is aligned, at most 4 per segment, else single elements), then adds them in double in
// element order and stores each float. Segments longer than 16 elements go through a loop of
// single elements: a correct but slow path, never taken by the uniform sizes it is measured at
// (8 and 16; 32 and beyond show what the loop costs). No blocks, ballots, tiers or barriers.
#include "common/seg_registry.hpp"

namespace tcr::bench {
namespace {

constexpr int lean_threads = 256;

template <int U>
__global__ void __launch_bounds__(lean_threads)
    lean_offsets_sum(const float* x, const int* offsets, float* out, std::int64_t segments) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t warp = (std::int64_t(blockIdx.x) * lean_threads + threadIdx.x) / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * (lean_threads / 32);
  for (std::int64_t tile = warp; tile * U * 32 < segments; tile += warps) {
    int first[U], length[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t s = (tile * U + u) * 32 + lane;
      first[u] = 0;
      length[u] = 0;
      if (s < segments) {
        first[u] = offsets[s];
        length[u] = offsets[s + 1] - first[u];
      }
    }
    float4 v[U][4];
    bool vec[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float* p = x + first[u];
      vec[u] =
          length[u] <= 16 && length[u] % 4 == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        v[u][k] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (vec[u] && 4 * k < length[u])
          v[u][k] = reinterpret_cast<const float4*>(p)[k];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t s = (tile * U + u) * 32 + lane;
      if (s >= segments)
        continue;
      double acc = 0.0;
      if (vec[u]) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          acc += v[u][k].x;
          acc += v[u][k].y;
          acc += v[u][k].z;
          acc += v[u][k].w;
        }
      } else {
        for (int i = 0; i < length[u]; ++i)
          acc += x[first[u] + i];
      }
      out[s] = static_cast<float>(acc);
    }
  }
}

template <int U>
cudaError_t lean_call(void* temp, std::size_t& bytes, const seg_args& a) {
  if (!temp) {
    bytes = 1;
    return cudaSuccess;
  }
  int device = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess)
    return e;
  const std::int64_t tiles = (a.segments + U * 32 - 1) / (U * 32);
  const std::int64_t blocks = (tiles + lean_threads / 32 - 1) / (lean_threads / 32);
  const std::int64_t cap = std::int64_t(sms) * 8 * 4; // 8 blocks per SM at most, 4 waves
  const std::int64_t grid = blocks < 1 ? 1 : blocks < cap ? blocks : cap;
  lean_offsets_sum<U><<<static_cast<unsigned>(grid), lean_threads, 0, a.stream>>>(
      static_cast<const float*>(a.x), a.offsets, static_cast<float*>(a.out), a.segments);
  return cudaPeekAtLastError();
}

seg_case lean_case(const char* impl, const char* note,
                   cudaError_t (*call)(void*, std::size_t&, const seg_args&)) {
  seg_case c = uniform_case(impl, dtype::f32, note, call);
  c.sizes = {8, 16, 32, 64};
  c.scales = {26};
  return c;
}

const case_adder add{[] {
  seg_cases().push_back(lean_case("probe.lean1",
                                  "diagnostic: a lane per segment, int offsets, no machinery "
                                  "(bench/segmented_probe_f32.cu), one segment per lane at once",
                                  &lean_call<1>));
  seg_cases().push_back(lean_case("probe.lean2",
                                  "diagnostic: a lane per segment, int offsets, no machinery, "
                                  "two segments per lane at once",
                                  &lean_call<2>));
  seg_cases().push_back(lean_case("probe.lean4",
                                  "diagnostic: a lane per segment, int offsets, no machinery, "
                                  "four segments per lane at once",
                                  &lean_call<4>));
}};

} // namespace
} // namespace tcr::bench
