// SPDX-License-Identifier: BSD-3-Clause
#include <doctest/doctest.h>
