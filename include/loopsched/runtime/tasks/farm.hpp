// The task farm's engine (Kazouris, chapter 4): tasks created on the root while
// the farm runs, a linear cost model fitted on the replies, distribution by
// speed share and redistribution between workers; the two clients of the
// protocol core (runtime/core/core.hpp) that run it.
//
// Where the document is silent (digest 000, "[unspecified]"), this engine chooses:
// - lambda's two points: the mean of the 3 oldest and of the 3 newest of the
//   window by creation order (with fewer than 6 replies, half the window each);
//   equal heuristic means give lambda = 0 (every task costs NC).
// - A reply whose task is older than the whole (full) window is not fitted.
// - Before r replies there is no model: every task counts as one unit of work,
//   idle workers are filled up to f tasks from the master's queue in creation
//   order, and a worker runs its tasks in creation order.
// - Estimates add up linearly, as (4.1) does, but no task is estimated below
//   the cheapest time in the window (nor a sum of k below k times it): a line
//   fitted on noise can go negative where tasks are not free, and a chunk
//   "filled" with zero estimates would take the master's whole queue.
// - "Largest first", at the master and in a worker, is by the model's order
//   when the master sent the task (heur up or down, as lambda's sign says);
//   a task's priority overrides it.
// - A busy worker moves tasks largest first while their sum stays within the
//   amount of (4.6), skipping a task that would pass it (so the idle worker
//   never finishes after it), and keeps at least one task.
// - A refused transfer leaves that worker out as a donor until it replies again.
#pragma once

#include <loopsched/detail/small_vector.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/runtime/tasks/farm_dispatch.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/this_task.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// The farm's master client: the producer's side and the protocol core's
/// client over the parts farm_dispatch assembles (the book of tasks, the
/// workers' table, the placement's state, Kazouris's redistribution,
/// estimates, reissue, departures, the groups' lending). `Deliver(id, block)`
/// takes a result on the root: the seconds the task computed (a double), then
/// the result's bytes.
template <Transport T, class Deliver>
class farm_master : public farm_dispatch<T> {
    using base = farm_dispatch<T>;
    using base::book_, base::workers_, base::port_, base::fs_, base::model_, base::redistribution_, base::lending_,
            base::departures_, base::view_, base::placement_, base::estimates_, base::reissue_, base::moved_,
            base::producing_, base::stopping_, base::flushing_;
    using base::distribute, base::send_tasks, base::send_one, base::stop, base::take_back;
    using typename base::state;

public:
    // pushes_work: every idle worker is looked at by distribute()
    static constexpr master_hooks hooks{.results_first = true,
                                        .pushes_work = true,
                                        .holds = true,
                                        .expecting_work = true,
                                        .complete = true,
                                        .lost = true};

    farm_master(master_port<T>& port, farm_settings const& fs, std::span<worker_status const> statuses, Deliver deliver)
            : farm_dispatch<T>(port, fs, statuses), deliver_(std::move(deliver)) {}

    // ---- what the producer does (through the task_farm handle)

    /// A new task: its bytes, its heuristic inputs, its priority. Returns its id.
    std::uint64_t submit(std::vector<std::byte> payload, std::optional<double> cost, double priority) {
        auto const id = static_cast<std::uint64_t>(book_.size());
        if (stopping_) return book_.add_cancelled(priority);
        if (double const change = book_.add_measured(std::move(payload), cost, priority);
            change != 0.0 && book_[0].where == state::sent)
            workers_.revalued(static_cast<std::size_t>(book_[0].owner), change);
        if (estimates_) {
            estimates_->place(id, port_.now(), send_one());
            return id;
        }
        if (auto const k = placement_->place_new(view_)) { // sent at once (Kazouris's start)
            send_tasks(*k, std::span(&id, 1));
            return id;
        }
        book_.enqueue(id);
        distribute();
        return id;
    }
    /// Producers in groups: a task another group lent this one. It takes an
    /// id here, but not among the ids this group's producer sees.
    std::uint64_t submit_borrowed(std::vector<std::byte> payload, std::optional<double> cost, double priority) {
        auto const id = submit(std::move(payload), cost, priority);
        lending_.borrowed_task(id);
        return id;
    }

    /// The producer returned: no task will come.
    void finish_production() {
        producing_ = false;
        if (fs_.placement.policy() && !fs_.batches && !fs_.producers_in_groups && !stopping_ &&
            book_.size() != fs_.expected_tasks)
            require(false, "options.expected_tasks", fs_.expected_tasks,
                    "must equal the number of tasks submitted (" + std::to_string(book_.size()) + ")");
        distribute();
        for (std::size_t k = 0; k < workers_.size(); ++k) port_.touch(k);
    }

    /// A lent task's result, [seconds][the result's bytes], from the group that ran it.
    void lent_result(std::uint64_t id, std::span<std::byte const> b) {
        if (id >= book_.size() || b.size() < sizeof(double) ||
            (book_[id].where != state::lent && book_[id].where != state::sent))
            throw error("loopsched: protocol: a result for task " + std::to_string(id) + " that was not lent");
        if (auto& t = book_[id]; t.where == state::sent) { // a worker lent it; its word has not come yet
            auto const k = static_cast<std::size_t>(t.owner);
            redistribution_.released_to_group(k, t.heur);
            workers_.may_idle(k);
            port_.touch(k);
        }
        book_.came_back(id);
        count_result(id);
        deliver_(id, b);
    }
    /// Checks the time limit (called between messages and submissions).
    void check_limits() {
        if (!stopping_ && fs_.time_limit > 0.0 && port_.now() - started_ >= fs_.time_limit) stop();
    }
    void start_clock() { started_ = port_.now(); }
    // ---- the protocol core's client

    index_t serve(std::size_t k, request const& r) {
        workers_.report(k, r.status);
        check_limits();
        workers_.may_idle(k);
        distribute();
        return 0; // tasks went out through push_worker, counted there
    }
    [[nodiscard]] bool done() const noexcept {
        return !producing_ && this->all_resolved() && !redistribution_.under_way() && !lending_.borrowing();
    }
    /// While the producer runs, workers all idle is a wait for its next task;
    /// not while it waits for results that no worker holds.
    [[nodiscard]] bool expecting_work() const noexcept {
        // Also while another group runs tasks lent to it, or may lend some here.
        return (producing_ && (!flushing_ || this->all_resolved())) || lending_.borrowing() || book_.lent_out() > 0;
    }

    /// A result: [seconds the task computed][the result's bytes].
    void take_result(index_t first, index_t size, std::span<std::byte const> b) {
        auto const id = static_cast<std::uint64_t>(first);
        // With reissue a task may be held by several workers: the sender's copy ends here,
        // and a result for a task resolved already (by another copy) is dropped.
        bool const second = reissue_ && id < book_.size() && book_[id].where != state::sent && size == 1 &&
                            reissue_->holds(port_.result_sender(), id);
        if (size != 1 || id >= book_.size() || (book_[id].where != state::sent && !second) || b.size() < sizeof(double))
            throw error("loopsched: protocol: a result for task " + std::to_string(id) + " that is not running");
        double seconds;
        std::memcpy(&seconds, b.data(), sizeof seconds);
        auto& t = book_[id];
        auto const k = reissue_ ? port_.result_sender() : static_cast<std::size_t>(t.owner);
        workers_.released(k, t.heur);
        workers_[k].refused = false;
        workers_.may_idle(k);
        if (reissue_ && !reissue_->released(k, id))
            throw error("loopsched: protocol: a result for task " + std::to_string(id) + " from a worker without it");
        if (second) {
            reissue_->dropped_one();
            return;
        }
        book_.finish(id);
        count_result(id);
        model_.add(id, t.heur, seconds * workers_[k].speed);
        if (estimates_) estimates_->finished(k, id, port_.now()); // its next task starts now
        deliver_(id, b); // [seconds][the result's bytes]: a sub-master passes both on
        if (fs_.stop_after_results > 0 && results_ >= fs_.stop_after_results) stop();
    }

    /// The ranks of the workers that left, and the copies, for the table every rank gets.
    void complete(loop_statistics& table) {
        if (placement_) placement_->finish(table); // a chunk scheme that learns across farms (automatic)
        departures_.complete(table);
        if (reissue_) reissue_->complete(table);
    }

    /// Worker k was presumed lost: with reissue the tasks it held go back to
    /// the queue unless another worker holds a copy; without, the farm goes on
    /// only if it held none.
    bool lost(std::size_t k, bool held_work) {
        if (!reissue_) return !held_work && workers_[k].count == 0;
        reissue_->lost(k, [&](std::uint64_t id) { take_back(id, {}); }); // its bytes were kept
        workers_[k].cancelling = workers_[k].receiving = false;
        if (departures_.gone(k)) workers_.departed(k); // no share, never idle again
        distribute();
        return true;
    }

    void on_message(std::size_t k, kind what, message_view m) {
        if (what == kind::info && estimates_) {
            if (k < workers_.size() && !stopping_) {
                moved_ += estimates_->revised(k, wire_reader(m.payload).get<farm_revision>(), port_.now());
                distribute();
            }
            return;
        }
        if (what == kind::leave) return left(k, m);
        if (what != kind::moved)
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) + " in a task farm");
        wire_reader r(m.payload);
        auto const to = r.get<std::uint64_t>();
        auto const n = r.get<std::uint64_t>();
        if (to == dropped_tasks && reissue_) // the answer to a cancel
            port_.statistics()[k].iterations -= static_cast<index_t>(reissue_->dropped(k, n, r));
        else if (to == dropped_tasks)
            port_.statistics()[k].iterations -= static_cast<index_t>(workers_.dropped(k, n, r, book_));
        else if (to == lent_to_group)
            redistribution_.lent(k, n, r, book_);
        else
            moved_ += redistribution_.answered(k, static_cast<std::size_t>(to), n, r, m.source, book_);
        port_.touch(k);
        workers_.may_idle(k);
        distribute();
    }

private:
    /// Task `id`'s result is in, from a worker or from the group it was lent to.
    void count_result(std::uint64_t id) {
        lending_.result_in(id);
        ++results_;
    }
    /// Worker k left the farm (its first leave) or returns tasks that reached
    /// it after it left: their bytes come back and they are queued again, for
    /// the others; k takes no more and is stopped with the others.
    void left(std::size_t k, message_view m) {
        if (!port_.settings().departures)
            throw error("loopsched: protocol: a worker left a task farm without options.departures");
        wire_reader r(m.payload);
        auto n = r.get<std::uint64_t>();
        port_.statistics()[k].iterations -= static_cast<index_t>(n); // counted where they run
        for (; n > 0; --n) {
            auto const head = r.get<farm_task_header>();
            auto const bytes = r.get_raw(static_cast<std::size_t>(head.bytes));
            bool const held = reissue_ ? head.id < book_.size() && reissue_->holds(k, head.id)
                                       : head.id < book_.size() && book_[head.id].owner == static_cast<int>(k);
            if (!held || (book_[head.id].where != state::sent && !reissue_)) // with reissue: a copy of a resolved task
                throw error("loopsched: protocol: task " + std::to_string(head.id) +
                            " given back by a worker that does not hold it");
            workers_.released(k, book_[head.id].heur);
            if (reissue_ && reissue_->released(k, head.id) &&
                (book_[head.id].where != state::sent || reissue_->holders(head.id) > 0))
                continue; // resolved, or a copy runs on elsewhere
            take_back(head.id, bytes);
        }
        if (departures_.left(k, port_.settings().worker_ranks[k])) workers_.departed(k);
        port_.touch(k);
        distribute();
    }

    Deliver deliver_;
    std::size_t results_ = 0;
    double started_ = 0.0;
};

} // namespace loopsched::detail
