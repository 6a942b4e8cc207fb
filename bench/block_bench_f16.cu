// SPDX-License-Identifier: BSD-3-Clause
// tcr block-level benchmark, f16 items (bench/block_bench.cuh).
#include "block_bench.cuh"

namespace {
const bool registered = tcr_block_bench::add_type<__half>();
} // namespace
