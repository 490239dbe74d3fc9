// A divide-and-conquer worker's queue: the tasks it holds, in arrival order
// (their problems stay with the recursion, by slot), their summed weight, the
// cost measure they carry, and the report of them a manager placing by
// estimates reads.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/runtime/tasks/dnc_recursion.hpp>
#include <loopsched/runtime/tasks/dnc_wire.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

class dnc_queue {
public:
    using entry = dnc_task;

    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
    /// The queue's summed weight (what the manager hears, with the running task's).
    [[nodiscard]] double load() const noexcept { return load_; }
    [[nodiscard]] cost_measure measure() const noexcept { return measure_; }
    void set_measure(cost_measure m) noexcept { measure_ = m; }
    /// A task's weight in the queue's sum, by the measure.
    [[nodiscard]] double weight(double cost) const noexcept { return queue_weight(cost, measure_); }

    /// A task at the end: the newest, numbered in arrival order.
    void push(std::uint32_t slot, double cost, std::uint32_t depth, result_address parent, bool fresh) {
        entries_.push_back(entry{slot, cost, weight(cost), next_order_++, depth, parent, fresh});
        load_ += entries_.back().weight;
    }
    entry take(std::size_t at) {
        entry e = std::move(entries_[at]);
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(at));
        load_ -= e.weight;
        if (entries_.empty()) load_ = 0.0; // no drift from the sums
        return e;
    }
    /// Where the task numbered `order` is, if it is still queued.
    [[nodiscard]] std::optional<std::size_t> find(std::uint64_t order) const {
        auto const it = std::ranges::find(entries_, order, &entry::order);
        if (it == entries_.end()) return std::nullopt;
        return static_cast<std::size_t>(it - entries_.begin());
    }
    /// The queue as a placement sees it.
    std::vector<queued_task> const& view() {
        view_.clear();
        for (auto const& e : entries_) view_.push_back({e.cost, e.order, e.weight});
        return view_;
    }
    /// Whether a task deeper than `depth` is queued.
    [[nodiscard]] bool has_deeper(std::uint32_t depth) const noexcept {
        return std::ranges::any_of(entries_, [&](entry const& e) { return e.depth > depth; });
    }
    /// The tasks deeper than `depth`, as a placement sees them; taken with take_deeper().
    std::vector<queued_task> const& view_deeper(std::uint32_t depth) {
        view_.clear();
        positions_.clear();
        for (std::size_t i = 0; i < entries_.size(); ++i)
            if (entries_[i].depth > depth) {
                view_.push_back({entries_[i].cost, entries_[i].order, entries_[i].weight});
                positions_.push_back(i);
            }
        return view_;
    }
    /// Where the task at `at` of the last view_deeper() is in the queue.
    [[nodiscard]] std::size_t position(std::size_t at) const { return positions_.at(at); }
    /// The task at `at` of the last view_deeper().
    entry take_deeper(std::size_t at) { return take(position(at)); }

    /// Writes the queue's report after `h` (the running task's part): the new
    /// tasks and the cheapest others listed, the rest summed; new tasks are
    /// new no more. `problem_bytes`: a problem's size where every problem has
    /// the same (else 0).
    void report(dnc_queue_report h, wire_writer& w, double problem_bytes) {
        listed_.clear();
        old_.clear();
        for (std::size_t i = 0; i < entries_.size(); ++i) (entries_[i].fresh ? listed_ : old_).push_back(i);
        if (old_.size() > listed_old_tasks) {
            auto const cheap = [&](std::size_t a, std::size_t b) { return entries_[a].cost < entries_[b].cost; };
            std::ranges::nth_element(old_, old_.begin() + static_cast<std::ptrdiff_t>(listed_old_tasks), cheap);
            for (std::size_t i = listed_old_tasks; i < old_.size(); ++i) h.unlisted += entries_[old_[i]].weight;
            h.unlisted_count = old_.size() - listed_old_tasks;
            old_.resize(listed_old_tasks);
        }
        listed_.insert(listed_.end(), old_.begin(), old_.end());
        h.tasks = listed_.size();
        w.put(info_queue).put(h);
        for (auto const i : listed_) {
            auto& e = entries_[i];
            dnc_reported_task t;
            t.order = e.order;
            t.cost = e.weight;
            if (measure_ == cost_measure::size)
                t.bytes = e.cost;
            else
                t.bytes = problem_bytes;
            t.fresh = e.fresh ? 1 : 0;
            e.fresh = false;
            w.put(t);
        }
    }

private:
    std::vector<entry> entries_;
    std::vector<queued_task> view_;
    std::vector<std::size_t> positions_; // view_deeper's tasks in entries_
    std::vector<std::size_t> listed_, old_; // report's scratch
    double load_ = 0.0;
    std::uint64_t next_order_ = 0;
    cost_measure measure_ = cost_measure::unknown;
};

} // namespace loopsched::detail
