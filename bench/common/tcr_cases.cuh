// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr's own entries, one per accuracy mode and engine. The `fast` mode is the seed
// paper's method (tensor-core chains) done tcr's way. The quick run has every mode with the
// automatic engine and, for Sum, every engine of the compensated and fast modes; the rest runs
// only with --tcr_full.
#pragma once

#include <string>
#include "common/registry.hpp"
#include <tcr/reduce/device.cuh>

namespace tcr::bench::tcr_cases {

inline const char* name(Accuracy a) {
  switch (a) {
  case Accuracy::compensated:
    return "compensated";
  case Accuracy::fast:
    return "fast";
  case Accuracy::reproducible:
    return "reproducible";
  case Accuracy::correctly_rounded:
    return "correctly_rounded";
  }
  return "?";
}

inline const char* name(Engine e) {
  switch (e) {
  case Engine::automatic:
    return "automatic";
  case Engine::tensor_core:
    return "tensor_core";
  case Engine::cuda_core:
    return "cuda_core";
  }
  return "?";
}

inline constexpr Accuracy accuracies[] = {Accuracy::compensated, Accuracy::fast};
inline constexpr Engine engines[] = {Engine::automatic, Engine::tensor_core, Engine::cuda_core};

// Adds one case per mode and engine; f(temp, bytes, args, options) calls tcr.
template <class In, class F>
void add_all(op_kind op, const char* fn, F f) {
  for (Accuracy acc : accuracies) {
    for (Engine eng : engines) {
      bench_case c;
      c.op = op;
      c.type = dtype_of<In>();
      c.method = std::string("tcr.") + name(acc) + "." + name(eng);
      c.note = std::string("tcr::DeviceReduce::") + fn + ", accuracy " + name(acc) + ", engine " +
               name(eng);
      // The quick run: every mode with the automatic engine; for sum also every engine of the
      // compensated and fast modes (what Engine::automatic is chosen from).
      c.quick = eng == Engine::automatic || op == op_kind::sum;
      const ReduceOptions options{acc, eng};
      c.call = [f, options](void* temp, std::size_t& bytes, const call_args& a) {
        return f(temp, bytes, a, options);
      };
      cases().push_back(std::move(c));
    }
  }
}

} // namespace tcr::bench::tcr_cases
