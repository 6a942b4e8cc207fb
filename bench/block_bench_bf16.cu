// SPDX-License-Identifier: BSD-3-Clause
// tcr block-level benchmark, bf16 items (bench/block_bench.cuh).
#include "block_bench.cuh"

namespace {
const bool registered = tcr_block_bench::add_type<__nv_bfloat16>();
} // namespace
