// SPDX-License-Identifier: BSD-3-Clause
// tcr: characterises the warp-level tile reduction (mma/tile_sum.cuh) on the local GPU: for each
// input type (f16, bf16, e4m3 native and through f16, e5m2 native and in two bands through f16,
// float split into bf16 parts), each
// accumulation policy (chain_in_tensor_core, fold_out) and chain length R = 1..8, the error of
// lane_tile_sum (lane shares merged by tcr::WarpReduce) against exact MPFR sums on adversarial
// data, next to the model bound of mma/tile_sum.cuh. The lane accumulator is a double so that only
// the tensor cores' error shows (folding the D values in double along a tree of height h <= 2 * 24
// + 3 adds at most gamma_h * 2S < 2^-46 S, far below the errors measured, except for the exact
// paths, where the folds are exact too: multiples of 2^-9 below 2^30).
//
//   tcr_mma_characterize OUT.json [warps]
//
// Data sets (per warp, R tiles): same_sign_wide (positive, exponents uniform over the type's
// range: the truncation bias shows), same_sign_narrow (positive in [1, 2): C grows past the
// products, the long-chain case), mixed_sign_wide (random signs). Per record: max and mean of
// |err| / S (S = sum |x|), max |err| / |s|, the fraction of warps whose result is below the exact
// sum (truncation toward zero gives 1 on positive data), and the model bound divided by S.
#include <cuda_runtime.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <utility>
#include <vector>
#include <tcr/mma/tile_sum.cuh>
#include <tcr/reduce/warp.cuh> // the lanes' shares merged by the warp layer

namespace {

using namespace tcr::mma;

#define CHECK_CUDA(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

template <class In, class Policy, tile_path Path, int R>
__global__ void characterize_kernel(const In* g, double* g_out) {
  constexpr int tile = lane_tile<In>::tile_elements;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const In* base = g + static_cast<long>(warp) * R * tile;
  lane_tile<In> t[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    t[r] = load_lane_tile(base + r * tile);
  double r_acc = 0;
  lane_tile_sum<Policy, Path>(t, r_acc);
  const double total = tcr::WarpReduce<double>().Sum(share_of(r_acc));
  if ((threadIdx.x & 31) == 0)
    g_out[warp] = total;
}

template <class In>
const char* type_name(tile_path path) {
  if constexpr (std::is_same_v<In, float>)
    return "f32_bf16x3";
  else if constexpr (std::is_same_v<In, __half>)
    return "f16";
  else if constexpr (std::is_same_v<In, __nv_bfloat16>)
    return "bf16";
  else if constexpr (std::is_same_v<In, __nv_fp8_e4m3>)
    return path == tile_path::exact_f16 ? "e4m3_via_f16" : "e4m3";
  else
    return path == tile_path::exact_bands_f16 ? "e5m2_bands_f16" : "e5m2";
}

template <class In>
void exponent_range(int& lo, int& hi) {
  if constexpr (std::is_same_v<In, __half>)
    lo = -24, hi = 14;
  else if constexpr (std::is_same_v<In, __nv_bfloat16>)
    lo = -40, hi = 40;
  else if constexpr (std::is_same_v<In, __nv_fp8_e4m3>)
    lo = -9, hi = 7;
  else if constexpr (std::is_same_v<In, __nv_fp8_e5m2>)
    lo = -16, hi = 14;
  else
    lo = -40, hi = 40;
}

struct record {
  std::string type, policy, data;
  int R;
  double max_err_s, mean_err_s, max_rel, frac_below, bound_s;
  int warps;
};

double exact_minus(const std::vector<double>& xs, double res, double& s_out) {
  std::vector<__mpfr_struct> t(xs.size());
  std::vector<mpfr_ptr> p(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    mpfr_init2(&t[i], 64);
    mpfr_set_d(&t[i], xs[i], MPFR_RNDN);
    p[i] = &t[i];
  }
  mpfr_t s, d;
  mpfr_init2(s, 400); // data spans < 2^-150 .. 2^60 and n < 2^13: exact
  mpfr_init2(d, 500);
  mpfr_sum(s, p.data(), p.size(), MPFR_RNDN);
  s_out = mpfr_get_d(s, MPFR_RNDN);
  mpfr_sub_d(d, s, res, MPFR_RNDN);             // exact at 500 bits
  const double diff = mpfr_get_d(d, MPFR_RNDN); // exact - result
  for (auto& x : t)
    mpfr_clear(&x);
  mpfr_clear(s);
  mpfr_clear(d);
  return diff;
}

template <class In, class Policy, tile_path Path, int R>
void measure(std::vector<record>& out, int warps, std::uint64_t seed) {
  constexpr int tile = lane_tile<In>::tile_elements;
  const std::size_t per_warp = std::size_t(R) * tile;
  int elo, ehi;
  exponent_range<In>(elo, ehi);
  for (const char* data : {"same_sign_wide", "same_sign_narrow", "mixed_sign_wide"}) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> mant(1.f, 2.f);
    std::uniform_int_distribution<int> ex(elo, ehi);
    std::vector<In> v(per_warp * warps);
    const std::string d = data;
    for (auto& x : v) {
      float f = d == "same_sign_narrow" ? mant(rng) : std::ldexp(mant(rng), ex(rng));
      if (d == "mixed_sign_wide" && (rng() & 1))
        f = -f;
      x = In(f);
    }
    In* d_in;
    double* d_out;
    CHECK_CUDA(cudaMalloc(&d_in, v.size() * sizeof(In)));
    CHECK_CUDA(cudaMalloc(&d_out, warps * sizeof(double)));
    CHECK_CUDA(cudaMemcpy(d_in, v.data(), v.size() * sizeof(In), cudaMemcpyHostToDevice));
    characterize_kernel<In, Policy, Path, R><<<warps / 4, 128>>>(d_in, d_out);
    CHECK_CUDA(cudaGetLastError());
    std::vector<double> res(warps);
    CHECK_CUDA(cudaMemcpy(res.data(), d_out, warps * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_out));
    record r{type_name<In>(Path),
             std::is_same_v<Policy, fold_out> ? "fold_out" : "chain_in_tensor_core",
             data,
             R,
             0,
             0,
             0,
             0,
             0,
             warps};
    for (int w = 0; w < warps; ++w) {
      std::vector<double> xs(per_warp);
      double S = 0;
      for (std::size_t i = 0; i < per_warp; ++i) {
        xs[i] = double(float(v[w * per_warp + i]));
        S += std::fabs(xs[i]);
      }
      double s = 0;
      const double diff = exact_minus(xs, res[w], s);
      const double e = std::fabs(diff) / S;
      r.max_err_s = std::max(r.max_err_s, e);
      r.mean_err_s += e / warps;
      if (s != 0)
        r.max_rel = std::max(r.max_rel, std::fabs(diff / s));
      if (diff > 0)
        r.frac_below += 1.0 / warps;
    }
    r.bound_s = Path != tile_path::native
                    ? 0.0
                    : tile_error_bound(chain_steps<In, Policy, Path>(R), 16, 24, 1.0);
    std::printf("%-14s %-21s %-17s R=%d  max|err|/S %.3e  mean %.3e  max rel %.3e  below %.2f  "
                "bound/S %.3e\n",
                r.type.c_str(), r.policy.c_str(), r.data.c_str(), R, r.max_err_s, r.mean_err_s,
                r.max_rel, r.frac_below, r.bound_s);
    out.push_back(r);
    seed += 7919;
  }
}

template <class In, class Policy, tile_path Path, int... Rs>
void measure_all(std::vector<record>& out, int warps, std::uint64_t seed,
                 std::integer_sequence<int, Rs...>) {
  (measure<In, Policy, Path, Rs + 1>(out, warps, seed + 100 * Rs), ...);
}

template <class In, tile_path Path = tile_path::native>
void measure_type(std::vector<record>& out, int warps, std::uint64_t seed) {
  measure_all<In, chain_in_tensor_core, Path>(out, warps, seed,
                                              std::make_integer_sequence<int, 8>{});
  measure_all<In, fold_out, Path>(out, warps, seed + 50000, std::make_integer_sequence<int, 8>{});
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.json [warps]\n", argv[0]);
    return 2;
  }
  const int warps = argc > 2 ? std::atoi(argv[2]) : 256;
  if (warps < 4 || warps % 4) {
    std::fprintf(stderr, "warps must be a positive multiple of 4\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (sm_%d%d), warps per record: %d, base seed 424242\n", prop.name,
              prop.major, prop.minor, warps);
  std::vector<record> out;
  const std::uint64_t seed = 424242;
  measure_type<__half>(out, warps, seed);
  measure_type<__nv_bfloat16>(out, warps, seed + 1000000);
  measure_type<__nv_fp8_e4m3>(out, warps, seed + 2000000);
  measure_type<__nv_fp8_e4m3, tile_path::exact_f16>(out, warps, seed + 3000000);
  measure_type<__nv_fp8_e5m2>(out, warps, seed + 4000000);
  measure_type<__nv_fp8_e5m2, tile_path::exact_bands_f16>(out, warps, seed + 4500000);
  measure_type<float>(out, warps, seed + 5000000);

  FILE* f = std::fopen(argv[1], "w");
  if (!f) {
    std::perror(argv[1]);
    return 1;
  }
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::fprintf(f, "{\n  \"program\": \"tcr_mma_characterize\",\n  \"device\": \"%s\",\n",
               prop.name);
  std::fprintf(
      f,
      "  \"sm\": %d,\n  \"date\": \"%s\",\n  \"warps_per_record\": %d,\n  \"base_seed\": %llu,\n",
      prop.major * 10 + prop.minor, date, warps, (unsigned long long)seed);
  std::fprintf(f,
               "  \"model_bound\": \"tile_error_bound(steps, 16, 24, S) of mma/tile_sum.cuh\",\n");
  std::fprintf(f, "  \"records\": [\n");
  for (std::size_t i = 0; i < out.size(); ++i) {
    const record& r = out[i];
    std::fprintf(f,
                 "    {\"type\": \"%s\", \"policy\": \"%s\", \"data\": \"%s\", \"R\": %d, "
                 "\"max_err_over_S\": %.6e, \"mean_err_over_S\": %.6e, \"max_rel_err\": %.6e, "
                 "\"frac_below_exact\": %.4f, \"bound_over_S\": %.6e}%s\n",
                 r.type.c_str(), r.policy.c_str(), r.data.c_str(), r.R, r.max_err_s, r.mean_err_s,
                 r.max_rel, r.frac_below, r.bound_s, i + 1 < out.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
  std::printf("wrote %s (%zu records)\n", argv[1], out.size());
  return 0;
}
