// SPDX-License-Identifier: BSD-3-Clause
// tcr: a key paired with a value, the result of ArgMin / ArgMax's CUB-style overload that writes
// both at once (as cub::KeyValuePair: the index in key, the extremum in value).
#pragma once

#include "../compensated/config.cuh"

namespace tcr {

template <class K, class V>
struct KeyValuePair {
  using Key = K;
  using Value = V;
  Key key;
  Value value;

  KeyValuePair() = default;
  TCR_HD KeyValuePair(const Key& k, const Value& v) : key(k), value(v) {}
  TCR_HD friend bool operator==(const KeyValuePair& a, const KeyValuePair& b) {
    return a.key == b.key && a.value == b.value;
  }
  TCR_HD friend bool operator!=(const KeyValuePair& a, const KeyValuePair& b) { return !(a == b); }
};

} // namespace tcr
