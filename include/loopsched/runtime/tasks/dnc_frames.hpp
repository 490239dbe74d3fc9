// A divide-and-conquer recursion's parts that do not depend on the user's
// types: the frames waiting for results and the type-free bookkeeping
// (dnc_recursion_core), defined in dnc_frames.ipp.
#pragma once

#include <loopsched/config.hpp>
#include <loopsched/detail/stack.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/runtime/tasks/dnc_interfaces.hpp>
#include <loopsched/runtime/tasks/dnc_wire.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace loopsched::detail {

/// A divided problem waiting for its subproblems' results, as the table sees it.
struct dnc_frame_state {
    std::vector<char> filled; ///< by place: its result is in
    std::size_t missing = 0;
    bool continuation = false; ///< a queued task's continuation (else a wait on the stack)
};

/// The divided problems waiting for their subproblems' results, by id. A
/// frame lives on the stack of the wait that opened it, or, for a queued
/// task divided as a continuation, with the worker until its combine; a
/// continuation's id is listed in completed() when its last result arrives.
/// An id is a slot (reused once closed, so the frames open at once bound the
/// memory) and the slot's generation (so a result for a closed frame is
/// refused, not taken by the slot's next frame). Whatever the result type:
/// loopsched::compiled holds it (dnc_frames.ipp).
class dnc_frame_table {
public:
    /// `f` waits for `n` results; its id, until close(id).
    LOOPSCHED_DECL std::uint64_t open(dnc_frame_state& f, std::size_t n);
    LOOPSCHED_DECL void close(std::uint64_t id);
    /// The frame `id` whose result `index` is still missing; a protocol error if there is none.
    LOOPSCHED_DECL dnc_frame_state& awaiting(std::uint64_t id, std::uint32_t index);
    /// Result `index` of frame `id` (`f`, from awaiting()) is in.
    LOOPSCHED_DECL void filled(std::uint64_t id, std::uint32_t index, dnc_frame_state& f);
    [[nodiscard]] bool empty() const noexcept { return opened_ == 0; }
    /// Continuations whose results are all in, oldest first; the worker combines them.
    [[nodiscard]] std::vector<std::uint64_t>& completed() noexcept { return completed_; }
    [[nodiscard]] bool any_completed() const noexcept { return !completed_.empty(); }
    /// The slot of frame `id`: below the most frames open at once.
    static std::uint32_t slot_of(std::uint64_t id) noexcept { return static_cast<std::uint32_t>(id); }

private:
    std::vector<dnc_frame_state*> open_; ///< by slot; null: free
    std::vector<std::uint32_t> generations_, free_;
    std::size_t opened_ = 0;
    std::vector<std::uint64_t> completed_;
};

/// The frames with their results.
template <class Result>
class dnc_frames : public dnc_frame_table {
public:
    struct frame : dnc_frame_state {
        std::vector<Result> results;
    };

    std::uint64_t open(frame& f, std::size_t n) {
        f.results.resize(n);
        return dnc_frame_table::open(f, n);
    }
    void fill(std::uint64_t id, std::uint32_t index, Result r) {
        auto& f = static_cast<frame&>(awaiting(id, index));
        f.results[index] = std::move(r);
        filled(id, index, f);
    }
};

/// The recursion's bookkeeping that does not depend on the user's types (the
/// clock's stride, a task's accounting and trace events, the placing of
/// subproblems), compiled once in loopsched::compiled (dnc_frames.ipp).
class dnc_recursion_core : public dnc_recursion_base {
protected:
    explicit dnc_recursion_core(dnc_engine& engine) : e_(engine), stack_(engine.stack_left) {}

    /// The stack check and the clock, every problem. The clock is read every
    /// `stride_` problems (look_at_clock).
    void tick() {
        ++e_.stats.nodes;
        if (++ticks_ < stride_) return;
        ticks_ = 0;
        look_at_clock();
    }
    /// The stride halves when a reading finds the poll interval passed (coarse
    /// problems: every problem) and doubles, up to 64, when not (a clock
    /// reading costs as much as a tiny problem).
    LOOPSCHED_DECL void look_at_clock();
    [[noreturn]] void too_deep(std::uint32_t depth) const { fail_stack_depth(depth, stack_.usable() / 1024); }

    /// Where an inlined task started (its clock, the nodes and traced nodes so far).
    struct inlined_start {
        double seconds = 0.0;
        std::uint64_t nodes = 0, traced = 0;
    };
    /// Around an inlined task's recursion: its work counts as work in hand.
    LOOPSCHED_DECL inlined_start begin_inlined(dnc_task const& t);
    LOOPSCHED_DECL void end_inlined(dnc_task const& t, inlined_start const& from);
    /// Around a queued leaf's solve.
    LOOPSCHED_DECL void begin_leaf();
    LOOPSCHED_DECL void end_leaf(dnc_task const& t, double start);
    /// A queued task was divided (from `start` to now): its own work is
    /// accounted once its subproblems are placed.
    LOOPSCHED_DECL void divided(dnc_task const& t, double start);
    /// The subproblems at `depth` of frame `id`, their costs in costs_ and
    /// their slots in slots_ (by `measure`): accounted, then sent or queued by the engine.
    LOOPSCHED_DECL void place_children(std::uint32_t depth, std::uint64_t id, cost_measure measure);

    dnc_engine& e_;
    stack_budget stack_;
    std::vector<double> costs_;
    std::vector<std::uint32_t> slots_;
    std::vector<std::byte> scratch_;

private:
    /// A queued task run as one node (a leaf solved, or a division): its own
    /// trace event, which an enclosing inlined task's event does not count again.
    LOOPSCHED_DECL void trace_node(dnc_task const& t, double start);

    static constexpr std::uint32_t max_continuation_depth = 1u << 18;
    std::uint32_t ticks_ = 0, stride_ = 1;
    std::uint64_t traced_nested_ = 0; ///< nodes of inlined tasks finished so far, for nested trace events
    double dividing_weight_ = -1.0, divide_seconds_ = 0.0;
};

} // namespace loopsched::detail

#ifndef LOOPSCHED_COMPILED // else loopsched::compiled holds them (impl/compiled_engines.ipp)
#include <loopsched/runtime/tasks/dnc_frames.ipp>
#endif
