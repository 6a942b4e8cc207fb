// SPDX-License-Identifier: BSD-3-Clause
// tcr: shared vocabulary of the tensor-core structs (mma/): fragment coordinates, the arch
// guard helper and the lane index.
//
// Every struct in mma/ describes one mma.sync instruction. Its fragment maps say which element
// of which matrix a lane holds: a_coord(lane, i) is the (row, col) of element i (low to high, as
// the PTX ISA numbers them: a0, a1, ...) of lane's A fragment; likewise b_coord and c_coord (C
// and D share a layout). They are constexpr host/device functions, so the host tests check them
// (test/mma) and the device tests check them against the hardware.
#pragma once

#include <cstdint>
#include "../compensated/config.cuh"
#include "../compensated/convert.cuh" // __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2

namespace tcr::mma {

// A position in a matrix operand.
struct coord {
  int row;
  int col;
};

TCR_HD constexpr bool operator==(coord a, coord b) {
  return a.row == b.row && a.col == b.col;
}

namespace detail {
// For static_asserts that must fire only when a template is instantiated.
template <class T>
inline constexpr bool dependent_false_v = false;

// PTX's names for a lane's position in its warp.
TCR_HD constexpr int group_id(int lane) {
  return lane >> 2;
} // 0..7
TCR_HD constexpr int thread_in_group(int lane) {
  return lane & 3;
} // 0..3
} // namespace detail

} // namespace tcr::mma

namespace tcr::detail {
// The calling thread's lane in its warp (0..31). The one definition for mma/ and reduce/.
__device__ __forceinline__ int lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return static_cast<int>(lane);
}
} // namespace tcr::detail
