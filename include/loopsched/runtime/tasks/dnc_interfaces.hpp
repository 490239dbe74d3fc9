// What a divide-and-conquer worker's engine and its typed recursion ask of
// each other: a queued task, the counters both keep, and the two interfaces
// (dnc_engine, dnc_recursion_base) that keep the engine free of the user's types.
#pragma once

#include <loopsched/divide_and_conquer_ops.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/runtime/tasks/dnc_wire.hpp>
#include <loopsched/this_task.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace loopsched::detail {

/// A queued task as the engine holds it; its problem stays with the recursion.
struct dnc_task {
    std::uint32_t slot = 0; ///< where the recursion holds its problem
    double cost = 0.0;
    double weight = 0.0; ///< its part of the load, by the measure (computed once, at push)
    std::uint64_t order = 0;
    std::uint32_t depth = 0;
    result_address parent;
    bool fresh = false; ///< created here and not yet reported (placing by estimates)
};

/// What a worker is doing, as both sides keep it.
struct dnc_counters {
    int inlining = 0;      ///< inlined tasks on the stack
    bool solving = false;  ///< a queued leaf is being solved (it may poll: this_task::poll)
    double running = 0.0;  ///< the inlined tasks' weight: the manager hears it with the queue's
    bool pending = false;  ///< a request for work waits for the next division (a spill)
};

/// The engine as the recursion sees it (dnc_worker<T> is it): one virtual
/// call per queued task, division, message, or 64 problems at most.
class dnc_engine {
public:
    dnc_counters counters;
    dnc_worker_statistics stats; ///< the worker's row (both sides count in it)
    int own_rank = 0;          ///< this worker's rank
    bool estimates = false;    ///< the manager places every task (it hears every running task's)
    bool tracing = false;      ///< trace events are recorded
    bool slowed = false;       ///< this rank emulates slowness: user code is timed
    std::size_t stack_left = 0; ///< the recursion's stack (0: unknown)
    task_listener* listener = nullptr; ///< who hears this_task::estimate() and poll()

    [[nodiscard]] virtual double now() = 0;
    /// The poll interval passed since the last look at messages: looked now.
    [[nodiscard]] virtual bool poll_if_due() = 0;
    /// Runs `work(context)`, user code, as this rank's profile asks (emulated slowness sleeps after it).
    virtual void run_slowed(void (*work)(void*), void* context) = 0;
    [[nodiscard]] virtual cost_measure measure() = 0;
    virtual void set_measure(cost_measure m) = 0;
    /// Estimated own work (cost units) done in `seconds`.
    virtual void account(double units, double seconds) = 0;
    /// The running task's estimate: set (< 0: none), or less `weight` divided off.
    virtual void set_running(double weight) = 0;
    virtual void shed_running(double weight) = 0;
    /// A result for another rank (`to.rank`; < 0: the manager's solution) in `w`.
    virtual void send_result(result_address const& to, wire_writer&& w) = 0;
    /// A queued leaf is about to be solved: list workers unused go back.
    virtual void leaf_reached() = 0;
    /// Subproblems of frame `frame` at `depth`, held at `slots` with `costs`:
    /// some sent along the worker list, the rest queued.
    virtual void place(std::span<double const> costs, std::span<std::uint32_t const> slots, std::uint32_t depth,
                       std::uint64_t frame) = 0;
    /// A queued task at `depth` was divided here (its continuation waits).
    virtual void divided_at(std::uint32_t depth) = 0;
    virtual void answer_pending() = 0;
    virtual void refuse_pending() = 0;
    /// Runs other tasks (deeper than `depth`) until `missing` is 0.
    virtual void wait_for(std::size_t const& missing, std::uint32_t depth) = 0;
    /// A trace event: task `order`, `nodes` problems, from `start` to now.
    virtual void trace_event(std::uint64_t order, std::uint64_t nodes, double start) = 0;

protected:
    ~dnc_engine() = default;
};

/// The recursion as the engine sees it, whatever the user's types.
class dnc_recursion_base {
public:
    virtual ~dnc_recursion_base() = default;
    /// A problem received: held at the slot returned.
    virtual std::uint32_t problem_from(std::span<std::byte const> bytes) = 0;
    /// Writes the problem at `slot` (its byte count, then its bytes) and lets it go.
    virtual void put_problem(std::uint32_t slot, wire_writer& w) = 0;
    /// Every problem's size in bytes where all have the same (else 0).
    [[nodiscard]] virtual double fixed_problem_bytes() const = 0;
    /// A result received for frame `frame`, place `index`.
    virtual void result_from(std::uint64_t frame, std::uint32_t index, std::span<std::byte const> bytes) = 0;
    /// Frames wait for results.
    [[nodiscard]] virtual bool waiting() const = 0;
    /// Continuations whose results are all in.
    [[nodiscard]] virtual bool has_completed() const = 0;
    /// Combines the completed continuations and delivers their results; whether there were any.
    virtual bool combine_completed() = 0;
    /// Runs a queued task, divided (its subproblems placed) or inlined, and
    /// delivers its result (a divided task's later, from its continuation).
    virtual void run(dnc_task const& t, bool dividing) = 0;
};

} // namespace loopsched::detail
