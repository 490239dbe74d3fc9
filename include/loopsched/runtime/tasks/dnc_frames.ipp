// What a divide-and-conquer recursion does whatever the user's types: the
// frames' table and the bookkeeping of dnc_recursion_core (declared in
// dnc_frames.hpp, at whose end this is included); inline in header-only
// programs, else in loopsched::compiled (after dnc_frames.hpp).
#pragma once

#include <loopsched/config.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/tasks/dnc_wire.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace loopsched::detail {

LOOPSCHED_DECL std::uint64_t dnc_frame_table::open(dnc_frame_state& f, std::size_t n) {
    f.filled.assign(n, 0);
    f.missing = n;
    std::uint32_t slot;
    if (free_.empty()) {
        slot = static_cast<std::uint32_t>(open_.size());
        open_.push_back(nullptr);
        generations_.push_back(0);
    } else {
        slot = free_.back();
        free_.pop_back();
    }
    open_[slot] = &f;
    ++opened_;
    return std::uint64_t{++generations_[slot]} << 32 | slot;
}

LOOPSCHED_DECL void dnc_frame_table::close(std::uint64_t id) {
    auto const slot = slot_of(id);
    open_[slot] = nullptr;
    free_.push_back(slot);
    --opened_;
}

LOOPSCHED_DECL dnc_frame_state& dnc_frame_table::awaiting(std::uint64_t id, std::uint32_t index) {
    auto const slot = slot_of(id);
    dnc_frame_state* const f = slot < open_.size() && generations_[slot] == id >> 32 ? open_[slot] : nullptr;
    if (f == nullptr || index >= f->filled.size() || f->filled[index]) fail_unknown_frame(id);
    return *f;
}

LOOPSCHED_DECL void dnc_frame_table::filled(std::uint64_t id, std::uint32_t index, dnc_frame_state& f) {
    f.filled[index] = 1;
    if (--f.missing == 0 && f.continuation) completed_.push_back(id);
}

LOOPSCHED_DECL void dnc_recursion_core::look_at_clock() {
    if (e_.poll_if_due())
        stride_ = std::max<std::uint32_t>(1, stride_ / 2);
    else
        stride_ = std::min<std::uint32_t>(64, stride_ * 2);
}

LOOPSCHED_DECL auto dnc_recursion_core::begin_inlined(dnc_task const& t) -> inlined_start {
    auto& c = e_.counters;
    ++e_.stats.inlined;
    inlined_start const from{.seconds = e_.now(), .nodes = e_.stats.nodes, .traced = traced_nested_};
    ++c.inlining;
    c.running += t.weight; // work in hand too: the manager looks for large inlined subtrees to spill
    return from;
}

LOOPSCHED_DECL void dnc_recursion_core::end_inlined(dnc_task const& t, inlined_start const& from) {
    auto& c = e_.counters;
    c.running -= t.weight;
    if (--c.inlining == 0) {
        c.running = 0.0;
        e_.refuse_pending();
    }
    // A spill inside this recursion may run other inlined tasks here; their
    // events count their own nodes, so this event counts only the rest.
    std::uint64_t const under = e_.stats.nodes - from.nodes, nested = traced_nested_ - from.traced;
    traced_nested_ = from.traced + under;
    if (e_.tracing) e_.trace_event(t.order, under - nested, from.seconds);
}

LOOPSCHED_DECL void dnc_recursion_core::begin_leaf() {
    e_.leaf_reached();
    e_.counters.solving = true;
}

LOOPSCHED_DECL void dnc_recursion_core::end_leaf(dnc_task const& t, double start) {
    e_.counters.solving = false;
    e_.account(t.weight, e_.now() - start);
    trace_node(t, start);
}

LOOPSCHED_DECL void dnc_recursion_core::divided(dnc_task const& t, double start) {
    dividing_weight_ = t.weight;
    divide_seconds_ = e_.now() - start;
    trace_node(t, start);
    if (t.depth >= max_continuation_depth) fail_continuation_depth(t.depth);
}

LOOPSCHED_DECL void dnc_recursion_core::place_children(std::uint32_t depth, std::uint64_t id, cost_measure measure) {
    double subproblems = 0.0;
    for (double c : costs_) subproblems += queue_weight(c, measure);
    if (dividing_weight_ >= 0.0) { // the node's own work: its estimate less its subproblems'
        e_.account(std::max(0.0, dividing_weight_ - subproblems), divide_seconds_);
        dividing_weight_ = -1.0;
    }
    // The running task's estimate counted this subtree; from now on its
    // subproblems do, queued or sent. Else the manager's board would count
    // the work twice and place tasks away from a worker that has half of it.
    e_.shed_running(subproblems);
    // place() runs no user code and keeps neither span: costs_ and slots_ are free again once it returns
    e_.place(costs_, slots_, depth, id);
}

LOOPSCHED_DECL void dnc_recursion_core::trace_node(dnc_task const& t, double start) {
    if (!e_.tracing) return;
    ++traced_nested_;
    e_.trace_event(t.order, 1, start);
}

} // namespace loopsched::detail
