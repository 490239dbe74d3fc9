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
        depths_.add(depth, 1);
    }
    entry take(std::size_t at) {
        entry e = std::move(entries_[at]);
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(at));
        load_ -= e.weight;
        depths_.add(e.depth, -1);
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
    /// Whether a task deeper than `depth` is queued (asked before every task a waiting worker runs).
    [[nodiscard]] bool has_deeper(std::uint32_t depth) const noexcept { return depths_.deeper_than(depth) > 0; }
    /// The tasks deeper than `depth`, as a placement sees them; taken with take_deeper().
    /// Looked for from the newest, and only until all are found: a division's
    /// children, the deepest tasks, are pushed last, so this costs about their
    /// number, not the queue's length (thousands in a deep search; a full scan
    /// before every task was 14% of the D&C test program, 25% under the sanitizers).
    std::vector<queued_task> const& view_deeper(std::uint32_t depth) {
        view_.clear();
        positions_.clear();
        std::size_t left = depths_.deeper_than(depth);
        for (std::size_t i = entries_.size(); left > 0 && i-- > 0;)
            if (entries_[i].depth > depth) {
                view_.push_back({entries_[i].cost, entries_[i].order, entries_[i].weight});
                positions_.push_back(i);
                --left;
            }
        std::ranges::reverse(view_); // arrival order, as view() gives
        std::ranges::reverse(positions_);
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
    /// How many queued tasks lie at each depth, summed over a depth range in
    /// O(log depth) (a Fenwick tree; counts per depth summed linearly were
    /// quadratic on a deep chain).
    class depth_counts {
    public:
        void add(std::uint32_t depth, int delta) {
            std::size_t const at = std::size_t{depth} + 1;
            while (at >= tree_.size()) grow();
            for (std::size_t i = at; i < tree_.size(); i += i & (~i + 1))
                tree_[i] = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(tree_[i]) + delta);
            total_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(total_) + delta);
        }
        [[nodiscard]] std::size_t deeper_than(std::uint32_t depth) const noexcept {
            std::size_t at_or_above = 0;
            for (std::size_t i = std::min(std::size_t{depth} + 1, tree_.size() - 1); i > 0; i -= i & (~i + 1))
                at_or_above += tree_[i];
            return total_ - at_or_above;
        }

    private:
        /// Twice the depths: the new top node sums everything counted so far, the others are empty.
        void grow() {
            std::size_t const n = 2 * (tree_.size() - 1);
            tree_.resize(n + 1, 0);
            tree_[n] = total_;
        }
        std::vector<std::size_t> tree_ = std::vector<std::size_t>(65, 0); ///< 1-based; depths 0-63 at first
        std::size_t total_ = 0;
    };

    std::vector<entry> entries_;
    depth_counts depths_;
    std::vector<queued_task> view_;
    std::vector<std::size_t> positions_; // view_deeper's tasks in entries_
    std::vector<std::size_t> listed_; // report's scratch
    double load_ = 0.0;
    std::uint64_t next_order_ = 0;
    cost_measure measure_ = cost_measure::unknown;
};

} // namespace loopsched::detail
