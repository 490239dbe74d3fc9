// A divide-and-conquer worker's recursion over the user's operations: the only
// part of the engine typed on the problem, the result and the operations. It
// holds the problems queued at its worker (by slot) and the frames waiting for
// results, and asks the engine (dnc_engine, runtime/tasks/dnc.hpp) for the
// rest once per queued task or message, so that the engine is compiled once
// per transport (a program linked to loopsched::compiled includes only this).
#pragma once

#include <loopsched/config.hpp>
#include <loopsched/detail/stack.hpp>
#include <loopsched/divide_and_conquer_ops.hpp>
#include <loopsched/error.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/runtime/tasks/dnc_frames.hpp>
#include <loopsched/runtime/tasks/dnc_interfaces.hpp>
#include <loopsched/runtime/tasks/dnc_wire.hpp>
#include <loopsched/this_task.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// The recursion over the user's operations (Ops: is_leaf, solve, divide,
/// combine and optionally cost, as divide_and_conquer documents).
template <class Problem, class Result, class Ops>
class dnc_recursion final : public dnc_recursion_core {
    using frame = typename dnc_frames<Result>::frame;

public:
    dnc_recursion(dnc_engine& engine, Ops& ops) : dnc_recursion_core(engine), ops_(ops) {}

    std::uint32_t problem_from(std::span<std::byte const> bytes) override { return hold(from_bytes<Problem>(bytes)); }
    void put_problem(std::uint32_t slot, wire_writer& w) override {
        put_value(w, *problems_[slot], true);
        release(slot);
    }
    [[nodiscard]] double fixed_problem_bytes() const override {
        if constexpr (std::is_trivially_copyable_v<Problem>)
            return static_cast<double>(sizeof(Problem));
        else
            return 0.0;
    }
    void result_from(std::uint64_t id, std::uint32_t index, std::span<std::byte const> bytes) override {
        frames_.fill(id, index, from_bytes<Result>(bytes));
    }
    [[nodiscard]] bool waiting() const override { return !frames_.empty(); }
    [[nodiscard]] bool has_completed() const override {
        return frames_.any_completed();
    }

    /// Combines every continuation whose results are in and delivers its
    /// result; one delivered here may complete another, combined in turn.
    bool combine_completed() override {
        auto& done = frames_.completed();
        if (done.empty()) return false;
        for (std::size_t i = 0; i < done.size(); ++i) { // deliver() may append
            std::uint64_t const id = done[i];
            std::unique_ptr<continuation> const held = std::move(continuations_[frames_.slot_of(id)]);
            frames_.close(id);
            deliver(held->parent, combine(held->problem, held->f.results));
        }
        done.clear();
        return true;
    }

    void run(dnc_task const& t, bool dividing) override {
        if (e_.estimates) e_.set_running(t.weight);
        std::optional<Result> r = dividing ? run_divided_task(t) : run_inlined_task(t);
        if (e_.estimates) e_.set_running(-1.0);
        if (r) deliver(t.parent, std::move(*r));
    }

private:
    // ---- problems held by slot

    std::uint32_t hold(Problem&& p) {
        if (!free_.empty()) {
            std::uint32_t const slot = free_.back();
            free_.pop_back();
            problems_[slot].emplace(std::move(p));
            return slot;
        }
        problems_.emplace_back(std::move(p));
        return static_cast<std::uint32_t>(problems_.size() - 1);
    }
    Problem take(std::uint32_t slot) {
        Problem p = std::move(*problems_[slot]);
        release(slot);
        return p;
    }
    void release(std::uint32_t slot) {
        problems_[slot].reset();
        free_.push_back(slot);
    }

    /// The user's code, timed when this rank emulates slowness.
    template <class Work>
    void run_user(Work&& work) {
        if (!e_.slowed) return work();
        e_.run_slowed([](void* w) { (*static_cast<std::remove_reference_t<Work>*>(w))(); }, &work);
    }

    /// The user's combine of a frame's results (timed when this rank emulates slowness).
    Result combine(Problem const& p, std::vector<Result>& results) {
        Result r;
        run_user([&] { r = ops_.combine(p, std::span<Result>(results)); });
        return r;
    }

    void deliver(result_address const& to, Result r) {
        if (to.rank == e_.own_rank) return frames_.fill(to.frame, to.index, std::move(r));
        wire_writer w;
        if (to.rank >= 0) w.put(to.frame).put(to.index);
        put_value(w, r, false);
        e_.send_result(to, std::move(w));
    }
    /// A problem or a result at the end of a message, after its byte count if
    /// `counted`: its bytes written in place (a value of megabytes is copied
    /// once, not twice), or an archive made in scratch_ (its size known once
    /// written) and copied in.
    template <class V>
    void put_value(wire_writer& w, V const& v, bool counted) {
        if constexpr (travels_in_place<V>) {
            std::size_t const n = byte_size(v);
            if (counted) w.put(static_cast<std::uint64_t>(n));
            write_bytes_to(w.put_room(n), std::span<V const>(&v, 1));
        } else {
            scratch_.clear();
            write_values(scratch_, std::span<V const>(&v, 1));
            if (counted) w.put(static_cast<std::uint64_t>(scratch_.size()));
            w.put_raw(scratch_);
        }
    }

    // ---- running tasks

    std::optional<Result> run_inlined_task(dnc_task const& t) {
        inlined_start const from = begin_inlined(t);
        Problem const problem = take(t.slot);
        std::optional<Result> r;
        listening const listen(e_.listener); // this_task::poll() from a leaf of the recursion
        run_user([&] { r.emplace(recurse(problem, t.depth)); });
        end_inlined(t, from);
        return r;
    }

    /// A leaf's result; a divided task's comes later, from its continuation.
    std::optional<Result> run_divided_task(dnc_task const& t) {
        tick();
        listening const listen(e_.listener); // this_task::estimate() and poll() from the body
        double const start = e_.now();
        Problem problem = take(t.slot);
        if (ops_.is_leaf(problem)) {
            begin_leaf();
            Result r;
            run_user([&] { r = ops_.solve(problem); });
            end_leaf(t, start);
            return r;
        }
        std::vector<Problem> children;
        run_user([&] { children = divide(problem); });
        divided(t, start);
        auto c = std::make_unique<continuation>(std::move(problem), t.parent);
        c->f.continuation = true;
        std::uint64_t const id = spread(c->problem, t.depth, children, c->f);
        if (children.empty()) { // nothing to wait for: combined now
            frames_.close(id);
            return combine(c->problem, c->f.results);
        }
        auto const slot = frames_.slot_of(id);
        if (slot >= continuations_.size()) continuations_.resize(slot + std::size_t{1});
        continuations_[slot] = std::move(c);
        e_.divided_at(t.depth);
        return std::nullopt;
    }

    /// Direct recursion (inlining): no subproblem is queued, unless a request
    /// for work is pending and the placement spills.
    Result recurse(Problem const& p, std::uint32_t depth) {
        tick();
        if (stack_.exceeded()) too_deep(depth);
        if (ops_.is_leaf(p)) return ops_.solve(p);
        auto&& range = ops_.divide(p);
        if (e_.counters.pending) return run_divided(p, depth, to_vector(std::forward<decltype(range)>(range))); // spill
        // Inline, as the plain recursion: the subproblems straight from the
        // user's range, the results on the stack (no allocation for up to 8).
        // A sized range's results are made first and assigned: GCC 12 then
        // sees every element the combine reads initialised (with push_back
        // it warns that they may not be, at -O2, once this is inlined).
        boost::container::small_vector<Result, 8> results;
        if constexpr (std::ranges::sized_range<decltype(range)>) {
            results.resize(static_cast<std::size_t>(std::ranges::size(range)));
            std::size_t i = 0;
            for (auto&& c : range) results[i++] = recurse(c, depth + 1);
        } else {
            for (auto&& c : range) results.push_back(recurse(c, depth + 1));
        }
        return ops_.combine(p, std::span<Result>(results.data(), results.size()));
    }

    /// A problem spilled from an inline recursion: its subproblems spread,
    /// then a wait on the stack (the recursion needs the result to go on).
    Result run_divided(Problem const& p, std::uint32_t depth, std::vector<Problem> children) {
        if (stack_.exceeded()) too_deep(depth);
        frame f;
        std::uint64_t const id = spread(p, depth, children, f);
        e_.answer_pending();
        e_.wait_for(f.missing, depth);
        frames_.close(id);
        return combine(p, f.results);
    }

    /// Opens `f` for p's subproblems and has the engine send them along the
    /// worker list or queue them; the frame's id.
    std::uint64_t spread(Problem const& p, std::uint32_t depth, std::vector<Problem>& children, frame& f) {
        if (e_.measure() == cost_measure::unknown) choose_measure(p, children);
        cost_measure const measure = e_.measure();
        std::uint64_t const id = frames_.open(f, children.size());
        costs_.resize(children.size());
        slots_.resize(children.size());
        for (std::size_t i = 0; i < children.size(); ++i) {
            costs_[i] = cost_of(children[i], depth + 1, measure);
            slots_[i] = hold(std::move(children[i]));
        }
        place_children(depth + 1, id, measure);
        return id;
    }

    std::vector<Problem> divide(Problem const& p) { return to_vector(ops_.divide(p)); }
    template <class Range>
    static std::vector<Problem> to_vector(Range&& range) {
        if constexpr (std::same_as<Range, std::vector<Problem>>) { // a vector returned by value: taken as it is
            return std::move(range);
        } else {
            std::vector<Problem> out;
            for (auto&& c : range) out.push_back(static_cast<Problem>(c));
            return out;
        }
    }

    void choose_measure(Problem const& p, std::vector<Problem> const& children) {
        if constexpr (gives_cost<Ops, Problem>())
            e_.set_measure(cost_measure::user);
        else if (!children.empty() && byte_size(children.front()) != byte_size(p))
            e_.set_measure(cost_measure::size);
        else
            e_.set_measure(cost_measure::depth);
    }
    double cost_of(Problem const& p, std::uint32_t depth, cost_measure measure) {
        switch (measure) {
        case cost_measure::user:
            if constexpr (gives_cost<Ops, Problem>()) return static_cast<double>(ops_.cost(p));
            break;
        case cost_measure::size: return static_cast<double>(byte_size(p));
        default: break;
        }
        return -static_cast<double>(depth);
    }

    Ops& ops_;
    std::vector<std::optional<Problem>> problems_; ///< the problems queued at this worker, by slot
    std::vector<std::uint32_t> free_;              ///< slots of problems let go
    dnc_frames<Result> frames_;
    /// A queued task divided here, waiting for its subproblems' results off the stack.
    struct continuation {
        continuation(Problem&& p, result_address to) : problem(std::move(p)), parent(to) {}
        Problem problem;
        result_address parent;
        frame f;
    };
    std::vector<std::unique_ptr<continuation>> continuations_; ///< by their frame's slot
};

} // namespace loopsched::detail
