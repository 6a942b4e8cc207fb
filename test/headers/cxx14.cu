// SPDX-License-Identifier: BSD-3-Clause
// Compiled as C++14 by the ctest tcr_headers_reject_cxx14, which expects version.cuh's #error.
#include <tcr/reduce/device.cuh> // any header: compensated/config.cuh includes version.cuh
