// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for tcr::DeviceReduce beyond 2^31 elements (64-bit indexing, long per-thread
// chains). Exact references in integer arithmetic: every value is an integer multiple of the
// type's smallest step in the chosen range, so the sums are exact in __int128.
// All cases are "(large)": the sanitizer runs leave them out.
#include <doctest/doctest.h>

#include "reduce/device_test_util.hpp"

namespace {

using namespace tcr::test;

inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// v * 2^-scale_bits as an exact MPFR number.
inline mp from_int128(__int128 v, int scale_bits) {
  const bool neg = v < 0;
  const unsigned __int128 a =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  mp r(256), lo(256);
  mpfr_set_uj_2exp(r.get(), static_cast<std::uint64_t>(a >> 64), 64 - scale_bits, MPFR_RNDN);
  mpfr_set_uj_2exp(lo.get(), static_cast<std::uint64_t>(a), -scale_bits, MPFR_RNDN);
  mpfr_add(r.get(), r.get(), lo.get(), MPFR_RNDN); // exact at 256 bits
  if (neg)
    mpfr_neg(r.get(), r.get(), MPFR_RNDN);
  return r;
}

// n elements of T from value(i) (a double exactly representable in T and a multiple of
// 2^-scale_bits); runs Sum (op::sum) or Asum and checks the float contract.
template <class T, class F>
void check_large(op o, std::int64_t n, int scale_bits, std::uint64_t seed, F value) {
  INFO(op_name(o), "<", type_name<T>(), "> n = ", n, ", seed = ", seed);
  std::vector<T> x(static_cast<std::size_t>(n));
  __int128 s = 0, S = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = value(mix(seed + static_cast<std::uint64_t>(i)));
    x[i] = to_type<T>(v);
    const double back = to_double(x[i]);
    if (back != v)
      FAIL("generator value not representable: ", v);
    const __int128 k = static_cast<__int128>(std::ldexp(back, scale_bits));
    s += o == op::asum ? (k < 0 ? -k : k) : k;
    S += k < 0 ? -k : k;
  }
  device_buffer<T> dx(x.size());
  dx.upload(x);
  x.clear();
  x.shrink_to_fit();
  const float res = run_device<float>(o, dx.get(), dx.get(), n);
  const mp ms = from_int128(s, scale_bits), mS = from_int128(S, scale_bits);
  INFO("result ", res, ", exact ", ms.to_double(), ", error / (|s| + S) ",
       scaled_error(res, ms, mS));
  CHECK(within_bound(res, ms, mS, 0x1p-23, 0x1p-40));
}

// A finite e4m3 value from 64 random bits (every finite encoding alike).
inline double e4m3_value(std::uint64_t r) {
  __nv_fp8_e4m3 t;
  t.__x = static_cast<__nv_fp8_storage_t>(r & 0xff);
  if ((t.__x & 0x7f) == 0x7f)
    t.__x &= 0xfe; // NaN -> 448 (or -448)
  return to_double(t);
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("Sum e4m3, 2^31 + 19 elements (large)") {
    check_large<__nv_fp8_e4m3>(op::sum, (std::int64_t(1) << 31) + 19, 9, 11, e4m3_value);
  }
  TEST_CASE("Sum e5m2 same sign, 2^31 + 3 elements (large)") {
    check_large<__nv_fp8_e5m2>(op::asum, (std::int64_t(1) << 31) + 3, 16, 12, [](std::uint64_t r) {
      __nv_fp8_e5m2 t;
      t.__x = static_cast<__nv_fp8_storage_t>(r & 0x7b); // exponent <= 30: finite
      return to_double(t);
    });
  }
  TEST_CASE("Sum half, 2^31 + 7 elements (large)") {
    check_large<__half>(op::sum, (std::int64_t(1) << 31) + 7, 24, 13, [](std::uint64_t r) {
      unsigned short bits = static_cast<unsigned short>(r & 0xffff);
      if ((bits & 0x7c00) == 0x7c00)
        bits &= 0xbfff; // Inf/NaN -> a finite value
      return to_double(__ushort_as_half(bits));
    });
  }
  TEST_CASE("Sum float, all positive, 2^31 + 3 elements (large)") {
    // Same sign: S = s, the long-chain term 2^-40 S is at its largest relative to s.
    check_large<float>(op::sum, (std::int64_t(1) << 31) + 3, 43, 14, [](std::uint64_t r) {
      const int e = static_cast<int>(r % 41) - 20;                               // 2^-20 .. 2^20
      const double m = 1.0 + static_cast<double>((r >> 8) & 0x7fffff) * 0x1p-23; // 24 bits
      return std::ldexp(m, e);
    });
  }
  TEST_CASE("Sum float, mixed signs, 2^31 + 1 elements (large)") {
    check_large<float>(op::sum, (std::int64_t(1) << 31) + 1, 43, 15, [](std::uint64_t r) {
      const int e = static_cast<int>(r % 41) - 20;
      const double m = 1.0 + static_cast<double>((r >> 8) & 0x7fffff) * 0x1p-23;
      return (r >> 63) ? -std::ldexp(m, e) : std::ldexp(m, e);
    });
  }
}
