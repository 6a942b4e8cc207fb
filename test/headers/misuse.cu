// SPDX-License-Identifier: BSD-3-Clause
// Misuses of DeviceReduce, one per value of TCR_MISUSE, each compiled by a ctest
// (tcr_headers_reject_*, test/headers/CMakeLists.txt) that expects tcr's static_assert message:
// a misuse must cost one readable error, not pages of template errors.
#include <cstdint>
#include <tcr/reduce/device.cuh>

namespace {
struct negate_op {
  __host__ __device__ float operator()(float x) const { return -x; }
};
struct point {
  float x, y;
};
} // namespace

cudaError_t misuse(void* t, std::size_t& b, const float* x, float* out, int n) {
#if TCR_MISUSE == 1 // a one-argument op given to Reduce
  return tcr::DeviceReduce::Reduce(t, b, x, out, n, negate_op{}, 0.0f);
#elif TCR_MISUSE == 2 // Nrm2 of integers
  return tcr::DeviceReduce::Nrm2(t, b, reinterpret_cast<const int*>(x), out, n);
#elif TCR_MISUSE == 3 // Sum of a value type that is neither floating-point nor integer
  return tcr::DeviceReduce::Sum(t, b, reinterpret_cast<const point*>(x), out, n);
#elif TCR_MISUSE == 4 // num_items not an integer
  return tcr::DeviceReduce::Sum(t, b, x, out, 1.5 * n);
#elif TCR_MISUSE == 5 // Dot of 64-bit integers (products need 128 bits)
  const auto* i = reinterpret_cast<const std::int64_t*>(x);
  return tcr::DeviceReduce::Dot(t, b, i, i, reinterpret_cast<std::int64_t*>(out), n);
#elif TCR_MISUSE == 6 // Min of a type without numeric_limits (no value for an empty input)
  return tcr::DeviceReduce::Min(t, b, reinterpret_cast<const point*>(x),
                                reinterpret_cast<point*>(out), n);
#elif TCR_MISUSE == 7 // a floating-point sum into an integer
  return tcr::DeviceReduce::Sum(t, b, x, reinterpret_cast<int*>(out), n);
#elif TCR_MISUSE == 8 // a certified<float> result of double inputs
  return tcr::DeviceReduce::Sum(t, b, reinterpret_cast<const double*>(x),
                                reinterpret_cast<tcr::certified<float>*>(out), n);
#elif TCR_MISUSE == 9 // a certified result of integers
  return tcr::DeviceReduce::Sum(t, b, reinterpret_cast<const int*>(x),
                                reinterpret_cast<tcr::certified<double>*>(out), n);
#else
#error "TCR_MISUSE must be 1..9"
#endif
}
