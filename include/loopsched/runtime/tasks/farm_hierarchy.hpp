// Hierarchical task farms: the root farms tasks out to groups as a flat farm
// does to workers (a group holds a task per worker and as many again ahead),
// and each group's sub-master farms them out among its workers with a scheme
// of its own; results, cancels and the group's report pass through it.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/groups.hpp>
#include <loopsched/runtime/tasks/farm.hpp>
#include <loopsched/runtime/tasks/farm_group_exchange.hpp>
#include <loopsched/runtime/tasks/farm_producer.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace loopsched::detail {

template <Transport T>
class farm_relay;

/// The group's farm master hands its results to the relay (its Deliver).
template <Transport T>
struct farm_forward {
    farm_relay<T>* relay;
    void operator()(std::uint64_t id, std::span<std::byte const> block) const;
};

template <Transport T>
using group_farm_master = farm_master<T, farm_forward<T>>;

/// A sub-master's farm side towards the root: the root's tasks become tasks of
/// the group's own farm, their results go back under the root's ids, in one
/// request for all that arrived together, and a cancel is answered once the
/// group's workers have answered theirs.
template <Transport T>
class farm_relay : public group_uplink<T> {
public:
    /// `members`: the group's ranks (a message from any other rank but the
    /// root is another group's transfer).
    farm_relay(loop_link<T>& link, int root, std::vector<worker_status> const& statuses, bool& verdict, bool trace,
               std::span<int const> members)
            : group_uplink<T>(link, root, verdict, trace), status_(group_status(statuses)),
              exchange_(link, status_.power), member_(static_cast<std::size_t>(link.size()), false) {
        member_[static_cast<std::size_t>(link.rank())] = true;
        for (int r : members) member_[static_cast<std::size_t>(r)] = true;
    }

    void attach(group_farm_master<T>& master) noexcept {
        master_ = &master;
        exchange_.attach(master);
    }
    /// With producers in groups: this group's producer makes its tasks, and
    /// their results, [seconds][result], go to `sink`, not to the root.
    void produce_here(std::function<void(std::uint64_t, std::span<std::byte const>)> sink) { local_ = std::move(sink); }

    /// With producers in groups, work moves between groups (farm_group_exchange):
    /// `sub_masters`: every group's, `group`: this one's place.
    void lend_between_groups(std::vector<int> sub_masters, std::size_t group) {
        exchange_.start(std::move(sub_masters), group);
    }

    /// Another group's messages come to the relay, not to the group's master:
    /// tasks it moved here (Kazouris's redistribution between groups, or an
    /// answer to this group's request), its request for work, a lent task's result.
    [[nodiscard]] bool claims(message_view m) const noexcept {
        auto const k = kind_of(m.tag);
        return (k == kind::work || k == kind::steal || k == kind::reply) &&
               !member_[static_cast<std::size_t>(m.source)];
    }

    /// The root's messages: tasks, its word that it waits for every result
    /// (work may then move within the group), a cancel, a transfer (queued
    /// tasks to another group), the end, the table, or the abort; and tasks
    /// from another group.
    void handle(message_view m) {
        if (m.source != this->root_) return from_group(m);
        if (this->handle_common(m)) {
            if (this->root_done() && !production_over_ && !local_) { // no task will come from the root
                production_over_ = true;
                master_->finish_production();
            }
            return;
        }
        switch (kind_of(m.tag)) {
        case kind::work:
            master_->set_root_waits(false); // the root produces again
            take_tasks(m);
            break;
        case kind::drain: master_->set_root_waits(true); break;
        case kind::cancel:
            master_->cancel_all();
            cancelling_ = true;
            break;
        case kind::transfer: give_up(wire_reader(m.payload).get<farm_transfer>()); break;
        default: this->unexpected(m);
        }
    }

    /// A result of the group's task `id`: kept for the root under its own id;
    /// with producers in groups, for this group's producer, or sent back to
    /// the group that lent the task.
    void deliver(std::uint64_t id, std::span<std::byte const> block) {
        if (local_) {
            if (exchange_.returned(id, block)) return; // to the group that lent it
            return local_(master_->lending().producer_id(id), block);
        }
        auto room = this->results().add(static_cast<index_t>(root_id_[id]), 1, block.size());
        std::ranges::copy(block, room.begin());
        resolved(id);
    }

    /// Between messages: takes in everything that has arrived, then passes the
    /// results on in one request once they are due, answers a cancel once
    /// the group has, and reports once the root said stop and the group is done.
    template <class Loop>
    void settle(Loop& loop) {
        loop.poll();
        exchange_.send_returns();
        exchange_.maybe_borrow();
        if (results_due()) {
            wire_writer w;
            this->link_.send(this->root_, kind::request, encode_request(w, status_, chunk_timing{}, this->results()));
            this->results().clear();
        }
        if (cancelling_ && master_->all_resolved()) answer_cancel();
        this->report_when_done(loop, loop.master(), [&](chunk_event& e) {
            if (e.level == 0 && !local_) e.first = static_cast<index_t>(root_id_[static_cast<std::size_t>(e.first)]);
        });
    }

private:
    struct batch {
        std::uint64_t first = 0;
        std::size_t size = 0, left = 0;
        double start = 0.0;
    };

    /// Another group's message: tasks (moved by the root's transfer, or lent
    /// to this group: none is a refusal), a request for work, or the result of
    /// a task this group lent.
    void from_group(message_view m) {
        switch (kind_of(m.tag)) {
        case kind::work: return local_ ? exchange_.take_lent(m) : take_tasks(m);
        case kind::steal: return exchange_.lend_to(m);
        case kind::reply: return exchange_.lent_results(m);
        default: this->unexpected(m);
        }
    }

    void take_tasks(message_view m) {
        wire_reader r(m.payload);
        auto const n = r.get<std::uint64_t>();
        batches_.push_back(batch{0, static_cast<std::size_t>(n), static_cast<std::size_t>(n), this->link_.now()});
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const head = r.get<farm_task_header>();
            auto const bytes = r.get_raw(static_cast<std::size_t>(head.bytes));
            if (i == 0) batches_.back().first = head.id;
            root_id_.push_back(head.id);
            batch_of_.push_back(static_cast<std::uint32_t>(batches_.size() - 1));
            // The root's measure of the task (its cost, size or creation order) is the group's.
            (void)master_->submit(std::vector<std::byte>(bytes.begin(), bytes.end()), head.heur, head.priority);
        }
        this->received(static_cast<index_t>(n));
    }

    /// Results go on once they are as many as the tasks no worker runs yet
    /// (the workers live on those meanwhile, and the root refills the places
    /// in one message, not one per task), or, while some worker holds
    /// nothing, once a thirty-second of the group's workers' results are in.
    [[nodiscard]] bool results_due() {
        std::size_t const n = this->results().count();
        return n > 0 && (n >= master_->waiting() || (master_->starving() && n * 32 >= master_->workers()));
    }

    /// The root's transfer: queued tasks, under the root's ids, to the idle
    /// group's sub-master, and their ids to the root (none: refused).
    void give_up(farm_transfer const& ask) {
        wire_writer tasks, told;
        std::vector<std::uint64_t> moved;
        master_->lending().give_up(ask, [&](std::uint64_t id, farm_book::task const& t) {
            auto const root_id = root_id_[id];
            write_task(tasks,
                       farm_task_header{root_id, t.heur, t.priority, -static_cast<double>(root_id), t.payload.size()},
                       t.payload);
            moved.push_back(id);
        });
        told.put(ask.to_index).put(static_cast<std::uint64_t>(moved.size()));
        if (!moved.empty()) {
            wire_writer w;
            w.put(static_cast<std::uint64_t>(moved.size())).put_raw(tasks.view());
            this->link_.send(static_cast<int>(ask.to_rank), kind::work, w.view());
        }
        for (auto const id : moved) {
            told.put(root_id_[id]);
            resolved(id);
        }
        this->passed_on(static_cast<index_t>(moved.size()));
        this->link_.send(this->root_, kind::moved, told.view());
    }

    /// A task of the group resolved: its batch's trace event ends with its last.
    void resolved(std::uint64_t id) {
        auto& b = batches_[batch_of_[id]];
        if (--b.left == 0)
            this->record(static_cast<index_t>(b.first), static_cast<index_t>(b.size), b.start, this->link_.now());
    }

    /// The tasks the group dropped, under the root's ids.
    void answer_cancel() {
        auto const& dropped = master_->cancelled();
        wire_writer w;
        w.put(dropped_tasks).put(static_cast<std::uint64_t>(dropped.size() - cancels_told_));
        for (std::size_t i = cancels_told_; i < dropped.size(); ++i) {
            w.put(root_id_[dropped[i]]);
            resolved(dropped[i]);
        }
        cancels_told_ = dropped.size();
        this->link_.send(this->root_, kind::moved, w.view());
        cancelling_ = false;
    }

    group_farm_master<T>* master_ = nullptr;
    worker_status status_;
    farm_group_exchange<T, group_farm_master<T>> exchange_;
    std::vector<std::uint64_t> root_id_;  ///< by the group's task id: the root's
    std::vector<std::uint32_t> batch_of_; ///< by the group's task id: the message it came in
    std::vector<batch> batches_;
    std::vector<bool> member_; ///< by rank: in this group (or its sub-master)
    std::function<void(std::uint64_t, std::span<std::byte const>)> local_; ///< set: the group makes its own tasks
    std::size_t cancels_told_ = 0;
    bool cancelling_ = false, production_over_ = false;
};

template <Transport T>
void farm_forward<T>::operator()(std::uint64_t id, std::span<std::byte const> block) const {
    relay->deliver(id, block);
}

/// What a group whose producer runs on its sub-master needs: the producer,
/// and where its results go ([seconds][result]).
struct group_production {
    farm_calls const* calls = nullptr;
    std::function<void(std::uint64_t, std::span<std::byte const>)> results;
    bool between_groups = true; ///< groups lend queued tasks to each other (task_farm_options::lend_between_groups)
};

/// A farm's sub-master: tells its workers who their master is, then runs its
/// group's farm (and its own worker when it computes) until the root's table.
/// `within` is the group's scheme; `make_worker(worker_port&)` the farm worker;
/// with `production`, the group's tasks are made here by its producer.
template <Transport T, class MakeWorker>
loop_statistics run_farm_sub_master(loop_link<T>& link, message_view group, rank_plan& plan, farm_settings within,
                                    MakeWorker&& make_worker, bool& verdict, group_production production = {}) {
    group_membership joined = join_group(link.rank(), link.size(), plan.settings, group);
    auto const& settings = joined.settings;
    for (int r : settings.worker_ranks)
        if (r != link.rank()) link.send(r, kind::group, std::span<std::byte const>()); // your master is this rank
    bool aborted = false; // the group master never aborts: failures go to the root
    farm_relay<T> relay(link, joined.root, joined.statuses, verdict, settings.trace,
                        std::span<int const>(settings.worker_ranks.data(), settings.worker_ranks.size()));
    std::span<worker_status const> const opening(joined.opening.data(), joined.opening.size());
    using worker_client = decltype(make_worker(std::declval<worker_port<T>&>()));
    master_node<T, group_farm_master<T>, worker_client> node(
            link, settings, aborted, verdict,
            [&](master_port<T>& port) { return group_farm_master<T>(port, within, opening, farm_forward<T>{&relay}); },
            make_worker);
    auto& farm = node.client();
    relay.attach(farm);
    relay_parent<farm_relay<T>> up{relay};
    auto loop = node.loop(&up);
    if (production.calls) { // a farm of its own, with its producer here, as a root's
        relay.produce_here(std::move(production.results));
        if (production.between_groups && joined.sub_masters.size() > 1)
            relay.lend_between_groups(joined.sub_masters, joined.place.group);
        loop.open(opening);
        produce_and_run(loop, farm, production.calls, link.rank(), {joined.place, false});
    } else {
        farm.set_flushing(true); // a chunk goes with the tasks at hand: the root sends more as results return
        loop.open(opening);
        loop.run();
    }
    return relay.take_table();
}

/// A worker of a farm's group: waits for its sub-master's word (a peer's
/// transfer may come first: it is kept until then), then works as in a flat farm.
template <Transport T, class MakeWorker>
loop_statistics run_farm_group_worker(loop_link<T>& link, message_view first, rank_plan& plan, MakeWorker&& make_worker,
                                      bool& verdict) {
    std::vector<message> early;
    while (kind_of(first.tag) != kind::group) {
        if (kind_of(first.tag) == kind::abort) {
            verdict = true;
            failure::read(first).raise(link.rank());
        }
        early.push_back(message{first.source, first.tag, {first.payload.begin(), first.payload.end()}});
        first = link.receive();
    }
    plan.settings.root = first.source;
    using worker_client = decltype(make_worker(std::declval<worker_port<T>&>()));
    worker_port<T> port(link, plan.settings, nullptr);
    worker_client working = make_worker(port);
    worker_core<T, worker_client> core(port, working, verdict);
    for (auto const& m : early) core.handle(m);
    return run_worker(link, core);
}

} // namespace loopsched::detail
