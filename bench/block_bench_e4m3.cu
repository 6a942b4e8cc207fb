// SPDX-License-Identifier: BSD-3-Clause
// tcr block-level benchmark, e4m3 items (bench/block_bench.cuh).
#include "block_bench.cuh"

namespace {
const bool registered = tcr_block_bench::add_type<__nv_fp8_e4m3>();
} // namespace
