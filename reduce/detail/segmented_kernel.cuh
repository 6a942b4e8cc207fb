// SPDX-License-Identifier: BSD-3-Clause
// tcr: the one-launch kernel behind tcr::DeviceSegmentedReduce (implementation detail).
//
// Generic over an accumulator from compensated/reductions.cuh (through the reduction type of
// reduce/detail/device_kernel.cuh): load -> accumulate -> team reduce -> store, per segment.
// Each segment gets a team whose size is a function of its length n alone (tier_of): 2^t lanes
// of a warp, the smallest power of two that leaves each lane at most one full round of
// segmented_unroll vectors, capped at 32, or the whole block of segmented_threads threads for
// n > segmented_warp_max. A warp takes tiles of G consecutive segments (G = segments_per_warp,
// 1..32), grid-strided over the grid's warps:
//   1. lane l < G holds the bounds of the tile's segment l (read while the previous tile was
//      folded) and picks its tier;
//   2. the warp takes its segments tier by tier (a ballot per tier): the k-th segment of a tier
//      of teams of T lanes goes to team k mod (32 / T) (lanes [T j, T j + T) of the warp are
//      team j), whose ranks fold their shares (team_partial), a WarpReduce tree over logical
//      warps of T lanes merges them, and the team's first lane writes the result; a lane holding
//      a tier-0 segment (a team of one) folds it itself;
//   3. the block-tier segments go to the block's list; after a block barrier, the whole block
//      takes the listed segments chunk by chunk (chunks_of: 16384 vectors each),
//      each chunk folded by the whole block (team_partial with a team of segmented_threads, a
//      BlockReduce merges the threads); where the launch shares (temporary storage, see
//      segmented_kernel below) other blocks may take chunks of them, and the chunk totals of a
//      segment are merged in a fixed order (step 4).
// Where the host knows that every segment is of the block tier (a fixed size, or batches of one
// length, above segmented_warp_max), block b takes segments b, b + grid, ... and only steps 3
// and 4 run, so that the long segments spread over the grid. (The fixed-size
// overload up to segmented_warp_max runs segmented_fixed_kernel.cuh instead, with the same
// team_partial and team_total.)
// A team's share of a segment of n elements at x (and y): the head of single elements before the
// wider operand's first 16-byte boundary, the 16-byte vectors, the tail of single elements.
// Rank r takes head element r, vectors r, r + T, r + 2T, ... (T the team size; segmented_unroll
// vectors per operand per full round, then one vector at a time) and tail element r; inputs that
// are not read as vectors (iterators, and operands whose alignments disagree) go one element at a
// time: elements r, r + T, .... So a segment's combining order is a function of its length and
// its inputs' addresses modulo 16 bytes alone, never of the grid, the tile, the team that takes
// it, the other segments or the GPU.
// Accumulators: the warp tiers (at most segmented_warp_max elements) fold float-result Sum, Asum
// and Nrm2 with the short accumulators of compensated/reductions.cuh (a double sum meets the
// compensated bound for so few terms: its proof is there), everything else with R's own; below
// tier 5 a rank has at most segmented_unroll vectors, loaded at once under predicates (Slots).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include "../../compensated/exact.cuh"
#include "../../compensated/reductions.cuh"
#include "../block.cuh"
#include "../warp.cuh"
#include "device_kernel.cuh"
#include "sources.cuh"

namespace tcr {
namespace detail {
namespace segmented {

inline constexpr int segmented_threads = 256;                  // per block, a compile-time constant
inline constexpr int segmented_warps = segmented_threads / 32; // warps per block
inline constexpr std::int64_t segmented_warp_max = 4096;       // longer segments: a whole block
inline constexpr int segmented_unroll = 4;                     // vectors per operand in flight
inline constexpr std::int64_t segmented_max_grid = std::int64_t(1) << 20; // blocks, at most
// Blocks a launch should have at least, where the segments allow: a warp tile holds fewer
// segments when there are too few segments to fill this many blocks with 32 per warp (1024
// measured faster than 4096 on the H200 for mixed lengths: more segments per warp keep more
// lanes busy; see tile_waves in reduce/segmented.cuh).
inline constexpr std::int64_t segmented_target_blocks = 1024;
inline constexpr int block_tier = 6; // a segment longer than segmented_warp_max: the block's

// Segments per warp tile: 32, or the largest power of two below it that still gives
// segmented_target_blocks blocks of segmented_warps such tiles (at least 1).
inline int segments_per_warp(std::int64_t num_segments) {
  int g = 32;
  while (g > 1 && num_segments < std::int64_t(g) * segmented_warps * segmented_target_blocks)
    g /= 2;
  return g;
}

// The team of a segment of n elements is 2^tier lanes: the smallest power of two that gives each
// lane at most one full round (segmented_unroll vectors of R::vector_items elements), capped at
// 32; block_tier for a segment longer than segmented_warp_max. A function of n alone.
template <class R>
__host__ __device__ __forceinline__ int tier_of(std::int64_t n) {
  if (n > segmented_warp_max)
    return block_tier;
  constexpr int round = segmented_unroll * R::vector_items;     // elements of one lane's full round
  const int rounds = (static_cast<int>(n) + round - 1) / round; // n <= segmented_warp_max
  // ceil(log2(rounds)) capped at 5, without a loop: the powers of two below rounds, up to 16
  return (rounds > 1) + (rounds > 2) + (rounds > 4) + (rounds > 8) + (rounds > 16);
}

// A source moved to element `first`, indexed from 0 within the segment (so indexed_source's
// indices are relative to the segment's start, as CUB's segmented ArgMin writes them).
// Pointers move (and keep the vector path); any other source is indexed through offset_source.
template <class S>
struct offset_source {
  S s;
  std::int64_t first;
  __device__ __forceinline__ decltype(auto) operator[](std::int64_t i) const {
    return s[first + i];
  }
};
// A source moved to its element `off`: pointers move, any other source is indexed through
// offset_source (so an indexed_source keeps its indices; chunks of a segment use this).
template <class S>
__device__ __forceinline__ auto chunk_source(const S& s, std::int64_t off) {
  if constexpr (std::is_pointer_v<S>)
    return s + off;
  else
    return offset_source<S>{s, off};
}
template <class S>
__device__ __forceinline__ auto segment_source(const S& s, std::int64_t first) {
  return chunk_source(s, first);
}
template <class It, class T>
__device__ __forceinline__ auto segment_source(const device::indexed_source<It, T>& s,
                                               std::int64_t first) {
  using S = decltype(segment_source(s.it, first));
  return device::indexed_source<S, T>{segment_source(s.it, first)};
}

// Where segment s lies: bounds(s, first, length) gives its locator `first` (here its first
// element) and its length (end <= begin: an empty segment); source<I>(s_launch, first) gives the
// source of operand I (0: x, 1: y) for that segment, here the launch's source moved to `first`.
// fetch(s) and unpack: bounds in two steps, the loads and then the arithmetic, so that a kernel
// can read a tile's bounds ahead and convert them only when it needs them (the conversion placed
// right after the loads waits for them).
template <class BeginIt, class EndIt>
struct offset_segments {
  BeginIt begin;
  EndIt end;
  struct fetched {
    std::decay_t<decltype(std::declval<const BeginIt&>()[0])> b;
    std::decay_t<decltype(std::declval<const EndIt&>()[0])> e;
  };
  __device__ __forceinline__ fetched fetch(std::int64_t s) const { return {begin[s], end[s]}; }
  __device__ __forceinline__ static void unpack(const fetched& f, std::int64_t& first,
                                                std::int64_t& length) {
    first = static_cast<std::int64_t>(f.b);
    const std::int64_t last = static_cast<std::int64_t>(f.e);
    length = last > first ? last - first : 0;
  }
  __device__ __forceinline__ void bounds(std::int64_t s, std::int64_t& first,
                                         std::int64_t& length) const {
    unpack(fetch(s), first, length);
  }
  template <int Operand, class S>
  __device__ __forceinline__ auto source(const S& s, std::int64_t first) const {
    return segment_source(s, first);
  }
};
template <class Segments>
inline constexpr bool is_offset_segments_v = false;
template <class BeginIt, class EndIt>
inline constexpr bool is_offset_segments_v<offset_segments<BeginIt, EndIt>> = true;

// A segment's bounds read in two steps (fetch, then unpack into its locator and length): the raw
// begin / end values for offsets, the bounds themselves for the other segment types.
struct plain_bounds {
  std::int64_t first, length;
};
template <class Segments, bool = is_offset_segments_v<Segments>>
struct bounds_io {
  using type = plain_bounds;
  __device__ __forceinline__ static type fetch(const Segments& segments, std::int64_t s) {
    type b{};
    segments.bounds(s, b.first, b.length);
    return b;
  }
  __device__ __forceinline__ static void unpack(const type& b, std::int64_t& first,
                                                std::int64_t& length) {
    first = b.first;
    length = b.length;
  }
};
template <class Segments>
struct bounds_io<Segments, true> {
  using type = typename Segments::fetched;
  __device__ __forceinline__ static type fetch(const Segments& segments, std::int64_t s) {
    return segments.fetch(s);
  }
  __device__ __forceinline__ static void unpack(const type& b, std::int64_t& first,
                                                std::int64_t& length) {
    Segments::unpack(b, first, length);
  }
};
struct fixed_segments {
  std::int64_t size;
  __device__ __forceinline__ void bounds(std::int64_t s, std::int64_t& first,
                                         std::int64_t& length) const {
    first = s * size;
    length = size;
  }
  template <int Operand, class S>
  __device__ __forceinline__ auto source(const S& s, std::int64_t first) const {
    return segment_source(s, first);
  }
};

// The length every segment has, where the host knows it (fixed size, batches of one length);
// unknown_length otherwise. Overloads for other segment types are found by argument-dependent
// lookup.
inline constexpr std::int64_t unknown_length = -1;
template <class Segments>
std::int64_t known_length(const Segments&) {
  return unknown_length;
}
inline std::int64_t known_length(const fixed_segments& s) {
  return s.size;
}

// A segment of the block tier is cut into chunks of chunk_vectors 16-byte vectors of its wider
// operand (elements, for inputs read one at a time): chunk j is elements [j C, j C + C) of the
// segment, C = chunk_items<R>, a function of R alone, so the cut depends on the length alone.
// Since C elements are a whole number of 16-byte vectors of either operand, every chunk starts
// at the segment's own alignment modulo 16 bytes.
inline constexpr std::int64_t chunk_vectors = std::int64_t(1) << 14;
static_assert(chunk_vectors * 16 < (std::int64_t(1) << 31), "a chunk's indices fit 32 bits");
template <class R>
inline constexpr std::int64_t chunk_items = chunk_vectors* R::vector_items;
template <class R>
__host__ __device__ __forceinline__ std::int64_t chunks_of(std::int64_t n) {
  return (n + chunk_items<R> - 1) / chunk_items<R>;
}

// Chunks of one segment shared by the grid: blocks claim them (claimed), deposit each chunk's
// partial in the pool at slot0 + j, and the block whose deposit arrives last merges them.
struct share_entry {
  std::int64_t s, first, length; // the segment, its locator and its length
  unsigned long long chunks;     // 0: none to share (the pool was full)
  unsigned long long slot0;      // its first slot in the pool
  unsigned long long claimed;    // chunks handed out
  unsigned long long arrived;    // partials deposited
  unsigned long long ready;      // 1 once the fields above are written (zeroed by the launch)
};
// The counters of a launch's sharing, zeroed by the launch with the entries (one memset on the
// stream).
struct share_state {
  unsigned long long entries; // entries allocated (may run past max_share_entries)
  unsigned long long slots;   // pool slots allocated (may run past max_share_slots)
  unsigned long long help;    // tickets of helping blocks (ticket t: entry t mod entries)
  unsigned long long pending; // chunks of flagged entries not yet claimed (helpers stop at 0)
  unsigned long long started; // blocks with tiles whose entries are all flagged (none to come)
};
inline constexpr std::int64_t max_share_entries = 2048;
// Passes of the helping blocks' tickets over the entries (each entry meets up to this many
// helpers).
inline constexpr int help_passes = 64;
// Entries a helper's ticket probes at once (their counts read together).
inline constexpr int probe_width = 8;
// Polls of a helper that finds no chunk left while blocks with tiles are still to publish
// theirs (a grid with more blocks than tiles: the blocks past the tiles help from the start),
// each after a pause_briefly; then it stops (a block's list is its own to take).
inline constexpr int help_polls = 64;
inline constexpr std::int64_t max_share_slots = 16384; // 2^30 floats' worth of chunks at once
inline constexpr std::size_t share_align = 256;
static_assert(sizeof(share_state) <= share_align, "the entries follow the counters");

// Temporary storage of a launch that shares chunks: the counters and the entries (zeroed by the
// launch), then the pool; share_align bytes more for aligning the start.
inline constexpr std::size_t share_zeroed_bytes =
    share_align +
    (max_share_entries * sizeof(share_entry) + share_align - 1) / share_align * share_align;
template <class P>
constexpr std::size_t share_bytes() {
  return share_align + share_zeroed_bytes + max_share_slots * sizeof(P);
}

// What one launch reads and writes: R's sources and output, the segments and their count.
template <class R, class Segments>
struct segmented_params {
  typename R::x_source x;
  typename R::y_source y; // second operand (Dot); unused when unary
  typename R::out_iterator out;
  Segments segments;
  std::int64_t num_segments;
  std::int64_t tiles;     // warp tiles of the launch (segments where block_per_segment)
  int per_warp;           // segments per warp tile, 1..32 (segments_per_warp)
  bool block_per_segment; // every segment is longer than segmented_warp_max (known on the host):
                          // block b takes segments b, b + grid, ... (the team and order alike)
  share_state* state;     // null where no segment is longer than one chunk (known on the host)
  share_entry* entries;   // [max_share_entries]
  unsigned char* pool;    // [max_share_slots] partials
};

// The cut of a segment of n elements at x (and y) into a head of single elements, nvec vectors
// and a tail: the vectors start where the wider operand is 16-byte aligned, and the narrower one
// must then be aligned to its own vector size, else every element goes one by one (nvec = 0).
template <class R, class XS, class YS, class I>
__device__ __forceinline__ void split_segment(const XS& x, const YS& y, I n, I& head, I& nvec) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int V = R::vector_items;
  head = 0;
  nvec = 0;
  if constexpr (V > 1) {
    const bool x_wider = sizeof(X) >= sizeof(Y);
    const std::uintptr_t a_x = reinterpret_cast<std::uintptr_t>(x);
    std::uintptr_t a_wider = a_x;
    if constexpr (R::binary)
      a_wider = x_wider ? a_x : reinterpret_cast<std::uintptr_t>(y);
    I h = static_cast<I>(((16 - a_wider % 16) % 16) / R::elem_bytes);
    if (h > n)
      h = n;
    bool ok = true;
    if constexpr (R::binary) {
      const std::uintptr_t a_narrower = x_wider ? reinterpret_cast<std::uintptr_t>(y) : a_x;
      const std::size_t narrower_bytes = x_wider ? sizeof(Y) : sizeof(X);
      ok = (a_narrower + h * narrower_bytes) % (V * narrower_bytes) == 0;
    }
    if (ok) {
      head = h;
      nvec = (n - h) / V;
    }
  }
}

// The single elements of rank `rank`'s share of a segment (n elements at x and y, split by
// split_segment into head, nvec vectors and the tail): [0, head) and [head + nvec V, n), elements
// rank, rank + team, ... of them, into acc.
template <class R, class XS, class YS, class Acc, class I>
__device__ __forceinline__ void team_scalars(Acc& acc, const XS& x, const YS& y, I n, I head,
                                             I nvec, int team, int rank) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr bool mask_signs = device::magnitudes_at_load<R, true>; // Asum (else add takes |x|)
  const I tail_begin = head + nvec * R::vector_items;
  const I scalars = head + (n - tail_begin);
  // Four at a time (dot products: one), loaded together, added one by one in order.
  constexpr int SU = R::binary ? 1 : 4;
  for (I j0 = rank; j0 < scalars; j0 += SU * I(team)) {
    X r_x[SU][1];
    Y r_y[SU][1];
    bool in[SU];
#pragma unroll
    for (int u = 0; u < SU; ++u) {
      const I j = j0 + I(u) * team;
      in[u] = j < scalars;
      if (in[u]) {
        const I i = j < head ? j : tail_begin + (j - head);
        r_x[u][0] = static_cast<X>(x[i]);
        if constexpr (mask_signs)
          magnitudes(r_x[u]);
        r_y[u][0] = Y{};
        if constexpr (R::binary)
          r_y[u][0] = static_cast<Y>(y[i]);
      }
    }
#pragma unroll
    for (int u = 0; u < SU; ++u)
      if (in[u])
        device::add_loaded<R, true>(acc, r_x[u], r_y[u]);
  }
}

// A rank's vectors of one segment where it has at most Slots of them (team_load), in registers
// until team_fold adds them: a caller loads several segments' vectors before it folds any, so
// that all their loads are in flight together.
template <class R, int Slots>
struct team_loads {
  static constexpr int V = R::vector_items;
  static constexpr int YV = R::binary ? V : 1; // the second operand's registers (unused when unary)
  typename R::x_type x[Slots][V];
  typename R::y_storage y[Slots][YV];
  bool in[Slots];
  int head, nvec; // of a warp-tier segment (at most segmented_warp_max elements): 32 bits
};
template <class R, int Slots, class XS, class YS>
__device__ __forceinline__ void team_load(team_loads<R, Slots>& l, const XS& x, const YS& y,
                                          std::int64_t n, int team, int rank) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int V = R::vector_items;
  constexpr bool mask_signs = device::magnitudes_at_load<R, true>;
  split_segment<R>(x, y, static_cast<int>(n), l.head, l.nvec);
#pragma unroll
  for (int u = 0; u < Slots; ++u) {
    const int v = rank + u * team;
    l.in[u] = V > 1 && v < l.nvec;
    if constexpr (V > 1) {
      if (l.in[u]) {
        device::load_vec<V, mask_signs>(static_cast<const X*>(x + l.head) + v * V, l.x[u]);
        if constexpr (R::binary)
          device::load_vec<V, mask_signs>(static_cast<const Y*>(y + l.head) + v * V, l.y[u]);
      }
    }
  }
}
template <class R, int Slots, class XS, class YS, class Acc>
__device__ __forceinline__ typename Acc::partial_type
team_fold(const team_loads<R, Slots>& l, const XS& x, const YS& y, std::int64_t n, int team,
          int rank, const Acc& fresh) {
  Acc acc = fresh;
#pragma unroll
  for (int u = 0; u < Slots; ++u)
    if (l.in[u])
      device::add_loaded<R, true>(acc, l.x[u], l.y[u]);
  team_scalars<R>(acc, x, y, static_cast<int>(n), l.head, l.nvec, team, rank);
  return acc.partial();
}

// Rank `rank` of a team of `team` threads: its share of the segment of n elements at x (and y),
// in the fixed pattern of the header comment, folded into a copy of `fresh` (R's accumulator,
// or for warp-tier segments its short accumulator: warp_accumulator_t), as a partial.
// Slots > 0: the caller knows that no rank has more than Slots <= segmented_unroll vectors (a
// warp tier below 5 has at most segmented_unroll: tier_of): team_load and team_fold, which add
// them one by one in the loop form's order (Slots = 0). Both kernels take Slots > 0 exactly for
// the tiers below 5, so a segment's additions depend on its length (and alignment) alone.
// n is at most a chunk (chunk_items: block-tier chunks) or segmented_warp_max (warp tiers), so
// the indices within it are 32-bit (on an H100 the 64-bit ones cost up to 9% at sizes 512 to 4096
// by offsets and 5% for fixed 16-bit sizes 8 and 16: instructions, and ptxas spilled); the loop
// form of dot products keeps 64-bit ones (with 32-bit ones ptxas spilled 24 bytes in the
// pointer-array Dot kernel, 3% slower). split_segment and team_scalars take either (I).
template <class R, int Slots = 0, class XS, class YS, class Acc>
__device__ __forceinline__ typename Acc::partial_type
team_partial(const XS& x, const YS& y, std::int64_t n, int team, int rank, const Acc& fresh) {
  static_assert(Slots >= 0 && Slots <= segmented_unroll, "at most one round of vectors per rank");
  if constexpr (Slots > 0) {
    team_loads<R, Slots> l;
    team_load(l, x, y, n, team, rank);
    return team_fold(l, x, y, n, team, rank, fresh);
  } else {
    using X = typename R::x_type;
    using Y = typename R::y_storage;
    constexpr int V = R::vector_items;
    constexpr int YV = R::binary ? V : 1;
    constexpr int U = segmented_unroll;
    Acc acc = fresh;
    constexpr bool mask_signs = device::magnitudes_at_load<R, true>;
    const auto add = [&](auto& r_x, auto& r_y) { device::add_loaded<R, true>(acc, r_x, r_y); };
    using I = std::conditional_t<R::binary, std::int64_t, int>; // (dot products: 64-bit)
    I head = 0, nvec = 0;
    split_segment<R>(x, y, static_cast<I>(n), head, nvec);
    if constexpr (V > 1) {
      const X* g_xv = x + head;
      const Y* g_yv = nullptr;
      if constexpr (R::binary)
        g_yv = y + head;
      I v = rank;
      for (; v + (U - 1) * team < nvec; v += U * team) { // full rounds
        X r_x[U * V];
        Y r_y[U * YV];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          device::load_vec<V, mask_signs>(g_xv + (v + u * team) * V, r_x + u * V);
          if constexpr (R::binary)
            device::load_vec<V, mask_signs>(g_yv + (v + u * team) * V, r_y + u * V);
        }
        add(r_x, r_y);
      }
      for (; v < nvec; v += team) { // the rest, one vector at a time
        X r_x[V];
        Y r_y[YV];
        device::load_vec<V, mask_signs>(g_xv + v * V, r_x);
        if constexpr (R::binary)
          device::load_vec<V, mask_signs>(g_yv + v * V, r_y);
        add(r_x, r_y);
      }
    }
    team_scalars<R>(acc, x, y, static_cast<I>(n), head, nvec, team, rank);
    return acc.partial();
  }
}

// The accumulator of a warp-tier segment (at most segmented_warp_max elements): R's short
// accumulator (compensated/reductions.cuh: a plain double sum meets the compensated bound for so
// few terms), made from R's fresh accumulator where they are the same type (Reduce's op and
// init travel in it).
template <class R>
using warp_accumulator_t = short_accumulator_t<typename R::accumulator, typename R::out_type>;
static_assert(segmented_warp_max <= short_terms, "warp tiers within the short accumulators' bound");
template <class R>
__device__ __forceinline__ warp_accumulator_t<R>
warp_accumulator(const typename R::accumulator& fresh) {
  if constexpr (std::is_same_v<warp_accumulator_t<R>, typename R::accumulator>)
    return fresh;
  else
    return warp_accumulator_t<R>{};
}

// The partial of the exact Dot and Nrm2 (exact_dot_sum): 19 limbs of products, the largest
// state; the kernels keep one copy of its code wherever the result allows (exact either way).
template <class P>
inline constexpr bool exact_products_v = std::is_same_v<P, exact_partial<float_products>>;

// The team's total from its lanes' partials, in lane 0 of the team: WarpReduce's tree over
// logical warps of 2^tier lanes (tier < block_tier; warp-uniform).
// Exact partials (tens of 64-bit limbs, and a merge of tens of instructions a limb) take one
// loop over the levels instead of a tree per tier: lane 0 of a team of 2^t lanes gets the same
// value from the first t levels of the whole warp's tree (delta 1, 2, ..., 2^(t-1)), since every
// value it merges comes from its own team's lanes, in the same order; one copy of the merge and
// the shuffles instead of fifteen keeps the exact kernels' compile time in check.
template <class P, class Merge>
__device__ __forceinline__ P team_total(int tier, const P& part, Merge merge) {
  constexpr auto tree = WarpReduceAlgorithm::shuffle_tree;
  if constexpr (is_exact_partial_v<P>) {
    P x = part;
    for (int delta = 1; delta < (1 << tier) && delta < 32; delta *= 2) // warp-uniform
      x = merge(x, detail::shfl_down(full_warp_mask, x, delta));
    return x;
  } else {
    switch (tier) {
    case 0:
      return part;
    case 1:
      return WarpReduce<P, tree, 2>().ReduceToLane0(part, merge);
    case 2:
      return WarpReduce<P, tree, 4>().ReduceToLane0(part, merge);
    case 3:
      return WarpReduce<P, tree, 8>().ReduceToLane0(part, merge);
    case 4:
      return WarpReduce<P, tree, 16>().ReduceToLane0(part, merge);
    default:
      return WarpReduce<P, tree, 32>().ReduceToLane0(part, merge);
    }
  }
}

// Blocks per SM the kernel of R over Segments is compiled for: 3 (80 registers) for unary
// reductions with a partial of at most 8 bytes (float-result sums and norms, Min, Max, Reduce) of
// 8-, 32- and 64-bit elements, and of 16-bit elements by offsets; 4 (64 registers) made the warp
// tiers' predicated loads spill (80-byte frames) and the small offsets segments slower on the
// H200; else 0, no hint: wider partials and dot products would spill under a cap, and an
// explicit 1 lets ptxas take more registers than no hint does (91 against 80 for 16-bit sums: 2
// blocks per SM instead of 3, 17-23% slower on the H200). 16-bit inputs of the batches keep no
// hint (not measured with one); by offsets, with the runtime block_only of segmented_body, ptxas
// fits the 16-bit sums in 80 registers with 4 bytes of spill (no hint: 120 registers).
template <class R, class Segments>
inline constexpr int segmented_min_blocks =
    !R::binary && sizeof(typename R::accumulator::partial_type) <= 8 &&
            (sizeof(typename R::x_type) != 2 || is_offset_segments_v<Segments>)
        ? 3
        : 0;

// Plain and atomic accesses to the sharing state (another block's writes: L2, never a stale L1).
__device__ __forceinline__ unsigned long long peek(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}
// An acquire load (compute capability 7.0 and newer; before, a volatile load and a fence): the
// writes another thread made before its release of *p (a fence, then the store) are seen after it.
// Cheaper than a load and __threadfence (MEMBAR.SC: on an H100 the helpers' probes of other
// blocks' share entries spent most of their time in it).
__device__ __forceinline__ unsigned long long peek_acquire(const unsigned long long* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  const unsigned long long v = peek(p);
  __threadfence();
  return v;
#endif
}
// The low 32 bits of a counter of the sharing state (its counts of chunks stay far below 2^32).
__device__ __forceinline__ unsigned peek_low(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned*>(p); // little-endian: the low half first
}
__device__ __forceinline__ void pause_briefly() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(256);
#endif
}

// A block's next piece of work (kind), decided by thread 0 and broadcast through shared memory.
enum class job_kind : int {
  none,   // nothing left
  whole,  // a block-tier segment of one chunk
  alone,  // chunk `chunk` of a segment this block takes alone (no entry to share it)
  shared, // chunk `chunk` of share entry `entry`
};
struct job {
  std::int64_t s, first, length; // the segment, its locator and its length
  std::int64_t chunk, chunks;    // the chunk to take, of how many
  std::int64_t entry;            // shared: the entry
  std::int64_t slot0;            // shared: the entry's first pool slot
  job_kind kind;
};
inline constexpr unsigned long long no_entry = ~0ull;

// The block-tier segments a block collects while its warps fold their tiles (phase A), before the
// whole block takes them (phase B): at most list_capacity at once, one bit each in
// block_plan::alone.
inline constexpr int list_capacity = segmented_threads;
struct listed_segment {
  std::int64_t s, first, length; // the segment, its locator and its length
};

// Thread 0's plan of the block's block-tier work (in shared memory: no other thread needs it).
struct block_plan {
  job hand;                           // a segment taken alone (chunk: the next one to take)
  unsigned long long own, end;        // the entries this block published for its list
  unsigned long long own0;            // its first entry (entry own0 + i: s_list[i])
  unsigned long long look;            // help: the entry whose chunks are being claimed
  job seen;                           // help: the last chunk claimed of another block's entry
  unsigned alone[list_capacity / 32]; // listed segments not published, a bit each
  int listed;                         // segments in the block's list (-1: helping)
  int polls;                          // help: polls that found no chunk left
  int word_next;                      // alone[word_next..] not yet read
  unsigned m;                         // bits of alone[word_next - 1] not yet taken
};

// R: a reduction (reduce/detail/device_kernel.cuh), passed its empty accumulator `fresh`;
// Segments: offset_segments, fixed_segments, or any type with their bounds and source (the
// batches of reduce/batched.cuh).
//
// Phase A, per warp, without block barriers: warp tiles of G consecutive segments, tile w of the
// grid's warps first, then w + (the grid's warps), ...; steps 1 and 2 of the header comment for
// each tile, whose block-tier segments go to the block's list in shared memory (a warp reserves
// room for all of its tile's at once, before it folds any of the tile; where the list has no
// room, the warp stops, keeping the tile for the next round; the other warps go on until their
// tiles are done or their own reservation fails). Phase B, after a block barrier: the block
// takes its list's segments (steps 3 and 4); then the next round of phase A, until the block's
// warps have no tile left. (Before, a block took groups of 8 warps' segments with a block
// barrier and thread 0's planning after each group: on an H100, 2^23 segments of 8 floats by
// offsets took 215 us against 179 now, and 118 for a kernel with a lane per segment and no
// tiers at all.)
//
// Block-tier segments (steps 3 and 4). The block allocates a share entry per listed segment (and
// k pool slots for one of k > 1 chunks), writes and flags them (`ready`); then it claims the
// chunks of its own entries one by one (an atomic per chunk), and takes alone the segments it
// found no entry or slots for. A block whose tiles are all done takes entries by ticket (ticket
// t: entry t mod the entries allocated so far, probe_width tickets at a time, so that each entry
// meets up to help_passes helpers) and claims what is left in them, until the tickets pass
// help_passes times the entries allocated so far or no flagged chunk is left unclaimed
// (share_state::pending); blocks past the tiles (a grid raised to a wave for few long segments)
// help from the start and, finding nothing, poll a while for the blocks with tiles that have not
// finished publishing. (Tickets, the pending count and the polls decide only who takes which
// chunk.) Whoever takes chunk j folds it with the team of the whole block (team_partial, 256
// threads) and a BlockReduce; a segment of one chunk gets its result at once; for k > 1 the partial
// goes to slot0 + j, and the block of the last arrival merges the k partials: thread t folds
// partials t, t + 256, ... in order, then a BlockReduce, the same operations in the same order as a
// block that takes the segment alone, which folds chunk j's total into thread j mod 256 as it goes.
// So the result depends on the segment alone, never on which blocks took which chunks, nor on the
// tiles, the list or its rounds. A helper never waits for another block (an entry not yet flagged
// is skipped); the last arrival merges and the others move on, so the grid may be any size.
template <bool BlockOnly, class R, class Segments>
__device__ __forceinline__ void segmented_body(const segmented_params<R, Segments>& p,
                                               const typename R::accumulator& fresh) {
  using P = typename R::accumulator::partial_type;
  using Out = typename R::out_type;
  constexpr int W = segmented_warps;
  constexpr int T = segmented_threads;
  using BlockP = BlockReduce<P, T, BlockReduceAlgorithm::shuffle_tree, BlockCombine::warp_totals>;
  __shared__ typename BlockP::TempStorage s_reduce;
  __shared__ unsigned char s_order[W][32];         // [W][32] per warp: one tier's segments' lanes
  __shared__ listed_segment s_list[list_capacity]; // the block-tier segments of phase A
  __shared__ int s_listed;                         // entries of s_list reserved
  __shared__ job s_job;                            // the block's next piece of work
  __shared__ block_plan s_plan;                    // thread 0's
  __shared__ int s_last;                           // this block deposited a segment's last partial
  // [T] per thread: its fold of a segment's chunk totals (chunks t, t + T, ...)
  __shared__ alignas(16) unsigned char s_fold[T * sizeof(P)];

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int G = p.per_warp;
  const std::int64_t tiles = p.tiles;
  // Offsets (never block_per_segment: the host does not know the lengths) keep the block-only
  // path's code in the main kernel, taken or not at run time: with it ptxas allocates the
  // offsets kernel better at the 80-register cap (f32 sums: 8 bytes of stack instead of 24, and
  // on an H100 offsets of 32 to 256 floats 9-14% faster; 16-bit sums, with 3 blocks per SM: 80
  // registers with 4 bytes of spill instead of 70, 32 to 512 elements 5-9% faster). The other
  // segment types take BlockOnly as it is (with the runtime form, batched Dot over pointers ran
  // 6% slower).
  const bool block_only = BlockOnly || (is_offset_segments_v<Segments> && p.block_per_segment);
  const auto warp_fresh = warp_accumulator<R>(fresh);
  const auto merge = [&](const P& a, const P& b) { return fresh.merge(a, b); };
  const auto result = [&](std::int64_t length, const P& total) {
    return length == 0 ? fresh.template empty_result<Out>() : fresh.template finish<Out>(total);
  };

  // Rank `rank` of a team of 2^t lanes: its share of the segment of length_k elements at
  // first_k, folded with the warp tiers' accumulator.
  const auto fold = [&](int t, std::int64_t first_k, std::int64_t length_k, int rank) -> P {
    const auto x = p.segments.template source<0>(p.x, first_k);
    const auto with = [&](auto slots) -> P { // team_partial<R, slots> (as the fixed-size kernel)
      constexpr int S = decltype(slots)::value;
      if constexpr (R::binary)
        return team_partial<R, S>(x, p.segments.template source<1>(p.y, first_k), length_k, 1 << t,
                                  rank, warp_fresh);
      else
        return team_partial<R, S>(x, p.y, length_k, 1 << t, rank, warp_fresh);
    };
    // Predicated loads below tier 5 for unary reductions; dot products keep the loop form (two
    // operands' registers would halve the occupancy). The exact norm too: its products' 19 limbs
    // spill less in the loop form (sm_90 SASS: 200-208 bytes of stack against 272-288), and its
    // result is exact either way. (The exact sum keeps the predicated loads: in the loop form
    // ptxas gives it 80 registers and more stack.)
    if constexpr (R::binary || exact_products_v<P>)
      return with(std::integral_constant<int, 0>{});
    else
      return t < 5 ? with(std::integral_constant<int, segmented_unroll>{})
                   : with(std::integral_constant<int, 0>{});
  };

  // Step 2 for the tile at base: lane l holds its segment base + l (bounds first, length, of
  // tier `tier`; -1: none); the warp takes the segments of the warp tiers in turn, the k-th
  // segment of a tier of teams of 2^t lanes going to team k mod (32 / 2^t), lanes [2^t (k mod
  // 32 / 2^t), ...) of the warp. (Block-tier segments are the caller's.)
  const auto tier_loop = [&](std::int64_t base, std::int64_t first, std::int64_t length, int tier,
                             bool tier0) {
    unsigned tiers = 1u; // tier0: every segment of the tile is of tier 0 (or none)
    if (!tier0) {
      tiers = tier >= 0 && tier < block_tier ? 1u << tier : 0u;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      tiers = __reduce_or_sync(full_warp_mask, tiers);
#else
      for (int d = 1; d < 32; d *= 2) // no redux.sync before sm_80
        tiers |= __shfl_xor_sync(full_warp_mask, tiers, d);
#endif
    }
    for (; tiers != 0; tiers &= tiers - 1) {
      const int t = __ffs(tiers) - 1;
      // Tier 0 (teams of one lane): each lane folds its own segment, where it holds one of
      // tier 0 (the additions do not depend on the lane), without the reordering and shuffles.
      const unsigned members = t == 0 ? 0u : __ballot_sync(full_warp_mask, tier == t);
      if (t != 0 && tier == t)
        s_order[warp][__popc(members & ((1u << lane) - 1u))] = static_cast<unsigned char>(lane);
      __syncwarp();
      const int count = t == 0 ? 32 : __popc(members), teams = 32 >> t;
      const int team = lane >> t, rank = lane & ((1 << t) - 1);
      for (int k0 = 0; k0 < count; k0 += teams) { // warp-uniform
        const int k = k0 + team;
        bool mine = tier == 0;
        int src = lane;
        std::int64_t first_k = first, length_k = length;
        if (t != 0) {
          src = k < count ? s_order[warp][k] : lane;
          // Every lane shuffles: a whole-warp shuffle that some lanes skip never completes.
          first_k = __shfl_sync(full_warp_mask, first, src);
          const std::int64_t length_src = __shfl_sync(full_warp_mask, length, src);
          mine = k < count;
          length_k = mine ? length_src : 0;
        }
        const P part = mine ? fold(t, first_k, length_k, rank) : fresh.partial();
        const P total = team_total(t, part, merge);
        if (mine && rank == 0)
          p.out[base + src] = result(length_k, total);
      }
      __syncwarp(); // s_order is rewritten by the next tier
    }
  };

  // Phase A: this warp's next tile (lane l < G: its segment tile G + l).
  std::int64_t tile = std::int64_t(blockIdx.x) * W + warp;
  const std::int64_t tile_stride = std::int64_t(gridDim.x) * W;
  // Lane l's bounds of tile t as loaded (bounds_io: unpacked only when needed, so that reading
  // the next tile's bounds ahead does not wait for the loads; before, the conversion placed right
  // after the loads took 22% of the stall samples of the offsets kernel at size 8 on an H100).
  using bio = bounds_io<Segments>;
  const auto fetch_bounds = [&](std::int64_t t) {
    const std::int64_t s = t * G + lane;
    typename bio::type b{};
    if (lane < G && t < tiles && s < p.num_segments)
      b = bio::fetch(p.segments, s);
    return b;
  };
  // Lane 0: room for k segments in the block's list (their first entry), or -1. (s_listed
  // changes under other warps: atomics only, no plain read racing with them.)
  const auto reserve = [&](int k) -> int {
    int c = 0; // a guess: a wrong one costs one more atomicCAS
    for (;;) {
      if (c + k > list_capacity)
        return -1;
      const int seen = atomicCAS(&s_listed, c, c + k);
      if (seen == c)
        return c;
      c = seen;
    }
  };
  // The warp's tiles until none is left or the list has no room (warp-uniform). A tile's bounds
  // are read while the tile before is folded (a round's first tile's at the start: no bounds
  // stay in registers while the block takes its list).
  const auto phase_a = [&]() {
    std::int64_t first = 0, length = 0;
    bio::unpack(fetch_bounds(tile), first, length);
    while (tile < tiles) {
      const std::int64_t base = tile * G;
      const int tier = lane < G && base + lane < p.num_segments ? tier_of<R>(length) : -1;
      // Where every segment of the tile is of tier 0 (or none), no ballots: tier 0 alone.
      const bool tier0 = __all_sync(full_warp_mask, tier <= 0);
      if (!tier0) {
        const unsigned longs = __ballot_sync(full_warp_mask, tier == block_tier);
        if (longs != 0u) { // at most 32 <= list_capacity: a round's first reservation succeeds
          int at = 0;
          if (lane == 0)
            at = reserve(__popc(longs));
          at = __shfl_sync(full_warp_mask, at, 0);
          if (at < 0)
            return; // the tile waits for the next round
          if (tier == block_tier)
            s_list[at + __popc(longs & ((1u << lane) - 1u))] =
                listed_segment{base + lane, first, length};
        }
      }
      const typename bio::type next = fetch_bounds(tile + tile_stride);
      tier_loop(base, first, length, tier, tier0);
      bio::unpack(next, first, length);
      tile += tile_stride;
    }
  };

  const auto as_u64 = [](std::int64_t v) { return static_cast<unsigned long long>(v); };
  const job nothing{0, 0, 0, 0, 0, 0, 0, job_kind::none};
  block_plan& pl = s_plan;

  // Thread 0, phase B: publish the listed segments where entries and slots are left; the rest are
  // taken alone (pl.alone).
  const auto start_list = [&](int listed) {
    pl.listed = listed;
    pl.word_next = 0;
    pl.m = 0u;
    pl.own = pl.end = 0;
    share_state* st = p.state;
    for (int w = 0; w < list_capacity / 32; ++w)
      pl.alone[w] = 0u;
    if (st == nullptr) {
      for (int i = 0; i < listed; ++i)
        pl.alone[i / 32] |= 1u << (i % 32);
      return;
    }
    // One entry per segment, in one allocation; the segments beyond the entries go alone.
    unsigned long long e = as_u64(max_share_entries);
    if (peek(&st->entries) < as_u64(max_share_entries))
      e = atomicAdd(&st->entries, static_cast<unsigned long long>(listed));
    pl.own = pl.own0 = e;
    for (int i = 0; i < listed; ++i) {
      if (e >= as_u64(max_share_entries)) {
        pl.alone[i / 32] |= 1u << (i % 32);
        continue;
      }
      const listed_segment& seg = s_list[i];
      const auto k = as_u64(chunks_of<R>(seg.length));
      unsigned long long slot0 = 0, chunks = k;
      if (k > 1) {
        chunks = 0;
        if (peek(&st->slots) + k <= as_u64(max_share_slots)) {
          slot0 = atomicAdd(&st->slots, k);
          if (slot0 + k <= as_u64(max_share_slots))
            chunks = k;
        }
      }
      share_entry* en = p.entries + e;
      en->s = seg.s;
      en->first = seg.first;
      en->length = seg.length;
      en->chunks = chunks;
      en->slot0 = slot0;
      en->claimed = 0;
      en->arrived = 0;
      if (chunks == 0)
        pl.alone[i / 32] |= 1u << (i % 32); // no slots: alone (the entry offers nothing)
      pl.end = ++e;
    }
    if (pl.end == 0) {
      pl.own = 0;
      return;
    }
    unsigned long long offered = 0;
    for (unsigned long long f = pl.own; f < pl.end; ++f)
      offered += p.entries[f].chunks;
    atomicAdd(&st->pending, offered); // before the flags: a claim of them never passes it
    __threadfence();                  // the entries' fields are visible before their flags
    for (unsigned long long f = pl.own; f < pl.end; ++f)
      *reinterpret_cast<volatile unsigned long long*>(&p.entries[f].ready) = 1;
  };

  // Thread 0: the next chunk of entry e, whose fields are in `known` (one atomic, the claim), as
  // a job (kind none when the entry has none left).
  const auto claim_chunk = [&](unsigned long long e, job known) -> job {
    const unsigned long long c = atomicAdd(&p.entries[e].claimed, 1ull);
    if (c >= as_u64(known.chunks))
      return nothing;
    atomicAdd(&p.state->pending, ~0ull); // one chunk fewer to offer (a wrapping - 1)
    known.chunk = static_cast<std::int64_t>(c);
    return known;
  };
  // Thread 0: a chunk of its own entry e (entry pl.own0 + i: listed segment i). The fields are
  // this thread's own writes or in s_list, so only the claim waits for the L2 (the block waits
  // for thread 0 here; reading the fields back from the entry cost several more round trips per
  // chunk).
  const auto claim_own = [&](unsigned long long e) -> job {
    const int i = static_cast<int>(e - pl.own0);
    if ((pl.alone[i / 32] >> (i % 32)) & 1u)
      return nothing; // no slots: taken alone (the entry offers no chunk)
    const listed_segment& seg = s_list[i];
    const std::int64_t chunks = chunks_of<R>(seg.length);
    const std::int64_t slot0 = chunks > 1 ? static_cast<std::int64_t>(p.entries[e].slot0) : 0;
    return claim_chunk(e, job{seg.s, seg.first, seg.length, 0, chunks, static_cast<std::int64_t>(e),
                              slot0, job_kind::shared});
  };
  // Thread 0: a chunk of another block's entry e. The entry's fields do not change once it is
  // flagged: after a first claim they come from pl.seen, and a further claim of the same entry is
  // one atomic. A first claim reads the flag and the counts together, as a hint (an entry not yet
  // flagged, or with no chunk left, is its own block's to finish: skipped), then, for an entry
  // worth claiming, the flag again with acquire semantics before the fields.
  const auto claim = [&](unsigned long long e) -> job {
    if (pl.seen.kind == job_kind::shared && pl.seen.entry == static_cast<std::int64_t>(e))
      return claim_chunk(e, pl.seen);
    share_entry* en = p.entries + e;
    const unsigned long long ready = peek(&en->ready);
    const unsigned long long chunks = peek(&en->chunks); // 0 until written (the launch zeroes it)
    const unsigned long long claimed = peek(&en->claimed);
    if (ready == 0 || claimed >= chunks)
      return nothing;
    if (peek_acquire(&en->ready) == 0) // flagged: the fields written before the flag are seen
      return nothing;
    job j = nothing;
    j.s = *reinterpret_cast<const volatile std::int64_t*>(&en->s);
    j.first = *reinterpret_cast<const volatile std::int64_t*>(&en->first);
    j.length = *reinterpret_cast<const volatile std::int64_t*>(&en->length);
    j.chunks = static_cast<std::int64_t>(chunks); // written once, before the flag: not 0 here
    j.entry = static_cast<std::int64_t>(e);
    j.slot0 = static_cast<std::int64_t>(peek(&en->slot0));
    j.kind = job_kind::shared;
    pl.seen = j;
    return claim_chunk(e, j);
  };

  // Blocks with tiles (block_only: with segments); the others only help.
  const std::int64_t owners_wanted = block_only ? p.num_segments : (tiles + W - 1) / W;
  const std::int64_t owners =
      owners_wanted < std::int64_t(gridDim.x) ? owners_wanted : std::int64_t(gridDim.x);
  const bool owner = std::int64_t(blockIdx.x) < owners;

  // Thread 0: the block's next block-tier job; none when its list's (or, helping, the grid's)
  // block-tier work is all taken.
  const auto next_job = [&]() -> job {
    for (;;) {
      if (pl.hand.kind == job_kind::alone) { // a segment taken alone
        if (pl.hand.chunk < pl.hand.chunks) {
          const job j = pl.hand;
          ++pl.hand.chunk;
          return j;
        }
        pl.hand.kind = job_kind::none;
      }
      if (pl.listed >= 0) {
        for (; pl.own < pl.end; ++pl.own) { // the list's published segments
          const job j = claim_own(pl.own);
          if (j.kind != job_kind::none) {
            if (j.chunk + 1 == j.chunks) // its last chunk: the entry has none left
              ++pl.own;
            return j;
          }
        }
        while (pl.m == 0u && pl.word_next < list_capacity / 32) // the list's unpublished ones
          pl.m = pl.alone[pl.word_next++];
        if (pl.m == 0u)
          return nothing;
        const int l = __ffs(pl.m) - 1;
        pl.m &= pl.m - 1u;
        const listed_segment& seg = s_list[(pl.word_next - 1) * 32 + l];
        const std::int64_t k = chunks_of<R>(seg.length);
        pl.hand = job{seg.s, seg.first, seg.length, 0,
                      k,     -1,        0,          k <= 1 ? job_kind::whole : job_kind::alone};
        if (k <= 1)
          return pl.hand;
        continue;
      }
      // Helping: entries by ticket, ticket t to entry t mod A (A the entries allocated so far;
      // probe_width tickets at a time, the first entry of theirs with a chunk left), its chunks
      // until none is left; done when the ticket passes help_passes * A (entries allocated later
      // are their own blocks'). So an entry meets up to help_passes helpers besides its own
      // block: a segment of many chunks is spread over that many blocks.
      for (;;) {
        if (pl.look != no_entry) {
          const job j = claim(pl.look);
          if (j.kind != job_kind::none) {
            if (j.chunk + 1 == j.chunks) // its last chunk: the entry has none left
              pl.look = no_entry;
            return j;
          }
          pl.look = no_entry;
        }
        // Nothing to take: every flagged chunk is taken, or the tickets have passed the entries
        // allocated so far (always for A = 0: no division by 0). Done (entries flagged later are
        // their own blocks'), but a block without tiles waits for the blocks with tiles still
        // to finish publishing: a pause and again, up to help_polls times. (The two counts are
        // read together; a ticket only while chunks are pending, so that polls do not use up the
        // tickets of entries to come.)
        const bool taken = peek(&p.state->pending) == 0;
        unsigned long long allocated = peek(&p.state->entries);
        const unsigned long long t =
            taken ? 0ull : atomicAdd(&p.state->help, static_cast<unsigned long long>(probe_width));
        if (allocated > as_u64(max_share_entries))
          allocated = as_u64(max_share_entries);
        if (taken || t >= as_u64(help_passes) * allocated) {
          if (owner || peek(&p.state->started) >= as_u64(owners) || ++pl.polls > help_polls)
            return nothing;
          pause_briefly();
          continue;
        }
        // Tickets t to t + probe_width - 1: their entries' counts, read together (one round trip
        // to the L2 for all, where one entry a ticket took a ticket atomic and a read each), as a
        // hint; the first entry with a chunk left is claimed next (claim skips an entry not yet
        // flagged: its running block flags it and takes it). t is below help_passes times
        // max_share_entries: 32-bit remainders, no 64-bit division routine.
        const unsigned a = static_cast<unsigned>(allocated);
        unsigned probed[probe_width], chunks[probe_width], claimed[probe_width];
#pragma unroll
        for (int i = 0; i < probe_width; ++i) {
          probed[i] = (static_cast<unsigned>(t) + i) % a;
          chunks[i] = peek_low(&p.entries[probed[i]].chunks);
          claimed[i] = peek_low(&p.entries[probed[i]].claimed);
        }
#pragma unroll
        for (int i = probe_width - 1; i >= 0; --i)
          if (claimed[i] < chunks[i])
            pl.look = probed[i];
      }
    }
  };

  // Thread t's fold of a segment's chunk totals, in s_fold.
  const auto fold_load = [&]() {
    P v;
    std::memcpy(&v, s_fold + threadIdx.x * sizeof(P), sizeof(P));
    return v;
  };
  const auto fold_store = [&](const P& v) {
    std::memcpy(s_fold + threadIdx.x * sizeof(P), &v, sizeof(P));
  };

  // 3. Chunk j.chunk of a block-tier segment (block-uniform): the whole block's team; 4. for a
  // segment of several chunks, the merge of the chunk totals once all are in. (Its BlockReduce
  // ends with a barrier: the next job may reuse s_reduce, s_last and s_fold.)
  const auto take = [&](const job& j) {
    const std::int64_t off = j.chunk * chunk_items<R>;
    const std::int64_t rest = j.length - off;
    const std::int64_t len = rest < chunk_items<R> ? rest : chunk_items<R>;
    const auto x = chunk_source(p.segments.template source<0>(p.x, j.first), off);
    P part;
    if constexpr (R::binary)
      part = team_partial<R>(x, chunk_source(p.segments.template source<1>(p.y, j.first), off), len,
                             T, static_cast<int>(threadIdx.x), fresh);
    else
      part = team_partial<R>(x, p.y, len, T, static_cast<int>(threadIdx.x), fresh);
    const P total = BlockP(s_reduce).Reduce(part, merge); // ends with a barrier
    if (j.kind == job_kind::whole || j.chunks == 1) {     // a segment of one chunk
      if (threadIdx.x == 0)
        p.out[j.s] = result(j.length, total);
      return;
    }
    bool complete = false;
    if (j.kind == job_kind::alone) {
      if (threadIdx.x == static_cast<unsigned>(j.chunk % T))
        fold_store(merge(fold_load(), total));
      complete = j.chunk + 1 == j.chunks;
    } else {
      P* g_pool = reinterpret_cast<P*>(p.pool) + j.slot0;
      if (threadIdx.x == 0) {
        g_pool[j.chunk] = total;
        __threadfence(); // the partial is visible before its arrival counts
        const unsigned long long a = atomicAdd(&p.entries[j.entry].arrived, 1ull);
        s_last = a + 1 == static_cast<unsigned long long>(j.chunks);
      }
      __syncthreads();
      complete = s_last != 0;
      if (complete) {
        __threadfence();
        P acc = fresh.partial();
        for (std::int64_t c = threadIdx.x; c < j.chunks; c += T)
          acc = merge(acc, device::load_cg(g_pool + c));
        fold_store(acc);
      }
    }
    if (complete) { // block-uniform
      const P all = BlockP(s_reduce).Reduce(fold_load(), merge);
      if (threadIdx.x == 0)
        p.out[j.s] = result(j.length, all);
      fold_store(fresh.partial());
    }
  };
  // The jobs of one batch until none is left, handed out by thread 0 (after start_list, or
  // helping). Ends with a barrier after which every thread has read the last s_job.
  // Direct: segment g (block_only) is one chunk and nothing is shared: every thread knows its
  // job, no barrier or planning.
  std::int64_t g = blockIdx.x; // block_only: the block's next segment
  const auto run_jobs = [&](bool direct) {
    if constexpr (BlockOnly) {
      if (direct) {
        std::int64_t first = 0, length = 0;
        p.segments.bounds(g, first, length);
        take(job{g, first, length, 0, 1, -1, 0, job_kind::whole});
        return;
      }
    }
    // Thread 0 writes the next job, then a barrier (called where every thread has read the last).
    const auto hand_out = [&]() {
      if (threadIdx.x == 0)
        s_job = next_job();
      __syncthreads();
    };
    __syncthreads(); // every thread has read the last s_job before thread 0 writes the next
    hand_out();
    for (;;) {
      const job j = s_job;
      if (j.kind == job_kind::none)
        break;
      take(j); // ends with a barrier: every thread has read s_job
      hand_out();
    }
  };

  if (threadIdx.x == 0) {
    pl.hand = nothing;
    pl.seen = nothing;
    pl.own = pl.end = pl.own0 = 0;
    pl.look = no_entry;
    pl.listed = -1;
    pl.word_next = list_capacity / 32;
    pl.m = 0u;
    pl.polls = 0;
    s_listed = 0;
  }
  fold_store(fresh.partial());
  __syncthreads(); // s_listed is set
  // Batches of jobs (one call site of run_jobs, whose code is large): the block's own, round by
  // round; then, where chunks are shared, one batch that only helps.
  bool own_left = true; // block-uniform
  bool rounds = false;  // phase A has run
  bool helped = false;
  for (;;) {
    bool batch = true, direct = false;
    if (block_only && own_left) {
      // Every segment is of the block tier (known on the host): block b takes segments b, b +
      // grid, ..., each a list of one (or a direct job).
      if (g < p.num_segments) {
        direct = BlockOnly && p.state == nullptr;
        if (!direct && threadIdx.x == 0) { // (s_list and the plan are thread 0's alone here)
          listed_segment& seg = s_list[0];
          seg.s = g;
          p.segments.bounds(g, seg.first, seg.length);
          start_list(1);
        }
      } else {
        own_left = false;
        batch = false;
      }
    } else if (!block_only && own_left) {
      if (rounds) { // the last round's list is taken: empty it
        __syncthreads();
        if (threadIdx.x == 0) {
          s_listed = 0;
        }
        __syncthreads();
      }
      rounds = true;
      phase_a();
      own_left = __syncthreads_or(tile < tiles) != 0; // the list is complete
      const int listed = s_listed;
      batch = listed > 0;
      if (batch && threadIdx.x == 0)
        start_list(listed);
    } else if (p.state != nullptr && !helped) {
      // After the block's own work, one batch that only helps.
      helped = true;
      if (threadIdx.x == 0) {
        if (owner)
          atomicAdd(&p.state->started, 1ull); // after its entries' flags (start_list)
        pl.listed = -1;
      }
    } else {
      break;
    }
    if (batch)
      run_jobs(direct);
    if (block_only && own_left)
      g += gridDim.x;
  }
}

// The kernels: segmented_kernel (warp tiles, phase A and B) and, where every segment is of the
// block tier (known on the host: segmented_params::block_per_segment), segmented_block_kernel
// (block b takes segments b, b + grid, ...). Two kernels, so that each gets its own register
// allocation: with both paths in one kernel (sm_90, 80 registers) ptxas spilled in the
// block-only path's chunk fold, and fixed sizes of 16384 and 65536 floats ran 9% slower on an
// H100 than before the tiles (the block-only kernel: as before).
template <class R, class Segments>
__global__ void __launch_bounds__(segmented_threads, segmented_min_blocks<R, Segments>)
    segmented_kernel(segmented_params<R, Segments> p, typename R::accumulator fresh) {
  segmented_body<false>(p, fresh);
}
template <class R, class Segments>
__global__ void __launch_bounds__(segmented_threads, segmented_min_blocks<R, Segments>)
    segmented_block_kernel(segmented_params<R, Segments> p, typename R::accumulator fresh) {
  segmented_body<true>(p, fresh);
}

} // namespace segmented
} // namespace detail
} // namespace tcr
