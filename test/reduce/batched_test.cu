// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceBatchedReduce (reduce/batched.cuh): size queries, bad input and overload
// resolution on the host; on the GPU, pointer-array batches (every length 0..70, 1000 and 5000
// in one call, a length each or one for all) and strided batches (incx 1, 2, 3, -2, strides
// beyond n, a broadcast y), float, half and double inputs, every vector against DeviceReduce's
// bound (exact references) and bitwise against DeviceSegmentedReduce on the same elements.
#include <doctest/doctest.h>

#include <thrust/iterator/counting_iterator.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>
#include <vector>
#include <tcr/reduce/batched.cuh>
#include "reduce/segmented_test_util.hpp"
#include "support/fake_address.hpp"

namespace {

using namespace tcr::test;
using DBR = tcr::DeviceBatchedReduce;

// The result type the tests ask for: double for double inputs, float otherwise.
template <class In>
using result_t = std::conditional_t<std::is_same_v<In, double>, double, float>;

// o over pointer arrays; `lengths` a device pointer (a length each) or an integer (one length).
template <class InX, class InY, class Out, class Lengths>
cudaError_t pointers_call(op o, void* temp, std::size_t& bytes, const InX* const* xp,
                          const InY* const* yp, Out* out, std::int64_t batch, Lengths lengths) {
  switch (o) {
  case op::sum:
    return DBR::Sum(temp, bytes, xp, out, batch, lengths);
  case op::asum:
    return DBR::Asum(temp, bytes, xp, out, batch, lengths);
  case op::dot:
    return DBR::Dot(temp, bytes, xp, yp, out, batch, lengths);
  default:
    return DBR::Nrm2(temp, bytes, xp, out, batch, lengths);
  }
}

// o over a strided batch.
template <class InX, class InY, class Out>
cudaError_t strided_call(op o, void* temp, std::size_t& bytes, const InX* x, std::int64_t incx,
                         std::int64_t stride_x, const InY* y, std::int64_t incy,
                         std::int64_t stride_y, Out* out, std::int64_t batch, std::int64_t n) {
  switch (o) {
  case op::sum:
    return DBR::Sum(temp, bytes, x, incx, stride_x, out, batch, n);
  case op::asum:
    return DBR::Asum(temp, bytes, x, incx, stride_x, out, batch, n);
  case op::dot:
    return DBR::Dot(temp, bytes, x, incx, stride_x, y, incy, stride_y, out, batch, n);
  default:
    return DBR::Nrm2(temp, bytes, x, incx, stride_x, out, batch, n);
  }
}

// Runs a call (size query, then the call) into `batch` results; the output starts as 0xff bytes.
template <class Out, class Call>
std::vector<Out> run_batched(std::int64_t batch, Call&& call) {
  device_buffer<Out> out(static_cast<std::size_t>(batch));
  if (out.size())
    TCR_CHECK_CUDA(cudaMemset(out.get(), 0xff, out.size() * sizeof(Out)));
  std::size_t bytes = 0;
  TCR_CHECK_CUDA(call(nullptr, bytes, out.get()));
  CHECK(bytes >= 1);
  temp_storage temp(bytes);
  TCR_CHECK_CUDA(call(temp.get(), bytes, out.get()));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download();
}

// o over pointer arrays (device copies of xp, yp); lengths: a length each, or `n` for all when
// null.
template <class Out, class InX, class InY>
std::vector<Out> run_pointers(op o, const std::vector<const InX*>& xp,
                              const std::vector<const InY*>& yp,
                              const std::vector<std::int64_t>* lengths, std::int64_t n = 0) {
  device_buffer<const InX*> dxp(xp);
  device_buffer<const InY*> dyp(yp);
  device_buffer<std::int64_t> dl(lengths ? *lengths : std::vector<std::int64_t>{});
  const auto batch = static_cast<std::int64_t>(xp.size());
  return run_batched<Out>(batch, [&](void* t, std::size_t& b, Out* out) {
    if (lengths)
      return pointers_call(o, t, b, dxp.get(), dyp.get(), out, batch,
                           static_cast<const std::int64_t*>(dl.get()));
    return pointers_call(o, t, b, dxp.get(), dyp.get(), out, batch, n);
  });
}

// The pointers to the layout's segments in the device array at d.
template <class T>
std::vector<const T*> pointers_to(const T* d, const segment_layout& l) {
  std::vector<const T*> p;
  for (std::int64_t b : l.begin)
    p.push_back(d + b);
  return p;
}

// A strided batch's shape: batch vectors of n elements, x_j of vector i at element at(i, j) of
// its buffer (vector 0's base at origin(), so negative strides stay inside).
struct strided_layout {
  std::int64_t n, batch, inc, stride;
  std::int64_t origin() const { return stride < 0 ? (batch - 1) * -stride : 0; }
  std::int64_t at(std::int64_t i, std::int64_t j) const {
    return origin() + i * stride + (inc >= 0 ? j * inc : (n - 1 - j) * -inc);
  }
  std::size_t total() const {
    if (n == 0 || batch == 0)
      return 1;
    const std::int64_t span = (stride > 0 ? (batch - 1) * stride : 0) + (n - 1) * std::abs(inc);
    return static_cast<std::size_t>(origin() + span + 1);
  }
};

// Random values of T at the layout's elements, NaN everywhere else (a stray read shows).
template <class T>
typed_data<T> strided_data(const strided_layout& l, std::uint64_t seed) {
  const auto r = typed_random<double>(static_cast<std::size_t>(l.n * l.batch), seed);
  std::vector<double> v(l.total(), std::nan(""));
  for (std::int64_t i = 0; i < l.batch; ++i)
    for (std::int64_t j = 0; j < l.n; ++j)
      v[static_cast<std::size_t>(l.at(i, j))] = r.d[static_cast<std::size_t>(i * l.n + j)];
  return typed_data<T>(v);
}

// Vector i of the layout, from the exact values.
inline std::vector<double> vector_of(const std::vector<double>& v, const strided_layout& l,
                                     std::int64_t i) {
  std::vector<double> x(static_cast<std::size_t>(l.n));
  for (std::int64_t j = 0; j < l.n; ++j)
    x[static_cast<std::size_t>(j)] = v[static_cast<std::size_t>(l.at(i, j))];
  return x;
}

// A strided batch as one array, it[k] = x_j of vector k / n (j = k % n): for
// DeviceSegmentedReduce's fixed-size form, which reads it one element at a time.
template <class T>
struct gather {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = T;
  const T* base; // vector 0's base
  std::int64_t n, inc, stride;
  __host__ __device__ T operator[](std::int64_t k) const {
    const std::int64_t i = k / n, j = k % n;
    return base[i * stride + (inc >= 0 ? j * inc : (n - 1 - j) * -inc)];
  }
};

template <class Out, class InX, class InY>
std::vector<Out> dsr_gather(op o, const gather<InX>& x, const gather<InY>& y, std::int64_t batch,
                            int n) {
  using DSR = tcr::DeviceSegmentedReduce;
  return run_batched<Out>(batch, [&](void* t, std::size_t& b, Out* out) {
    switch (o) {
    case op::sum:
      return DSR::Sum(t, b, x, out, batch, n);
    case op::asum:
      return DSR::Asum(t, b, x, out, batch, n);
    case op::dot:
      return DSR::Dot(t, b, x, y, out, batch, n);
    default:
      return DSR::Nrm2(t, b, x, out, batch, n);
    }
  });
}

// Every vector of a strided batch against o's contract (+0 for empty vectors).
template <class Out>
void check_vectors(op o, const std::vector<Out>& r, const std::vector<double>& x,
                   const strided_layout& lx, const std::vector<double>& y, const strided_layout& ly,
                   bool narrow) {
  REQUIRE(r.size() == static_cast<std::size_t>(lx.batch));
  for (std::int64_t i = 0; i < lx.batch; ++i) {
    INFO("vector ", i, " of ", lx.batch);
    const double v = static_cast<double>(r[static_cast<std::size_t>(i)]);
    if (lx.n == 0) {
      CHECK((v == 0 && !std::signbit(v)));
      continue;
    }
    check_contract<Out>(o, v, vector_of(x, lx, i), vector_of(y, ly, i), narrow);
  }
}

// Pointer arrays over the sweep lengths (gap elements before each vector), a length each:
// every vector within its bound and with DeviceSegmentedReduce's bits for the same elements;
// the batch reversed gives the results reversed, bit for bit.
template <class In>
void check_pointer_batch(std::int64_t gap, std::size_t offset, std::uint64_t seed) {
  using Out = result_t<In>;
  constexpr bool narrow = !std::is_same_v<In, double>;
  std::vector<std::int64_t> lengths;
  for (std::int64_t n = 0; n <= 70; ++n)
    lengths.push_back(n);
  for (std::int64_t n : {1000, 5000, 7, 4096, 4097})
    lengths.push_back(n);
  const segment_layout l = consecutive(lengths, gap);
  INFO("input ", type_name<In>(), ", gap ", gap, ", buffer offset ", offset, ", seed = ", seed);
  const auto x = random_segments<In>(l, seed);
  const auto y = random_segments<In>(l, seed + 1);
  padded_device<In> dx(x.t, offset), dy(y.t, offset + 3);
  const auto xp = pointers_to(dx.get(), l);
  const auto yp = pointers_to(dy.get(), l);
  const std::vector<const In*> rxp(xp.rbegin(), xp.rend()), ryp(yp.rbegin(), yp.rend());
  const std::vector<std::int64_t> rlengths(lengths.rbegin(), lengths.rend());
  for (op o : {op::sum, op::asum, op::nrm2, op::dot}) {
    INFO(op_name(o));
    const auto r = run_pointers<Out>(o, xp, yp, &lengths);
    check_segments<Out>(o, r, x.d, y.d, l, narrow);
    CHECK(same_bits(r, run_segmented<Out>(o, dx.get(), dy.get(), l)));
    auto rr = run_pointers<Out>(o, rxp, ryp, &rlengths);
    std::reverse(rr.begin(), rr.end());
    CHECK(same_bits(r, rr));
  }
}

// Pointer arrays with one length n for all, contiguous: the bits of DeviceSegmentedReduce's
// fixed-size form.
template <class In>
void check_common_length(std::int64_t n, std::uint64_t seed) {
  using Out = result_t<In>;
  constexpr bool narrow = !std::is_same_v<In, double>;
  const std::int64_t batch = n == 0 ? 5 : std::max<std::int64_t>(3, 60000 / n);
  INFO("input ", type_name<In>(), ", n ", n, ", batch ", batch, ", seed = ", seed);
  const segment_layout l = consecutive(std::vector<std::int64_t>(batch, n));
  const auto x = random_segments<In>(l, seed);
  const auto y = random_segments<In>(l, seed + 1);
  padded_device<In> dx(x.t, 1), dy(y.t, 0);
  const auto xp = pointers_to(dx.get(), l);
  const auto yp = pointers_to(dy.get(), l);
  for (op o : {op::sum, op::asum, op::nrm2, op::dot}) {
    INFO(op_name(o));
    const auto r = run_pointers<Out>(o, xp, yp, nullptr, n);
    check_segments<Out>(o, r, x.d, y.d, l, narrow);
    CHECK(same_bits(r, run_segmented_fixed<Out>(o, dx.get(), dy.get(), batch, int(n))));
  }
}

// A strided batch (x and y of the same shape, other data and alignment): every vector within its
// bound, and DeviceSegmentedReduce's bits: as segments at the same addresses (incx == 1) or
// through an iterator that yields the same elements (any other increment).
template <class In>
void check_strided(const strided_layout& l, std::size_t offset, std::uint64_t seed) {
  using Out = result_t<In>;
  constexpr bool narrow = !std::is_same_v<In, double>;
  INFO("input ", type_name<In>(), ", n ", l.n, ", batch ", l.batch, ", inc ", l.inc, ", stride ",
       l.stride, ", buffer offset ", offset, ", seed = ", seed);
  const auto x = strided_data<In>(l, seed);
  const auto y = strided_data<In>(l, seed + 1);
  padded_device<In> dx(x.t, offset), dy(y.t, offset + 1);
  const In* bx = dx.get() + l.origin();
  const In* by = dy.get() + l.origin();
  for (op o : {op::sum, op::asum, op::nrm2, op::dot}) {
    INFO(op_name(o));
    const auto r = run_batched<Out>(l.batch, [&](void* t, std::size_t& b, Out* out) {
      return strided_call(o, t, b, bx, l.inc, l.stride, by, l.inc, l.stride, out, l.batch, l.n);
    });
    check_vectors<Out>(o, r, x.d, l, y.d, l, narrow);
    if (l.inc == 1) {
      segment_layout s;
      for (std::int64_t i = 0; i < l.batch; ++i) {
        s.begin.push_back(l.at(i, 0));
        s.end.push_back(l.at(i, 0) + l.n);
      }
      CHECK(same_bits(r, run_segmented<Out>(o, dx.get(), dy.get(), s)));
    } else {
      const gather<In> gx{bx, l.n, l.inc, l.stride}, gy{by, l.n, l.inc, l.stride};
      CHECK(same_bits(r, dsr_gather<Out>(o, gx, gy, l.batch, int(l.n))));
    }
  }
}

} // namespace

TEST_CASE("the size query: 1 where the host knows every length is at most one chunk") {
  // A length each (unknown on the host): the storage through which the grid shares a long
  // vector's chunks; one length of at most one chunk (65536 floats): 1 byte.
  const float* const* xp = fake<const float* const>(0x50000);
  const float* x = fake<const float>(0x10000);
  float* out = fake<float>(0x20000);
  const int* len = fake<const int>(0x30000);
  std::size_t b = 0;
  CHECK(DBR::Sum(nullptr, b, xp, out, 10, len) == cudaSuccess);
  CHECK(b > 1);
  b = 0;
  CHECK(DBR::Sum(nullptr, b, xp, out, 10, 65536) == cudaSuccess);
  CHECK(b == 1);
  b = 0;
  CHECK(DBR::Sum(nullptr, b, xp, out, 10, 65537) == cudaSuccess);
  CHECK(b > 1);
  b = 0;
  CHECK(DBR::Asum(nullptr, b, xp, out, -1, -5) == cudaSuccess);
  CHECK(b == 1);
  b = 0;
  CHECK(DBR::Dot(nullptr, b, xp, static_cast<const float* const*>(nullptr), out, 3, len) ==
        cudaSuccess);
  CHECK(b > 1);
  b = 0;
  CHECK(DBR::Nrm2(nullptr, b, x, 0, 7, out, 4, 100) == cudaSuccess); // incx 0: checked later
  CHECK(b == 1);
  b = 0;
  CHECK(DBR::Dot(nullptr, b, x, 2, 64, static_cast<const float*>(nullptr), -1, 0, out, -3, 16) ==
        cudaSuccess);
  CHECK(b == 1);
}

TEST_CASE("bad input gives cudaErrorInvalidValue before touching the device") {
  const float* const* xp = fake<const float* const>(0x50000);
  const float* const* null_p = nullptr;
  const float* x = fake<const float>(0x10000);
  const float* null_x = nullptr;
  float* out = fake<float>(0x20000);
  const std::int64_t* len = fake<const std::int64_t>(0x30000);
  void* temp = fake<void>(0x40000);
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::min();
  std::size_t b = std::size_t(1) << 30; // enough for any call: only the flaw under test is bad
  const auto bad = cudaErrorInvalidValue;
  SUBCASE("too little temporary storage") {
    std::size_t need = 0;
    REQUIRE(DBR::Sum(nullptr, need, xp, out, 4, len) == cudaSuccess);
    std::size_t short_b = need - 1;
    CHECK(DBR::Sum(temp, short_b, xp, out, 4, len) == bad);
  }
  SUBCASE("pointer arrays") {
    CHECK(DBR::Sum(temp, b, xp, out, -1, len) == bad);
    CHECK(DBR::Sum(temp, b, xp, out, -1, 8) == bad);
    CHECK(DBR::Sum(temp, b, xp, out, 4, -1) == bad);
    CHECK(DBR::Sum(temp, b, xp, out, 0, -1) == bad);
    CHECK(DBR::Sum(temp, b, xp, static_cast<float*>(nullptr), 4, len) == bad);
    CHECK(DBR::Sum(temp, b, xp, static_cast<float*>(nullptr), 4, 0) == bad);
    CHECK(DBR::Sum(temp, b, null_p, out, 4, len) == bad); // whatever the lengths hold
    CHECK(DBR::Asum(temp, b, null_p, out, 4, 8) == bad);
    CHECK(DBR::Sum(temp, b, xp, out, 4, static_cast<const std::int64_t*>(nullptr)) == bad);
    CHECK(DBR::Dot(temp, b, xp, null_p, out, 4, len) == bad);
    CHECK(DBR::Dot(temp, b, null_p, xp, out, 4, 8) == bad);
    // Misaligned: the pointer array, the lengths, the output.
    CHECK(DBR::Nrm2(temp, b, fake<const float* const>(0x50004), out, 4, 8) == bad);
    CHECK(DBR::Sum(temp, b, xp, out, 4, fake<const std::int64_t>(0x30004)) == bad);
    CHECK(DBR::Sum(temp, b, xp, fake<float>(0x20002), 4, 8) == bad);
    CHECK(DBR::Dot(temp, b, xp, fake<const double* const>(0x60002), fake<double>(0x20000), 4,
                   len) == bad);
  }
  SUBCASE("strided") {
    CHECK(DBR::Sum(temp, b, x, 1, 16, out, -1, 16) == bad);
    CHECK(DBR::Sum(temp, b, x, 1, 16, out, 4, -1) == bad);
    CHECK(DBR::Sum(temp, b, x, 1, 16, out, 0, -1) == bad);
    CHECK(DBR::Sum(temp, b, null_x, 1, 16, out, 4, 16) == bad);
    CHECK(DBR::Sum(temp, b, fake<const float>(0x10002), 2, 16, out, 4, 16) == bad);
    CHECK(DBR::Sum(temp, b, x, 1, 16, static_cast<float*>(nullptr), 4, 16) == bad);
    CHECK(DBR::Nrm2(temp, b, x, 1, 16, fake<float>(0x20001), 4, 16) == bad);
    CHECK(DBR::Asum(temp, b, x, 0, 16, out, 4, 16) == bad); // incx 0, n > 1
    CHECK(DBR::Dot(temp, b, x, 1, 16, x, 0, 16, out, 4, 16) == bad);
    CHECK(DBR::Dot(temp, b, x, 1, 16, null_x, 1, 16, out, 4, 16) == bad);
    CHECK(DBR::Dot(temp, b, x, 1, 16, fake<const double>(0x60004), 1, 16, fake<double>(0x20000), 4,
                   16) == bad);
    // Spans of 2^62 elements or more, and increments and strides without a magnitude.
    CHECK(DBR::Sum(temp, b, x, std::int64_t(1) << 40, 16, out, 4, std::int64_t(1) << 22 | 1) ==
          bad);
    CHECK(DBR::Sum(temp, b, x, 1, std::int64_t(1) << 61, out, 3, 16) == bad);
    CHECK(DBR::Sum(temp, b, x, 1, big, out, 2, 16) == bad);
    CHECK(DBR::Sum(temp, b, x, big, 1, out, 2, 2) == bad);
    CHECK(DBR::Dot(temp, b, x, 1, 1, x, -(std::int64_t(1) << 62), 1, out, 4, 2) == bad);
  }
}

TEST_CASE("no vectors: success without a launch, whatever the pointers") {
  std::size_t b = 1;
  void* temp = fake<void>(0x40000);
  const float* const* null_p = nullptr;
  float* null_out = nullptr;
  CHECK(DBR::Sum(temp, b, null_p, null_out, 0, static_cast<const int*>(nullptr)) == cudaSuccess);
  CHECK(DBR::Dot(temp, b, null_p, null_p, null_out, 0, 16) == cudaSuccess);
  CHECK(DBR::Nrm2(temp, b, static_cast<const float*>(nullptr), 0, 0, null_out, 0, 16) ==
        cudaSuccess);
  CHECK(DBR::Dot(temp, b, static_cast<const float*>(nullptr), 1, 4,
                 static_cast<const float*>(nullptr), 0, 4, null_out, 0, 0) == cudaSuccess);
}

TEST_CASE("Engine::tensor_core has no batched path: cudaErrorNotSupported") {
  std::size_t b = 1;
  tcr::ReduceOptions tc;
  tc.engine = tcr::Engine::tensor_core;
  void* temp = fake<void>(0x40000);
  CHECK(DBR::Sum(temp, b, fake<const __half* const>(0x50000), fake<float>(0x20000), 4, 16, 0, tc) ==
        cudaErrorNotSupported);
  CHECK(DBR::Sum(temp, b, fake<const __half>(0x10000), 1, 16, fake<float>(0x20000), 4, 16, 0, tc) ==
        cudaErrorNotSupported);
}

TEST_CASE("overloads: pointer arrays of any constness, lengths of any integer type, strided") {
  // Size queries only: each call instantiates (compiles) its kernel and returns before a launch.
  // Which overload a call picks shows in what the checks reject.
  std::size_t b = 0;
  float* out = fake<float>(0x20000);
  CHECK(DBR::Sum(nullptr, b, fake<float*>(0x50000), out, 4, 16) == cudaSuccess); // float**
  CHECK(DBR::Sum(nullptr, b, fake<const float*>(0x50000), out, 4, std::size_t(16)) == cudaSuccess);
  CHECK(DBR::Sum(nullptr, b, fake<const float* const>(0x50000), out, 4,
                 fake<const unsigned>(0x30000)) == cudaSuccess);
  CHECK(DBR::Asum(nullptr, b, fake<const float* const>(0x50000), out, 4,
                  thrust::counting_iterator<int>(0)) == cudaSuccess);
  CHECK(DBR::Dot(nullptr, b, fake<const __half* const>(0x50000), fake<const float* const>(0x60000),
                 fake<tcr::dd>(0x20000), 4, fake<const short>(0x30000)) == cudaSuccess);
  CHECK(DBR::Dot(nullptr, b, fake<const float>(0x10000), 1, 8, fake<const double>(0x60000), 2, 16,
                 fake<double>(0x20000), 4, 8) == cudaSuccess);
  static_assert(
      std::is_same_v<decltype(DBR::Nrm2(nullptr, b, fake<const float>(0), 1, 1, out, 1, 1)),
                     cudaError_t>);
  // An integer in the lengths' place is one length (negative: rejected as such); a pointer is
  // a length each (null: rejected as such).
  void* temp = fake<void>(0x40000);
  CHECK(DBR::Sum(temp, b, fake<const float* const>(0x50000), out, 4, -3) == cudaErrorInvalidValue);
  CHECK(DBR::Sum(temp, b, fake<const float* const>(0x50000), out, 0, -3) == cudaErrorInvalidValue);
  CHECK(DBR::Sum(temp, b, fake<const float* const>(0x50000), out, 0,
                 static_cast<const int*>(nullptr)) == cudaSuccess);
}

TEST_SUITE("gpu") {
  TEST_CASE("nothing is written on bad input") {
    device_buffer<float> in(std::vector<float>(64, 1.0f));
    device_buffer<const float*> ptrs(std::vector<const float*>(8, in.get()));
    device_buffer<float> out(8);
    TCR_CHECK_CUDA(cudaMemset(out.get(), 0x5a, 8 * sizeof(float)));
    temp_storage temp(16);
    std::size_t b = 1;
    const auto bad = cudaErrorInvalidValue;
    const float* const* p = ptrs.get();
    CHECK(DBR::Sum(temp.get(), b, p, out.get(), -8, 8) == bad);
    CHECK(DBR::Sum(temp.get(), b, p, out.get(), 8, -8) == bad);
    CHECK(DBR::Sum(temp.get(), b, static_cast<const float* const*>(nullptr), out.get(), 8, 8) ==
          bad);
    CHECK(DBR::Sum(temp.get(), b, in.get(), 0, 8, out.get(), 8, 8) == bad);
    CHECK(DBR::Sum(temp.get(), b,
                   reinterpret_cast<const float*>(reinterpret_cast<const char*>(in.get()) + 2), 1,
                   8, out.get(), 8, 8) == bad);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    for (float v : out.download()) {
      std::uint32_t w;
      std::memcpy(&w, &v, 4);
      CHECK(w == 0x5a5a5a5au);
    }
  }

  TEST_CASE("pointer arrays, lengths 0..70, 1000, 5000 in one call: bounds and bits") {
    for (std::int64_t gap : {0, 3}) {
      for (std::size_t offset : {0, 1}) {
        check_pointer_batch<float>(gap, offset, 3100 + gap);
        check_pointer_batch<__half>(gap, offset, 3200 + gap);
        check_pointer_batch<double>(gap, offset, 3300 + gap);
      }
    }
  }

  TEST_CASE("pointer arrays, one length: the fixed-size form's bits") {
    for (std::int64_t n : {0, 1, 33, 4096, 4097}) {
      check_common_length<float>(n, 3400 + n);
      check_common_length<__half>(n, 3500 + n);
      check_common_length<double>(n, 3600 + n);
    }
  }

  TEST_CASE("empty vectors: their pointers are never read, their results +0") {
    const auto x = typed_random<float>(5, 3700);
    device_buffer<float> dx(x.t);
    const std::vector<const float*> xp = {nullptr, dx.get(), nullptr, dx.get() + 1};
    const std::vector<std::int64_t> lengths = {0, 5, -4, 4};
    for (op o : {op::sum, op::dot}) {
      INFO(op_name(o));
      const auto r = run_pointers<float>(o, xp, xp, &lengths);
      CHECK((r[0] == 0 && !std::signbit(r[0])));
      CHECK((r[2] == 0 && !std::signbit(r[2])));
      check_contract<float>(o, r[1], x.d, x.d, true);
      const std::vector<double> tail(x.d.begin() + 1, x.d.end());
      check_contract<float>(o, r[3], tail, tail, true);
    }
    // One length 0 for all: null pointer arrays are accepted, nothing is read.
    device_buffer<float> out(3);
    temp_storage temp(1);
    std::size_t b = 1;
    TCR_CHECK_CUDA(
        DBR::Nrm2(temp.get(), b, static_cast<const float* const*>(nullptr), out.get(), 3, 0));
    TCR_CHECK_CUDA(
        DBR::Sum(temp.get(), b, static_cast<const float*>(nullptr), 0, 0, out.get(), 3, 0));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    for (float v : out.download())
      CHECK((v == 0 && !std::signbit(v)));
  }

  TEST_CASE("strided batches, incx 1, 2, 3, -2, strides beyond n: bounds and bits") {
    for (std::int64_t n : {0, 1, 7, 64, 1000, 5000}) {
      for (std::int64_t inc : {1, 2, 3, -2}) {
        for (std::int64_t extra : {0, 5}) {
          const std::int64_t stride = n * std::abs(inc) + extra;
          const std::int64_t batch = std::max<std::int64_t>(3, 20000 / (n * std::abs(inc) + 1));
          const strided_layout l{n, batch, inc, stride};
          const std::uint64_t seed = 4000 + static_cast<std::uint64_t>(n * 16 + (inc + 2) * 2) +
                                     static_cast<std::uint64_t>(extra);
          check_strided<float>(l, static_cast<std::size_t>(extra % 2), seed);
          check_strided<__half>(l, 1, seed + 1);
          check_strided<double>(l, 0, seed + 2);
        }
      }
    }
  }

  TEST_CASE("strided Dot: increments of opposite signs, a broadcast y, a negative stride") {
    const std::uint64_t seed = 4500;
    INFO("seed = ", seed);
    for (std::int64_t n : {1, 40, 4097}) {
      const std::int64_t batch = 50;
      const strided_layout lx{n, batch, 2, -(2 * n + 3)}; // vectors at falling addresses
      const strided_layout ly{n, 1, -1, 0};               // one y for all, read backwards
      const strided_layout ly_batch{n, batch, -1, 0};     // its vectors, for the references
      const auto x = strided_data<float>(lx, seed + static_cast<std::uint64_t>(n));
      const auto y = strided_data<float>(ly, seed + 1 + static_cast<std::uint64_t>(n));
      padded_device<float> dx(x.t, 1), dy(y.t, 0);
      INFO("n ", n);
      const auto r = run_batched<float>(batch, [&](void* t, std::size_t& b, float* out) {
        return DBR::Dot(t, b, dx.get() + lx.origin(), lx.inc, lx.stride, dy.get(), ly.inc,
                        ly.stride, out, batch, n);
      });
      check_vectors<float>(op::dot, r, x.d, lx, y.d, ly_batch, true);
      // And the same pairs with both operands read forwards from the other ends, each reversed.
      const auto rf = run_batched<float>(batch, [&](void* t, std::size_t& b, float* out) {
        return DBR::Dot(t, b, dx.get() + lx.origin(), -lx.inc, lx.stride, dy.get(), -ly.inc,
                        ly.stride, out, batch, n);
      });
      check_vectors<float>(op::dot, rf, x.d, lx, y.d, ly_batch, true);
    }
  }

  TEST_CASE("2^16 pointer-array vectors of 64..4096 elements, Dot and Nrm2 (large)") {
    const std::uint64_t seed = 4600;
    INFO("seed = ", seed);
    rng64 rng(seed);
    std::vector<std::int64_t> lengths(std::size_t(1) << 16);
    for (auto& n : lengths)
      n = rng.integer(64, 4096);
    const segment_layout l = consecutive(lengths, 1);
    const auto x = random_segments<float>(l, seed + 1);
    const auto y = random_segments<__half>(l, seed + 2);
    padded_device<float> dx(x.t, 0);
    padded_device<__half> dy(y.t, 1);
    const auto xp = pointers_to(dx.get(), l);
    const auto yp = pointers_to(dy.get(), l);
    for (op o : {op::dot, op::nrm2}) {
      INFO(op_name(o));
      const auto r = run_pointers<float>(o, xp, yp, &lengths);
      check_segments<float>(o, r, x.d, y.d, l, true);
      CHECK(same_bits(r, run_segmented<float>(o, dx.get(), dy.get(), l)));
    }
  }

  TEST_CASE("strided batches of long vectors (a block each), incx 1 and 3 (large)") {
    for (std::int64_t inc : {1, 3}) {
      const strided_layout l{70000, 40, inc, 70000 * inc + 11};
      check_strided<float>(l, 1, 4700 + static_cast<std::uint64_t>(inc));
      check_strided<double>(l, 0, 4800 + static_cast<std::uint64_t>(inc));
    }
  }
}
