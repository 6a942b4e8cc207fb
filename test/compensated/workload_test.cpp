// SPDX-License-Identifier: BSD-3-Clause
// The compensated/ workload on the host: its digest must be the recorded one in both contraction
// builds (and on the device: workload_gpu_test.cu), i.e. the results are bitwise identical.
#include <doctest/doctest.h>

#include <cinttypes>
#include <cstdio>
#include "workload.hpp"

TEST_CASE("compensated/ results are bitwise identical with contraction on and off") {
  const auto in = tcr::test::make_workload_input();
  const auto results = tcr::test::run_workload_host(in);
  REQUIRE(results.size() == std::size_t(tcr::test::workload_chunks) * tcr::test::workload_outputs);
  const std::uint64_t digest = tcr::test::workload_digest(results);
  char text[32];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, digest);
  INFO("digest = ", text);
  CHECK(digest == tcr::test::workload_expected_digest);
}
