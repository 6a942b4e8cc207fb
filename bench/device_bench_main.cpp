// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the device-wide speed run. Every method of the case table (ceiling, CUB,
// cuBLAS, tcr) for every input type, operation and size, hot and cold, in one binary and one run.
//
// Timing: CUDA events around a batch of launches on one stream (Google Benchmark's manual time,
// one iteration = one sample, reported per call). Small sizes batch several launches per sample
// so event resolution does not dominate. The whole batch is queued behind a blocking kernel
// before it starts (as nvbench does), so samples measure GPU time, not the host's launch rate;
// --tcr_no_gate times the batch as the host launches it. Cold samples first write a buffer of the
// L2's size and give every launch of the batch its own copy of the inputs, so every launch reads
// from DRAM; hot samples (only where the inputs fit in half the L2) reuse one copy. Each benchmark
// warms up with one untimed batch, runs `--tcr_repetitions` repetitions and reports their median,
// min and max. After the samples a probe kernel reads the SM clock: clock_ratio < 0.75 of the
// default clock marks a throttled measurement, as nvbench does.
//
// Flags of its own (the rest go to Google Benchmark):
//   --tcr_full                 every size 2^10 .. 2^30 and every mode and engine (default, quick:
//                              2^10, 2^14, 2^18, 2^22, 2^28, 2^30; every mode with the automatic
//                              engine, and every engine of compensated and fast Sum)
//   --tcr_sizes=10,16,20|10:30 log2 of the sizes      --tcr_types=f32,f16,...   (default all)
//   --tcr_ops=sum,dot,nrm2,asum (ceilings follow)     --tcr_l2=hot,cold         (default both)
//   --tcr_min_time=S (0.01)  --tcr_repetitions=N (3)  --tcr_list (print the cases)
//   --tcr_no_gate
//   --tcr_f64_data=full|float  doubles with 53 significant bits (default) or float values widened
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "common/harness.hpp"
#include "common/registry.hpp"
#include "common/timing.hpp"

namespace tcr::bench {
namespace {

struct settings {
  bool full = false;
  std::vector<int> log_sizes;
  std::set<std::string> types, ops, l2;
  double min_time = 0;
  int repetitions = 3;
  bool list = false;
  bool gate = true;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty())
      r.push_back(item);
  return r;
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> r;
  for (const auto& item : split(s, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      r.push_back(std::stoi(item));
    } else {
      for (int k = std::stoi(item.substr(0, colon)); k <= std::stoi(item.substr(colon + 1)); ++k)
        r.push_back(k);
    }
  }
  return r;
}

// Takes the --tcr_* flags out of argv.
settings parse(int& argc, char** argv) {
  settings s;
  std::string sizes, types, ops, l2 = "hot,cold";
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return flag_value(argv[i], key); };
    if (a == "--tcr_full")
      s.full = true;
    else if (a == "--tcr_list")
      s.list = true;
    else if (a == "--tcr_no_gate")
      s.gate = false;
    else if (const char* v = value("--tcr_sizes"))
      sizes = v;
    else if (const char* v = value("--tcr_types"))
      types = v;
    else if (const char* v = value("--tcr_ops"))
      ops = v;
    else if (const char* v = value("--tcr_l2"))
      l2 = v;
    else if (const char* v = value("--tcr_min_time"))
      s.min_time = std::atof(v);
    else if (const char* v = value("--tcr_repetitions"))
      s.repetitions = std::atoi(v);
    else if (const char* v = value("--tcr_f64_data"))
      f64_float_data = std::string(v) == "float";
    else
      argv[out++] = argv[i];
  }
  argc = out;
  s.log_sizes = !sizes.empty() ? parse_sizes(sizes)
                : s.full       ? parse_sizes("10:30")
                               : std::vector<int>{10, 14, 18, 22, 28, 30};
  for (const auto& t : split(types, ','))
    s.types.insert(t);
  for (const auto& o : split(ops, ','))
    s.ops.insert(o);
  for (const auto& v : split(l2, ','))
    s.l2.insert(v);
  if (s.min_time <= 0)
    s.min_time = 0.01;
  if (s.repetitions < 1)
    s.repetitions = 1;
  return s;
}

// What every benchmark shares: one stream, events, the flush buffer, inputs, scratch, output.
struct harness {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  l2_flush* flush = nullptr;
  stream_gate* gate = nullptr; // null with --tcr_no_gate
  input_cache inputs;
  device_memory scratch, out;
};

bool use_gate = true;

harness& h() {
  static harness* s = [] {
    auto* r = new harness; // never destroyed: CUDA may be torn down before static destructors
    TCR_BENCH_CHECK(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
    TCR_BENCH_CHECK(cudaEventCreate(&r->start));
    TCR_BENCH_CHECK(cudaEventCreate(&r->stop));
    r->flush = new l2_flush(facts().l2_bytes);
    if (use_gate)
      r->gate = new stream_gate();
    r->out.reserve(256);
    return r;
  }();
  return *s;
}

void run_case(benchmark::State& state, const bench_case& c, std::int64_t n, bool cold) {
  harness& H = h();
  const std::size_t array_bytes = static_cast<std::size_t>(n) * size_of(c.type);
  const std::size_t bytes = array_bytes * static_cast<std::size_t>(inputs_of(c.op));
  const int batch = batch_for(array_bytes);
  const int copies = cold ? batch : 1;
  std::size_t temp_bytes = 0;
  try {
    // Always x and y, and as many copies as the cold run wants: consecutive benchmarks of one
    // type and size then share one fill.
    H.inputs.prepare(c.type, n, 2, batch, H.stream);
    call_args args{H.inputs.x(0), H.inputs.y(0), H.out.get(), n, H.stream};
    check(c.call(nullptr, temp_bytes, args), "size query");
    void* temp = H.scratch.reserve(std::max<std::size_t>(temp_bytes, 256));
    for (int b = 0; b < batch; ++b) { // warm-up: one untimed batch
      args.x = H.inputs.x(b % copies);
      args.y = H.inputs.y(b % copies);
      check(c.call(temp, temp_bytes, args), "call");
    }
    TCR_BENCH_CHECK(cudaStreamSynchronize(H.stream));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }

  void* temp = H.scratch.get();
  const timer t{H.stream, H.start, H.stop, H.flush, H.gate};
  timed r;
  const bool ok = time_batches(
      state, t, batch, cold,
      [&](int b) {
        const call_args args{H.inputs.x(b % copies), H.inputs.y(b % copies), H.out.get(), n,
                             H.stream};
        return c.call(temp, temp_bytes, args);
      },
      r);
  if (!ok)
    return;
  const double seconds = r.seconds;
  const auto calls = r.calls;
  add_clock_counters(state, H.stream);
  using benchmark::Counter;
  state.counters["n"] = Counter(static_cast<double>(n));
  state.counters["bytes"] = Counter(static_cast<double>(bytes));
  state.counters["batch"] = Counter(batch);
  state.counters["bytes_per_second"] =
      Counter(seconds > 0 ? bytes * static_cast<double>(calls) / seconds : 0);
  state.counters["items_per_second"] =
      Counter(seconds > 0 ? n * static_cast<double>(calls) / seconds : 0);
}

bool wanted(const std::set<std::string>& chosen, const std::string& v) {
  return chosen.empty() || chosen.count(v) > 0;
}

int register_all(const settings& s) {
  const device_facts& f = facts();
  std::size_t free_bytes = 0, total_bytes = 0;
  TCR_BENCH_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Ceilings come with the operations chosen.
  std::set<std::string> ops = s.ops;
  if (!ops.empty()) {
    if (ops.count("sum") || ops.count("nrm2") || ops.count("asum"))
      ops.insert("read");
    if (ops.count("dot"))
      ops.insert("read2");
  }
  int registered = 0;
  for (dtype t : all_dtypes) {
    if (!wanted(s.types, name(t)))
      continue;
    for (int lg : s.log_sizes) {
      const std::int64_t n = std::int64_t{1} << lg;
      const std::size_t array_bytes = static_cast<std::size_t>(n) * size_of(t);
      const int batch = batch_for(array_bytes);
      const std::size_t stride = (array_bytes + 255) / 256 * 256;
      const std::size_t need =
          2 * stride * static_cast<std::size_t>(batch) + f.l2_bytes + (256u << 20);
      if (need > free_bytes) {
        std::fprintf(stderr,
                     "tcr_device_bench: skipping %s n = 2^%d: needs %.1f GiB, %.1f GiB free\n",
                     name(t), lg, need / 1073741824.0, free_bytes / 1073741824.0);
        continue;
      }
      for (const char* l2 : {"cold", "hot"}) {
        if (!wanted(s.l2, l2))
          continue;
        const bool cold = std::strcmp(l2, "cold") == 0;
        for (op_kind op : all_ops) {
          if (!wanted(ops, name(op)))
            continue;
          // Hot only where the inputs fit in half the L2.
          if (!cold && array_bytes * inputs_of(op) > f.l2_bytes / 2)
            continue;
          for (const bench_case& c : cases()) {
            if (c.type != t || c.op != op || !(s.full || c.quick))
              continue;
            const std::string bench_name = std::string(name(op)) + "/" + name(t) + "/" + c.method +
                                           "/" + l2 + "/n:" + std::to_string(n);
            const bench_case* cp = &c;
            timed_in_batches(benchmark::RegisterBenchmark(bench_name.c_str(),
                                                          [cp, n, cold](benchmark::State& st) {
                                                            run_case(st, *cp, n, cold);
                                                          }),
                             s.min_time, s.repetitions, batch);
            ++registered;
          }
        }
      }
    }
  }
  return registered;
}

void add_context(const settings& s) {
  add_device_context();
  auto add = [](const std::string& k, const std::string& v) { benchmark::AddCustomContext(k, v); };
  add("tcr_run", s.full ? "full" : "quick");
  add("tcr_min_time", std::to_string(s.min_time));
  add("tcr_repetitions", std::to_string(s.repetitions));
  add("tcr_gate",
      s.gate ? "on (batch queued before it starts: GPU time)" : "off (host launch rate included)");
  add("tcr_f64_data",
      f64_float_data ? "float values widened (24 significant bits)" : "53 significant bits");
  for (const auto& [k, v] : context_entries())
    add(k, v);
  std::set<std::string> seen;
  for (const bench_case& c : cases()) {
    const std::string key =
        std::string("method:") + name(c.op) + "/" + name(c.type) + "/" + c.method;
    if (seen.insert(key).second)
      add(key, c.note);
  }
}

} // namespace
} // namespace tcr::bench

int main(int argc, char** argv) {
  using namespace tcr::bench;
  const settings s = parse(argc, argv);
  if (s.list) {
    for (const bench_case& c : cases())
      std::printf("%-5s %-5s %-32s %s%s\n", name(c.op), name(c.type), c.method.c_str(),
                  c.note.c_str(), c.quick ? "" : " (full only)");
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  if (const std::string why = no_device_reason(); !why.empty()) {
    std::fprintf(stderr, "tcr_device_bench: no CUDA device (%s): nothing measured\n", why.c_str());
    return 1;
  }
  use_gate = s.gate;
  try {
    add_context(s);
    if (register_all(s) == 0) {
      std::fprintf(stderr, "tcr_device_bench: no benchmark matches the --tcr_* flags\n");
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcr_device_bench: %s\n", e.what());
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
