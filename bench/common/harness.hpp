// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: what every measurement needs: error checks, facts about the device, device
// memory that is kept between benchmarks, random inputs written on the device (never zeros, never
// a host copy of gigabytes), the L2 flush of cold runs, the read-only bandwidth kernel and the SM
// clock probe.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include "common/types.hpp"

namespace tcr::bench {

struct cuda_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws cuda_error("<what>: <CUDA's message>") unless e is cudaSuccess.
void check(cudaError_t e, const char* what);
#define TCR_BENCH_CHECK(expr) ::tcr::bench::check((expr), #expr)

struct device_facts {
  int device = 0;
  std::string name;
  int cc = 0; // compute capability, 90 for sm_90
  int sms = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_bytes = 0;
  double default_sm_clock_mhz = 0; // cudaDevAttrClockRate: the clock the driver reports
  int runtime_version = 0;         // 13000 for CUDA 13.0
  int driver_version = 0;
};

// Empty when a CUDA device can be used; otherwise why not, in words.
std::string no_device_reason();
// The current device's facts (read once).
const device_facts& facts();

// Device memory that frees itself. reserve() grows it (dropping the contents), never shrinks it.
class device_memory {
public:
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory() { release(); }
  void* reserve(std::size_t bytes);
  void release();
  void* get() const { return p_; }
  std::size_t capacity() const { return bytes_; }

private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// SplitMix64's output function: the random inputs' hash of (seed, index), on host and device.
__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Writes n elements of type t at p: +-(1 + m) 2^e with m uniform in [0, 1) and e in [-8, 7], each
// a function of (seed, index) only. m has the type's fraction bits, but at most float's 23
// (doubles: 52, all significant bits used, unless f64_float_data).
void fill_random(dtype t, void* p, std::int64_t n, std::uint64_t seed, cudaStream_t stream);
// Doubles as the float values widened (at most 24 significant bits: the data of runs before
// 2026-12-05; --tcr_f64_data=float) instead of full 53-bit significands.
extern bool f64_float_data;

// Random inputs of the speed runs, kept while consecutive benchmarks ask for the same type and n:
// `copies` copies of x (and of y when inputs == 2), 256-byte aligned. Cold runs give each launch of
// a batch its own copy, so that every launch reads from DRAM.
class input_cache {
public:
  void prepare(dtype t, std::int64_t n, int inputs, int copies, cudaStream_t stream);
  const void* x(int copy) const;
  const void* y(int copy) const;
  void release();

private:
  std::size_t stride() const;
  device_memory mem_;
  dtype type_ = dtype::f32;
  std::int64_t n_ = -1;
  int inputs_ = 0;
  int copies_ = 0;
};

// Evicts the L2 by writing a buffer of the L2's size (cudaMemsetAsync, as nvbench does).
class l2_flush {
public:
  explicit l2_flush(std::size_t bytes);
  cudaError_t run(cudaStream_t stream); // enqueues the write

private:
  device_memory buf_;
  std::size_t bytes_;
};

// Holds a stream until the host opens it again (nvbench's blocking kernel): a whole batch of calls
// is queued behind it before the first one starts, so a sample measures the GPU's time for the
// batch, not the host's launch rate. A call that waits for the host while the gate is closed
// (a synchronisation, a blocking copy) stalls until the gate gives up after `timeout_ms`;
// timed_out() then says the sample is invalid.
class stream_gate {
public:
  explicit stream_gate(double timeout_ms = 500);
  stream_gate(const stream_gate&) = delete;
  stream_gate& operator=(const stream_gate&) = delete;
  ~stream_gate();
  cudaError_t close(cudaStream_t stream); // enqueues the waiting kernel
  void open();                            // lets it finish
  bool timed_out() const;                 // after the stream has been synchronised

private:
  volatile int* flags_ = nullptr; // [0] open, [1] timed out; pinned, mapped
  unsigned long long timeout_ns_;
};

// The read-only bandwidth kernel, the ceiling of every reduction: streams `bytes` bytes from a
// (and as many from b, unless b is null) with 16-byte loads and does nothing else with them.
// a and b 16-byte aligned; sink: one unsigned of device memory, practically never written. One
// launch on stream, a grid of at most 8 blocks of 256 threads per SM.
cudaError_t read_only(const void* a, const void* b, std::size_t bytes, unsigned* sink,
                      cudaStream_t stream);

// The SM clock now, in MHz: one thread counts clock64() cycles against %globaltimer nanoseconds
// over about 200k cycles (~100 us). Synchronises the stream. Works without NVML.
double measure_sm_clock_mhz(cudaStream_t stream);

// The value of a `--key=value` argument, or nullptr when arg is not that flag.
inline const char* flag_value(const char* arg, const char* key) {
  const std::size_t k = std::strlen(key);
  return std::strncmp(arg, key, k) == 0 && arg[k] == '=' ? arg + k + 1 : nullptr;
}

// Whether the command line asks Google Benchmark for --benchmark_list_tests (which a program
// without a CUDA device can still answer: the registrations need none).
inline bool asks_for_list(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--benchmark_list_tests" || a == "--benchmark_list_tests=true" ||
        a == "--benchmark_list_tests=1")
      return true;
  }
  return false;
}

} // namespace tcr::bench
