// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks, an experiment for issue 13's small sizes (notes/gpu-runs.md, session 18: a
// certify-or-fall-back correctly rounded Sum): the f32 Sum into tcr::certified<double>
// (compensated, one launch), then a decision kernel that waits for it and writes RN_float(s) where
// the certificate decides it (RN_float(RD(v - b)) == RN_float(RU(v + b)): RN is monotone), NaN
// where a fall-back would run. What it measures is the cost of the second launch, the part a real
// fall-back adds when the certificate holds:
//   tcr.cert2.plain  the decision kernel launched as usual (one block)
//   tcr.cert2.pdl    the same with programmatic dependent launch (sm_90: the launch attribute,
//                    griddepcontrol.wait in the kernel), which lets it be launched early
//   tcr.cert2.grid   PDL with the exact kernel's grid size (blocks that return at once when the
//                    certificate holds, as a fall-back grid would)
// The decided float replaces the pair in the output (tcr_accuracy reads it; NaN: a fall-back).
// Compare with tcr.certified.automatic (the first kernel alone) and cub of sum/f32.
#include "common/tcr_cases.cuh"

namespace tcr::bench {
namespace {

// Waits for the preceding kernel (a no-op where the launch was not programmatic), then block 0's
// thread 0 decides; other blocks return (a fall-back grid's blocks when the certificate holds).
__global__ void decide_kernel(const certified<double>* c, float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  const double v = c->value;
  const double b = c->error_bound;
  asm volatile("" ::: "memory"); // out may be c's own storage: the loads come first
  const float lo = __double2float_rn(__dsub_rd(v, b));
  const float hi = __double2float_rn(__dadd_ru(v, b));
  *out = lo == hi ? lo : __int_as_float(0x7fc00000);
}

cudaError_t launch_decide(const certified<double>* c, float* out, cudaStream_t stream, int grid,
                          bool pdl) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(32);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = pdl ? 1 : 0;
  return cudaLaunchKernelEx(&config, decide_kernel, c, out);
}

void add_case(const char* suffix, const char* what, int grid, bool pdl) {
  bench_case c;
  c.op = op_kind::sum;
  c.type = dtype::f32;
  c.method = std::string("tcr.cert2.") + suffix;
  c.note = std::string("tcr::DeviceReduce::Sum into certified<double>, then a decision kernel (") +
           what + "): experiment";
  c.call = [grid, pdl](void* temp, std::size_t& bytes, const call_args& a) {
    auto* cert = static_cast<certified<double>*>(a.out);
    const cudaError_t e =
        DeviceReduce::Sum(temp, bytes, static_cast<const float*>(a.x), cert, a.n, a.stream);
    if (e != cudaSuccess || temp == nullptr)
      return e;
    // The decision replaces the pair: tcr_accuracy reads a float there (NaN: a fall-back).
    return launch_decide(cert, static_cast<float*>(a.out), a.stream, grid, pdl);
  };
  cases().push_back(std::move(c));
}

const case_adder add{[] {
  add_case("plain", "plain launch, one block", 1, false);
  add_case("pdl", "programmatic dependent launch, one block", 1, true);
  add_case("grid", "programmatic dependent launch, 396 blocks", 396, true);
}};

} // namespace
} // namespace tcr::bench
