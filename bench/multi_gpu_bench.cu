// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr::MultiGpuReduce (reduce/multi_gpu.cuh) against what users do today, a local
// cub::DeviceReduce::Sum (or cuBLAS-style plain partial) followed by ncclAllReduce of the rounded
// partial. Every visible GPU is a rank (one thread each; --tcr_ranks=P for fewer); each rank holds
// n elements of random data (never zeros). A sample: all ranks meet at a barrier, then each
// enqueues a batch of calls between two events on its stream; the sample's time is rank 0's, per
// call (its stream waits for every rank's data through the collective). Methods:
//   tcr.compensated      MultiGpuReduce::Sum / Dot, Accuracy::compensated
//   tcr.reproducible     the same, Accuracy::reproducible (bits independent of ranks and NCCL)
//   nccl.allreduce       cub::DeviceReduce::Sum (Dot: TransformReduce of x * y) into the
//                        input's precision, then ncclAllReduce(ncclSum) of that value
// NCCL's algorithm is NCCL_ALGO's (run the program once with NCCL_ALGO=Ring and once with
// NCCL_ALGO=Tree; NCCL reads it when the communicators are made). NCCL_NVLS_ENABLE=0 is set
// unless the environment says otherwise.
//   tcr_bench_multi_gpu [--tcr_ranks=P] [--tcr_sizes=20,24,28] [--tcr_repetitions=N] [GB flags]
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <tcr/reduce/multi_gpu.cuh>

namespace {

// A reusable barrier for the rank threads (C++17 has none).
class barrier {
public:
  explicit barrier(int count) : count_(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    const int gen = gen_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return gen != gen_; });
    }
  }

private:
  std::mutex m_;
  std::condition_variable cv_;
  int count_, arrived_ = 0, gen_ = 0;
};

__global__ void fill(float* x, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = (float(h >> 8) * 0x1p-24f - 0.5f) * 2.0f; // [-1, 1), nonzero almost everywhere
  }
}

struct product {
  const float* x;
  const float* y;
  __host__ __device__ float operator()(std::int64_t i) const { return x[i] * y[i]; }
};

enum class method { compensated, reproducible, allreduce };
const char* name(method m) {
  return m == method::compensated    ? "tcr.compensated"
         : m == method::reproducible ? "tcr.reproducible"
                                     : "nccl.allreduce";
}

struct rank_state {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  float* x = nullptr;
  float* y = nullptr;
  float* out = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  std::int64_t n = 0;
};

int g_ranks = 0;
std::vector<rank_state> g_rank;

// Runs f(rank) on every rank at once, rank 0 on the calling thread.
void on_every_rank(const std::function<void(int)>& f) {
  std::vector<std::thread> others;
  for (int r = 1; r < g_ranks; ++r)
    others.emplace_back([&f, r] {
      cudaSetDevice(g_rank[r].device);
      f(r);
    });
  cudaSetDevice(g_rank[0].device);
  f(0);
  for (auto& t : others)
    t.join();
}

// One call of m (Dot or Sum) on rank s with temporary storage temp of `bytes` bytes; with temp
// null the size query (of the local reduction, for nccl.allreduce).
cudaError_t call(method m, bool dot, rank_state& s, void* temp, std::size_t& bytes) {
  if (m == method::allreduce) {
    cudaError_t err = dot ? cub::DeviceReduce::TransformReduce(
                                temp, bytes, thrust::counting_iterator<std::int64_t>(0), s.out, s.n,
                                cuda::std::plus<float>(), product{s.x, s.y}, 0.0f, s.stream)
                          : cub::DeviceReduce::Sum(temp, bytes, s.x, s.out, s.n, s.stream);
    if (err != cudaSuccess || temp == nullptr)
      return err;
    return ncclAllReduce(s.out, s.out + 1, 1, ncclFloat, ncclSum, s.comm, s.stream) == ncclSuccess
               ? cudaSuccess
               : cudaErrorUnknown;
  }
  const tcr::ReduceOptions o{m == method::compensated ? tcr::Accuracy::compensated
                                                      : tcr::Accuracy::reproducible};
  return dot ? tcr::MultiGpuReduce::Dot(temp, bytes, s.x, s.y, s.out, s.n, s.comm, s.stream, o)
             : tcr::MultiGpuReduce::Sum(temp, bytes, s.x, s.out, s.n, s.comm, s.stream, o);
}

// Every rank's n elements of x and y (random, never zeros) and temporary storage for any call.
void setup(std::int64_t n) {
  on_every_rank([n](int r) {
    rank_state& s = g_rank[r];
    if (s.n == n)
      return;
    cudaFree(s.x);
    cudaFree(s.y);
    cudaFree(s.temp);
    s.temp = nullptr;
    s.n = n;
    cudaMalloc(&s.x, n * sizeof(float));
    cudaMalloc(&s.y, n * sizeof(float));
    fill<<<1024, 256, 0, s.stream>>>(s.x, n, 0x1234u + 77u * r);
    fill<<<1024, 256, 0, s.stream>>>(s.y, n, 0x9876u + 31u * r);
    s.temp_bytes = 0;
    for (method m : {method::allreduce, method::compensated, method::reproducible})
      for (bool dot : {false, true}) {
        std::size_t b = 0;
        call(m, dot, s, nullptr, b);
        s.temp_bytes = std::max(s.temp_bytes, b);
      }
    cudaMalloc(&s.temp, s.temp_bytes);
    cudaStreamSynchronize(s.stream);
  });
}

void run(benchmark::State& state, method m, bool dot, std::int64_t n) {
  setup(n);
  const int batch = std::clamp(int(200e-6 / (n * 4.0 * (dot ? 2 : 1) / 4e12 + 20e-6)), 1, 32);
  barrier meet(g_ranks);
  std::vector<double> per_call;
  std::atomic<bool> failed{false};
  // A batch on every rank; rank 0's time per call in seconds.
  const auto one_batch = [&]() {
    on_every_rank([&](int r) {
      rank_state& s = g_rank[r];
      cudaStreamSynchronize(s.stream);
      meet.wait();
      cudaEventRecord(s.start, s.stream);
      for (int b = 0; b < batch; ++b) {
        std::size_t bytes = s.temp_bytes;
        if (call(m, dot, s, s.temp, bytes) != cudaSuccess)
          failed = true;
      }
      cudaEventRecord(s.stop, s.stream);
      cudaEventSynchronize(s.stop);
    });
    float ms = 0;
    cudaEventElapsedTime(&ms, g_rank[0].start, g_rank[0].stop);
    return ms * 1e-3 / batch;
  };
  one_batch(); // warm-up, untimed
  for (auto _ : state) {
    const double t = one_batch();
    if (failed)
      break;
    state.SetIterationTime(t);
    per_call.push_back(t);
  }
  if (failed) {
    state.SkipWithError("a call failed");
    return;
  }
  std::sort(per_call.begin(), per_call.end());
  const double med = per_call.empty() ? 0 : per_call[per_call.size() / 2];
  const double bytes = double(n) * 4.0 * (dot ? 2 : 1);
  state.counters["ranks"] = g_ranks;
  state.counters["median_us"] = med * 1e6;
  state.counters["GBps_per_rank"] = med > 0 ? bytes / med * 1e-9 : 0;
  float r0[2] = {0, 0};
  cudaMemcpy(r0, g_rank[0].out, sizeof r0, cudaMemcpyDeviceToHost);
  state.counters["result"] = m == method::allreduce ? r0[1] : r0[0];
}

} // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  std::vector<int> sizes = {20, 24, 28};
  int repetitions = 5;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--tcr_ranks=", 0) == 0)
      g_ranks = std::atoi(a.c_str() + 12);
    else if (a.rfind("--tcr_sizes=", 0) == 0) {
      sizes.clear();
      for (std::size_t p = 12; p < a.size();) {
        sizes.push_back(std::atoi(a.c_str() + p));
        const std::size_t c = a.find(',', p);
        p = c == std::string::npos ? a.size() : c + 1;
      }
    } else if (a.rfind("--tcr_repetitions=", 0) == 0)
      repetitions = std::atoi(a.c_str() + 18);
    else
      rest.push_back(argv[i]);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tcr_bench_multi_gpu: no CUDA device: nothing measured\n");
    return 1;
  }
  if (g_ranks <= 0 || g_ranks > devices)
    g_ranks = devices;
  g_rank.resize(g_ranks);
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  bool ok = true;
  on_every_rank([&](int r) {
    rank_state& s = g_rank[r];
    s.device = r;
    cudaSetDevice(r);
    cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
    cudaEventCreate(&s.start);
    cudaEventCreate(&s.stop);
    cudaMalloc(&s.out, 2 * sizeof(float));
    if (ncclCommInitRank(&s.comm, g_ranks, id, r) != ncclSuccess)
      ok = false;
  });
  if (!ok) {
    std::fprintf(stderr, "tcr_bench_multi_gpu: ncclCommInitRank failed\n");
    return 1;
  }
  const char* algo = std::getenv("NCCL_ALGO");
  benchmark::AddCustomContext("ranks", std::to_string(g_ranks));
  benchmark::AddCustomContext("nccl_algo", algo ? algo : "(NCCL's choice)");
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  benchmark::AddCustomContext("nccl_version", std::to_string(nccl_version));
  for (bool dot : {false, true})
    for (int lg : sizes)
      for (method m : {method::allreduce, method::compensated, method::reproducible}) {
        const std::int64_t n = std::int64_t(1) << lg;
        const std::string bn = std::string(dot ? "dot" : "sum") + "/f32/" + name(m) +
                               "/n_per_rank:" + std::to_string(n);
        benchmark::RegisterBenchmark(bn.c_str(),
                                     [m, dot, n](benchmark::State& st) { run(st, m, dot, n); })
            ->UseManualTime()
            ->Iterations(repetitions)
            ->Unit(benchmark::kMicrosecond);
      }
  int rargc = int(rest.size());
  benchmark::Initialize(&rargc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  on_every_rank([](int r) { ncclCommDestroy(g_rank[r].comm); });
  return 0;
}
