// tcr: exact widening of the supported input types to the accumulation types.
//
// Every conversion here is exact: fp8 (e4m3, e5m2), half and bfloat16 values are all floats,
// and every float is a double.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <type_traits>
#include "compensated/config.cuh"

namespace tcr {

// True for the input types tcr reduces.
template <class T>
inline constexpr bool is_input_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, __half> ||
    std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __nv_fp8_e4m3> ||
    std::is_same_v<T, __nv_fp8_e5m2>;

// widen<To>(x): x converted exactly to To (float or double); plain static_cast otherwise.
template <class To, class From>
TCR_HD To widen(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<From, __half> || std::is_same_v<From, __nv_bfloat16> ||
                       std::is_same_v<From, __nv_fp8_e4m3> || std::is_same_v<From, __nv_fp8_e5m2>) {
    return static_cast<To>(static_cast<float>(x));
  } else {
    return static_cast<To>(x);
  }
}

} // namespace tcr
