// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceSegmentedReduce's tensor-core row path (fixed-size Sum and Asum of e4m3,
// and of __half in Accuracy::fast; Engine::tensor_core): every segment against its proven bound
// (the compensated contract for e4m3, whose MMA chains are exact; the fast bound with
// c = fast_error_constant for __half), segment counts that are not multiples of a row tile,
// every allowed size class, NaN and Inf in their own segment, the same bits twice.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include "reduce/segmented_test_util.hpp"

namespace {

using namespace tcr::test;

template <class In>
void check_rows(op o, std::int64_t size, std::int64_t num, bool fast, std::uint64_t seed) {
  INFO(type_name<In>(), " ", op_name(o), ", size ", size, ", ", num, " segments, seed = ", seed);
  const segment_layout l = consecutive(std::vector<std::int64_t>(num, size));
  const auto x = random_segments<In>(l, seed);
  padded_device<In> dx(x.t, 0);
  tcr::ReduceOptions opt;
  opt.engine = tcr::Engine::tensor_core;
  if (fast)
    opt.accuracy = tcr::Accuracy::fast;
  const auto r =
      run_segmented_fixed<float>(o, dx.get(), dx.get(), num, static_cast<int>(size), opt);
  const double c = fast ? tcr::fast_error_constant<In, float>() : 0.0;
  for (std::size_t s = 0; s < r.size(); ++s) {
    INFO("segment ", s);
    check_contract<float>(o, static_cast<double>(r[s]), segment_of(x.d, l, s), {}, true, c);
  }
  CHECK(same_bits(
      r, run_segmented_fixed<float>(o, dx.get(), dx.get(), num, static_cast<int>(size), opt)));
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("e4m3 rows on the tensor cores meet the compensated bound") {
    for (std::int64_t size : {32, 64, 96, 160, 512, 4096})
      for (op o : {op::sum, op::asum})
        check_rows<__nv_fp8_e4m3>(o, size, 16 * 37 + 5, false, 4000 + size);
  }

  TEST_CASE("__half rows on the tensor cores meet the fast bound") {
    for (std::int64_t size : {16, 32, 48, 64, 80, 256, 1024, 4096})
      for (op o : {op::sum, op::asum})
        check_rows<__half>(o, size, 16 * 29 + 11, true, 4100 + size);
  }

  TEST_CASE("rows: NaN and Inf stay in their own segment") {
    const std::int64_t size = 64, num = 20;
    std::vector<double> v(static_cast<std::size_t>(size * num), 1.0);
    const double inf = std::numeric_limits<double>::infinity();
    v[1 * size + 3] = std::nan("");
    v[5 * size + 63] = inf;
    v[9 * size] = inf;
    v[9 * size + 1] = -inf;
    const typed_data<__half> x(v);
    device_buffer<__half> d(x.t);
    tcr::ReduceOptions opt;
    opt.engine = tcr::Engine::tensor_core;
    opt.accuracy = tcr::Accuracy::fast;
    const auto r = run_segmented_fixed<float>(op::sum, d.get(), d.get(), num, size, opt);
    for (std::int64_t s = 0; s < num; ++s) {
      INFO("segment ", s);
      if (s == 1 || s == 9)
        CHECK(std::isnan(r[s]));
      else if (s == 5)
        CHECK(r[s] == std::numeric_limits<float>::infinity());
      else
        CHECK(r[s] == 64.0f);
    }
  }
}
