// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: an old tcr tree's DeviceReduce in the same program as this tree's, for an A/B
// comparison with one harness, one set of buffers and one L2 flush (bench/harness.cmake,
// TCR_BENCH_OLD_SOURCE). Only the TUs device_bench_old_*.cu include this header; their include
// path has the old tree's root (its headers include "reduce/...", "compensated/...") and not this
// tree's.
//
// The old headers are read with the macro tcr defined as tcr_old, so every name they declare
// (namespace tcr, its kernels, its inline functions and function-local statics) is tcr_old::...
// and cannot merge with this tree's tcr::... at link time (same mangled name, two definitions:
// the linker keeps one, silently). Everything else they include is included here first, so that
// no system header is read with the macro in force. The case table (common/registry.hpp) is
// included before the macro: it is this program's tcr::bench.
//
// Cases: old.<accuracy>.<engine>, for compensated and fast with the automatic engine, beside
// tcr's tcr.<accuracy>.<engine>.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include "common/registry.hpp"

#ifdef tcr
#error "common/old_cases.cuh: the macro tcr is already defined"
#endif
#define tcr tcr_old
#include "reduce/device.cuh" // the old tree's (its root is on this TU's include path only)
#undef tcr

#ifndef TCR_BENCH_OLD_SOURCE_PATH
#define TCR_BENCH_OLD_SOURCE_PATH "?"
#endif

namespace tcr::bench::old_cases {

inline constexpr std::pair<tcr_old::Accuracy, const char*> accuracies[] = {
    {tcr_old::Accuracy::compensated, "compensated"}, {tcr_old::Accuracy::fast, "fast"}};

// Adds old.<accuracy>.automatic for each accuracy; f(temp, bytes, args, options) calls the old
// tree's tcr::DeviceReduce::<fn>.
template <class In, class F>
void add_all(op_kind op, const char* fn, F f) {
  for (const auto& [acc, acc_name] : accuracies) {
    bench_case c;
    c.op = op;
    c.type = dtype_of<In>();
    c.method = std::string("old.") + acc_name + ".automatic";
    c.note = std::string("old tree (") + TCR_BENCH_OLD_SOURCE_PATH + ") tcr::DeviceReduce::" + fn +
             ", accuracy " + acc_name + ", engine automatic";
    const tcr_old::ReduceOptions options{acc, tcr_old::Engine::automatic};
    c.call = [f, options](void* temp, std::size_t& bytes, const call_args& a) {
      return f(temp, bytes, a, options);
    };
    cases().push_back(std::move(c));
  }
}

} // namespace tcr::bench::old_cases
