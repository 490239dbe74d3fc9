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
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_copies.hpp>
#include <loopsched/runtime/tasks/farm_estimates.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>
#include <loopsched/runtime/tasks/farm_worker.hpp>
#include <loopsched/runtime/tasks/farm_workers.hpp>
#include <loopsched/runtime/core/profile.hpp>
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

// ---------------------------------------------------------------- master

/// The farm's master client. `Deliver(id, block)` takes a result on the root:
/// the seconds the task computed (a double), then the result's bytes.
template <Transport T, class Deliver>
class farm_master {
    using state = farm_book::state;

public:
    // pushes_work: every idle worker is looked at by distribute()
    static constexpr master_hooks hooks{.results_first = true,
                                        .pushes_work = true,
                                        .holds = true,
                                        .expecting_work = true,
                                        .complete = true,
                                        .lost = true};

    farm_master(master_port<T>& port, farm_settings const& fs, std::span<worker_status const> statuses,
                Deliver deliver)
            : port_(port), fs_(fs), model_(fs.model_window, fs.replies_before_model), deliver_(std::move(deliver)),
              workers_(port.settings(), statuses, fs.load_aware, fs.capacity),
              redistribution_(port, fs, model_, workers_), view_(*this) {
        if (auto const* estimates = fs.placement.estimates())
            estimates_.emplace(*estimates, workers_.speeds());
        else
            start_placement();
        if (fs.reissue) {
            copies_.emplace(workers_.size());
            book_.keep_payloads();
        }
    }

    // Its parts hold references to each other (the workers, the model): it stays where it was made.
    farm_master(farm_master const&) = delete;
    farm_master& operator=(farm_master const&) = delete;

    // ---- what the producer does (through the task_farm handle)

    /// Producers in groups: a task another group lent this one. It takes an
    /// id here, but not among the ids this group's producer sees.
    std::uint64_t submit_borrowed(std::vector<std::byte> payload, std::optional<double> cost, double priority) {
        auto const id = submit(std::move(payload), cost, priority);
        borrowed_.push_back(id);
        ++borrowed_open_;
        return id;
    }
    /// Every task this group's producer made has its result (or was
    /// cancelled): its wait_all ends without waiting for borrowed tasks.
    [[nodiscard]] bool own_resolved() const noexcept { return book_.unresolved() == borrowed_open_; }
    /// Task `id`'s id as this group's producer knows it (creation order from
    /// 0 among its own tasks): less the borrowed tasks before it, which a
    /// group waiting at a work cycle's end takes between its own.
    [[nodiscard]] std::uint64_t producer_id(std::uint64_t id) const {
        return id - static_cast<std::uint64_t>(std::ranges::lower_bound(borrowed_, id) - borrowed_.begin());
    }
    /// Where task `id` is among the borrowed ones (submit_borrowed's order), if it is one.
    [[nodiscard]] std::optional<std::size_t> borrowed_at(std::uint64_t id) const {
        auto const it = std::ranges::lower_bound(borrowed_, id);
        if (it == borrowed_.end() || *it != id) return std::nullopt;
        return static_cast<std::size_t>(it - borrowed_.begin());
    }
    [[nodiscard]] bool borrowed(std::uint64_t id) const { return borrowed_at(id).has_value(); }
    /// A new task: its bytes, its heuristic inputs, its priority. Returns its id.
    std::uint64_t submit(std::vector<std::byte> payload, std::optional<double> cost, double priority) {
        auto const id = static_cast<std::uint64_t>(book_.size());
        if (stopping_) return book_.add_cancelled(priority);
        if (double const change = book_.add_measured(std::move(payload), cost, priority);
            change != 0.0 && book_[0].where == state::sent)
            workers_.revalued(static_cast<std::size_t>(book_[0].owner), change);
        if (estimates_) {
            place(id);
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

    /// Every task submitted so far has its result, or was cancelled.
    [[nodiscard]] bool all_resolved() const noexcept { return book_.all_resolved(); }
    [[nodiscard]] bool stopping() const noexcept { return stopping_; }
    /// Tasks waiting at this master for a worker.
    [[nodiscard]] std::size_t queued() const noexcept { return book_.queued(); }
    /// A group's master asked by its root to move work to another group:
    /// queued tasks, the best first, while their estimates fit in the
    /// transfer's amount, each to `send(id, task)` and then resolved here.
    /// Returns how many went.
    template <class Send>
    std::size_t give_up(farm_transfer const& ask, Send&& send) {
        double sum = 0.0;
        auto const fits = [&](farm_book::task const& t) {
            sum += ask.estimate(t.heur);
            return sum <= ask.amount;
        };
        return send_queued(std::numeric_limits<std::size_t>::max(), fits, send,
                           [&](std::uint64_t id) { book_.moved_away(id); });
    }
    /// Producers in groups: lends up to `count` queued tasks, the best first,
    /// to another group's sub-master, each to `send(id, task)`. Each stays
    /// this group's task until its result comes back (lent_result). Returns
    /// how many went.
    template <class Send>
    std::size_t lend(std::size_t count, Send&& send) {
        return send_queued(count, [](farm_book::task const&) { return true; }, send,
                           [&](std::uint64_t id) { book_.lend(id); });
    }
    /// Kazouris within the group: has the busy worker estimated to finish last
    /// send another group's sub-master its share of its tasks (a worker
    /// answers that group); false if none holds more than its running task.
    bool lend_from_workers(int to_rank, double power, std::size_t most) {
        return moves_work_ && redistribution_.lend(to_rank, power, most);
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
    /// While this group waits for another group's answer to its request for
    /// work, it is not done and its idle workers wait (they are not stopped).
    void set_borrowing(bool on) noexcept { borrowing_ = on; }
    [[nodiscard]] bool borrowing() const noexcept { return borrowing_; }
    [[nodiscard]] bool producing() const noexcept { return producing_; }
    /// The producer waits for every result (wait_all): no task comes before they are in.
    [[nodiscard]] bool producer_waits() const noexcept { return producing_ && flushing_; }
    /// Whether tasks carry the user's cost estimate (the first one did).
    [[nodiscard]] bool with_cost() const noexcept { return book_.with_cost(); }
    /// Tasks no worker runs yet: queued here, or held by a worker behind the
    /// one it runs (a placement such as Kazouris's sends its tasks on at once).
    [[nodiscard]] std::size_t waiting() const noexcept {
        std::size_t const held = workers_.held_count(), running = workers_.size();
        return book_.queued() + (held > running ? held - running : 0);
    }
    /// Some worker holds no task.
    [[nodiscard]] bool starving() const noexcept { return workers_.empty() > 0; }
    /// How many workers hold no task.
    [[nodiscard]] std::size_t idle_workers() const noexcept { return workers_.empty(); }
    [[nodiscard]] std::size_t workers() const noexcept { return workers_.size(); }
    [[nodiscard]] std::vector<std::uint64_t> const& cancelled() const noexcept { return book_.cancelled(); }
    [[nodiscard]] farm_cost_model const& model() const noexcept { return model_; }
    /// Tasks moved from a busy worker to an idle one (redistribution).
    [[nodiscard]] std::size_t moved() const noexcept { return moved_; }

    /// Every task not started is cancelled, as when a target is reached (a
    /// sub-master's, when its root cancels).
    void cancel_all() {
        if (!stopping_) stop();
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
        return !producing_ && all_resolved() && !redistribution_.under_way() && !borrowing_;
    }
    [[nodiscard]] bool holds(std::size_t k) const noexcept { return workers_.holds(k); }
    /// While the producer runs, workers all idle is a wait for its next task;
    /// not while it waits for results that no worker holds.
    [[nodiscard]] bool expecting_work() const noexcept {
        // Also while another group runs tasks lent to it, or may lend some here.
        return (producing_ && (!flushing_ || all_resolved())) || borrowing_ || book_.lent_out() > 0;
    }

    /// The producer waits for every result (wait_all): a policy's chunk goes
    /// with the tasks that exist rather than wait for more.
    void set_flushing(bool on) {
        flushing_ = on;
        if (on) distribute();
        else groups_told_ = false; // the next cycle's end is told again
    }

    /// A group's master: its root waits for every result (its producer
    /// returned, or waits at a cycle's end), so no task comes before the
    /// group's own finish and work may move within it. New tasks from the
    /// root end that (`on` false).
    void set_root_waits(bool on) {
        root_waits_ = on;
        if (on) distribute();
    }

    /// A result: [seconds the task computed][the result's bytes].
    void take_result(index_t first, index_t size, std::span<std::byte const> b) {
        auto const id = static_cast<std::uint64_t>(first);
        // With reissue a task may be held by several workers: the sender's copy ends here,
        // and a result for a task resolved already (by another copy) is dropped.
        bool const second = copies_ && id < book_.size() && book_[id].where != state::sent && size == 1 &&
                            copies_->holds(port_.result_sender(), id);
        if (size != 1 || id >= book_.size() || (book_[id].where != state::sent && !second) || b.size() < sizeof(double))
            throw error("loopsched: protocol: a result for task " + std::to_string(id) + " that is not running");
        double seconds;
        std::memcpy(&seconds, b.data(), sizeof seconds);
        auto& t = book_[id];
        auto const k = copies_ ? port_.result_sender() : static_cast<std::size_t>(t.owner);
        workers_.released(k, t.heur);
        workers_[k].refused = false;
        workers_.may_idle(k);
        if (copies_ && !copies_->released(k, id))
            throw error("loopsched: protocol: a result for task " + std::to_string(id) + " from a worker without it");
        if (second) {
            copies_->dropped_one();
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
    void complete(loop_statistics& table) const {
        table.departed = left_ranks_;
        std::ranges::sort(table.departed);
        if (!copies_) return;
        table.reissued = copies_->reissued();
        table.dropped = copies_->dropped();
    }

    /// Worker k was presumed lost: with reissue the tasks it held go back to
    /// the queue unless another worker holds a copy; without, the farm goes on
    /// only if it held none.
    bool lost(std::size_t k, bool held_work) {
        if (!copies_) return !held_work && workers_[k].count == 0;
        for (auto const id : copies_->release_all(k)) {
            workers_.released(k, book_[id].heur);
            if (book_[id].where != state::sent || copies_->holders(id) > 0) continue;
            port_.statistics()[k].iterations -= 1; // counted where it runs
            take_back(id, {});                      // its bytes were kept
        }
        workers_[k].cancelling = workers_[k].receiving = false;
        if (!workers_[k].departed) workers_.departed(k); // no share, never idle again
        distribute();
        return true;
    }

    void on_message(std::size_t k, kind what, message_view m) {
        if (what == kind::info && estimates_) return revised(k, wire_reader(m.payload).get<farm_revision>());
        if (what == kind::leave) return left(k, m);
        if (what != kind::moved)
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) + " in a task farm");
        wire_reader r(m.payload);
        auto const to = r.get<std::uint64_t>();
        auto const n = r.get<std::uint64_t>();
        if (to == dropped_tasks && copies_) // the answer to a cancel
            port_.statistics()[k].iterations -= static_cast<index_t>(dropped_copies(k, n, r));
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
        if (borrowed_open_ > 0 && borrowed(id)) --borrowed_open_;
        ++results_;
    }
    /// Orders a worker's tasks as the model's estimates do (a linear model: by heur, up or down).
    [[nodiscard]] double ordering(double heur) const noexcept { return model_.lambda() >= 0.0 ? heur : -heur; }
    std::uint64_t take_best() { return book_.take_best(book_.ordered_by_heur() && model_.lambda() < 0.0); }
    /// Up to `most` queued tasks, the best first, while `fits(task)`, each to
    /// `send(id, task)` and then `mark(id)`: how give_up and lend move work
    /// out of the group. Returns how many went.
    template <class Fits, class Send, class Mark>
    std::size_t send_queued(std::size_t most, Fits&& fits, Send&& send, Mark&& mark) {
        std::size_t n = 0;
        for (; n < most && !book_.queue_empty(); ++n) {
            auto const id = take_best();
            if (!fits(book_[id])) {
                book_.enqueue(id);
                break;
            }
            send(id, book_[id]);
            mark(id);
        }
        return n;
    }

    /// A task no worker holds any more (its holder left or was lost) is queued
    /// again with its bytes, or cancelled once the farm stops.
    void take_back(std::uint64_t id, std::span<std::byte const> bytes) {
        if (stopping_) { // nothing more is started
            book_.cancel(id);
            return;
        }
        book_.returned(id, bytes);
        book_.enqueue(id);
    }

    /// With reissue, a cancel's answer: the tasks k dropped, released; a task
    /// no one else holds is cancelled (the farm stopped), else a copy runs on.
    std::size_t dropped_copies(std::size_t k, std::uint64_t n, wire_reader& r) {
        workers_[k].cancelling = false;
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const id = r.get<std::uint64_t>();
            if (!copies_->released(k, id)) continue;
            workers_.released(k, book_[id].heur);
            if (book_[id].where == state::sent && copies_->holders(id) == 0) book_.cancel(id);
        }
        return static_cast<std::size_t>(n);
    }

    /// Reissue: once the producer has returned and the queue is empty, each
    /// worker holding nothing (not the root's) gets a copy of a running task;
    /// once every task is resolved, workers still holding copies drop those
    /// they have not started.
    void reissue() {
        if (producing_ || !book_.queue_empty()) return;
        if (book_.all_resolved()) {
            for (std::size_t k = 0; k < workers_.size(); ++k)
                if (workers_[k].count > 0 && !workers_[k].cancelling) {
                    workers_[k].cancelling = true;
                    port_.send_worker(k, kind::cancel, {});
                    port_.touch(k);
                }
            return;
        }
        auto const running = [this](std::uint64_t id) { return book_[id].where == state::sent; };
        for (std::size_t k = 0; k < workers_.size(); ++k) {
            auto const& w = workers_[k];
            if (w.count > 0 || w.cancelling || w.receiving || w.departed || port_.is_own(k)) continue;
            auto const id = copies_->copy_for(k, book_.size(), running);
            if (!id) return; // every running task is held by all who could take it
            send_tasks(k, std::span(&*id, 1), true);
        }
    }

    /// Sends tasks `ids` to worker k in one message (`copies`: reissue's, of tasks running elsewhere).
    void send_tasks(std::size_t k, std::span<std::uint64_t const> ids, bool copies = false) {
        wire_writer w;
        w.put(static_cast<std::uint64_t>(ids.size()));
        for (auto const id : ids) {
            auto& t = book_[id];
            double key = largest_first_ && model_.ready() ? ordering(t.heur) : -static_cast<double>(id);
            if (estimates_) { // largest estimate first
                key = estimate(id);
                estimates_->sent(k, id, workers_[k].count == 0, port_.now());
            }
            write_task(w, farm_task_header{id, t.heur, t.priority, key, t.payload.size()}, t.payload);
            if (!copies) book_.sent(id, k);
            workers_.took(k, t.heur);
            if (copies_) copies_->took(k, id);
        }
        port_.push_worker(k, kind::work, std::move(w));
        port_.count(k, static_cast<index_t>(ids.size()));
    }

    [[nodiscard]] bool idle(std::size_t k) const noexcept {
        return workers_.idle(k, idle_below_);
    }

    /// Gives idle workers work: from the master's queue, else by redistribution.
    void distribute() {
        if (stopping_ || distributing_) return;
        if (estimates_) return feed_all();
        distributing_ = true;
        if (largest_first_ && model_.ready()) book_.order_by_heur();
        // The fastest idle first; none once nothing is left to give. Work moves once no task can come
        // before the busy ones finish: the producer returned, or it waits for every result (a work
        // cycle's end). Reissue's copies replace moves.
        // In a group, the root's word decides: its tasks keep coming until it says it waits.
        bool redistributing = moves_work_ && (fs_.batches ? root_waits_ : !producing_ || flushing_) && !copies_;
        workers_.serve_idle([&] { return !book_.queue_empty() || redistributing; },
                            [&](std::size_t k) {
                                while (idle(k)) {
                                    if (!book_.queue_empty()) {
                                        if (!give_from_queue(k)) break;
                                    } else {
                                        // A group asks for work only once it would starve (a worker by d).
                                        if (redistributing &&
                                            (!workers_.groups() || workers_[k].count < workers_.stands_for(k)))
                                            redistributing = redistribution_.ask(k);
                                        break;
                                    }
                                }
                                return idle(k);
                            });
        if (copies_) reissue();
        if (workers_.groups() && !groups_told_ && (!producing_ || flushing_) && book_.queue_empty()) tell_groups();
        distributing_ = false;
    }

    /// The root over groups: nothing is left to give before results return,
    /// so each group may move work among its workers (kind::drain).
    void tell_groups() {
        groups_told_ = true;
        for (std::size_t k = 0; k < workers_.size(); ++k) port_.send_worker(k, kind::drain, {});
    }

    /// Idle worker k's grant from the queue (the placement's word), the best
    /// tasks first; false if nothing is granted now (a policy's chunk not yet created).
    bool give_from_queue(std::size_t k) {
        boost::container::small_vector<std::uint64_t, 16> ids; // no allocation for one task, the usual chunk
        farm_grant const g = placement_->grant(view_, k);
        bool const sized = g.work < std::numeric_limits<double>::infinity();
        double sum = 0.0;
        while (ids.size() < g.tasks && !book_.queue_empty() && (ids.empty() || sum < g.work)) {
            ids.push_back(take_best());
            if (sized) sum += model_.estimate(book_[ids.back()].heur);
        }
        if (ids.empty()) return false;
        send_tasks(k, std::span<std::uint64_t const>(ids.data(), ids.size()));
        return true;
    }

    /// The placement's state, asked as workers become idle (what it says
    /// once, at the start, is kept).
    void start_placement() {
        farm_info info;
        info.workers = workers_.size();
        for (auto const& w : workers_) info.status.push_back(w.status);
        info.units = fs_.expected_tasks;
        info.initial_tasks = fs_.initial_tasks;
        info.idle_below = fs_.idle_below;
        info.replies_before_model = fs_.replies_before_model;
        // A group's producer submits as it goes: a chunk policy takes the queue in batches, as a fed group's does.
        info.batches = fs_.batches || fs_.producers_in_groups;
        placement_ = fs_.placement.farm_decisions(info);
        if (!placement_) throw error("loopsched: task farm: placement '" + fs_.placement.spec() + "' is no farm's");
        idle_below_ = placement_->idle_below();
        moves_work_ = placement_->moves_work();
        largest_first_ = placement_->largest_first();
    }

    /// The farm as its placement's state sees it.
    class view final : public farm_view {
    public:
        explicit view(farm_master& m) noexcept : m_(m) {}
        [[nodiscard]] std::size_t workers() const override { return m_.workers_.size(); }
        [[nodiscard]] worker_status status(std::size_t k) const override { return m_.workers_[k].status; }
        [[nodiscard]] double share(std::size_t k) const override { return m_.workers_[k].share; }
        [[nodiscard]] std::size_t held(std::size_t k) const override { return m_.workers_[k].count; }
        [[nodiscard]] std::size_t limit(std::size_t k, std::size_t per_worker) const override {
            return m_.workers_.limit(k, per_worker);
        }
        [[nodiscard]] std::size_t queued() const override { return m_.book_.queued(); }
        [[nodiscard]] std::size_t held_total() const override { return m_.workers_.held_count(); }
        [[nodiscard]] bool modelled() const override { return m_.model_.ready(); }
        [[nodiscard]] double work_left() const override {
            return m_.redistribution_.estimated_total(m_.book_.queued_heur(), m_.book_.queued());
        }
        [[nodiscard]] bool more_coming() const override { return m_.producing_ && !m_.flushing_; }
        [[nodiscard]] std::optional<std::size_t> next_below(std::size_t per_worker) override {
            return m_.workers_.next_starter(per_worker);
        }

    private:
        farm_master& m_;
    };

    // ---- the estimates scheme (Karamcheti and Wah), its state in farm_estimates

    /// A task's estimate rho in speed-1 seconds: the fitted model's (on the
    /// user's cost, else the size or creation order) once ready; before it,
    /// the user's cost as it is, else 1.
    [[nodiscard]] double estimate(std::uint64_t id) const {
        if (model_.ready()) return model_.estimate(book_[id].heur);
        return book_.with_cost() ? book_[id].heur : 1.0;
    }
    [[nodiscard]] auto rho() const {
        return [this](std::uint64_t id) { return estimate(id); };
    }
    /// A move of a task still at the master.
    void relisted(task_move const& m) {
        book_[m.id].owner = static_cast<int>(m.to);
        ++moved_;
    }
    void place(std::uint64_t id) {
        std::size_t const k = estimates_->place(id, rho(), port_.now());
        book_[id].owner = static_cast<int>(k);
        feed(k);
    }
    /// Worker k gets its largest placed tasks until it holds estimates_ahead.
    void feed(std::size_t k) {
        std::optional<std::uint64_t> id;
        while (workers_[k].count < workers_.limit(k, estimates_ahead) && (id = estimates_->take_next(k, rho())))
            send_tasks(k, std::span(&*id, 1));
    }
    /// Worker k's running task revised its estimate (rule 3): the tasks
    /// placed on k and still here are placed again, and moved for nothing.
    void revised(std::size_t k, farm_revision const& r) {
        if (k >= workers_.size() || stopping_) return;
        double const remaining = model_.ready() ? model_.estimate(r.remaining) : r.remaining;
        for (auto const& m : estimates_->revised(k, r.id, remaining, rho(), port_.now())) relisted(m);
        distribute();
    }
    /// Every worker fed; an idle one may pull (rule 4).
    void feed_all() {
        for (std::size_t k = 0; k < workers_.size(); ++k) {
            feed(k);
            if (workers_[k].count > 0) continue;
            if (auto const m = estimates_->pull(k, rho(), port_.now())) {
                relisted(*m);
                feed(k);
            }
        }
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
            bool const held = copies_ ? head.id < book_.size() && copies_->holds(k, head.id)
                                      : head.id < book_.size() && book_[head.id].owner == static_cast<int>(k);
            if (!held || (book_[head.id].where != state::sent && !copies_)) // with reissue: a copy of a resolved task
                throw error("loopsched: protocol: task " + std::to_string(head.id) + " given back by a worker that does not hold it");
            workers_.released(k, book_[head.id].heur);
            if (copies_ && copies_->released(k, head.id) &&
                (book_[head.id].where != state::sent || copies_->holders(head.id) > 0))
                continue; // resolved, or a copy runs on elsewhere
            take_back(head.id, bytes);
        }
        if (!workers_[k].departed) {
            workers_.departed(k);
            left_ranks_.push_back(port_.settings().worker_ranks[k]);
        }
        port_.touch(k);
        distribute();
    }

    /// The target or the time limit was reached: tasks not started are cancelled.
    void stop() {
        stopping_ = true;
        if (estimates_) // placed but not sent: cancelled here
            for (auto const id : estimates_->take_placed()) book_.cancel(id);
        book_.cancel_queue();
        for (std::size_t k = 0; k < workers_.size(); ++k)
            if (workers_[k].count > 0 || workers_[k].receiving) {
                workers_[k].cancelling = true;
                port_.send_worker(k, kind::cancel, {});
                port_.touch(k);
            }
    }

    master_port<T>& port_;
    farm_settings const& fs_;
    farm_cost_model model_;
    Deliver deliver_;
    farm_book book_;
    farm_workers workers_;
    farm_redistribution<T> redistribution_;
    view view_;
    std::unique_ptr<farm_decisions> placement_; ///< its state, unless it places by estimates (estimates_)
    std::size_t idle_below_ = 1;                ///< the placement's: a worker holding fewer is idle
    bool moves_work_ = false, largest_first_ = false;
    std::optional<farm_estimates> estimates_;
    std::optional<farm_copies> copies_; ///< with reissue
    std::size_t results_ = 0, moved_ = 0;
    std::vector<int> left_ranks_;
    std::vector<std::uint64_t> borrowed_; ///< ids of tasks other groups lent, increasing
    std::size_t borrowed_open_ = 0;       ///< of those, without their result yet
    bool producing_ = true, stopping_ = false, distributing_ = false, flushing_ = false, borrowing_ = false;
    bool groups_told_ = false; ///< the root over groups: this cycle's end was told (kind::drain)
    bool root_waits_ = false;  ///< a group's master: its root said it waits (kind::drain)
    double started_ = 0.0;
};

} // namespace loopsched::detail
