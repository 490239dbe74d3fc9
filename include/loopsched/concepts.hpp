// The library's concepts: IterationSpace, DependenceSet, ChunkPolicy (with its
// ChunkState) and Mapping, the base of the family in mapping/concepts.hpp. Each
// is an && of small named requirements, so a type that misses one is rejected
// with the name of the requirement it missed.
#pragma once

#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/request.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <limits>
#include <optional>
#include <ranges>
#include <type_traits>
#include <vector>

/// Scheduling of parallel loops and tasks over MPI: the algorithms
/// (parallel_for, parallel_for_doacross, task_farm, divide_and_conquer), the
/// chunk policies and placements they take, their options and outcomes.
namespace loopsched {

// ---------------------------------------------------------------- IterationSpace

/// The type states its number of dimensions as `static constexpr std::size_t rank`.
template <class T>
concept has_static_rank = requires {
    { T::rank } -> std::convertible_to<std::size_t>;
    requires T::rank >= 1;
    typename std::integral_constant<std::size_t, T::rank>;
};

/// `s.extent(d)` gives the number of indices along dimension d, `s.size()` the total.
template <class S>
concept reports_extent_per_dimension = requires(S const& s, std::size_t dim) {
    { s.extent(dim) } -> std::same_as<index_t>;
    { s.size() } -> std::same_as<index_t>;
};

/// `s.slice(d, first, last)` gives the sub-space with positions [first, last) along d
/// (positions counted from the space's lower bound), as the same type.
template <class S>
concept can_be_cut_along_a_dimension = requires(S const& s, std::size_t dim, index_t first, index_t last) {
    { s.slice(dim, first, last) } -> std::same_as<S>;
};

/// An N-dimensional rectangular iteration space that the schedulers cut into chunks.
/// Requirements:
///  1. copyable value type;
///  2. `S::rank`, the number of dimensions, a constant >= 1;
///  3. `extent(d)` and `size()` as index_t;
///  4. `slice(d, first, last)` returning the sub-space of the same type.
template <class S>
concept IterationSpace =
        std::copyable<S> && has_static_rank<S> && reports_extent_per_dimension<S> && can_be_cut_along_a_dimension<S>;

// ---------------------------------------------------------------- DependenceSet

/// A dependence vector of rank N: one signed distance per dimension.
template <std::size_t N>
using distance_vector = std::array<index_t, N>;

/// `d.vectors()` is a range of distance vectors whose length is the set's rank.
template <class D>
concept lists_distance_vectors = has_static_rank<D> && requires(D const& d) {
    { d.vectors() } -> std::ranges::input_range;
    requires std::convertible_to<std::ranges::range_value_t<decltype(d.vectors())>, distance_vector<D::rank>>;
};

/// A set of uniform (constant) flow dependences of a loop nest.
/// Requirements:
///  1. copyable value type;
///  2. `D::rank`, the loop-nest depth;
///  3. `vectors()`, a range of `std::array<index_t, rank>`, each lexicographically
///     positive (enforced by the implementations when they are built).
template <class D>
concept DependenceSet = std::copyable<D> && lists_distance_vectors<D>;

// ---------------------------------------------------------------- ChunkPolicy

/// `s.propose(r)` returns the scheme's chunk for the worker asking: > 0, or 0 when
/// the scheme leaves that worker out (e.g. its available power is under A_min).
template <class S>
concept proposes_chunk_sizes = requires(S& s, request const& r) {
    { s.propose(r) } -> std::same_as<index_t>;
};

/// `s.commit(r, n)` tells the scheme that n iterations were really handed to r's
/// worker (n may be smaller than proposed: clipped to what remains, or weighted).
template <class S>
concept records_granted_chunks = requires(S& s, request const& r, index_t granted) {
    { s.commit(r, granted) } -> std::same_as<void>;
};

/// The running state of one scheme over one loop.
template <class S>
concept ChunkState = std::move_constructible<S> && proposes_chunk_sizes<S> && records_granted_chunks<S>;

/// `p.start(info)` validates the parameters against the loop and returns a ChunkState.
template <class P>
concept starts_a_chunk_state = requires(P const& p, loop_info const& info) {
    { p.start(info) } -> ChunkState;
};

/// A chunk-size scheme: a small value type holding its parameters.
/// Requirements:
///  1. copyable value type;
///  2. `start(loop_info)` returning a ChunkState, whose `propose(request)` gives the
///     next chunk size and whose `commit(request, n)` records what was handed out.
/// No MPI and no clock: given the same requests, a policy returns the same chunks.
template <class P>
concept ChunkPolicy = std::copyable<P> && starts_a_chunk_state<P>;

/// The state type a policy's start() returns.
template <ChunkPolicy P>
using state_of = decltype(std::declval<P const&>().start(std::declval<loop_info const&>()));

// ---------------------------------------------------------------- values

/// A value that travels between ranks: a gathered result, a farm's task or
/// result, a divide-and-conquer problem or result. Trivially copyable types go
/// as their bytes, others through Boost.Serialization; default-constructible
/// (the receiver makes one to fill), and not bool (std::vector<bool> has no
/// contiguous storage: use char).
template <class T>
concept transferable = std::default_initializable<T> && std::copyable<T> && !std::same_as<T, bool>;

// ---------------------------------------------------------------- Mapping

/// What a mapping knows when the work starts.
struct placement_info {
    std::size_t workers = 1;             ///< how many workers take part
    std::vector<worker_status> status{}; ///< each worker's initial V and Q; empty: all 1
    std::size_t units = 0;               ///< how many units, when known ahead (static schedules); else 0
};

/// `m.start(info)` gives the state an engine asks as the work goes (a value it
/// may move; what the engine asks of it is each refinement's business).
template <class M, class Info = placement_info>
concept starts_a_placement_state = requires(M const& m, Info const& info) {
    { m.start(info) } -> std::move_constructible;
};

/// Who executes which unit of work: the base of the family of everything that
/// places work, with ChunkPolicy's shape. Each engine asks a refinement
/// (<loopsched/mapping/concepts.hpp>): LoopMapping (a DOALL loop's chunks),
/// TileMapping (a DOACROSS loop's tiles), TreePlacement (a divide-and-conquer
/// tree's tasks), FarmPlacement (a task farm's tasks as workers become idle)
/// and EstimatePlacement (each new task by its estimate).
/// Requirements:
///  1. `start(info)` returning the state the engine asks, where `info` is an
///     `Info`: a placement_info, or what a refinement's engine knows besides
///     (a task farm's farm_info);
///  2. copyable value type (its parameters only).
/// (start() is asked first: a wrapper that converts from placements has none,
/// so copyable<> never asks its converting constructors again.)
template <class M, class Info = placement_info>
concept Mapping = starts_a_placement_state<M, Info> && std::copyable<M>;

} // namespace loopsched
