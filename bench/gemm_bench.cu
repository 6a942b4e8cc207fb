// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: FP32 GEMM, C = A B (tcr_bench_gemm). tcr::gemm::sgemm (examples/gemm/gemm.cuh)
// at its defaults (Chain 8), at Chain 4 and 16, with one accumulator for all products (Chain 4
// and 8, Cross = false), with three split terms (Chain 4) and with its fused row statistics,
// against cuBLAS on the same float data:
// SGEMM, TF32, FP16 on fp16-rounded copies, the three-GemmEx fp16 split and (where the toolkit
// has it) the BF16x9 emulation. All matrices column-major (cuBLAS's native layout), beta = 0.
//
// Names: gemm/<method>/<data>/<M>x<N>x<K> (speed points) and gemm.ksweep/<method>/<data>/
// 1024x1024x<K> (the error-vs-K sweep: few iterations, its time is a by-product). Data:
//   uniform  x = RN_f32(u), u uniform in [-1, 1) (all 24 bits random)
//   spread   x = +-(1 + f) 2^e, f a random 23-bit fraction, e uniform in [-20, 20]
// each element a function of (seed, index) only (splitmix64), written on the device.
//
// Timing as the other speed programs' (common/timing.hpp): CUDA events around a batch of calls
// queued behind a blocking kernel, Google Benchmark's manual time per call; warm L2 (a GEMM of
// these sizes is compute-bound), one untimed warm-up call first. Every timed call does all its
// method's work: tcr's call includes its split and scaling passes, the three-GemmEx shortcut
// includes the kernel that splits A and B into fp16 hi / lo; FP16 GemmEx times the GEMM alone on
// copies rounded once before (its speed ceiling). Counters:
//   median_ms  median time per call over the samples
//   TFLOPs     2 M N K / median_ms
//   error      max_ij |C_ij - D_ij| / max_ij |D_ij|, D = cuBLAS DGEMM of the same floats as
//              doubles (computed once per data set and shape, outside the timed loop); -1 when
//              C holds a non-finite entry (nonfinite = 1: fp16 methods overflow on spread data)
//   M, N, K, batch, ksweep (1 for the sweep's cases), sm_clock_mhz, clock_ratio
//
// Flags of its own (the rest go to Google Benchmark, e.g. --benchmark_filter=REGEX,
// --benchmark_out=FILE --benchmark_out_format=json):
//   --tcr_min_time=S (0.2)  --tcr_repetitions=N (1)  --tcr_no_gate
//   --tcr_list  print the benchmark names and what each method is, and exit (needs no GPU)
// --benchmark_list_tests also works without a GPU; anything else without one exits 1.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <tcr/examples/gemm/gemm.cuh>
#include "common/harness.hpp"
#include "common/timing.hpp"

// cuBLAS's BF16x9 emulation (CUBLAS_COMPUTE_32F_EMULATED_16BFX9, an enumerator, not a macro)
// arrived in cuBLAS 12.9.
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120900
#define TCR_BENCH_HAVE_BF16X9 1
#else
#define TCR_BENCH_HAVE_BF16X9 0
#endif

namespace tcr::bench {
namespace {

using tcr::gemm::Layout;

using settings = program_settings;
// Takes the --tcr_* flags out of argv (defaults: 0.2s a sample, 1 repetition).
settings parse(int& argc, char** argv) {
  return parse_program_flags(argc, argv, 0.2, 1);
}

enum class data { uniform, spread };
const char* data_name(data d) {
  return d == data::uniform ? "uniform" : "spread";
}

enum class method {
  tcr,            // sgemm<> (the header's defaults: Chain 8, two accumulators)
  tcr_c4,         // sgemm<4>
  tcr_c16,        // sgemm<16>
  tcr_c4_nocross, // sgemm<4, 2, 3, 64, 2, false>: every product in one accumulator
  tcr_c8_nocross, // sgemm<8, 2, 3, 64, 2, false>
  tcr_t3,         // sgemm<4, 3>: three terms, six products
  tcr_rowstats,   // sgemm<> with row_sum and row_sumsq
  sgemm,
  tf32,
  f16,
  f16x3,
  bf16x9,
};
struct method_info {
  method m;
  const char* id;
  const char* note;
};
constexpr method_info methods[] = {
    {method::tcr, "tcr",
     "tcr::gemm::sgemm<> (the header's defaults: Chain 8, two terms, 3 products, BlockK 64, 2 "
     "stages, two accumulators)"},
    {method::tcr_c4, "tcr.c4", "tcr::gemm::sgemm<4> (Chain 4, BlockK 64, 2 stages)"},
    {method::tcr_c16, "tcr.c16", "tcr::gemm::sgemm<16> (Chain 16, BlockK 64, 2 stages)"},
    {method::tcr_c4_nocross, "tcr.c4.nocross",
     "tcr::gemm::sgemm<4, 2, 3, 64, 2, false> (the cross products in the (hi, hi) accumulator)"},
    {method::tcr_c8_nocross, "tcr.c8.nocross", "tcr::gemm::sgemm<8, 2, 3, 64, 2, false>"},
    {method::tcr_t3, "tcr.t3.c4",
     "tcr::gemm::sgemm<4, 3> (three fp16 terms, 6 products, Chain 4, BlockK 32, 2 stages)"},
    {method::tcr_rowstats, "tcr.rowstats",
     "tcr::gemm::sgemm<> with RowStats{row_sum, row_sumsq} (the fused epilogue)"},
    {method::sgemm, "cublas.sgemm", "cublasSgemm (CUBLAS_DEFAULT_MATH)"},
    {method::tf32, "cublas.tf32", "cublasGemmEx f32, CUBLAS_COMPUTE_32F_FAST_TF32"},
    {method::f16, "cublas.f16",
     "cublasGemmEx on fp16-rounded copies (rounded before, not timed), f32 accumulate and output"},
    {method::f16x3, "cublas.3xf16",
     "A_hi B_hi + 2^-11 (A_hi B_lo + A_lo B_hi) by three cublasGemmEx (fp16 in, f32 out, beta = "
     "1), hi = RN16(x), lo = RN16((x - hi) 2^11); the split kernel is timed"},
    {method::bf16x9, "cublas.bf16x9", "cublasGemmEx f32, CUBLAS_COMPUTE_32F_EMULATED_16BFX9"},
};
const method_info& info(method m) {
  for (const method_info& i : methods)
    if (i.m == m)
      return i;
  return methods[0];
}

// One benchmark: a method on a data set at one shape.
struct point {
  method m;
  data d;
  int M, N, K;
  bool ksweep;
  std::string name() const {
    return std::string(ksweep ? "gemm.ksweep/" : "gemm/") + info(m).id + "/" + data_name(d) + "/" +
           std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  }
  double flops() const { return 2.0 * M * N * static_cast<double>(K); }
};

// Every point, those that share a data set and shape next to each other (Google Benchmark runs
// them in this order; the workload is built once per data set and shape).
std::vector<point> points() {
  std::vector<point> r;
  std::vector<method> all = {method::tcr,
                             method::tcr_c4,
                             method::tcr_c16,
                             method::tcr_c4_nocross,
                             method::tcr_c8_nocross,
                             method::tcr_t3,
                             method::tcr_rowstats,
                             method::sgemm,
                             method::tf32,
                             method::f16,
                             method::f16x3};
  if (TCR_BENCH_HAVE_BF16X9)
    all.push_back(method::bf16x9);
  const int shapes[][3] = {
      {1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192}, {1024, 1024, 65536}};
  for (const auto& s : shapes)
    for (method m : all)
      r.push_back({m, data::uniform, s[0], s[1], s[2], false});
  for (const auto& s : shapes) {
    if (!(s[0] == 4096 || s[2] == 65536))
      continue;
    for (method m : all)
      r.push_back({m, data::spread, s[0], s[1], s[2], false});
  }
  for (data d : {data::uniform, data::spread})
    for (int k : {256, 1024, 4096, 16384, 65536})
      for (method m : {method::tcr, method::tcr_c4, method::tcr_c16, method::tcr_c8_nocross,
                       method::tcr_t3, method::sgemm, method::f16x3, method::tf32})
        r.push_back({m, d, 1024, 1024, k, true});
  return r;
}

// ---- device side: data, conversions, the error ----

__device__ inline double uniform01(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(splitmix64(seed * 0x632be59bd9b4e019ull + i) >> 11) * 0x1p-53;
}

__global__ void fill_kernel(float* x, std::size_t n, std::uint64_t seed, bool spread) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if (!spread) {
      x[i] = static_cast<float>(2 * uniform01(seed, i) - 1);
    } else {
      const std::uint64_t h = splitmix64(seed * 0x9e3779b97f4a7c15ull + i);
      const float mant = 1.f + static_cast<float>(h >> 41) * 0x1p-23f;
      const int e = static_cast<int>((h & 0xffffffu) % 41) - 20;
      x[i] = ((h >> 40) & 1 ? -1.f : 1.f) * ldexpf(mant, e);
    }
  }
}

__global__ void to_double_kernel(const float* x, double* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = x[i];
}

__global__ void to_half_kernel(const float* x, __half* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = __float2half_rn(x[i]);
}

// hi = RN16(x), lo = RN16((x - hi) 2^11) (x - hi is exact in float; the scaling keeps lo out of
// fp16's subnormals for |x| >= 2^-3 or so).
__global__ void split_half_kernel(const float* x, __half* hi, __half* lo, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const __half h = __float2half_rn(x[i]);
    hi[i] = h;
    lo[i] = __float2half_rn(__fmul_rn(__fsub_rn(x[i], __half2float(h)), 2048.f));
  }
}

// out[0] = max |c - d| (as double bits), out[1] = max |d|, out[2] = 1 when c has a non-finite
// entry. Non-negative doubles order as their bits.
__global__ void error_kernel(const float* c, const double* d, std::size_t n,
                             unsigned long long* out) {
  unsigned long long e = 0, m = 0, bad = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double ci = c[i];
    if (!isfinite(ci))
      bad = 1;
    else
      e = max(e, static_cast<unsigned long long>(__double_as_longlong(fabs(ci - d[i]))));
    m = max(m, static_cast<unsigned long long>(__double_as_longlong(fabs(d[i]))));
  }
  for (int off = 16; off > 0; off >>= 1) {
    e = max(e, __shfl_xor_sync(0xffffffffu, e, off));
    m = max(m, __shfl_xor_sync(0xffffffffu, m, off));
    bad = max(bad, __shfl_xor_sync(0xffffffffu, bad, off));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(out + 0, e);
    atomicMax(out + 1, m);
    atomicMax(out + 2, bad);
  }
}

constexpr unsigned grid_for_elementwise = 1024, block_for_elementwise = 256;

// ---- the workload: one data set at one shape, kept while consecutive points share it ----

struct harness {
  timer t;
  cublasHandle_t blas = nullptr;
  // The current workload's key, and what has been built for it.
  std::string key;
  bool have_ref = false, have_half = false;
  device_memory a, b, c;                // float A (M x K), B (K x N), C (M x N), column-major
  device_memory a_d, b_d, ref;          // doubles of A and B, D = A B by DGEMM
  device_memory a16, b16;               // fp16 copies (cublas.f16)
  device_memory a_hi, a_lo, b_hi, b_lo; // the shortcut's split
  device_memory temp, row_sum, row_sumsq, err;
};

bool use_gate = true;

harness& h() {
  static harness* s = [] {
    auto* r = new harness; // never destroyed: CUDA may be torn down before static destructors
    TCR_BENCH_CHECK(cudaStreamCreateWithFlags(&r->t.stream, cudaStreamNonBlocking));
    TCR_BENCH_CHECK(cudaEventCreate(&r->t.start));
    TCR_BENCH_CHECK(cudaEventCreate(&r->t.stop));
    if (use_gate)
      r->t.gate = new stream_gate();
    if (cublasCreate(&r->blas) != CUBLAS_STATUS_SUCCESS)
      throw cuda_error("cublasCreate failed");
    cublasSetMathMode(r->blas, CUBLAS_DEFAULT_MATH);
    cublasSetStream(r->blas, r->t.stream);
    return r;
  }();
  return *s;
}

void check_blas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw cuda_error(std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(s)));
}

std::uint64_t seed_of(const point& p, bool b_matrix) {
  return (p.d == data::uniform ? 1500 : 1600) + (b_matrix ? 1 : 0);
}

// Builds (or keeps) the float inputs of p's data set and shape.
void prepare(const point& p) {
  harness& H = h();
  const std::string key = std::string(data_name(p.d)) + "/" + std::to_string(p.M) + "x" +
                          std::to_string(p.N) + "x" + std::to_string(p.K);
  if (H.key == key)
    return;
  H.key.clear();
  H.have_ref = H.have_half = false;
  const std::size_t na = std::size_t(p.M) * p.K, nb = std::size_t(p.K) * p.N;
  const std::size_t nc = std::size_t(p.M) * p.N;
  auto* a = static_cast<float*>(H.a.reserve(na * 4));
  auto* b = static_cast<float*>(H.b.reserve(nb * 4));
  H.c.reserve(nc * 4);
  const cudaStream_t s = H.t.stream;
  fill_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(a, na, seed_of(p, false),
                                                                     p.d == data::spread);
  fill_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(b, nb, seed_of(p, true),
                                                                     p.d == data::spread);
  TCR_BENCH_CHECK(cudaGetLastError());
  TCR_BENCH_CHECK(cudaStreamSynchronize(s));
  H.key = key;
}

// D = A B in double (cuBLAS DGEMM on the floats as doubles), once per workload.
void prepare_reference(const point& p) {
  harness& H = h();
  if (H.have_ref)
    return;
  const std::size_t na = std::size_t(p.M) * p.K, nb = std::size_t(p.K) * p.N;
  const std::size_t nc = std::size_t(p.M) * p.N;
  auto* ad = static_cast<double*>(H.a_d.reserve(na * 8));
  auto* bd = static_cast<double*>(H.b_d.reserve(nb * 8));
  auto* d = static_cast<double*>(H.ref.reserve(nc * 8));
  const cudaStream_t s = H.t.stream;
  to_double_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(
      static_cast<const float*>(H.a.get()), ad, na);
  to_double_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(
      static_cast<const float*>(H.b.get()), bd, nb);
  TCR_BENCH_CHECK(cudaGetLastError());
  const double one = 1, zero = 0;
  check_blas(cublasDgemm(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, p.M, p.N, p.K, &one, ad, p.M, bd, p.K,
                         &zero, d, p.M),
             "cublasDgemm (reference)");
  TCR_BENCH_CHECK(cudaStreamSynchronize(s));
  H.have_ref = true;
}

void prepare_half(const point& p) {
  harness& H = h();
  if (H.have_half)
    return;
  const std::size_t na = std::size_t(p.M) * p.K, nb = std::size_t(p.K) * p.N;
  const cudaStream_t s = H.t.stream;
  to_half_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(
      static_cast<const float*>(H.a.get()), static_cast<__half*>(H.a16.reserve(na * 2)), na);
  to_half_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(
      static_cast<const float*>(H.b.get()), static_cast<__half*>(H.b16.reserve(nb * 2)), nb);
  TCR_BENCH_CHECK(cudaGetLastError());
  TCR_BENCH_CHECK(cudaStreamSynchronize(s));
  H.have_half = true;
}

// tcr::gemm::sgemm<Tuning...> (none: the defaults).
template <auto... Tuning>
cudaError_t tcr_call(const point& p, bool stats) {
  harness& H = h();
  const auto* a = static_cast<const float*>(H.a.get());
  const auto* b = static_cast<const float*>(H.b.get());
  auto* c = static_cast<float*>(H.c.get());
  std::size_t bytes = 0;
  cudaError_t e = tcr::gemm::sgemm<Tuning...>(nullptr, bytes, Layout::col_major, Layout::col_major,
                                              Layout::col_major, p.M, p.N, p.K, 1.f, a, p.M, b, p.K,
                                              0.f, c, p.M, H.t.stream);
  if (e != cudaSuccess)
    return e;
  void* temp = H.temp.reserve(std::max<std::size_t>(bytes, 256)); // no-op once large enough
  tcr::gemm::RowStats st{};
  if (stats) {
    st.row_sum = static_cast<float*>(H.row_sum.reserve(std::size_t(p.M) * 4));
    st.row_sumsq = static_cast<float*>(H.row_sumsq.reserve(std::size_t(p.M) * 4));
  }
  return tcr::gemm::sgemm<Tuning...>(temp, bytes, Layout::col_major, Layout::col_major,
                                     Layout::col_major, p.M, p.N, p.K, 1.f, a, p.M, b, p.K, 0.f, c,
                                     p.M, H.t.stream, st);
}

cudaError_t blas_status(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

// The shortcut: split (timed), then three GemmEx accumulating into C.
cudaError_t f16x3_call(const point& p) {
  harness& H = h();
  const std::size_t na = std::size_t(p.M) * p.K, nb = std::size_t(p.K) * p.N;
  auto* ah = static_cast<__half*>(H.a_hi.reserve(na * 2));
  auto* al = static_cast<__half*>(H.a_lo.reserve(na * 2));
  auto* bh = static_cast<__half*>(H.b_hi.reserve(nb * 2));
  auto* bl = static_cast<__half*>(H.b_lo.reserve(nb * 2));
  const cudaStream_t s = H.t.stream;
  split_half_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(
      static_cast<const float*>(H.a.get()), ah, al, na);
  split_half_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(
      static_cast<const float*>(H.b.get()), bh, bl, nb);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return e;
  auto* c = H.c.get();
  const float one = 1, zero = 0, scale = 0x1p-11f;
  auto gemm = [&](const __half* x, const __half* y, const float* alpha, const float* beta) {
    return cublasGemmEx(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, p.M, p.N, p.K, alpha, x, CUDA_R_16F, p.M,
                        y, CUDA_R_16F, p.K, beta, c, CUDA_R_32F, p.M, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT);
  };
  cublasStatus_t st = gemm(ah, bh, &one, &zero);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = gemm(ah, bl, &scale, &one);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = gemm(al, bh, &scale, &one);
  return blas_status(st);
}

// One call of p's method on the current workload; cuBLAS's status (when it is one) in *blas.
cudaError_t call(const point& p, cublasStatus_t* blas = nullptr) {
  harness& H = h();
  const auto* a = static_cast<const float*>(H.a.get());
  const auto* b = static_cast<const float*>(H.b.get());
  auto* c = static_cast<float*>(H.c.get());
  const float one = 1, zero = 0;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  switch (p.m) {
  case method::tcr:
    return tcr_call<>(p, false);
  case method::tcr_c4:
    return tcr_call<4>(p, false);
  case method::tcr_c16:
    return tcr_call<16>(p, false);
  case method::tcr_c4_nocross:
    return tcr_call<4, 2, 3, 64, 2, false>(p, false);
  case method::tcr_c8_nocross:
    return tcr_call<8, 2, 3, 64, 2, false>(p, false);
  case method::tcr_t3:
    return tcr_call<4, 3>(p, false);
  case method::tcr_rowstats:
    return tcr_call<>(p, true);
  case method::sgemm:
    st = cublasSgemm(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, p.M, p.N, p.K, &one, a, p.M, b, p.K, &zero,
                     c, p.M);
    break;
  case method::tf32:
    st = cublasGemmEx(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, p.M, p.N, p.K, &one, a, CUDA_R_32F, p.M, b,
                      CUDA_R_32F, p.K, &zero, c, CUDA_R_32F, p.M, CUBLAS_COMPUTE_32F_FAST_TF32,
                      CUBLAS_GEMM_DEFAULT);
    break;
  case method::f16:
    st = cublasGemmEx(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, p.M, p.N, p.K, &one, H.a16.get(),
                      CUDA_R_16F, p.M, H.b16.get(), CUDA_R_16F, p.K, &zero, c, CUDA_R_32F, p.M,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    break;
  case method::f16x3:
    return f16x3_call(p);
  case method::bf16x9:
#if TCR_BENCH_HAVE_BF16X9
    st = cublasGemmEx(H.blas, CUBLAS_OP_N, CUBLAS_OP_N, p.M, p.N, p.K, &one, a, CUDA_R_32F, p.M, b,
                      CUDA_R_32F, p.K, &zero, c, CUDA_R_32F, p.M,
                      CUBLAS_COMPUTE_32F_EMULATED_16BFX9, CUBLAS_GEMM_DEFAULT);
#else
    st = CUBLAS_STATUS_NOT_SUPPORTED;
#endif
    break;
  }
  if (blas)
    *blas = st;
  return blas_status(st);
}

struct error_result {
  double error = 0; // max |C - D| / max |D|
  bool nonfinite = false;
};

error_result measure_error(const point& p) {
  harness& H = h();
  auto* out = static_cast<unsigned long long*>(H.err.reserve(3 * sizeof(unsigned long long)));
  const cudaStream_t s = H.t.stream;
  TCR_BENCH_CHECK(cudaMemsetAsync(out, 0, 3 * sizeof(unsigned long long), s));
  error_kernel<<<grid_for_elementwise, block_for_elementwise, 0, s>>>(
      static_cast<const float*>(H.c.get()), static_cast<const double*>(H.ref.get()),
      std::size_t(p.M) * p.N, out);
  TCR_BENCH_CHECK(cudaGetLastError());
  unsigned long long host[3];
  TCR_BENCH_CHECK(cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, s));
  TCR_BENCH_CHECK(cudaStreamSynchronize(s));
  double e, m;
  std::memcpy(&e, &host[0], 8);
  std::memcpy(&m, &host[1], 8);
  return {m > 0 ? e / m : e, host[2] != 0};
}

// Calls per sample: about 2 ms of work at 50 TFLOP/s, 1 .. 16 (the sweep: 1).
int batch_of(const point& p) {
  if (p.ksweep)
    return 1;
  const double est_s = p.flops() / 50e12;
  return std::clamp(static_cast<int>(std::ceil(2e-3 / est_s)), 1, 16);
}

void run_point(benchmark::State& state, const point& p) {
  const int batch = batch_of(p);
  error_result err;
  try {
    harness& H = h();
    prepare(p);
    prepare_reference(p);
    if (p.m == method::f16)
      prepare_half(p);
    cublasStatus_t blas = CUBLAS_STATUS_SUCCESS;
    const cudaError_t e = call(p, &blas); // warm-up, and the C the error is measured on
    if (blas != CUBLAS_STATUS_SUCCESS) {
      cudaGetLastError();
      const std::string st = std::to_string(static_cast<int>(blas));
      state.SkipWithError((p.m == method::bf16x9
                               ? "unsupported: cuBLAS refuses CUBLAS_COMPUTE_32F_EMULATED_16BFX9 "
                                 "here (status " +
                                     st + ")"
                               : "cuBLAS status " + st)
                              .c_str());
      return;
    }
    check(e, "warm-up call");
    TCR_BENCH_CHECK(cudaStreamSynchronize(H.t.stream));
    err = measure_error(p);
  } catch (const std::exception& ex) {
    state.SkipWithError(ex.what());
    return;
  }
  harness& H = h();
  timed r;
  if (!time_batches(
          state, H.t, batch, false, [&](int) { return call(p); }, r))
    return;
  add_clock_counters(state, H.t.stream);
  const double median = r.median();
  using benchmark::Counter;
  state.counters["median_ms"] = Counter(median * 1e3);
  state.counters["TFLOPs"] = Counter(median > 0 ? p.flops() / median * 1e-12 : 0);
  state.counters["error"] = Counter(err.nonfinite ? -1.0 : err.error);
  state.counters["nonfinite"] = Counter(err.nonfinite ? 1 : 0);
  state.counters["M"] = Counter(p.M);
  state.counters["N"] = Counter(p.N);
  state.counters["K"] = Counter(p.K);
  state.counters["batch"] = Counter(batch);
  state.counters["ksweep"] = Counter(p.ksweep ? 1 : 0);
}

void register_all(const settings& s) {
  for (const point& p : points()) {
    auto* b = benchmark::RegisterBenchmark(p.name().c_str(),
                                           [p](benchmark::State& st) { run_point(st, p); });
    if (p.ksweep) // the error is what matters: three samples
      b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3)->Repetitions(1);
    else
      timed_in_batches(b, s.min_time, s.repetitions, batch_of(p))->Unit(benchmark::kMillisecond);
  }
}

void add_context(const settings& s) {
  add_device_context();
  auto add = [](const std::string& k, const std::string& v) { benchmark::AddCustomContext(k, v); };
  add("tcr_min_time", std::to_string(s.min_time));
  add("tcr_repetitions", std::to_string(s.repetitions));
  add("tcr_gate", s.gate ? "on" : "off");
  add("cublas_version", std::to_string(CUBLAS_VERSION));
  for (const method_info& m : methods)
    add(std::string("method:") + m.id, m.note);
}

} // namespace
} // namespace tcr::bench

int main(int argc, char** argv) {
  using namespace tcr::bench;
  const settings s = parse(argc, argv);
  use_gate = s.gate;
  return run_program(
      argc, argv, "tcr_bench_gemm", s.list,
      [] {
        for (const point& p : points())
          std::printf("%-48s %s\n", p.name().c_str(), info(p.m).note);
        return !points().empty();
      },
      [&] { register_all(s); }, [&] { add_context(s); });
}
