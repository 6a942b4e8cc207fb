// SPDX-License-Identifier: BSD-3-Clause
// tcr tests for reduce/device.cuh: data in every input type, padded device copies, and one
// helper that runs an operation through the two-phase API and checks its proven bound.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>
#include <tcr/reduce/device.cuh>
#include "reduce/device_check.hpp"
#include "support/cuda_check.hpp"
#include "support/gen.hpp"

namespace tcr::test {

template <class T>
double max_finite();

// Rounds a double to T (to nearest); finite values beyond T's range saturate to its largest
// finite value (test data never overflow by accident), Inf and NaN stay.
template <class T>
T to_type(double v) {
  if (std::isfinite(v) && std::fabs(v) > max_finite<T>())
    v = std::copysign(max_finite<T>(), v);
  if constexpr (std::is_same_v<T, double>)
    return v;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(v);
  else if constexpr (std::is_same_v<T, __half>)
    return __double2half(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __double2bfloat16(v);
  else if constexpr (std::is_same_v<T, __nv_fp8_e5m2>) {
    T t(v); // the constructor saturates; e5m2 has infinities
    if (std::isinf(v))
      t.__x = v > 0 ? 0x7c : 0xfc;
    return t;
  } else
    return T(v);
}
template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return static_cast<double>(static_cast<float>(v));
}
template <class T>
T quiet_nan() {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(0x7e00);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __ushort_as_bfloat16(0x7fc0);
  } else {
    T t;
    t.__x = 0x7f; // NaN in both fp8 formats
    return t;
  }
}
template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, __half>)
    return "half";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return "bfloat16";
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>)
    return "e4m3";
  else
    return "e5m2";
}
// The largest finite value of T, as a double.
template <class T>
double max_finite() {
  if constexpr (std::is_same_v<T, double>)
    return std::numeric_limits<double>::max();
  else if constexpr (std::is_same_v<T, float>)
    return std::numeric_limits<float>::max();
  else if constexpr (std::is_same_v<T, __half>)
    return 65504.0;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return 0x1.fep127;
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>)
    return 448.0;
  else
    return 57344.0;
}

// Data of T: the values actually stored (doubles, exact) and the T array.
template <class T>
struct typed_data {
  std::vector<T> t;
  std::vector<double> d;
  explicit typed_data(const std::vector<double>& v) : t(v.size()), d(v.size()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      t[i] = to_type<T>(v[i]);
      d[i] = to_double(t[i]);
    }
  }
};

// Random values of T: sign random, magnitude 2^U[emin, emax] * U[1, 2), rounded to T.
template <class T>
typed_data<T> typed_random(std::size_t n, std::uint64_t seed, int emin = -8, int emax = 8) {
  rng64 rng(seed);
  std::vector<double> v(n);
  for (auto& x : v)
    x = std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emax))) * (rng.coin() ? 1 : -1);
  return typed_data<T>(v);
}

// A device copy of x at element offset `offset` of a buffer padded with NaNs on both sides, so a
// read outside [0, n) poisons the result.
template <class T>
class padded_device {
public:
  padded_device(const std::vector<T>& x, std::size_t offset)
      : offset_(offset), buf_(x.size() + offset + 64) {
    std::vector<T> host(buf_.size(), quiet_nan<T>());
    if (!x.empty())
      std::memcpy(host.data() + offset, x.data(), x.size() * sizeof(T));
    buf_.upload(host);
  }
  const T* get() const { return buf_.get() + offset_; }

private:
  std::size_t offset_;
  device_buffer<T> buf_;
};

enum class op { sum, asum, dot, nrm2 };

inline const char* op_name(op o) {
  switch (o) {
  case op::sum:
    return "Sum";
  case op::asum:
    return "Asum";
  case op::dot:
    return "Dot";
  default:
    return "Nrm2";
  }
}

// Temporary storage of `bytes`, filled with a non-zero pattern (never assumed zero; also keeps
// compute-sanitizer initcheck quiet about the arrival word).
class temp_storage {
public:
  // cudaMemset returns before it completes and runs on the legacy default stream, which
  // non-blocking streams do not wait for: synchronise, or a call on such a stream could see the
  // fill land in the middle of its arrival protocol.
  explicit temp_storage(std::size_t bytes, int pattern = 0xa5) : buf_(bytes) {
    TCR_CHECK_CUDA(cudaMemset(buf_.get(), pattern, bytes));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
  }
  void* get() const { return buf_.get(); }

private:
  device_buffer<unsigned char> buf_;
};

// One call through the two-phase API, call(temp, bytes, out) (the size query with temp and out
// null), on non-zero temporary storage; returns the one result.
template <class Out, class Call>
Out run_two_phase(const Call& call) {
  std::size_t bytes = 0;
  TCR_CHECK_CUDA(call(nullptr, bytes, static_cast<Out*>(nullptr)));
  temp_storage temp(bytes);
  device_buffer<Out> out(1);
  TCR_CHECK_CUDA(call(temp.get(), bytes, out.get()));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download()[0];
}

// Calls the operation (two-phase form) on device pointers.
template <class InX, class InY, class Out>
cudaError_t call(op o, void* temp, std::size_t& bytes, const InX* x, const InY* y, Out* out,
                 std::int64_t n, cudaStream_t stream = 0, ReduceOptions opt = {}) {
  switch (o) {
  case op::sum:
    return DeviceReduce::Sum(temp, bytes, x, out, n, stream, opt);
  case op::asum:
    return DeviceReduce::Asum(temp, bytes, x, out, n, stream, opt);
  case op::dot:
    return DeviceReduce::Dot(temp, bytes, x, y, out, n, stream, opt);
  default:
    return DeviceReduce::Nrm2(temp, bytes, x, out, n, stream, opt);
  }
}

// Runs o on device data and returns the result.
template <class Out, class InX, class InY>
Out run_device(op o, const InX* dx, const InY* dy, std::int64_t n, ReduceOptions opt = {}) {
  std::size_t bytes = 0;
  TCR_CHECK_CUDA(call(o, nullptr, bytes, dx, dy, static_cast<Out*>(nullptr), n, 0, opt));
  temp_storage temp(bytes);
  device_buffer<Out> out(1);
  TCR_CHECK_CUDA(call(o, temp.get(), bytes, dx, dy, out.get(), n, 0, opt));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download()[0];
}

template <class Out>
constexpr double unit_roundoff() {
  return std::is_same_v<Out, float> ? 0x1p-24 : 0x1p-53;
}
template <class Out>
constexpr double abs_coef() {
  return std::is_same_v<Out, float> ? 0x1p-40 : 0x1p-88;
}
// Half the subnormal spacing of Out: no result below the normal range can be closer.
template <class Out>
constexpr double format_floor() {
  return std::is_same_v<Out, float> ? 0x1p-150 : 0x1p-1075;
}

// Checks res against the contract of o for data x (and y for Dot), given as exact doubles.
// narrow: every value has at most 26 significant bits and lies in float's range, so products
// are exact in double and the fast Kulisch references apply.
// fast_c: > 0 checks Accuracy::fast's bound u|s| + fast_c u S instead (Sum, Asum, Dot).
template <class Out>
void check_contract(op o, double res, const std::vector<double>& x, const std::vector<double>& y,
                    bool narrow, double fast_c = 0, double extra_floor = 0,
                    double extra_nrm2_rel = 0) {
  const double u = unit_roundoff<Out>();
  const double floor = format_floor<Out>() + extra_floor;
  if (o == op::nrm2) {
    const mp ssq = narrow ? fast_exact_dot(x, x) : exact_dot(x, x);
    INFO(op_name(o), ": result ", res, ", relative error ", nrm2_rel_error(res, ssq));
    const double rel = u + (std::is_same_v<Out, float> ? 0x1p-40 : 0x1p-100) + extra_nrm2_rel;
    CHECK(nrm2_within(res, ssq, rel, floor));
    return;
  }
  mp s, S;
  if (o == op::dot) {
    s = narrow ? fast_exact_dot(x, y) : exact_dot(x, y);
    S = narrow ? fast_exact_dot(x, y, true) : exact_abs_dot(x, y);
  } else if (o == op::asum) {
    s = fast_exact_sum(x, true);
    S = s;
  } else {
    s = fast_exact_sum(x);
    S = fast_exact_sum(x, true);
  }
  INFO(op_name(o), ": result ", res, ", exact ", s.to_double(), ", error / (|s| + S) ",
       scaled_error(res, s, S));
  if (fast_c > 0)
    CHECK(within_bound(res, s, S, u, fast_c * u, floor));
  else
    CHECK(within_bound(res, s, S, 2 * u, abs_coef<Out>(), floor));
}

// Uploads x (and y) at the given element offsets, runs o, checks the contract.
// With opt.accuracy == Accuracy::fast, Sum / Asum / Dot are checked against the fast bound
// (tcr::fast_error_constant), Nrm2 against its one bound.
template <class Out, class InX, class InY = InX>
void run_and_check(op o, const typed_data<InX>& x, std::size_t offset_x,
                   const typed_data<InY>* y = nullptr, std::size_t offset_y = 0,
                   ReduceOptions opt = {}) {
  const std::int64_t n = static_cast<std::int64_t>(x.t.size());
  INFO(op_name(o), "<", type_name<InX>(),
       (y ? std::string(", ") + type_name<InY>() : std::string()), " -> ", type_name<Out>(),
       "> n = ", n, ", offsets ", offset_x, " ", offset_y, ", accuracy ",
       static_cast<int>(opt.accuracy), ", engine ", static_cast<int>(opt.engine));
  padded_device<InX> dx(x.t, offset_x);
  Out res;
  if (y) {
    padded_device<InY> dy(y->t, offset_y);
    res = run_device<Out>(o, dx.get(), dy.get(), n, opt);
  } else {
    res = run_device<Out>(o, dx.get(), dx.get(), n, opt);
  }
  constexpr bool narrow = !std::is_same_v<InX, double> && !std::is_same_v<InY, double>;
  const double fast_c = opt.accuracy != Accuracy::fast ? 0.0
                        : o == op::dot                 ? 1.0
                                                       : fast_error_constant<InX, Out>();
  check_contract<Out>(o, static_cast<double>(res), x.d, y ? y->d : x.d, narrow, fast_c);
}

} // namespace tcr::test
