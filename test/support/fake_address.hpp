// SPDX-License-Identifier: BSD-3-Clause
// tcr tests: fake device addresses for the host cases of the API tests.
#pragma once

#include <cstdint>

namespace tcr::test {

// A pointer to address a, never dereferenced: the host cases that take one fail their checks
// first or return before a launch (size queries).
template <class T>
T* fake(std::uintptr_t a) {
  return reinterpret_cast<T*>(a);
}

} // namespace tcr::test
