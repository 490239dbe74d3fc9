// The task farm's dispatch at its master: the parts that hold its state (the
// book of tasks, the workers' table, the cost model, the placement's state,
// redistribution, estimates, reissue, departures, the groups' lending) and
// how work goes out to idle workers. farm_master (farm.hpp) adds the producer
// and the protocol core's client on top.
#pragma once

#include <loopsched/detail/small_vector.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/departures.hpp>
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_estimate_feed.hpp>
#include <loopsched/runtime/tasks/farm_lending.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>
#include <loopsched/runtime/tasks/farm_placement_state.hpp>
#include <loopsched/runtime/tasks/farm_reissue.hpp>
#include <loopsched/runtime/tasks/farm_worker.hpp>
#include <loopsched/runtime/tasks/farm_workers.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace loopsched::detail {

/// The farm master's parts and its distribution of work: whatever the
/// producer and the protocol core ask, the master answers from these.
template <Transport T>
class farm_dispatch {
public:
    farm_dispatch(master_port<T>& port, farm_settings const& fs, std::span<worker_status const> statuses)
            : port_(port), fs_(fs), model_(fs.model_window, fs.replies_before_model),
              workers_(port.settings(), statuses, fs.load_aware, fs.capacity),
              redistribution_(port, fs, model_, workers_), lending_(book_, model_), departures_(workers_.size()),
              view_(book_, workers_, model_, redistribution_, producing_, flushing_) {
        if (auto const* estimates = fs.placement.estimates())
            estimates_.emplace(*estimates, book_, workers_, model_);
        else
            placement_.emplace(fs, workers_);
        if (fs.reissue) reissue_.emplace(port, book_, workers_);
    }

    // Its parts hold references to each other (the workers, the model): it stays where it was made.
    farm_dispatch(farm_dispatch const&) = delete;
    farm_dispatch& operator=(farm_dispatch const&) = delete;

    /// Every task submitted so far has its result, or was cancelled.
    [[nodiscard]] bool all_resolved() const noexcept { return book_.all_resolved(); }
    [[nodiscard]] bool stopping() const noexcept { return stopping_; }
    /// Tasks waiting at this master for a worker.
    [[nodiscard]] std::size_t queued() const noexcept { return book_.queued(); }
    /// Work moving between groups: what other groups lent this one, what it gives up or lends.
    [[nodiscard]] farm_lending& lending() noexcept { return lending_; }
    [[nodiscard]] farm_lending const& lending() const noexcept { return lending_; }
    /// Kazouris within the group: has the busy worker estimated to finish last
    /// send another group's sub-master its share of its tasks (a worker
    /// answers that group); false if none holds more than its running task.
    bool lend_from_workers(int to_rank, double power, std::size_t most) {
        return placement_ && placement_->moves_work() && redistribution_.lend(to_rank, power, most);
    }
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
    /// The producer waits for every result (wait_all): a policy's chunk goes
    /// with the tasks that exist rather than wait for more.
    void set_flushing(bool on) {
        flushing_ = on;
        if (on)
            distribute();
        else
            groups_told_ = false; // the next cycle's end is told again
    }

    /// A group's master: its root waits for every result (its producer
    /// returned, or waits at a cycle's end), so no task comes before the
    /// group's own finish and work may move within it. New tasks from the
    /// root end that (`on` false).
    void set_root_waits(bool on) {
        root_waits_ = on;
        if (on) distribute();
    }

    [[nodiscard]] bool holds(std::size_t k) const noexcept { return workers_.holds(k); }

protected:
    using state = farm_book::state;

    /// Orders a worker's tasks as the model's estimates do (a linear model: by heur, up or down).
    [[nodiscard]] double ordering(double heur) const noexcept { return model_.lambda() >= 0.0 ? heur : -heur; }

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

    /// Sends tasks `ids` to worker k in one message (`copies`: reissue's, of tasks running elsewhere).
    void send_tasks(std::size_t k, std::span<std::uint64_t const> ids, bool copies = false) {
        wire_writer w;
        w.put(static_cast<std::uint64_t>(ids.size()));
        for (auto const id : ids) {
            auto& t = book_[id];
            double key = placement_ && placement_->largest_first() && model_.ready() ? ordering(t.heur)
                                                                                     : -static_cast<double>(id);
            if (estimates_) key = estimates_->sending(k, id, port_.now()); // largest estimate first
            write_task(w, farm_task_header{id, t.heur, t.priority, key, t.payload.size()}, t.payload);
            if (!copies) book_.sent(id, k);
            workers_.took(k, t.heur);
            if (reissue_) reissue_->took(k, id);
        }
        port_.push_worker(k, kind::work, std::move(w));
        port_.count(k, static_cast<index_t>(ids.size()));
    }
    /// One task at a time, as the estimates part sends.
    [[nodiscard]] auto send_one() {
        return [this](std::size_t k, std::uint64_t id) { send_tasks(k, std::span(&id, 1)); };
    }

    /// Gives idle workers work: from the master's queue, else by redistribution.
    void distribute() {
        if (stopping_ || distributing_) return;
        if (estimates_) {
            moved_ += estimates_->feed_all(port_.now(), send_one());
            return;
        }
        distributing_ = true;
        if (placement_->largest_first() && model_.ready()) book_.order_by_heur();
        // The fastest idle first; none once nothing is left to give. Work moves once no task can come
        // before the busy ones finish: the producer returned, or it waits for every result (a work
        // cycle's end). Reissue's copies replace moves.
        // In a group, the root's word decides: its tasks keep coming until it says it waits.
        bool redistributing =
                placement_->moves_work() && (fs_.batches ? root_waits_ : !producing_ || flushing_) && !reissue_;
        auto const idle = [&](std::size_t k) { return workers_.idle(k, placement_->idle_below()); };
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
        if (reissue_)
            reissue_->copy_out(producing_,
                               [&](std::size_t k, std::uint64_t id) { send_tasks(k, std::span(&id, 1), true); });
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
            ids.push_back(book_.take_best(book_.ordered_by_heur() && model_.lambda() < 0.0));
            if (sized) sum += model_.estimate(book_[ids.back()].heur);
        }
        if (ids.empty()) return false;
        send_tasks(k, std::span<std::uint64_t const>(ids.data(), ids.size()));
        return true;
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
    farm_book book_;
    farm_workers workers_;
    farm_redistribution<T> redistribution_;
    farm_lending lending_;
    departure_book departures_;
    farm_master_view<T> view_;
    std::optional<farm_placement_state> placement_; ///< unless it places by estimates (estimates_)
    std::optional<farm_estimate_feed> estimates_;
    std::optional<farm_reissue<T>> reissue_;
    std::size_t moved_ = 0;
    bool producing_ = true, stopping_ = false, distributing_ = false, flushing_ = false;
    bool groups_told_ = false; ///< the root over groups: this cycle's end was told (kind::drain)
    bool root_waits_ = false;  ///< a group's master: its root said it waits (kind::drain)
};

} // namespace loopsched::detail
