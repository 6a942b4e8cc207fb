// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the input types and operations, named as the JSON, the tables and the plots
// name them.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstddef>
#include <string>
#include <type_traits>

namespace tcr::bench {

enum class dtype { e4m3, e5m2, f16, bf16, f32, f64 };
inline constexpr dtype all_dtypes[] = {dtype::e4m3, dtype::e5m2, dtype::f16,
                                       dtype::bf16, dtype::f32,  dtype::f64};

inline const char* name(dtype t) {
  switch (t) {
  case dtype::e4m3:
    return "e4m3";
  case dtype::e5m2:
    return "e5m2";
  case dtype::f16:
    return "f16";
  case dtype::bf16:
    return "bf16";
  case dtype::f32:
    return "f32";
  case dtype::f64:
    return "f64";
  }
  return "?";
}

inline std::size_t size_of(dtype t) {
  switch (t) {
  case dtype::e4m3:
  case dtype::e5m2:
    return 1;
  case dtype::f16:
  case dtype::bf16:
    return 2;
  case dtype::f32:
    return 4;
  case dtype::f64:
    return 8;
  }
  return 0;
}

// Calls f(T{}) for every input type T, in the order of all_dtypes.
template <class F>
void for_each_input_type(F&& f) {
  f(__nv_fp8_e4m3{});
  f(__nv_fp8_e5m2{});
  f(__half{});
  f(__nv_bfloat16{});
  f(float{});
  f(double{});
}

template <class T>
constexpr dtype dtype_of() {
  if constexpr (std::is_same_v<T, __nv_fp8_e4m3>)
    return dtype::e4m3;
  else if constexpr (std::is_same_v<T, __nv_fp8_e5m2>)
    return dtype::e5m2;
  else if constexpr (std::is_same_v<T, __half>)
    return dtype::f16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return dtype::bf16;
  else if constexpr (std::is_same_v<T, float>)
    return dtype::f32;
  else {
    static_assert(std::is_same_v<T, double>, "tcr::bench::dtype_of: not an input type");
    return dtype::f64;
  }
}

// The result type every method writes: double for f64 input, float otherwise.
template <class T>
using result_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// read and read2 are the read-only bandwidth kernel over one or two arrays: the ceilings of
// sum / nrm2 / asum and of dot.
enum class op_kind { read, read2, sum, dot, nrm2, asum };
inline constexpr op_kind all_ops[] = {op_kind::read, op_kind::read2, op_kind::sum,
                                      op_kind::dot,  op_kind::nrm2,  op_kind::asum};

inline const char* name(op_kind o) {
  switch (o) {
  case op_kind::read:
    return "read";
  case op_kind::read2:
    return "read2";
  case op_kind::sum:
    return "sum";
  case op_kind::dot:
    return "dot";
  case op_kind::nrm2:
    return "nrm2";
  case op_kind::asum:
    return "asum";
  }
  return "?";
}

// Arrays an operation reads.
inline int inputs_of(op_kind o) {
  return (o == op_kind::dot || o == op_kind::read2) ? 2 : 1;
}

} // namespace tcr::bench
