// The Mapping family's refinements, one per engine that places work: loops
// (LoopMapping), DOACROSS tiles (TileMapping), divide-and-conquer trees
// (TreePlacement), task farms (FarmPlacement) and placement by estimates
// (EstimatePlacement), with the vocabulary their states speak. The base,
// Mapping, is in concepts.hpp.
#pragma once

#include <loopsched/concepts.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
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
    std::size_t index = 0; ///< the worker's index in the loop (0 .. workers - 1)
    double speed = 1.0;    ///< its normalized speed, V/Q
    /// Equal index and speed.
    friend bool operator==(placed_worker const&, placed_worker const&) = default;
};

/// A queued task as a placement sees it: its cost by the run's measure (larger
/// costs more) and when this worker queued it (larger is newer).
struct queued_task {
    double cost = 0.0;       ///< its cost by the run's measure
    std::uint64_t order = 0; ///< when this worker queued it
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

// ---------------------------------------------------------------- farms

/// What a task farm's placement knows when the farm starts: the workers (and
/// `units`, the task count when the options give it), and the farm's
/// parameters that shape its decisions (task_farm_options).
struct farm_info : placement_info {
    std::size_t initial_tasks = 3;        ///< f: tasks a worker holds before the cost model is ready
    std::size_t idle_below = 2;           ///< d: a worker holding fewer tasks asks for more
    std::size_t replies_before_model = 4; ///< r: replies before the cost model's estimates are used
    /// The tasks come in batches whose count nobody knows ahead (a group's
    /// sub-master, or a producer in a group): each batch is scheduled alone.
    bool batches = false;
};

/// What an idle worker gets from the master's queue, the best tasks first: at
/// most `tasks`, and after the first none once their estimated work (in the
/// cost model's normalized seconds) reaches `work`. `tasks` = 0: nothing now.
struct farm_grant {
    std::size_t tasks = 0;                                 ///< at most this many tasks
    double work = std::numeric_limits<double>::infinity(); ///< stop once their estimated work reaches this
};

/// The farm as its placement's state sees it when it decides (the farm's
/// master provides it). One call per decision, never per task held.
class farm_view {
public:
    /// How many workers the farm has.
    [[nodiscard]] virtual std::size_t workers() const = 0;
    /// Worker k's status as it last reported it (V and Q).
    [[nodiscard]] virtual worker_status status(std::size_t k) const = 0;
    /// Worker k's share of the farm's speed, w(W): its speed over the sum of the speeds.
    [[nodiscard]] virtual double share(std::size_t k) const = 0;
    /// The tasks worker k holds, running or waiting there.
    [[nodiscard]] virtual std::size_t held(std::size_t k) const = 0;
    /// How many tasks worker k may hold for `per_worker` a worker: as many,
    /// or, for a group of workers (a hierarchical farm's), as many for each
    /// of them plus one each at its sub-master.
    [[nodiscard]] virtual std::size_t limit(std::size_t k, std::size_t per_worker) const = 0;
    /// Tasks waiting at the master for a worker.
    [[nodiscard]] virtual std::size_t queued() const = 0;
    /// Tasks the workers hold, all together.
    [[nodiscard]] virtual std::size_t held_total() const = 0;
    /// The cost model (Kazouris's (4.1), fitted on the replies) is ready.
    [[nodiscard]] virtual bool modelled() const = 0;
    /// The model's estimate of all the work left, queued and held, in normalized seconds.
    [[nodiscard]] virtual double work_left() const = 0;
    /// More tasks may still come before the queued ones are handed out (the
    /// producer runs and is not waiting for every result).
    [[nodiscard]] virtual bool more_coming() const = 0;
    /// The next worker, round robin over the workers fastest first, that holds
    /// fewer than limit(k, per_worker) tasks; none when every worker does.
    [[nodiscard]] virtual std::optional<std::size_t> next_below(std::size_t per_worker) = 0;

protected:
    ~farm_view() = default;
};

/// The decisions a farm placement's state makes, which the farm's master asks:
///  - `grant(farm, k)`: what idle worker k gets from the queue now;
///  - `place_new(farm)`: where a new task goes at once, without queueing
///    (Kazouris's round robin before the model), or none: it is queued;
///  - `idle_below()`: a worker holding fewer tasks than this is idle;
///  - `moves_work()`: with nothing queued, an idle worker is answered by a
///    busy worker's tasks (Kazouris's redistribution, (4.2)-(4.6));
///  - `largest_first()`: once the cost model is ready, tasks go largest
///    estimate first (else in creation order).
template <class S>
concept decides_farm_grants = requires(S& s, S const& cs, farm_view& farm, std::size_t k) {
    { s.grant(farm, k) } -> std::same_as<farm_grant>;
    { s.place_new(farm) } -> std::same_as<std::optional<std::size_t>>;
    { cs.idle_below() } -> std::convertible_to<std::size_t>;
    { cs.moves_work() } -> std::convertible_to<bool>;
    { cs.largest_first() } -> std::convertible_to<bool>;
};

/// The running state of a farm placement over one farm.
template <class S>
concept FarmPlacementState = std::move_constructible<S> && decides_farm_grants<S>;

/// `p.start(info)` with the farm's info gives a FarmPlacementState.
template <class P>
concept starts_farm_decisions = requires(P const& p, farm_info const& info) {
    { p.start(info) } -> FarmPlacementState;
};

/// Where a task farm's tasks go as workers become idle (kazouris, ss, a
/// chunk policy over the task stream, or the user's). A farm also takes an
/// EstimatePlacement, which places each task when it is made instead.
/// Requirements:
///  1. a Mapping started with a farm_info (a `start(placement_info const&)`
///     serves: farm_info is one);
///  2. its state makes the decisions of decides_farm_grants.
template <class P>
concept FarmPlacement = Mapping<P, farm_info> && starts_farm_decisions<P>;

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
