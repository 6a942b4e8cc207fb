// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the timed loop every speed program shares (Google Benchmark's manual time, one
// iteration = one sample = one batch of calls, reported per call), the batch size, and the SM
// clock counters that mark a throttled measurement.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>
#include "common/harness.hpp"

namespace tcr::bench {

// Launches per sample: enough for ~200 us of work (a launch costs at least ~4 us), at most 64.
// bytes: the input of one call (tcr_device_bench passes the size of one array).
inline int batch_for(std::size_t bytes) {
  const double est_us = 4.0 + static_cast<double>(bytes) / 3.0e6; // ~3 TB/s
  const int b = static_cast<int>(std::ceil(200.0 / est_us));
  return std::clamp(b, 1, 64);
}

// What a timed loop needs: the stream, two events, the L2 flush and the gate (null: none).
struct timer {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  l2_flush* flush = nullptr;
  stream_gate* gate = nullptr;
};

// What a timed loop measured: the time of all its calls, and each sample's time per call.
struct timed {
  double seconds = 0;
  std::int64_t calls = 0;
  std::vector<double> per_call; // [samples] seconds
  double median() const {
    if (per_call.empty())
      return 0;
    std::vector<double> v = per_call;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  }
};

// The samples of one benchmark: per iteration [gate] [flush when cold] start, launch(0) ..
// launch(batch - 1), stop, all queued before the gate opens, so a sample measures the GPU's time
// for the batch (see device_bench_main.cpp). launch(b) enqueues call b on t.stream and returns
// its error. Returns false after state.SkipWithError when a call, the events or the gate fail.
template <class Launch>
bool time_batches(benchmark::State& state, const timer& t, int batch, bool cold, Launch&& launch,
                  timed& r) {
  for (auto _ : state) {
    const bool gated = t.gate != nullptr;
    cudaError_t err = gated ? t.gate->close(t.stream) : cudaSuccess;
    if (err == cudaSuccess && cold)
      err = t.flush->run(t.stream);
    if (err == cudaSuccess)
      err = cudaEventRecord(t.start, t.stream);
    for (int b = 0; b < batch && err == cudaSuccess; ++b)
      err = launch(b);
    if (err == cudaSuccess)
      err = cudaEventRecord(t.stop, t.stream);
    if (gated)
      t.gate->open();
    const cudaError_t sync = cudaStreamSynchronize(t.stream);
    if (err == cudaSuccess)
      err = sync;
    float ms = 0;
    if (err == cudaSuccess)
      err = cudaEventElapsedTime(&ms, t.start, t.stop);
    if (err != cudaSuccess) {
      cudaGetLastError();
      state.SkipWithError((std::string("timed call: ") + cudaGetErrorString(err)).c_str());
      return false;
    }
    if (gated && t.gate->timed_out()) {
      state.SkipWithError("the batch did not queue behind the gate: a call waited for the host "
                          "(run with --tcr_no_gate to time it anyway)");
      return false;
    }
    state.SetIterationTime(ms * 1e-3 / batch);
    r.seconds += ms * 1e-3;
    r.calls += batch;
    r.per_call.push_back(ms * 1e-3 / batch);
  }
  return true;
}

// The SM clock after the samples (sm_clock_mhz) and its ratio to the default clock
// (clock_ratio < 0.75: a throttled measurement, as nvbench marks it).
inline void add_clock_counters(benchmark::State& state, cudaStream_t stream) {
  double mhz = 0;
  try {
    mhz = measure_sm_clock_mhz(stream);
  } catch (const std::exception&) {
  }
  state.counters["sm_clock_mhz"] = benchmark::Counter(mhz);
  state.counters["clock_ratio"] = benchmark::Counter(mhz / facts().default_sm_clock_mhz);
}

// The aggregate statistics the reports read beside the median.
inline double min_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}
inline double max_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

// A registered benchmark set up for time_batches: manual time in microseconds, repetitions
// reported as median, mean, min and max. Each iteration is a batch of calls but reports the time
// of one call, so the benchmark library would otherwise run `batch` times longer than asked.
inline benchmark::internal::Benchmark*
timed_in_batches(benchmark::internal::Benchmark* b, double min_time, int repetitions, int batch) {
  return b->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(min_time / batch)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(true)
      ->ComputeStatistics("min", min_of)
      ->ComputeStatistics("max", max_of);
}

// The device's facts in the JSON context of every program (the current device must be usable).
inline void add_device_context() {
  const device_facts& f = facts();
  auto add = [](const std::string& k, const std::string& v) { benchmark::AddCustomContext(k, v); };
  add("gpu", f.name);
  add("compute_capability", std::to_string(f.cc));
  add("sms", std::to_string(f.sms));
  add("l2_bytes", std::to_string(f.l2_bytes));
  add("global_bytes", std::to_string(f.global_bytes));
  add("default_sm_clock_mhz", std::to_string(f.default_sm_clock_mhz));
  add("cuda_runtime", std::to_string(f.runtime_version));
  add("cuda_driver", std::to_string(f.driver_version));
}

// The --tcr_* flags of a point-list benchmark program, taken out of argv (the rest is Google
// Benchmark's): --tcr_list, --tcr_no_gate, --tcr_min_time=S, --tcr_repetitions=N. Values out of
// range fall back to the program's defaults.
struct program_settings {
  double min_time;
  int repetitions;
  bool list = false;
  bool gate = true;
};
inline program_settings parse_program_flags(int& argc, char** argv, double default_min_time,
                                            int default_repetitions) {
  program_settings s{default_min_time, default_repetitions};
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tcr_list")
      s.list = true;
    else if (a == "--tcr_no_gate")
      s.gate = false;
    else if (const char* v = flag_value(argv[i], "--tcr_min_time"))
      s.min_time = std::atof(v);
    else if (const char* v = flag_value(argv[i], "--tcr_repetitions"))
      s.repetitions = std::atoi(v);
    else
      argv[out++] = argv[i];
  }
  argc = out;
  if (s.min_time <= 0)
    s.min_time = default_min_time;
  if (s.repetitions < 1)
    s.repetitions = 1;
  return s;
}

// The main of a point-list benchmark program (tcr_bench_segmented, tcr_bench_gemm):
// --tcr_list (list = true) prints the cases through print_list and needs no device; then
// Google Benchmark's flags, register_all(), and, with a device, add_context() (which may
// throw); without one only --benchmark_list_tests is answered.
template <class PrintList, class RegisterAll, class AddContext>
int run_program(int argc, char** argv, const char* default_name, bool list, PrintList&& print_list,
                RegisterAll&& register_all, AddContext&& add_context) {
  const char* prog = argc > 0 ? argv[0] : default_name;
  if (list)
    return print_list() ? 0 : 1;
  const bool listing = asks_for_list(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  register_all();
  if (const std::string why = no_device_reason(); !why.empty()) {
    if (!listing) {
      std::fprintf(stderr, "%s: no CUDA device (%s): nothing measured\n", prog, why.c_str());
      return 1;
    }
  } else {
    try {
      add_context();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", prog, e.what());
      return 1;
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

} // namespace tcr::bench
