// SPDX-License-Identifier: BSD-3-Clause
// The compensated/ workload on the device (gpu suite): every result must be bitwise the host's
// (nvcc's default -fmad=true contracts wherever it may; the numerics pin their rounding), and
// the digest the recorded one. The host tests prove the bounds; equality carries them over.
#include <doctest/doctest.h>

#include <cinttypes>
#include <cstdio>
#include <vector>
#include "support/cuda_check.hpp"
#include "workload.hpp"

namespace {

__global__ void workload_kernel(const double* x, const double* y, const float* xf, const float* yf,
                                const __half* xh, double* out, int* count) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= tcr::test::workload_chunks)
    return;
  const std::size_t o = std::size_t(c) * tcr::test::workload_chunk;
  const int k = tcr::test::run_workload_chunk(x + o, y + o, xf + o, yf + o, xh + o,
                                              out + std::size_t(c) * tcr::test::workload_outputs);
  count[c] = k;
}

bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("device compensated/ results are bitwise the host's") {
    using namespace tcr::test;
    const workload_input in = make_workload_input();
    const std::vector<double> host = run_workload_host(in);
    REQUIRE(host.size() == std::size_t(workload_chunks) * workload_outputs);

    device_buffer<double> dx(in.x), dy(in.y);
    device_buffer<float> dxf(in.xf), dyf(in.yf);
    device_buffer<__half> dxh(in.xh);
    device_buffer<double> dout(std::vector<double>(host.size(), 0.0));
    device_buffer<int> dcount(std::vector<int>(workload_chunks, 0));
    workload_kernel<<<(workload_chunks + 31) / 32, 32>>>(dx.get(), dy.get(), dxf.get(), dyf.get(),
                                                         dxh.get(), dout.get(), dcount.get());
    TCR_CHECK_CUDA(cudaGetLastError());
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<double> dev = dout.download();
    const std::vector<int> count = dcount.download();
    for (int c = 0; c < workload_chunks; ++c)
      REQUIRE(count[c] <= workload_outputs);

    int mismatches = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
      if (!same_bits(host[i], dev[i]) && mismatches++ < 20) {
        INFO("chunk ", i / workload_outputs, ", result ", i % workload_outputs, ": host ", host[i],
             ", device ", dev[i]);
        CHECK(same_bits(host[i], dev[i]));
      }
    }
    CHECK(mismatches == 0);
    char text[32];
    std::snprintf(text, sizeof text, "0x%016" PRIx64, workload_digest(dev));
    INFO("device digest = ", text);
    CHECK(workload_digest(dev) == workload_expected_digest);
  }
}
