// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/multi_gpu.cuh (tcr::MultiGpuReduce over NCCL):
//   - a vector split into 1..64 parts merged in one process (each part's state by DeviceReduce
//     into the records the allgather would hold, then the merge kernel): the single-GPU contracts
//     against MPFR in the compensated mode, and in the exact modes the bits of DeviceReduce over
//     the whole vector for every split;
//   - the NCCL path on a communicator of one rank (several ranks cannot share one GPU in NCCL):
//     the same bits as the one-part merge, misuse, graph capture;
//   - every visible GPU a rank, one thread each: the same bits on every rank, and in the exact
//     modes the bits of one GPU (with one GPU lent, one rank).
#include <doctest/doctest.h>

#include <nccl.h>
#include <algorithm>
#include <thread>
#include <tcr/reduce/multi_gpu.cuh>
#include "reduce/device_test_util.hpp"
#include "reduce/exact_check.hpp"

namespace {

using namespace tcr::test;
using tcr::Accuracy;
using tcr::MultiGpuReduce;
using tcr::ReduceOptions;
namespace mg = tcr::detail::multi_gpu;
using dop = tcr::detail::device::op_kind;

#define TCR_CHECK_NCCL(call)                                                                       \
  do {                                                                                             \
    const ncclResult_t r_ = (call);                                                                \
    REQUIRE_MESSAGE(r_ == ncclSuccess, #call, ": ", ncclGetErrorString(r_));                       \
  } while (0)

template <dop Op>
constexpr op op_of() {
  return Op == dop::sum    ? op::sum
         : Op == dop::asum ? op::asum
         : Op == dop::dot  ? op::dot
                           : op::nrm2;
}

// The state type MultiGpuReduce uses for these types and mode.
template <dop Op, class X, class Out, bool Exact>
using state_t =
    std::conditional_t<Exact, typename mg::exact_state<Op, X, X>::type, mg::pair_state<X, X, Out>>;

// Part boundaries: `count` consecutive parts of random sizes, some empty.
std::vector<std::int64_t> cuts_of(std::int64_t n, int count, std::uint64_t seed) {
  rng64 rng(seed);
  std::vector<std::int64_t> cut(count + 1, 0);
  cut[count] = n;
  for (int i = 1; i < count; ++i)
    cut[i] = rng.coin() && rng.coin() ? 0 : rng.integer(0, n);
  std::sort(cut.begin() + 1, cut.end() - 1);
  return cut;
}

// x (and y) split at `cut`, each part's state written into its record as rank i's would be, then
// merged by the kernel MultiGpuReduce runs after the allgather.
template <dop Op, class Out, bool Exact, class X>
Out merged_parts(const X* dx, const X* dy, const std::vector<std::int64_t>& cut,
                 ReduceOptions opt) {
  using P = state_t<Op, X, Out, Exact>;
  using record = mg::part_record<P>;
  const int count = int(cut.size()) - 1;
  device_buffer<record> records(count);
  TCR_CHECK_CUDA(cudaMemset(records.get(), 0xa5, count * sizeof(record)));
  for (int i = 0; i < count; ++i) {
    const std::int64_t n = cut[i + 1] - cut[i];
    std::size_t bytes = 0;
    TCR_CHECK_CUDA(mg::local_state<Op>(nullptr, bytes, dx + cut[i], dy + cut[i],
                                       static_cast<P*>(nullptr), n, 0, opt));
    temp_storage temp(bytes);
    TCR_CHECK_CUDA(mg::local_state<Op>(temp.get(), bytes, dx + cut[i], dy + cut[i],
                                       &records.get()[i].state, n, 0, opt));
    mg::stamp_kernel<<<1, 1>>>(records.get() + i, n);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
  }
  device_buffer<Out> out(1);
  mg::merge_kernel<Op, P><<<1, 1>>>(records.get(), count, out.get());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download()[0];
}

// The distributed contracts (reduce/multi_gpu.cuh) for `parts` ranks: DeviceReduce's, plus
// parts * 2^-150 for float results (each df32 pair's lo rounds once) and, for Nrm2 of double
// results, (7 parts + 4) 2^-106 relative.
template <class Out>
void check_distributed(op o, double res, const std::vector<double>& x, const std::vector<double>& y,
                       bool narrow, int parts) {
  constexpr bool is_float = std::is_same_v<Out, float>;
  check_contract<Out>(o, res, x, y, narrow, 0.0, is_float ? parts * 0x1p-150 : 0.0,
                      is_float ? 0.0 : (7 * parts + 4) * 0x1p-106);
}

// One operation, type and result over GenSum-like data split every way: compensated results
// within the single-GPU contract, exact ones with DeviceReduce's bits.
template <dop Op, class X, class Out>
void check_splits(const typed_data<X>& x, const typed_data<X>& y, std::uint64_t seed) {
  const std::int64_t n = std::int64_t(x.t.size());
  device_buffer<X> dx(x.t), dy(y.t);
  const ReduceOptions comp{};
  const Out single_exact = run_device<Out>(op_of<Op>(), dx.get(), dy.get(), n, exact::rounded);
  for (int count : {1, 2, 3, 7, 64}) {
    const auto cut = cuts_of(n, count, seed + count);
    INFO(op_name(op_of<Op>()), "<", type_name<X>(), " -> ", type_name<Out>(), "> n = ", n,
         ", parts ", count, ", seed ", seed + count);
    const Out c = merged_parts<Op, Out, false>(dx.get(), dy.get(), cut, comp);
    check_distributed<Out>(op_of<Op>(), to_double(c), x.d, y.d, !std::is_same_v<X, double>, count);
    for (ReduceOptions e : {exact::rounded, exact::reproducible}) {
      const Out r = merged_parts<Op, Out, true>(dx.get(), dy.get(), cut, e);
      CHECK(exact::bits_of(r) == exact::bits_of(single_exact));
    }
  }
}

template <class X, class Out>
void check_all_ops(std::size_t n, double cond, std::uint64_t seed) {
  const auto x = typed_data<X>(gen_sum<double>(n, cond, seed));
  const auto y = typed_random<X>(n, seed + 1, -4, 4);
  check_splits<dop::sum, X, Out>(x, y, seed);
  check_splits<dop::asum, X, Out>(x, y, seed);
  check_splits<dop::dot, X, Out>(x, y, seed);
  check_splits<dop::nrm2, X, Out>(x, y, seed);
}

TEST_CASE("parts merged in rank order: the single-GPU contracts and, exact, DeviceReduce's bits" *
          doctest::test_suite("gpu")) {
  for (std::size_t n : {std::size_t(1000), std::size_t(300000)}) {
    for (double cond : {1.0, 1e8, 1e16}) {
      check_all_ops<float, float>(n, cond, 17 + n);
      check_all_ops<double, double>(n, cond, 23 + n);
    }
    check_all_ops<__half, float>(n, 1.0, 29 + n);
    check_all_ops<float, double>(n, 1e8, 31 + n);
  }
}

// A communicator of one rank on device 0.
struct one_rank {
  ncclComm_t comm = nullptr;
  one_rank() {
    int dev = 0;
    TCR_CHECK_NCCL(ncclCommInitAll(&comm, 1, &dev));
  }
  ~one_rank() {
    if (comm)
      ncclCommDestroy(comm);
  }
};

template <dop Op, class X, class Out>
cudaError_t call_mg(void* temp, std::size_t& bytes, const X* x, const X* y, Out* out,
                    std::int64_t n, ncclComm_t comm, cudaStream_t s, ReduceOptions o) {
  if constexpr (Op == dop::sum)
    return MultiGpuReduce::Sum(temp, bytes, x, out, n, comm, s, o);
  else if constexpr (Op == dop::asum)
    return MultiGpuReduce::Asum(temp, bytes, x, out, n, comm, s, o);
  else if constexpr (Op == dop::dot)
    return MultiGpuReduce::Dot(temp, bytes, x, y, out, n, comm, s, o);
  else
    return MultiGpuReduce::Nrm2(temp, bytes, x, out, n, comm, s, o);
}

template <dop Op, class X, class Out>
void check_one_rank(ncclComm_t comm, const typed_data<X>& x, const typed_data<X>& y) {
  const std::int64_t n = std::int64_t(x.t.size());
  device_buffer<X> dx(x.t), dy(y.t);
  for (ReduceOptions o : {ReduceOptions{}, exact::rounded}) {
    const bool exact_mode = o.accuracy == Accuracy::correctly_rounded;
    std::size_t bytes = 0;
    const cudaError_t q =
        call_mg<Op>(nullptr, bytes, dx.get(), dy.get(), static_cast<Out*>(nullptr), n, comm, 0, o);
    REQUIRE(q == cudaSuccess);
    temp_storage temp(bytes);
    device_buffer<Out> out(1);
    const cudaError_t err =
        call_mg<Op>(temp.get(), bytes, dx.get(), dy.get(), out.get(), n, comm, 0, o);
    REQUIRE(err == cudaSuccess);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const Out res = out.download()[0];
    const std::vector<std::int64_t> whole = {0, n};
    const Out merged = exact_mode ? merged_parts<Op, Out, true>(dx.get(), dy.get(), whole, o)
                                  : merged_parts<Op, Out, false>(dx.get(), dy.get(), whole, o);
    INFO(op_name(op_of<Op>()), "<", type_name<X>(), " -> ", type_name<Out>(), "> n = ", n,
         exact_mode ? " exact" : " compensated");
    CHECK(exact::bits_of(res) == exact::bits_of(merged));
    if (!exact_mode)
      check_distributed<Out>(op_of<Op>(), to_double(res), x.d, y.d, !std::is_same_v<X, double>, 1);
  }
}

TEST_CASE("NCCL, one rank: the merge's bits, the contracts, every operation" *
          doctest::test_suite("gpu")) {
  one_rank r;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(1) << 20}) {
    const auto x = typed_data<float>(gen_sum<double>(n, 1e8, 5 + n));
    const auto y = typed_random<float>(n, 6 + n);
    check_one_rank<dop::sum, float, float>(r.comm, x, y);
    check_one_rank<dop::asum, float, float>(r.comm, x, y);
    check_one_rank<dop::dot, float, float>(r.comm, x, y);
    check_one_rank<dop::nrm2, float, float>(r.comm, x, y);
    const auto xd = typed_data<double>(gen_sum<double>(n, 1e16, 7 + n));
    const auto yd = typed_random<double>(n, 8 + n);
    check_one_rank<dop::sum, double, double>(r.comm, xd, yd);
    check_one_rank<dop::dot, double, double>(r.comm, xd, yd);
    check_one_rank<dop::nrm2, double, double>(r.comm, xd, yd);
  }
}

TEST_CASE("NCCL, one rank: bad arguments give cudaErrorInvalidValue and write nothing" *
          doctest::test_suite("gpu")) {
  one_rank r;
  const std::vector<float> host(100, 1.0f);
  device_buffer<float> dx(host);
  device_buffer<float> out(1);
  TCR_CHECK_CUDA(cudaMemset(out.get(), 0x7f, sizeof(float)));
  std::size_t bytes = 0;
  REQUIRE(MultiGpuReduce::Sum(nullptr, bytes, dx.get(), out.get(), 100, r.comm) == cudaSuccess);
  temp_storage temp(bytes);
  std::size_t small = bytes - 1;
  CHECK(MultiGpuReduce::Sum(temp.get(), small, dx.get(), out.get(), 100, r.comm) ==
        cudaErrorInvalidValue);
  CHECK(MultiGpuReduce::Sum(temp.get(), bytes, dx.get(), out.get(), -1, r.comm) ==
        cudaErrorInvalidValue);
  CHECK(MultiGpuReduce::Sum(temp.get(), bytes, dx.get(), static_cast<float*>(nullptr), 100,
                            r.comm) == cudaErrorInvalidValue);
  CHECK(MultiGpuReduce::Sum(temp.get(), bytes, static_cast<const float*>(nullptr), out.get(), 100,
                            r.comm) == cudaErrorInvalidValue);
  CHECK(MultiGpuReduce::Sum(temp.get(), bytes, dx.get(), out.get(), 100, nullptr) ==
        cudaErrorInvalidValue);
  ReduceOptions e = exact::rounded;
  std::size_t eb = 0;
  REQUIRE(MultiGpuReduce::Sum(nullptr, eb, dx.get(), out.get(), 100, r.comm, 0, e) == cudaSuccess);
  temp_storage etemp(eb);
  std::size_t esmall = eb - 1;
  CHECK(MultiGpuReduce::Sum(etemp.get(), esmall, dx.get(), out.get(), 100, r.comm, 0, e) ==
        cudaErrorInvalidValue);
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  CHECK(exact::bits_of(out.download()[0]) == 0x7f7f7f7fu);
  // The temporary storage never shrinks as n grows.
  std::size_t prev = 0;
  for (std::int64_t n : {0, 1, 1000, 1 << 20, 1 << 28}) {
    std::size_t b = 0;
    REQUIRE(MultiGpuReduce::Sum(nullptr, b, dx.get(), out.get(), n, r.comm) == cudaSuccess);
    CHECK(b >= prev);
    prev = b;
  }
}

TEST_CASE("NCCL, one rank: captured in a CUDA graph, the same bits each launch" *
          doctest::test_suite("gpu")) {
  one_rank r;
  const auto x = typed_data<float>(gen_sum<double>(1 << 16, 1e8, 3));
  device_buffer<float> dx(x.t);
  device_buffer<float> out(1);
  cudaStream_t s;
  TCR_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::size_t bytes = 0;
  REQUIRE(MultiGpuReduce::Sum(nullptr, bytes, dx.get(), out.get(), 1 << 16, r.comm, s) ==
          cudaSuccess);
  temp_storage temp(bytes);
  cudaGraph_t graph;
  TCR_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const cudaError_t err =
      MultiGpuReduce::Sum(temp.get(), bytes, dx.get(), out.get(), 1 << 16, r.comm, s);
  TCR_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  REQUIRE(err == cudaSuccess);
  cudaGraphExec_t exec;
  TCR_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  std::uint64_t first = 0;
  for (int i = 0; i < 3; ++i) {
    TCR_CHECK_CUDA(cudaMemsetAsync(out.get(), 0, sizeof(float), s));
    TCR_CHECK_CUDA(cudaGraphLaunch(exec, s));
    TCR_CHECK_CUDA(cudaStreamSynchronize(s));
    const std::uint64_t b = exact::bits_of(out.download()[0]);
    if (i == 0)
      first = b;
    CHECK(b == first);
  }
  check_distributed<float>(op::sum, to_double(out.download()[0]), x.d, x.d, true, 1);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

// Every visible GPU a rank, one thread each, the vector split unevenly: every rank's result has
// the same bits; exact ones those of DeviceReduce over the whole vector on one GPU.
TEST_CASE("every visible GPU a rank: the same bits on every rank" * doctest::test_suite("gpu")) {
  int devices = 0;
  TCR_CHECK_CUDA(cudaGetDeviceCount(&devices));
  const std::int64_t n = 3000001;
  const auto x = typed_data<float>(gen_sum<double>(std::size_t(n), 1e16, 41));
  const auto cut = cuts_of(n, devices, 43);
  ncclUniqueId id;
  TCR_CHECK_NCCL(ncclGetUniqueId(&id));
  std::vector<float> comp(devices), repro(devices);
  std::vector<int> status(devices, -1);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < devices; ++rank) {
    threads.emplace_back([&, rank] {
      int st = 1;
      cudaSetDevice(rank);
      ncclComm_t comm = nullptr;
      if (ncclCommInitRank(&comm, devices, id, rank) != ncclSuccess) {
        status[rank] = 2;
        return;
      }
      const std::int64_t m = cut[rank + 1] - cut[rank];
      float* dx = nullptr;
      float* out = nullptr;
      cudaMalloc(&dx, std::max<std::int64_t>(m, 1) * sizeof(float));
      cudaMalloc(&out, 2 * sizeof(float));
      if (m > 0)
        cudaMemcpy(dx, x.t.data() + cut[rank], m * sizeof(float), cudaMemcpyHostToDevice);
      for (int k = 0; k < 2; ++k) {
        const ReduceOptions o = k == 0 ? ReduceOptions{} : exact::reproducible;
        std::size_t bytes = 0;
        void* temp = nullptr;
        if (MultiGpuReduce::Sum(nullptr, bytes, dx, out + k, m, comm, 0, o) != cudaSuccess ||
            cudaMalloc(&temp, bytes) != cudaSuccess ||
            MultiGpuReduce::Sum(temp, bytes, dx, out + k, m, comm, 0, o) != cudaSuccess)
          st = 3;
        cudaDeviceSynchronize();
        cudaFree(temp);
      }
      float r[2] = {0, 0};
      cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
      comp[rank] = r[0];
      repro[rank] = r[1];
      cudaFree(dx);
      cudaFree(out);
      ncclCommDestroy(comm);
      status[rank] = st == 1 ? 0 : st;
    });
  }
  for (auto& t : threads)
    t.join();
  TCR_CHECK_CUDA(cudaSetDevice(0));
  MESSAGE("ranks: ", devices);
  for (int rank = 0; rank < devices; ++rank) {
    INFO("rank ", rank);
    CHECK(status[rank] == 0);
    CHECK(exact::bits_of(comp[rank]) == exact::bits_of(comp[0]));
    CHECK(exact::bits_of(repro[rank]) == exact::bits_of(repro[0]));
  }
  device_buffer<float> dx(x.t);
  const float single = run_device<float>(op::sum, dx.get(), dx.get(), n, exact::reproducible);
  CHECK(exact::bits_of(repro[0]) == exact::bits_of(single));
  check_distributed<float>(op::sum, to_double(comp[0]), x.d, x.d, true, devices);
}

TEST_CASE("a null communicator: cudaErrorInvalidValue, also at the size query") {
  std::size_t bytes = 0;
  const float* x = reinterpret_cast<const float*>(0x1000);
  float* out = reinterpret_cast<float*>(0x2000);
  CHECK(MultiGpuReduce::Sum(nullptr, bytes, x, out, 10, nullptr) == cudaErrorInvalidValue);
  CHECK(MultiGpuReduce::Dot(nullptr, bytes, x, x, out, 10, nullptr) == cudaErrorInvalidValue);
  CHECK(MultiGpuReduce::Nrm2(nullptr, bytes, x, out, 10, nullptr, 0, exact::rounded) ==
        cudaErrorInvalidValue);
}

} // namespace
