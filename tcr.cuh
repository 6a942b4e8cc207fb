// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 The tcr authors
//
// tcr: the umbrella header, everything a user calls in one include:
//   #include <tcr/tcr.cuh>
// Device-wide reductions (tcr::DeviceReduce), block and warp level (tcr::BlockReduce,
// tcr::WarpReduce) and the thread-level compensated accumulators that plug into them. Include
// the single headers instead (<tcr/reduce/device.cuh>, ...) to compile less.
#pragma once

#include "version.cuh"

#include "compensated/accumulators.cuh"
#include "compensated/block_sum.cuh"
#include "compensated/certified.cuh"
#include "compensated/double_word.cuh"
#include "compensated/exact.cuh"
#include "compensated/expansion.cuh"
#include "compensated/reductions.cuh"
#include "compensated/ssq.cuh"
#include "reduce/block.cuh"
#include "reduce/block_segmented.cuh"
#include "reduce/device.cuh"
#include "reduce/batched.cuh"
#include "reduce/segmented.cuh"
#include "reduce/warp.cuh"
