// SPDX-License-Identifier: BSD-3-Clause
// tcr diagnostics: where the exact modes' certify-first grid spends its time (f32 Sum into float,
// 2^14..2^22 elements), written 2026-12-05 (session 21) for the next GPU run; not a benchmark of
// record (the harness's tcr_device_bench is). A copy of certify_first_grid_kernel's shape
// (reduce/detail/device_kernel.cuh) stamps %globaltimer per block: entry, certified partial
// stored, after the barrier, exit; the host prints per call the time in the kernel split into
// those phases and the gap between consecutive kernels. Three barrier designs, all launched
// cooperatively: 0 = the library's (this_grid().sync(), then every block merges every partial),
// 1 = an arrival counter whose last block merges and publishes the decision to the others, which
// spin on it, 2 = the last block decides and nobody waits (no fall-back possible: the floor of a
// last-block design); design 0 also under __launch_bounds__(256, 6), six blocks per SM instead of
// the library's four. Each at the library's grid, one block per 16 KB, and 2x and 4x as many
// blocks (within the resident grid). Peers in the
// same run (CUDA events, 20 calls behind a sleeping kernel, median of 5): CUB, tcr's compensated
// Sum, the correctly rounded Sum (certify first) and its exact pass alone. Uniform(-1, 1) data
// from a 512 MB ring (every call reads its own copy: cold L2 for sizes below 256 MB).
// Build: cmake --build <dir> --target tcr_certify_probe (not built by default).
#include <tcr/tcr.cuh>
#include <cub/device/device_reduce.cuh>
#include <cooperative_groups.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

namespace dk = tcr::detail::device;
using First =
    dk::certify_first_of<dk::op_kind::sum, float, float, float, const float*, const float*>;
using RC = First::type;
using Acc = dk::exact_accumulator_of<dk::op_kind::sum, float, float, float>::type;
using R = dk::reduction<Acc, float, void, float, false, const float*, const float*, float*>;
using PC = RC::accumulator::partial_type;
constexpr int T = 256;

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Mode 0: the library's shape (grid.sync, every block merges). Mode 1: arrival counter, the last
// block merges and publishes the decision, the others spin on it. Mode 2: arrival, the last block
// decides, nobody waits (no fallback possible: timing only).
// A shuffle tree over the 32 lanes' partials in a fixed order; the total in lane 0.
__device__ __forceinline__ PC warp_tree(const RC::accumulator& fc, PC r) {
  for (int d = 16; d >= 1; d /= 2)
    r = fc.merge(r, tcr::detail::shfl_down(0xffffffffu, r, d));
  return r;
}

// Warp 0's merge of `count` partials: lane l merges partials l, l + 32, ... in order (the loads
// of a lane in flight together, up to 16), then a shuffle tree; the total in lane 0.
__device__ __forceinline__ PC warp_merge(const RC::accumulator& fc, const PC* g_parts, int count) {
  PC r = fc.partial();
  for (int b0 = threadIdx.x; b0 < count; b0 += 32 * 16) {
    PC q[16];
#pragma unroll
    for (int j = 0; j < 16; ++j)
      if (b0 + 32 * j < count)
        q[j] = dk::load_cg(g_parts + b0 + 32 * j);
#pragma unroll
    for (int j = 0; j < 16; ++j)
      if (b0 + 32 * j < count)
        r = fc.merge(r, q[j]);
  }
  return warp_tree(fc, r);
}

// The end of every design: the block that writes (`writer`) stores the decided value, or every
// block runs the exact grid pass; then the exit stamp.
__device__ __forceinline__ void probe_finish(bool decided, bool writer, float value,
                                             const dk::kernel_params<R>& pe,
                                             const R::accumulator& fe, unsigned long long* st) {
  if (decided) {
    if (writer && threadIdx.x == 0)
      dk::write_result(pe.out, value);
  } else {
    dk::reduce_block<R, T, 4, dk::engine_kind::cuda_core, true>(pe, fe);
  }
  if (threadIdx.x == 0)
    st[3] = gtime();
}

template <int Mode, int MinBlocks, bool WarpMerge = false>
__global__ void __launch_bounds__(T, MinBlocks)
    probe_kernel(dk::kernel_params<RC> pc, RC::accumulator fc, dk::kernel_params<R> pe,
                 R::accumulator fe, unsigned* counter, volatile unsigned* flag, unsigned epoch,
                 unsigned long long* stamps) {
  using Block = tcr::BlockReduce<PC, T, tcr::BlockReduceAlgorithm::shuffle_tree,
                                 tcr::BlockCombine::warp_totals>;
  __shared__ typename Block::TempStorage s_merge;
  __shared__ bool s_decided;
  __shared__ bool s_last;
  __shared__ float s_value;
  unsigned long long* st = stamps + 4 * blockIdx.x;
  if (threadIdx.x == 0)
    st[0] = gtime();
  dk::reduce_block<RC, T, First::grid_unroll, dk::engine_kind::cuda_core, true, true>(pc, fc);
  if (threadIdx.x == 0)
    st[1] = gtime();
  const PC* g_parts = reinterpret_cast<const PC*>(pc.partials);
  const auto merge_all = [&]() {
    if constexpr (WarpMerge) {
      if (threadIdx.x < 32) {
        const PC total = warp_merge(fc, g_parts, int(gridDim.x));
        if (threadIdx.x == 0) {
          float f = 0.0f;
          s_decided = tcr::decides_float(fc.template finish<RC::out_type>(total), f);
          s_value = f;
        }
      }
      __syncthreads();
      return;
    }
    PC r_merged = fc.partial();
    for (int b = threadIdx.x; b < int(gridDim.x); b += T)
      r_merged = fc.merge(r_merged, dk::load_cg(g_parts + b));
    const PC total =
        Block(s_merge).Reduce(r_merged, [&](const PC& a, const PC& b) { return fc.merge(a, b); });
    if (threadIdx.x == 0) {
      float f = 0.0f;
      s_decided = tcr::decides_float(fc.template finish<RC::out_type>(total), f);
      s_value = f;
    }
    __syncthreads();
  };
  if constexpr (Mode == 0) {
    cooperative_groups::this_grid().sync();
    if (threadIdx.x == 0)
      st[2] = gtime();
    merge_all();
  } else {
    if (threadIdx.x == 0) {
      __threadfence();
      const unsigned old = atomicAdd(counter, 1u);
      s_last = old == gridDim.x - 1;
      if (s_last)
        __threadfence();
    }
    __syncthreads();
    if (s_last) {
      if (threadIdx.x == 0)
        st[2] = gtime();
      merge_all();
      if (threadIdx.x == 0) {
        *counter = 0;
        if constexpr (Mode == 1) {
          __threadfence();
          *flag = (epoch << 1) | (s_decided ? 1u : 0u);
        }
      }
    } else if constexpr (Mode == 1) {
      if (threadIdx.x == 0) {
        unsigned v;
        while (((v = *flag) >> 1) != epoch) {
        }
        s_decided = v & 1u;
        st[2] = gtime();
      }
      __syncthreads();
    } else {
      if (threadIdx.x == 0)
        st[2] = gtime();
      if (threadIdx.x == 0)
        st[3] = gtime();
      return;
    }
  }
  probe_finish(s_decided, Mode == 0 ? blockIdx.x == 0 : s_last, s_value, pe, fe, st);
}

// Cluster designs (one thread-block cluster is the whole grid: its blocks are co-scheduled by the
// hardware, no cooperative launch): each block stores its certified partial, cluster-wide barrier,
// every block merges the cluster's partials in block order and decides; undecided: the exact grid
// pass over the same blocks. Dsmem: the partials go through distributed shared memory instead of
// global memory (a second barrier keeps each block's shared memory alive until all have read it).
template <int UnrollC, bool Dsmem, bool WarpMerge = false>
__global__ void __launch_bounds__(T)
    cluster_kernel(dk::kernel_params<RC> pc, RC::accumulator fc, dk::kernel_params<R> pe,
                   R::accumulator fe, unsigned long long* stamps) {
  using Block = tcr::BlockReduce<PC, T, tcr::BlockReduceAlgorithm::shuffle_tree,
                                 tcr::BlockCombine::warp_totals>;
  __shared__ typename Block::TempStorage s_merge;
  __shared__ bool s_decided;
  __shared__ float s_value;
  __shared__ PC s_part;
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned long long* st = stamps + 4 * blockIdx.x;
  if (threadIdx.x == 0)
    st[0] = gtime();
  if constexpr (Dsmem) {
    pc.partials = reinterpret_cast<unsigned char*>(&s_part) - sizeof(PC) * blockIdx.x;
  }
  dk::reduce_block<RC, T, UnrollC, dk::engine_kind::cuda_core, true, true>(pc, fc);
  if (threadIdx.x == 0)
    st[1] = gtime();
  cluster.sync();
  if (threadIdx.x == 0)
    st[2] = gtime();
  if constexpr (WarpMerge) {
    // Warp 0 alone: lane l holds partial l (at most 32 blocks), a shuffle tree in a fixed order.
    if (threadIdx.x < 32) {
      PC r = fc.partial();
      if (int(threadIdx.x) < int(gridDim.x)) {
        if constexpr (Dsmem)
          r = *cluster.map_shared_rank(&s_part, threadIdx.x);
        else
          r = reinterpret_cast<const PC*>(pc.partials)[threadIdx.x]; // plain (L1 is cold)
      }
      r = warp_tree(fc, r);
      if (threadIdx.x == 0) {
        float f = 0.0f;
        s_decided = tcr::decides_float(fc.template finish<RC::out_type>(r), f);
        s_value = f;
      }
    }
  } else {
    PC r_merged = fc.partial();
    for (int b = threadIdx.x; b < int(gridDim.x); b += T) {
      if constexpr (Dsmem)
        r_merged = fc.merge(r_merged, *cluster.map_shared_rank(&s_part, b));
      else
        r_merged = fc.merge(r_merged, dk::load_cg(reinterpret_cast<const PC*>(pc.partials) + b));
    }
    const PC total =
        Block(s_merge).Reduce(r_merged, [&](const PC& a, const PC& b) { return fc.merge(a, b); });
    if (threadIdx.x == 0) {
      float f = 0.0f;
      s_decided = tcr::decides_float(fc.template finish<RC::out_type>(total), f);
      s_value = f;
    }
  }
  if constexpr (Dsmem)
    cluster.sync(); // every block has read every other block's partial
  else
    __syncthreads();
  probe_finish(s_decided, blockIdx.x == 0, s_value, pe, fe, st);
}

__global__ void sleep_kernel(unsigned long long ns) {
  const unsigned long long t0 = gtime();
  while (gtime() - t0 < ns)
    __nanosleep(1000);
}

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

int main(int argc, char** argv) {
  const int launches = 20;
  int dev = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const std::int64_t ring_bytes = std::int64_t(512) << 20;
  float* d_ring;
  CK(cudaMalloc(&d_ring, ring_bytes));
  {
    std::vector<float> h(ring_bytes / 4);
    std::mt19937 g(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& v : h)
      v = u(g);
    CK(cudaMemcpy(d_ring, h.data(), ring_bytes, cudaMemcpyHostToDevice));
  }
  float* d_out;
  CK(cudaMalloc(&d_out, 4 * (launches + 1)));
  unsigned long long* d_stamps;
  CK(cudaMalloc(&d_stamps, sizeof(unsigned long long) * 4 * 2048 * launches));
  unsigned* d_counter;
  unsigned* d_flag;
  CK(cudaMalloc(&d_counter, 4));
  CK(cudaMalloc(&d_flag, 4));
  CK(cudaMemset(d_counter, 0, 4));
  CK(cudaMemset(d_flag, 0, 4));
  std::size_t temp_bytes = std::size_t(64) << 20;
  void* d_temp;
  CK(cudaMalloc(&d_temp, temp_bytes * launches));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  unsigned epoch = 1;

  // Blocks per SM of each variant: Mode 0 also with __launch_bounds__(T, 6) (the certified pass
  // fits 40 registers; the rare exact fall-back may spill), against the library's 4 (64
  // registers, 33.5 KB of bins).
  const auto resident_of = [&](const void* kernel) {
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, 0));
    return per_sm * prop.multiProcessorCount;
  };
  struct variant {
    int mode; // 3: mode 0 with the warp merge, 4: mode 1 with it
    int min_blocks;
    const void* kernel;
    int resident;
  };
  const std::vector<variant> variants = {
      {0, 1, (const void*)probe_kernel<0, 1>, resident_of((const void*)probe_kernel<0, 1>)},
      {2, 1, (const void*)probe_kernel<2, 1>, resident_of((const void*)probe_kernel<2, 1>)}};
  for (const variant& v : variants)
    std::printf("mode %d, min blocks %d: resident grid %d\n", v.mode, v.min_blocks, v.resident);

  const bool hot = argc > 1 && std::strcmp(argv[1], "hot") == 0; // one input: L2 stays warm
  const int lg_max = argc > 2 ? std::atoi(argv[2]) : 22;
  if (hot)
    std::printf("hot: every call reads the same input\n");
  const auto input = [&](std::int64_t n, int i) {
    if (hot)
      return d_ring;
    const std::int64_t per = (n * 4 + 4095) / 4096 * 1024; // floats, 4 KB aligned
    const std::int64_t copies = std::max<std::int64_t>(1, (ring_bytes / 4) / per);
    return d_ring + (i % copies) * per;
  };
  // A timed batch: gate, then `launches` calls; returns us per call (event time).
  const auto timed = [&](auto&& call) {
    call(0); // warm
    CK(cudaStreamSynchronize(s));
    std::vector<float> r;
    for (int rep = 0; rep < 5; ++rep) {
      sleep_kernel<<<1, 1, 0, s>>>(400000);
      CK(cudaEventRecord(e0, s));
      for (int i = 0; i < launches; ++i)
        call(i);
      CK(cudaEventRecord(e1, s));
      CK(cudaStreamSynchronize(s));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      r.push_back(ms * 1000 / launches);
    }
    std::sort(r.begin(), r.end());
    return r[2];
  };

  // Call i's parameters for n elements on `grid` blocks: the exact pass's (its arrival word and
  // partials in call i's temporary storage) and the certified pass's (partials 32 MB further).
  const auto params = [&](std::int64_t n, int i, int grid) {
    char* temp = (char*)d_temp + i * temp_bytes;
    const std::uintptr_t base = (reinterpret_cast<std::uintptr_t>(temp) + 255) / 256 * 256;
    dk::kernel_params<R> p = dk::params_for<R>(input(n, i), input(n, i), d_out + i, n);
    dk::split_vector_region<R>(p);
    p.arrival = reinterpret_cast<unsigned long long*>(base);
    p.partials = reinterpret_cast<unsigned char*>(base + 256);
    p.key = dk::arrival_key(base, grid);
    dk::kernel_params<RC> pc =
        dk::params_for<RC>(p.x, p.y, static_cast<RC::out_iterator>(nullptr), n);
    dk::split_vector_region<RC>(pc);
    pc.partials = reinterpret_cast<unsigned char*>(base + (std::size_t(32) << 20));
    return std::pair{p, pc};
  };

  // The phases of the last timed batch, from the blocks' stamps.
  const auto report = [&](const char* label, int grid, float t) {
    std::vector<unsigned long long> h(std::size_t(4) * 2048 * launches);
    CK(cudaMemcpy(h.data(), d_stamps, h.size() * 8, cudaMemcpyDeviceToHost));
    double d_pass = 0, d_bar = 0, d_end = 0, d_all = 0, d_gap = 0;
    unsigned long long prev_end = 0;
    int gaps = 0;
    for (int i = 0; i < launches; ++i) {
      const unsigned long long* b = h.data() + std::size_t(4) * 2048 * i;
      unsigned long long s0 = ~0ull, s1 = 0, s2 = 0, s3 = 0;
      for (int k = 0; k < grid; ++k) {
        s0 = std::min(s0, b[4 * k]);
        s1 = std::max(s1, b[4 * k + 1]);
        s2 = std::max(s2, b[4 * k + 2]);
        s3 = std::max(s3, b[4 * k + 3]);
      }
      d_pass += (s1 - s0) * 1e-3;
      d_bar += (s2 - s1) * 1e-3;
      d_end += (s3 - s2) * 1e-3;
      d_all += (s3 - s0) * 1e-3;
      if (i > 0) {
        d_gap += (double(s0) - double(prev_end)) * 1e-3;
        ++gaps;
      }
      prev_end = s3;
    }
    std::printf("  %s grid %4d: %.2f us/call | in kernel %.2f = pass %.2f + barrier %.2f + decide "
                "%.2f | gap between kernels %.2f\n",
                label, grid, t, d_all / launches, d_pass / launches, d_bar / launches,
                d_end / launches, gaps ? d_gap / gaps : 0.0);
  };

  for (int lg = 14; lg <= lg_max; ++lg) {
    const std::int64_t n = std::int64_t(1) << lg;
    tcr::ReduceOptions comp{};
    tcr::ReduceOptions cr{tcr::Accuracy::correctly_rounded};
    const auto lib = [&](tcr::ReduceOptions o, bool certify) {
      return [&, o, certify](int i) {
        std::size_t b = temp_bytes;
        dk::certify_first_enabled = certify;
        CK(tcr::DeviceReduce::Sum((char*)d_temp + (i % launches) * temp_bytes, b, input(n, i),
                                  d_out + i, n, s, o));
        dk::certify_first_enabled = true;
      };
    };
    const float t_cub = timed([&](int i) {
      std::size_t b = temp_bytes;
      CK(cub::DeviceReduce::Sum((char*)d_temp + i * temp_bytes, b, input(n, i), d_out + i, n, s));
    });
    const float t_comp = timed(lib(comp, true));
    const float t_cr = timed(lib(cr, true));
    const float t_ex = timed(lib(cr, false));
    std::printf("n=2^%d cub %.2f comp %.2f cr %.2f exactonly %.2f\n", lg, t_cub, t_comp, t_cr,
                t_ex);
    const std::int64_t by_size = dk::partials_for(n, 4);
    for (const variant& var : variants) {
      const int mode = var.mode;
      const int resident = std::min(var.resident, 2048);
      // The library's grid (exact_plan's spread: at most max(256, bytes / 32 KB) blocks), then
      // one block per 16 KB and 2x, 4x as many, all within the resident grid.
      std::vector<int> grids;
      const std::int64_t spread = std::max<std::int64_t>(256, n * 4 / (32 << 10));
      for (std::int64_t g : {std::min(by_size, spread), by_size, 2 * by_size, 4 * by_size,
                             std::int64_t(132), std::int64_t(264)}) {
        if (g > 4 * by_size)
          continue;
        const int gi = int(std::min<std::int64_t>(g, resident));
        if (std::find(grids.begin(), grids.end(), gi) == grids.end())
          grids.push_back(gi);
      }
      for (int grid : grids) {
        const auto call = [&](int i) {
          auto [p, pc] = params(n, i, grid);
          RC::accumulator fc{};
          R::accumulator fe{};
          unsigned long long* st = d_stamps + std::size_t(4) * 2048 * i;
          unsigned ep = epoch++;
          void* args[] = {&pc, &fc, &p, &fe, &d_counter, &d_flag, &ep, &st};
          const void* k = var.kernel;
          CK(cudaLaunchCooperativeKernel(k, dim3(grid), dim3(T), args, 0, s));
        };
        const float t = timed(call);
        char label[64];
        std::snprintf(label, sizeof label, "mode %d min %d", mode, var.min_blocks);
        report(label, grid, t);
      }
    }
    // Cluster designs: the whole grid one cluster of k blocks (no cooperative launch).
    const auto check = [&](const char* label) { // d_out[0]: the variant's result for input 0
      std::size_t b = temp_bytes;
      CK(tcr::DeviceReduce::Sum(d_temp, b, input(n, 0), d_out + launches, n, s, cr));
      float r[2];
      CK(cudaMemcpyAsync(r, d_out, 4, cudaMemcpyDeviceToHost, s));
      CK(cudaMemcpyAsync(r + 1, d_out + launches, 4, cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      if (std::memcmp(r, r + 1, 4) != 0)
        std::printf("  %s: %.9g, library %.9g: DIFFERENT\n", label, r[0], r[1]);
    };
    const auto cluster_variant = [&](auto kernel, int unroll, bool dsmem, bool warp, int dyn) {
      for (int k : {8, 16}) {
        if (k == 16)
          CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        if (dyn > 0)
          CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
        const auto call = [&](int i) {
          auto [p, pc] = params(n, i, k);
          RC::accumulator fc{};
          R::accumulator fe{};
          unsigned long long* st = d_stamps + std::size_t(4) * 2048 * i;
          cudaLaunchConfig_t cfg{};
          cfg.gridDim = dim3(k);
          cfg.blockDim = dim3(T);
          cfg.dynamicSmemBytes = dyn;
          cfg.stream = s;
          cudaLaunchAttribute attr[1];
          attr[0].id = cudaLaunchAttributeClusterDimension;
          attr[0].val.clusterDim.x = k;
          attr[0].val.clusterDim.y = 1;
          attr[0].val.clusterDim.z = 1;
          cfg.attrs = attr;
          cfg.numAttrs = 1;
          CK(cudaLaunchKernelEx(&cfg, kernel, pc, fc, p, fe, st));
        };
        const float t = timed(call);
        char label[64];
        std::snprintf(label, sizeof label, "cluster u%-2d %s %s %s", unroll,
                      dsmem ? "dsmem" : "l2   ", warp ? "warp " : "block", dyn ? "1/SM" : "any ");
        report(label, k, t);
        check(label);
      }
    };
    if (lg <= 17) {
      cluster_variant(cluster_kernel<4, false, true>, 4, false, true, 0);
      cluster_variant(cluster_kernel<4, false, true>, 4, false, true, 120 << 10);
    }
    // The last design timed (mode 2) left its result for input 0 in d_out[0]: the library's
    // correctly rounded Sum of the same input must have the same bits.
    {
      std::size_t b = temp_bytes;
      CK(tcr::DeviceReduce::Sum(d_temp, b, input(n, 0), d_out + launches, n, s, cr));
      float r[2];
      CK(cudaMemcpyAsync(r, d_out, 4, cudaMemcpyDeviceToHost, s));
      CK(cudaMemcpyAsync(r + 1, d_out + launches, 4, cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      std::printf("  probe %.9g, library %.9g: %s\n", r[0], r[1],
                  std::memcmp(r, r + 1, 4) == 0 ? "same bits" : "DIFFERENT");
    }
  }
  return 0;
}
