// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the table of methods under test. Each bench/device_bench_*.cu adds its cases
// at static-initialisation time; the speed harness (device_bench_main.cpp) and the accuracy run
// (accuracy.cu) both walk the same table, so every method measured for speed is also measured
// for accuracy, through the same call.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include "common/types.hpp"

namespace tcr::bench {

// The arguments of one call: inputs x (and y for dot), n items, one result written to out
// (double for f64 input, float otherwise).
struct call_args {
  const void* x;
  const void* y;
  void* out;
  std::int64_t n;
  cudaStream_t stream;
};

// One method for one operation and input type.
//   call(nullptr, bytes, args) writes the temporary storage it needs to bytes and does nothing
//   else (CUB's first phase); call(temp, bytes, args), temp never null (the harness hands out
//   at least 256 bytes), enqueues the reduction on args.stream.
struct bench_case {
  op_kind op;
  dtype type;
  std::string method;   // "ceiling", "cub", "cub.reduce", "cublas", "tcr.<accuracy>.<engine>"
  std::string note;     // what the method is, for the JSON context
  bool quick = true;    // part of the quick default run
  bool squared = false; // writes the sum of squares (the caller takes the square root)
  std::function<cudaError_t(void* temp, std::size_t& temp_bytes, const call_args&)> call;
};

inline std::vector<bench_case>& cases() {
  static std::vector<bench_case> table;
  return table;
}

// Extra key/value pairs for the JSON context (library versions and the like).
inline std::vector<std::pair<std::string, std::string>>& context_entries() {
  static std::vector<std::pair<std::string, std::string>> entries;
  return entries;
}

// Registers at static-initialisation time: `static const case_adder add{[] { ... }};`.
struct case_adder {
  explicit case_adder(const std::function<void()>& add) { add(); }
};

} // namespace tcr::bench
