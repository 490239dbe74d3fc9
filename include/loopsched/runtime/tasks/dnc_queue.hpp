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
#include <array>
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
    /// Whether a task deeper than `depth` is queued. Asked before every task a
    /// waiting worker runs, so it looks from the newest: a division's children,
    /// the deepest tasks, are pushed last (a plain loop: the ranges algorithm
    /// was 14% of a UTS run under the sanitizers; counts by depth were
    /// quadratic on a deep chain).
    [[nodiscard]] bool has_deeper(std::uint32_t depth) const noexcept {
        for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
            if (it->depth > depth) return true;
        return false;
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
        // One pass, the cheapest old tasks kept sorted in a fixed array: the
        // report goes out at every transfer, and a queue holds thousands of
        // tasks in a deep search (a selection over an index vector was a third
        // of a UTS run under the sanitizers).
        listed_.clear();
        std::array<std::size_t, listed_old_tasks> cheapest{};
        std::size_t kept = 0;
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            auto const& e = entries_[i];
            if (e.fresh) {
                listed_.push_back(i);
                continue;
            }
            if (kept == listed_old_tasks) {
                auto const& dearest = entries_[cheapest[kept - 1]];
                if (!(e.cost < dearest.cost)) {
                    h.unlisted += e.weight;
                    ++h.unlisted_count;
                    continue;
                }
                h.unlisted += dearest.weight;
                ++h.unlisted_count;
                --kept;
            }
            std::size_t at = kept++;
            for (; at > 0 && e.cost < entries_[cheapest[at - 1]].cost; --at) cheapest[at] = cheapest[at - 1];
            cheapest[at] = i;
        }
        listed_.insert(listed_.end(), cheapest.begin(), cheapest.begin() + static_cast<std::ptrdiff_t>(kept));
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
    std::vector<std::size_t> listed_; // report's scratch
    double load_ = 0.0;
    std::uint64_t next_order_ = 0;
    cost_measure measure_ = cost_measure::unknown;
};

} // namespace loopsched::detail
