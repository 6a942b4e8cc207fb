// SPDX-License-Identifier: BSD-3-Clause
// tcr tests: merging accumulators in a random tree, for the merge bounds of compensated/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>
#include "support/gen.hpp"

namespace tcr::test {

// Merges parts two at a time, in an order drawn from rng, until one is left; each merge goes
// either way round (a.merge(b) or b.merge(a): both must keep the bound). height[k] is part k's
// tree height; a merge's result has the larger height plus step. Returns the last part and its
// height.
template <class A>
std::pair<A, double> random_merge(std::vector<A> parts, std::vector<double> height, rng64& rng,
                                  double step) {
  while (parts.size() > 1) {
    const std::size_t i = std::size_t(rng.next() % parts.size());
    std::size_t j = std::size_t(rng.next() % (parts.size() - 1));
    if (j >= i)
      ++j;
    if (rng.coin()) {
      parts[i].merge(parts[j]);
    } else {
      A t = parts[j];
      t.merge(parts[i]);
      parts[i] = t;
    }
    height[i] = std::max(height[i], height[j]) + step;
    parts.erase(parts.begin() + std::ptrdiff_t(j));
    height.erase(height.begin() + std::ptrdiff_t(j));
  }
  return {parts[0], height[0]};
}

} // namespace tcr::test
