// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the segmented and batched speed run (tcr_bench_segmented; also the main of
// tcr_bench_segmented_cub35). Every case of common/seg_registry.hpp at each of its points, cold
// L2, one benchmark each, named seg/<impl>/<type>/<form>/<size>/<scale>.
//
// Timing as tcr_device_bench's (common/timing.hpp): CUDA events around a batch of calls queued
// behind a blocking kernel, Google Benchmark's manual time per call; before each sample the L2 is
// flushed and every call of the batch reads its own copy of the inputs (and of the pointer
// arrays), so every call reads from DRAM. Each benchmark warms up with one untimed batch and runs
// --tcr_repetitions repetitions (aggregates only: mean, median, stddev, min, max). Counters:
//   median_us  median time per call over the samples of a repetition
//   GBps       input bytes / median_us (the bytes a reduction must read: the elements of its
//              segments; the read-only kernel's span, padding included)
//   bytes, segments, batch, sm_clock_mhz, clock_ratio (< 0.75: throttled, as nvbench marks it)
// The workloads are built once per point and shared by the benchmarks of that point (the
// benchmarks are registered point by point).
//
// Flags of its own (the rest go to Google Benchmark, e.g. --benchmark_filter=REGEX):
//   --tcr_min_time=S (0.01)  --tcr_repetitions=N (3)  --tcr_no_gate
//   --tcr_list  print the benchmark names and what each method is, and exit (needs no GPU)
// --benchmark_list_tests also works without a GPU; anything else without one exits 1.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <vector>
#include "common/harness.hpp"
#include "common/seg_registry.hpp"
#include "common/timing.hpp"

namespace tcr::bench {
namespace {

using settings = program_settings;
// Takes the --tcr_* flags out of argv (defaults: 0.01s a sample, 3 repetitions).
settings parse(int& argc, char** argv) {
  return parse_program_flags(argc, argv, 0.01, 3);
}

// One benchmark: a case at one segment size and scale.
struct point {
  const seg_case* c;
  int size;  // as in seg_case::sizes
  int scale; // as in seg_case::scales
  std::string name() const {
    const std::string sz = size < 0 ? "var" : size == 0 ? "all" : std::to_string(size);
    return "seg/" + c->impl + "/" + bench::name(c->type) + "/" + c->form + "/" + sz + "/" +
           std::to_string(scale);
  }
};

// Every point, those that share a workload next to each other.
std::vector<point> points() {
  std::vector<point> r;
  for (const seg_case& c : seg_cases())
    for (int scale : c.scales)
      for (int size : c.sizes)
        r.push_back({&c, size, scale});
  std::stable_sort(r.begin(), r.end(), [](const point& a, const point& b) {
    return std::make_tuple(a.c->load, a.c->type, a.scale, a.size) <
           std::make_tuple(b.c->load, b.c->type, b.scale, b.size);
  });
  return r;
}

// Uniform in [0, 1) from (seed, i), as fill_random hashes them.
double uniform01(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(splitmix64(seed * 0x632be59bd9b4e019ull + i) >> 11) * 0x1p-53;
}

constexpr std::uint64_t powerlaw_seed = 12;
constexpr std::uint64_t lengths_seed = 1212;

// Offsets of segments with P(len) ~ len^-1.5 on [1, 2^20] (len = floor of a continuous Pareto
// sample on [1, 2^20 + 1), drawn by inverting its distribution function), until `total`
// elements; the last segment is cut to end at total.
std::vector<int> powerlaw_offsets(std::int64_t total) {
  const double top = std::ldexp(1.0, 20) + 1;
  const double tail = 1 - 1 / std::sqrt(top);
  std::vector<int> off{0};
  for (std::uint64_t i = 0; off.back() < total; ++i) {
    const double v = 1 - uniform01(powerlaw_seed, i) * tail;
    const auto len = static_cast<std::int64_t>(std::floor(1 / (v * v)));
    const std::int64_t next =
        std::min<std::int64_t>(off.back() + std::clamp<std::int64_t>(len, 1, 1 << 20), total);
    off.push_back(static_cast<int>(next));
  }
  return off;
}

// Lengths uniform in [64, 4096] for `count` vectors, and each vector's start: the previous end
// rounded up to 4 elements (16 bytes). starts has count + 1 entries, the last one the span.
void pointer_layout(std::int64_t count, std::vector<int>& lengths,
                    std::vector<std::int64_t>& starts) {
  lengths.resize(count);
  starts.assign(1, 0);
  for (std::int64_t i = 0; i < count; ++i) {
    lengths[i] = 64 + static_cast<int>(uniform01(lengths_seed, i) * 4033);
    starts.push_back((starts.back() + lengths[i] + 3) / 4 * 4);
  }
}

// What every benchmark shares: stream, events, flush, gate, inputs, the current point's
// workload (offsets, pointer arrays, lengths), scratch and results.
struct harness {
  timer t;
  input_cache inputs;
  device_memory offsets, lengths, ptrs, scratch, out;
  std::string offsets_key, lengths_key, ptrs_key; // what offsets / lengths / ptrs hold now
};

bool use_gate = true;

harness& h() {
  static harness* s = [] {
    auto* r = new harness; // never destroyed: CUDA may be torn down before static destructors
    TCR_BENCH_CHECK(cudaStreamCreateWithFlags(&r->t.stream, cudaStreamNonBlocking));
    TCR_BENCH_CHECK(cudaEventCreate(&r->t.start));
    TCR_BENCH_CHECK(cudaEventCreate(&r->t.stop));
    r->t.flush = new l2_flush(facts().l2_bytes);
    if (use_gate)
      r->t.gate = new stream_gate();
    return r;
  }();
  return *s;
}

template <class T>
void upload(device_memory& m, const std::vector<T>& v, cudaStream_t stream) {
  const std::size_t bytes = v.size() * sizeof(T);
  void* p = m.reserve(std::max<std::size_t>(bytes, 256));
  TCR_BENCH_CHECK(cudaMemcpyAsync(p, v.data(), bytes, cudaMemcpyHostToDevice, stream));
  TCR_BENCH_CHECK(cudaStreamSynchronize(stream));
}

// What a point reads, known on the host: the span its segments lie in, the elements they hold
// and how many there are.
struct shape {
  std::int64_t span = 0, items = 0, segments = 0;
};

const std::vector<int>& powerlaw() {
  static const std::vector<int> off = powerlaw_offsets(std::int64_t{1} << powerlaw_scale);
  return off;
}

struct pointer_batch {
  std::vector<int> lengths;
  std::vector<std::int64_t> starts;
};
const pointer_batch& pointers(int scale) {
  static pointer_batch b;
  static int made = -1;
  if (made != scale) {
    pointer_layout(std::int64_t{1} << scale, b.lengths, b.starts);
    made = scale;
  }
  return b;
}

shape shape_of(const point& p) {
  shape r;
  switch (p.c->load) {
  case workload::uniform:
    r.span = r.items = std::int64_t{1} << p.scale;
    r.segments = p.size > 0 ? r.span / p.size : 0;
    break;
  case workload::powerlaw:
    r.span = r.items = powerlaw().back();
    r.segments = static_cast<std::int64_t>(powerlaw().size()) - 1;
    break;
  case workload::pointers: {
    const pointer_batch& b = pointers(p.scale);
    r.span = b.starts.back();
    r.segments = static_cast<std::int64_t>(b.lengths.size());
    for (int l : b.lengths)
      r.items += l;
    break;
  }
  case workload::strided:
    r.segments = std::int64_t{1} << p.scale;
    r.span = r.items = r.segments * p.size;
    break;
  }
  return r;
}

// The input bytes a call of point p is credited with: its segments' elements (the read-only
// kernel: its whole span), times the element size, times the inputs.
std::size_t input_bytes(const point& p) {
  const shape sh = shape_of(p);
  const std::int64_t n = p.c->span ? sh.span : sh.items;
  return static_cast<std::size_t>(n) * size_of(p.c->type) * (p.c->two ? 2 : 1);
}

// The workload of point p with `copies` copies of its inputs (and pointer arrays): one seg_args
// per copy. Offsets, lengths and pointer arrays are kept while consecutive points share them.
std::vector<seg_args> prepare(const point& p, int copies) {
  harness& H = h();
  const seg_case& c = *p.c;
  const cudaStream_t stream = H.t.stream;
  const std::size_t elem = size_of(c.type);
  const shape sh = shape_of(p);
  seg_args base{};
  base.stream = stream;
  base.span = sh.span;
  base.items = sh.items;
  base.segments = sh.segments;
  base.size = c.load == workload::uniform || c.load == workload::strided ? p.size : 0;
  const int inputs = c.two ? 2 : 1;
  if (c.load == workload::uniform && p.size > 0) {
    const std::string key = "uniform/" + std::to_string(p.scale) + "/" + std::to_string(p.size);
    if (H.offsets_key != key) {
      H.offsets_key.clear();
      std::vector<int> off(static_cast<std::size_t>(sh.segments) + 1);
      for (std::size_t i = 0; i < off.size(); ++i)
        off[i] = static_cast<int>(static_cast<std::int64_t>(i) * p.size);
      upload(H.offsets, off, stream);
      H.offsets_key = key;
    }
  } else if (c.load == workload::powerlaw && H.offsets_key != "powerlaw") {
    H.offsets_key.clear();
    upload(H.offsets, powerlaw(), stream);
    H.offsets_key = "powerlaw";
  } else if (c.load == workload::pointers) {
    const std::string key = "pointers/" + std::to_string(p.scale);
    if (H.lengths_key != key) {
      H.lengths_key.clear();
      upload(H.lengths, pointers(p.scale).lengths, stream);
      H.lengths_key = key;
    }
  }
  H.inputs.prepare(c.type, base.span, inputs, copies, stream);
  base.offsets = static_cast<const int*>(H.offsets.get());
  base.lengths = static_cast<const int*>(H.lengths.get());
  base.out = H.out.reserve(std::max<std::size_t>(static_cast<std::size_t>(base.segments) * 8, 256));

  std::vector<seg_args> r(copies, base);
  for (int k = 0; k < copies; ++k) {
    r[k].x = H.inputs.x(k);
    r[k].y = c.two ? H.inputs.y(k) : nullptr;
  }
  if (c.load == workload::pointers) {
    // Per copy: [segments] x pointers, then [segments] y pointers.
    const std::size_t n = static_cast<std::size_t>(base.segments);
    const std::vector<std::int64_t>& starts = pointers(p.scale).starts;
    const std::string key = "pointers/" + std::to_string(copies) + "/" +
                            std::to_string(reinterpret_cast<std::uintptr_t>(H.inputs.x(0)));
    if (H.ptrs_key != key) {
      H.ptrs_key.clear();
      std::vector<const void*> all(2 * n * static_cast<std::size_t>(copies));
      for (int k = 0; k < copies; ++k)
        for (std::size_t i = 0; i < n; ++i) {
          all[(2 * k) * n + i] = static_cast<const char*>(r[k].x) + starts[i] * elem;
          all[(2 * k + 1) * n + i] =
              r[k].y ? static_cast<const char*>(r[k].y) + starts[i] * elem : nullptr;
        }
      upload(H.ptrs, all, stream);
      H.ptrs_key = key;
    }
    const auto* d = static_cast<const void* const*>(H.ptrs.get());
    for (int k = 0; k < copies; ++k) {
      r[k].x_ptrs = d + (2 * k) * n;
      r[k].y_ptrs = d + (2 * k + 1) * n;
    }
  }
  return r;
}

void run_point(benchmark::State& state, const point& p) {
  const std::size_t bytes = input_bytes(p);
  const int batch = batch_for(bytes);
  std::vector<seg_args> args;
  std::size_t temp_bytes = 0;
  try {
    harness& H = h();
    args = prepare(p, batch);
    check(p.c->call(nullptr, temp_bytes, args[0]), "size query");
    void* temp = H.scratch.reserve(std::max<std::size_t>(temp_bytes, 256));
    for (int b = 0; b < batch; ++b) // warm-up: one untimed batch
      check(p.c->call(temp, temp_bytes, args[b]), "call");
    TCR_BENCH_CHECK(cudaStreamSynchronize(H.t.stream));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  harness& H = h();
  void* temp = H.scratch.get();
  timed r;
  if (!time_batches(
          state, H.t, batch, true, [&](int b) { return p.c->call(temp, temp_bytes, args[b]); }, r))
    return;
  add_clock_counters(state, H.t.stream);
  const double median = r.median();
  using benchmark::Counter;
  state.counters["median_us"] = Counter(median * 1e6);
  state.counters["GBps"] = Counter(median > 0 ? static_cast<double>(bytes) / median * 1e-9 : 0);
  state.counters["bytes"] = Counter(static_cast<double>(bytes));
  state.counters["segments"] = Counter(static_cast<double>(args[0].segments));
  state.counters["batch"] = Counter(batch);
}

void register_all(const settings& s) {
  for (const point& p : points()) {
    const int batch = batch_for(input_bytes(p));
    timed_in_batches(benchmark::RegisterBenchmark(p.name().c_str(),
                                                  [p](benchmark::State& st) { run_point(st, p); }),
                     s.min_time, s.repetitions, batch);
  }
}

void add_context(const settings& s) {
  add_device_context();
  auto add = [](const std::string& k, const std::string& v) { benchmark::AddCustomContext(k, v); };
  add("tcr_min_time", std::to_string(s.min_time));
  add("tcr_repetitions", std::to_string(s.repetitions));
  add("tcr_gate", s.gate ? "on" : "off");
  for (const auto& [k, v] : context_entries())
    add(k, v);
  std::set<std::string> seen;
  for (const seg_case& c : seg_cases()) {
    const std::string key = "method:" + c.impl + "/" + name(c.type) + "/" + c.form;
    if (seen.insert(key).second)
      add(key, c.note);
  }
}

} // namespace
} // namespace tcr::bench

int main(int argc, char** argv) {
  using namespace tcr::bench;
  const settings s = parse(argc, argv);
  use_gate = s.gate;
  return run_program(
      argc, argv, "tcr_bench_segmented", s.list,
      [] {
        for (const point& p : points())
          std::printf("%-48s %s\n", p.name().c_str(), p.c->note.c_str());
        return !points().empty();
      },
      [&] { register_all(s); }, [&] { add_context(s); });
}
