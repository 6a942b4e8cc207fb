// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the ceiling. A read-only kernel that streams the inputs with 16-byte loads and
// does nothing else: no reduction can beat it, so every method is reported as a fraction of it.
// read covers sum, nrm2 and asum (one array), read2 covers dot (two arrays).
#include <cstdint>
#include "common/harness.hpp"
#include "common/registry.hpp"

namespace tcr::bench {
namespace {

constexpr int read_threads = 256;
constexpr int read_unroll = 4; // 16-byte loads in flight per thread and array

// Folds every word of [a, a + vecs) (and of b) into one, stored only when it equals `key`, which
// the compiler cannot know: the loads stay, and the store practically never happens.
__global__ void __launch_bounds__(read_threads)
    read_kernel(const uint4* __restrict__ a, const uint4* __restrict__ b, std::int64_t vecs,
                const unsigned char* __restrict__ tail_a, const unsigned char* __restrict__ tail_b,
                int tail_bytes, unsigned key, unsigned* __restrict__ sink) {
  unsigned acc = 0;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (read_unroll - 1) * stride < vecs; i += read_unroll * stride) {
    uint4 va[read_unroll];
    uint4 vb[read_unroll];
#pragma unroll
    for (int u = 0; u < read_unroll; ++u)
      va[u] = a[i + u * stride];
    if (b) {
#pragma unroll
      for (int u = 0; u < read_unroll; ++u)
        vb[u] = b[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < read_unroll; ++u) {
      acc ^= va[u].x ^ va[u].y ^ va[u].z ^ va[u].w;
      if (b)
        acc ^= vb[u].x ^ vb[u].y ^ vb[u].z ^ vb[u].w;
    }
  }
  for (; i < vecs; i += stride) {
    const uint4 v = a[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
    if (b) {
      const uint4 w = b[i];
      acc ^= w.x ^ w.y ^ w.z ^ w.w;
    }
  }
  if (blockIdx.x == 0 && threadIdx.x < static_cast<unsigned>(tail_bytes)) {
    acc ^= tail_a[threadIdx.x];
    if (tail_b)
      acc ^= tail_b[threadIdx.x];
  }
  if (acc == key)
    *sink = acc;
}

cudaError_t read_call(void* temp, std::size_t& temp_bytes, const call_args& a, dtype t, bool two) {
  if (!temp) {
    temp_bytes = sizeof(unsigned); // the sink
    return cudaSuccess;
  }
  // Inputs come from cudaMalloc at 256-byte offsets: 16-byte aligned.
  const std::int64_t bytes = a.n * static_cast<std::int64_t>(size_of(t));
  const std::int64_t vecs = bytes / 16;
  const int tail = static_cast<int>(bytes % 16);
  const std::int64_t per_block = static_cast<std::int64_t>(read_threads) * read_unroll;
  const std::int64_t max_blocks = static_cast<std::int64_t>(facts().sms) * (2048 / read_threads);
  std::int64_t blocks = (vecs + per_block - 1) / per_block;
  if (blocks > max_blocks)
    blocks = max_blocks;
  if (blocks < 1)
    blocks = 1;
  const auto* xa = static_cast<const unsigned char*>(a.x);
  const auto* ya = two ? static_cast<const unsigned char*>(a.y) : nullptr;
  read_kernel<<<static_cast<unsigned>(blocks), read_threads, 0, a.stream>>>(
      reinterpret_cast<const uint4*>(xa), reinterpret_cast<const uint4*>(ya), vecs, xa + vecs * 16,
      ya ? ya + vecs * 16 : nullptr, tail, 0x9e3779b9u, static_cast<unsigned*>(temp));
  return cudaGetLastError();
}

const case_adder add{[] {
  for (dtype t : all_dtypes) {
    for (bool two : {false, true}) {
      bench_case c;
      c.op = two ? op_kind::read2 : op_kind::read;
      c.type = t;
      c.method = "ceiling";
      c.note = "read-only kernel, 16-byte loads, no arithmetic";
      c.call = [t, two](void* temp, std::size_t& bytes, const call_args& a) {
        return read_call(temp, bytes, a, t, two);
      };
      cases().push_back(std::move(c));
    }
  }
}};

} // namespace
} // namespace tcr::bench
