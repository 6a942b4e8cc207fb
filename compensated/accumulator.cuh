// SPDX-License-Identifier: BSD-3-Clause
// tcr: the accumulator concept, shared by compensated/ (which defines accumulators) and
// reduce/ (which combines them across threads without knowing what they contain).
//
// An accumulator A is trivially copyable and default-constructs to the empty sum; it has
//   a.add(x)      fold one input element in,
//   a.merge(b)    fold in another accumulator (for parallel combining; any order is allowed),
//   a.result()    the rounded result.
// Plain arithmetic types are accumulators too: add and merge are `+`, result is the value.
#pragma once

#include <type_traits>
#include <utility>
#include "config.cuh"
#include "convert.cuh"

namespace tcr {
namespace detail {
template <class A, class = void>
struct has_merge : std::false_type {};
template <class A>
struct has_merge<A, std::void_t<decltype(std::declval<A&>().merge(std::declval<const A&>()))>>
    : std::true_type {};
template <class A, class X, class = void>
struct has_add_magnitudes : std::false_type {};
template <class A, class X>
struct has_add_magnitudes<
    A, X, std::void_t<decltype(std::declval<A&>().add_magnitudes(std::declval<const X (&)[1]>()))>>
    : std::true_type {};
} // namespace detail

// True where A offers add_magnitudes(x) for inputs X (the accumulators of
// compensated/reductions.cuh).
template <class A, class X>
inline constexpr bool has_add_magnitudes_v = detail::has_add_magnitudes<A, X>::value;

template <class A>
inline constexpr bool is_accumulator_v = detail::has_merge<A>::value;

// merge(a, b): the accumulator holding both; for plain types a + b.
template <class A>
TCR_HD A merge(A a, const A& b) {
  if constexpr (is_accumulator_v<A>) {
    a.merge(b);
    return a;
  } else {
    return a + b;
  }
}

// accumulate(a, x): a with x folded in; for plain types a + A(x).
template <class A, class X>
TCR_HD A accumulate(A a, const X& x) {
  if constexpr (is_accumulator_v<A>) {
    a.add(x);
    return a;
  } else {
    return a + widen<A>(x);
  }
}

// result(a): the rounded value an accumulator stands for; plain types are returned as they are.
template <class A>
TCR_HD auto result(const A& a) {
  if constexpr (is_accumulator_v<A>) {
    return a.result();
  } else {
    return a;
  }
}

} // namespace tcr
