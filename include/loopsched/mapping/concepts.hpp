// The Mapping family's refinements, one per engine that places work: loops
// (LoopMapping), DOACROSS tiles (TileMapping), divide-and-conquer trees
// (TreePlacement) and placement by estimates (EstimatePlacement), with the
// vocabulary their states speak. The base, Mapping, is in concepts.hpp.
#pragma once

#include <loopsched/concepts.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace loopsched {

class dlpt_board;
template <std::size_t N>
class tiling;
struct tile_placement;

// ---------------------------------------------------------------- loops

/// A unit of work to place.
struct work_unit {
    std::size_t index = 0; ///< its place in the order units are made (0, 1, ...)
    index_t size = 0;      ///< iterations (or tasks) it holds
    double estimated_cost = std::numeric_limits<double>::quiet_NaN(); ///< seconds at power 1; NaN: unknown
};

/// `s.place(unit, asking)` names the worker that runs `unit`, made when
/// `asking`'s worker asked for work (its status, V and Q, comes with it).
template <class S>
concept places_units = requires(S& s, work_unit const& u, request const& asking) {
    { s.place(u, asking) } -> std::same_as<std::size_t>;
};

/// The running state of a loop mapping over one loop.
template <class S>
concept LoopMappingState = std::move_constructible<S> && places_units<S>;

/// `m.ahead_of_time()`: every unit's worker is known before any request
/// (static mappings), so each rank can run its own units with no master.
template <class M>
concept knows_whether_ahead_of_time = requires(M const& m) {
    { m.ahead_of_time() } -> std::convertible_to<bool>;
};

/// `m.start(info)` gives a LoopMappingState.
template <class M>
concept starts_a_loop_mapping_state = requires(M const& m, placement_info const& info) {
    { m.start(info) } -> LoopMappingState;
};

/// Which worker runs each chunk of a DOALL loop (dynamic, static block,
/// static cyclic, any_mapping).
/// Requirements:
///  1. a Mapping;
///  2. `ahead_of_time()`: whether owners are fixed before any request;
///  3. `start(placement_info)` returning a state whose `place(work_unit, request)`
///     names the worker of each unit.
template <class M>
concept LoopMapping = Mapping<M> && knows_whether_ahead_of_time<M> && starts_a_loop_mapping_state<M>;

// ---------------------------------------------------------------- tiles

/// `s.place(tiles)` gives every tile of a DOACROSS loop's tiling its worker
/// and each worker its tiles in the order it runs them (shown for 2
/// dimensions; a tile mapping's state places tilings of any rank).
template <class S>
concept places_tiles = requires(S const& s, tiling<2> const& tiles) {
    { s.place(tiles) } -> std::same_as<tile_placement>;
};

/// `m.start(info)` gives a state that places tiles.
template <class M>
concept starts_a_tile_state = requires(M const& m, placement_info const& info) {
    { m.start(info) } -> places_tiles;
};

/// Which worker runs each tile of a DOACROSS loop run without a master (SDS,
/// chains-cyclic, CPS, ACS: doacross_mapping). Every rank derives the same
/// owners.
/// Requirements:
///  1. a Mapping;
///  2. `start(placement_info)` (the workers and their V and Q) returning a
///     state whose `place(tiling)` gives the owners and each worker's order.
template <class M>
concept TileMapping = Mapping<M> && starts_a_tile_state<M>;

// ---------------------------------------------------------------- trees

/// A worker as a tree placement sees it: its index in the loop and its normalized speed (V/Q).
struct placed_worker {
    std::size_t index = 0;
    double speed = 1.0;
    friend bool operator==(placed_worker const&, placed_worker const&) = default;
};

/// A queued task as a placement sees it: its cost by the run's measure (larger
/// costs more) and when this worker queued it (larger is newer).
struct queued_task {
    double cost = 0.0;
    std::uint64_t order = 0;
    double weight = 0.0; ///< its part of the queue's load (the cost, or 2^-depth under the depth measure)
};

/// What a worker with nothing to run does.
enum class idle_action : std::uint8_t {
    report, ///< tells the manager, which may have a busy worker send it a task
    steal   ///< asks a random worker for work directly
};

/// The decisions a tree placement's state makes, which the runtime asks:
///  - `first_list(by_speed)`: the list the original problem starts with, given
///    every worker fastest first. Its first member receives the problem; the
///    rest travel with it as the workers it may hand subproblems to.
///  - `split(list, children)`: a worker that divides a problem while it still
///    has a list: `list` (itself first) split into at most `children` lists.
///    List 0 stays with the worker; the fastest of each other list gets one
///    subproblem (the costliest after those already placed) and the rest of its list.
///  - `divides(queued, workers)`: whether the next task taken from a queue of
///    `queued` tasks is divided into queued subproblems (true) or solved by
///    direct recursion, inlined.
///  - `next(queue, dividing)`: the queued task to run next (an index into `queue`).
///  - `give(queue, running)`: the queued tasks to give to a worker that asked
///    (indices; none: refuse); `running`: this worker is in the middle of a
///    task, which it keeps. Optionally also `give(queue, running, amount)`,
///    declared by name (hook_set{.give_amount = true}): the manager sized the
///    transfer by speeds, so that giver and receiver finish together;
///    `amount` is the load (in queue weights) to give.
///  - `when_idle()`: what a worker with nothing to run does.
///  - `balances()`: whether the manager answers an idle worker by moving a busy worker's task to it.
///  - `spills()`: whether a worker asked for work while it recurses with an
///    empty queue turns its next division into queued tasks to answer (rather than refuse).
template <class S>
concept decides_divisions = requires(S const& s, std::span<placed_worker const> workers, std::size_t n,
                                     std::span<queued_task const> queue, bool flag) {
    { s.first_list(workers) } -> std::same_as<std::vector<placed_worker>>;
    { s.split(workers, n) } -> std::same_as<std::vector<std::vector<placed_worker>>>;
    { s.divides(n, n) } -> std::convertible_to<bool>;
    { s.next(queue, flag) } -> std::same_as<std::size_t>;
    { s.give(queue, flag) } -> std::same_as<std::vector<std::size_t>>;
    { s.when_idle() } -> std::same_as<idle_action>;
    { s.balances() } -> std::convertible_to<bool>;
    { s.spills() } -> std::convertible_to<bool>;
};

/// The running state of a tree placement over one run.
template <class S>
concept TreePlacementState = std::move_constructible<S> && decides_divisions<S>;

/// `p.start(info)` gives a state making the decisions above.
template <class P>
concept starts_dividing_decisions = requires(P const& p, placement_info const& info) {
    { p.start(info) } -> TreePlacementState;
};

/// A placement of a divide-and-conquer tree's tasks by decisions at every
/// worker (kazouris, april, steal, steal-half, or the user's).
/// Requirements:
///  1. a Mapping;
///  2. `start(placement_info)` returning a state making the decisions of
///     decides_divisions.
template <class P>
concept TreePlacement = Mapping<P> && starts_dividing_decisions<P>;

/// The former name of TreePlacement, kept for one release.
template <class P>
concept DividingPlacement = TreePlacement<P>;

// ---------------------------------------------------------------- estimates

/// An estimate placement's state chooses the worker of a new task of estimate
/// `rho` (seconds on a speed-1 worker) from the load table at time `now`.
template <class S>
concept chooses_on_the_board = requires(S& s, dlpt_board const& board, double rho, double now) {
    { s.choose(board, rho, now) } -> std::same_as<std::size_t>;
};

/// The running state of an estimate placement over one run.
template <class S>
concept EstimatePlacementState = std::move_constructible<S> && chooses_on_the_board<S>;

/// `p.start(info)` gives an EstimatePlacementState.
template <class P>
concept starts_an_estimate_state = requires(P const& p, placement_info const& info) {
    { p.start(info) } -> EstimatePlacementState;
};

/// Karamcheti and Wah's setting: every new task is placed on a worker by its
/// estimate, from a load table of every worker's running task and queue (dlpt,
/// random, round-robin, objects, messages, or the user's). A task farm and a
/// divide-and-conquer run both take one.
/// Requirements:
///  1. a Mapping;
///  2. `start(placement_info)` returning a state whose `choose(board, rho, now)`
///     names the new task's worker.
/// A state may also say `dlpt_rules() -> true`, declared by name
/// (hook_set{.dlpt_rules = true}): then D_LPT's other rules apply around its
/// choices (a queued task moves only for a gain of at least f(theta), an idle
/// worker pulls the most loaded one's lowest-priority task, a revised estimate
/// places its worker's queue again, and a static set is taken largest first).
template <class P>
concept EstimatePlacement = Mapping<P> && starts_an_estimate_state<P>;

} // namespace loopsched
