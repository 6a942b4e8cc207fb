// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the harness's device side (see common/harness.hpp).
#include <atomic>
#include <type_traits>
#include <cstdio>
#include <string>
#include "common/harness.hpp"

namespace tcr::bench {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError(); // clear it, so the next benchmark does not see it again
    throw cuda_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

std::string no_device_reason() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
  if (count == 0)
    return "no CUDA device found";
  return "";
}

const device_facts& facts() {
  static const device_facts f = [] {
    device_facts r;
    TCR_BENCH_CHECK(cudaGetDevice(&r.device));
    cudaDeviceProp p{};
    TCR_BENCH_CHECK(cudaGetDeviceProperties(&p, r.device));
    r.name = p.name;
    r.cc = p.major * 10 + p.minor;
    r.sms = p.multiProcessorCount;
    r.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
    r.global_bytes = p.totalGlobalMem;
    int khz = 0;
    TCR_BENCH_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, r.device));
    r.default_sm_clock_mhz = khz / 1000.0;
    TCR_BENCH_CHECK(cudaRuntimeGetVersion(&r.runtime_version));
    TCR_BENCH_CHECK(cudaDriverGetVersion(&r.driver_version));
    return r;
  }();
  return f;
}

void* device_memory::reserve(std::size_t bytes) {
  if (bytes <= bytes_)
    return p_;
  release();
  TCR_BENCH_CHECK(cudaMalloc(&p_, bytes));
  bytes_ = bytes;
  return p_;
}

void device_memory::release() {
  if (p_)
    cudaFree(p_);
  p_ = nullptr;
  bytes_ = 0;
}

bool f64_float_data = false;

namespace {

template <class T>
__device__ T from_float(float v) {
  if constexpr (std::is_same_v<T, double>)
    return static_cast<double>(v);
  else
    return static_cast<T>(v);
}

template <class T>
__global__ void fill_kernel(T* p, std::int64_t n, std::uint64_t seed, bool full) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::uint64_t h =
        splitmix64(seed * 0x632be59bd9b4e019ull + static_cast<std::uint64_t>(i));
    // +-(1 + m) 2^e, m uniform in [0, 1), e uniform in [-8, 7]: both signs and a range of
    // exponents (both bands of e5m2, subnormals of e4m3), never zeros.
    const float m = static_cast<float>(h & 0x7fffffu) * 0x1p-23f;
    const int e = static_cast<int>((h >> 23) & 15u) - 8;
    const float v = ldexpf(1.0f + m, e);
    if constexpr (std::is_same_v<T, double>) {
      if (full) { // 52 random fraction bits (a second hash), the same exponent and sign
        const double d = ldexp(1.0 + static_cast<double>(splitmix64(h) >> 12) * 0x1p-52, e);
        p[i] = (h >> 27) & 1u ? -d : d;
        continue;
      }
    }
    p[i] = from_float<T>((h >> 27) & 1u ? -v : v);
  }
}

template <class T>
void fill_typed(void* p, std::int64_t n, std::uint64_t seed, cudaStream_t stream) {
  if (n <= 0)
    return;
  const int threads = 256;
  const std::int64_t want = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(want < 65536 ? want : 65536);
  fill_kernel<T><<<blocks, threads, 0, stream>>>(static_cast<T*>(p), n, seed, !f64_float_data);
  TCR_BENCH_CHECK(cudaGetLastError());
}

__global__ void clock_probe_kernel(long long cycles, unsigned long long* out) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  long long c1 = c0;
  while (c1 - c0 < cycles)
    c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
}

__global__ void gate_kernel(volatile int* flags, unsigned long long timeout_ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (flags[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > timeout_ns) {
      flags[1] = 1;
      break;
    }
  }
}

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

} // namespace

stream_gate::stream_gate(double timeout_ms)
    : timeout_ns_(static_cast<unsigned long long>(timeout_ms * 1e6)) {
  void* p = nullptr;
  TCR_BENCH_CHECK(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped));
  flags_ = static_cast<volatile int*>(p);
  flags_[0] = 1;
  flags_[1] = 0;
}

stream_gate::~stream_gate() {
  if (flags_)
    cudaFreeHost(const_cast<int*>(flags_));
}

cudaError_t stream_gate::close(cudaStream_t stream) {
  flags_[0] = 0;
  flags_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  int* d = nullptr;
  cudaError_t e =
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), const_cast<int*>(flags_), 0);
  if (e != cudaSuccess)
    return e;
  gate_kernel<<<1, 1, 0, stream>>>(d, timeout_ns_);
  return cudaGetLastError();
}

void stream_gate::open() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool stream_gate::timed_out() const {
  return flags_[1] != 0;
}

void fill_random(dtype t, void* p, std::int64_t n, std::uint64_t seed, cudaStream_t stream) {
  switch (t) {
  case dtype::e4m3:
    return fill_typed<__nv_fp8_e4m3>(p, n, seed, stream);
  case dtype::e5m2:
    return fill_typed<__nv_fp8_e5m2>(p, n, seed, stream);
  case dtype::f16:
    return fill_typed<__half>(p, n, seed, stream);
  case dtype::bf16:
    return fill_typed<__nv_bfloat16>(p, n, seed, stream);
  case dtype::f32:
    return fill_typed<float>(p, n, seed, stream);
  case dtype::f64:
    return fill_typed<double>(p, n, seed, stream);
  }
}

std::size_t input_cache::stride() const {
  const std::size_t bytes = static_cast<std::size_t>(n_) * size_of(type_);
  return (bytes + 255) / 256 * 256;
}

void input_cache::prepare(dtype t, std::int64_t n, int inputs, int copies, cudaStream_t stream) {
  if (t == type_ && n == n_ && inputs <= inputs_ && copies <= copies_)
    return;
  // Keep what is there when only more copies or a second input are asked for; else start over.
  const bool same = (t == type_ && n == n_);
  const int new_inputs = same && inputs_ > inputs ? inputs_ : inputs;
  const int new_copies = same && copies_ > copies ? copies_ : copies;
  type_ = t;
  n_ = n;
  const std::size_t need = stride() * 2 * static_cast<std::size_t>(new_copies);
  if (need > mem_.capacity())
    mem_.release(); // free first: the old and new buffers may not both fit
  inputs_ = 0;
  copies_ = 0;
  mem_.reserve(need);
  for (int c = 0; c < new_copies; ++c) {
    for (int i = 0; i < new_inputs; ++i) {
      void* p = static_cast<char*>(mem_.get()) + stride() * (2 * static_cast<std::size_t>(c) + i);
      fill_random(t, p, n,
                  1000u * static_cast<std::uint64_t>(c) + static_cast<std::uint64_t>(i) + 1u,
                  stream);
    }
  }
  TCR_BENCH_CHECK(cudaStreamSynchronize(stream));
  inputs_ = new_inputs;
  copies_ = new_copies;
}

const void* input_cache::x(int copy) const {
  return static_cast<const char*>(mem_.get()) + stride() * (2 * static_cast<std::size_t>(copy));
}

const void* input_cache::y(int copy) const {
  return inputs_ > 1 ? static_cast<const char*>(mem_.get()) +
                           stride() * (2 * static_cast<std::size_t>(copy) + 1)
                     : nullptr;
}

void input_cache::release() {
  mem_.release();
  n_ = -1;
  inputs_ = 0;
  copies_ = 0;
}

l2_flush::l2_flush(std::size_t bytes) : bytes_(bytes) {
  buf_.reserve(bytes ? bytes : 1);
}

cudaError_t l2_flush::run(cudaStream_t stream) {
  return cudaMemsetAsync(buf_.get(), 0, bytes_, stream);
}

cudaError_t read_only(const void* a, const void* b, std::size_t bytes, unsigned* sink,
                      cudaStream_t stream) {
  const std::int64_t vecs = static_cast<std::int64_t>(bytes / 16);
  const int tail = static_cast<int>(bytes % 16);
  const std::int64_t per_block = static_cast<std::int64_t>(read_threads) * read_unroll;
  const std::int64_t max_blocks = static_cast<std::int64_t>(facts().sms) * (2048 / read_threads);
  std::int64_t blocks = (vecs + per_block - 1) / per_block;
  if (blocks > max_blocks)
    blocks = max_blocks;
  if (blocks < 1)
    blocks = 1;
  const auto* xa = static_cast<const unsigned char*>(a);
  const auto* ya = static_cast<const unsigned char*>(b);
  read_kernel<<<static_cast<unsigned>(blocks), read_threads, 0, stream>>>(
      reinterpret_cast<const uint4*>(xa), reinterpret_cast<const uint4*>(ya), vecs, xa + vecs * 16,
      ya ? ya + vecs * 16 : nullptr, tail, 0x9e3779b9u, sink);
  return cudaGetLastError();
}

double measure_sm_clock_mhz(cudaStream_t stream) {
  static device_memory out;
  out.reserve(2 * sizeof(unsigned long long));
  auto* d = static_cast<unsigned long long*>(out.get());
  clock_probe_kernel<<<1, 1, 0, stream>>>(200000, d);
  TCR_BENCH_CHECK(cudaGetLastError());
  unsigned long long h[2] = {0, 0};
  TCR_BENCH_CHECK(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, stream));
  TCR_BENCH_CHECK(cudaStreamSynchronize(stream));
  return h[1] ? static_cast<double>(h[0]) / static_cast<double>(h[1]) * 1000.0 : 0.0;
}

} // namespace tcr::bench
