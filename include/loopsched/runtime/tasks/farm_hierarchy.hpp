// Hierarchical task farms: the root farms tasks out to groups as a flat farm
// does to workers (a group holds a task per worker and as many again ahead),
// and each group's sub-master farms them out among its workers with a scheme
// of its own; results, cancels and the group's report pass through it.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/tasks/farm.hpp>
#include <loopsched/runtime/tasks/farm_producer.hpp>
#include <loopsched/runtime/core/groups.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
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
              member_(static_cast<std::size_t>(link.size()), false) {
        member_[static_cast<std::size_t>(link.rank())] = true;
        for (int r : members) member_[static_cast<std::size_t>(r)] = true;
    }

    void attach(group_farm_master<T>& master) noexcept { master_ = &master; }
    /// With producers in groups: this group's producer makes its tasks, and
    /// their results, [seconds][result], go to `sink`, not to the root.
    void produce_here(std::function<void(std::uint64_t, std::span<std::byte const>)> sink) {
        local_ = std::move(sink);
    }
    /// With producers in groups, work moves between groups: once this group's
    /// producer returned and its queue ran dry, it asks another group's
    /// sub-master (`sub_masters`: every group's, `group`: this one's place),
    /// chosen at random among those that have not refused, for queued tasks.
    void lend_between_groups(std::vector<int> sub_masters, std::size_t group) {
        sub_masters.erase(sub_masters.begin() + static_cast<std::ptrdiff_t>(group));
        others_ = std::move(sub_masters);
        refused_.assign(others_.size(), false);
        untried_ = others_.size();
        random_.seed(static_cast<std::uint32_t>(this->link_.rank()) * 7919u + 17u);
    }

    /// Another group's messages come to the relay, not to the group's master:
    /// tasks it moved here (Kazouris's redistribution between groups, or an
    /// answer to this group's request), its request for work, a lent task's result.
    [[nodiscard]] bool claims(message_view m) const noexcept {
        auto const k = kind_of(m.tag);
        return (k == kind::work || k == kind::steal || k == kind::reply) && !member_[static_cast<std::size_t>(m.source)];
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
            if (auto const at = master_->borrowed_at(id)) return give_back(lenders_[*at], block);
            return local_(master_->producer_id(id), block);
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
        send_returns();
        maybe_borrow();
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
        case kind::work: return local_ ? take_lent(m) : take_tasks(m);
        case kind::steal: return lend_to(m);
        case kind::reply: { // results of tasks this group lent: [n] then n x [id][bytes][block]
            wire_reader r(m.payload);
            for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
                auto const id = r.get<std::uint64_t>();
                auto const size = r.get<std::uint64_t>();
                master_->lent_result(id, r.get_raw(static_cast<std::size_t>(size)));
            }
            return;
        }
        default: this->unexpected(m);
        }
    }

    /// Asks another group for work once this one's producer returned or waits
    /// for its results (a work cycle's end), its queue is empty, some worker
    /// holds nothing and some task still runs here (else the group is done,
    /// or its cycle is). Its power goes with the request.
    void maybe_borrow() {
        // A refusal holds for the cycle it came in: the others' queues have changed by the next one.
        bool const waits = master_->producer_waits();
        if (waited_ && !waits) {
            refused_.assign(others_.size(), false);
            untried_ = others_.size();
        }
        waited_ = waits;
        if (master_->borrowing() || untried_ == 0 || (master_->producing() && !waits) ||
            master_->queued() > 0 || !master_->starving() ||
            (waits ? master_->own_resolved() : master_->all_resolved()))
            return;
        std::uniform_int_distribution<std::size_t> pick(0, untried_ - 1);
        std::size_t nth = pick(random_), v = 0;
        for (;; ++v)
            if (!refused_[v] && nth-- == 0) break;
        // At a cycle's end the producer's next tasks follow soon: a task for each idle worker, no more.
        wire_writer w;
        w.put(status_.power).put(static_cast<std::uint64_t>(waits ? master_->idle_workers() : 0));
        this->link_.send(others_[v], kind::steal, w.view());
        asked_ = others_[v];
        master_->set_borrowing(true);
    }
    /// A request from another group: its share by power of the tasks queued
    /// here (at least one; at most the number it asks for, if it does), the
    /// best first; none when the queue is empty.
    void lend_to(message_view m) {
        wire_reader r(m.payload);
        double const thief = r.get<double>();
        auto const most = static_cast<std::size_t>(r.get<std::uint64_t>());
        std::size_t const queued = master_->queued();
        std::size_t count = 0;
        if (queued > 0 && thief > 0.0)
            count = std::max<std::size_t>(
                    1, static_cast<std::size_t>(static_cast<double>(queued) * thief / (thief + status_.power)));
        if (most > 0) count = std::min(count, most);
        if (count == 0 && thief > 0.0 && master_->lend_from_workers(m.source, thief, most)) return; // a worker answers
        wire_writer tasks;
        std::size_t const n = master_->lend(count, [&](std::uint64_t id, farm_book::task const& t) {
            write_task(tasks, farm_task_header{id, t.heur, t.priority, -static_cast<double>(id), t.payload.size()},
                       t.payload);
        });
        wire_writer w;
        w.put(static_cast<std::uint64_t>(n)).put_raw(tasks.view());
        this->link_.send(m.source, kind::work, w.view());
    }
    /// The answer to this group's request, from the sub-master asked or one of
    /// its workers: the tasks become this group's, their results go back to
    /// that sub-master; none: that group has none to lend (it is not asked again).
    void take_lent(message_view m) {
        if (!master_->borrowing()) throw error("loopsched: protocol: tasks lent to a group that did not ask");
        wire_reader r(m.payload);
        auto const n = r.get<std::uint64_t>();
        if (n == 0) {
            auto const v = static_cast<std::size_t>(std::ranges::find(others_, asked_) - others_.begin());
            if (v < refused_.size() && !refused_[v]) {
                refused_[v] = true;
                --untried_;
            }
        }
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const head = r.get<farm_task_header>();
            auto const bytes = r.get_raw(static_cast<std::size_t>(head.bytes));
            std::optional<double> cost;
            if (master_->with_cost()) cost = head.heur;
            lenders_.push_back(lender{asked_, head.id}); // first: its place is known once it is submitted
            master_->submit_borrowed(std::vector<std::byte>(bytes.begin(), bytes.end()), cost, head.priority);
        }
        master_->set_borrowing(false);
    }

    /// A borrowed task's maker.
    struct lender {
        int rank = -1;        ///< the sub-master whose task this is
        std::uint64_t id = 0; ///< its id there
    };
    /// Results of borrowed tasks go back to their group in one message per
    /// turn of the loop (what one look at the transport brought), not one per
    /// task. Holding them longer, until none of that group's tasks was left
    /// here, deadlocked: tasks lent back and forth made two groups each wait
    /// for the other's results.
    struct returns {
        int rank = -1;
        std::size_t held = 0;
        std::vector<std::byte> results; ///< [id][bytes][block] each
    };
    void give_back(lender const& from, std::span<std::byte const> block) {
        auto it = std::ranges::find(returns_, from.rank, &returns::rank);
        if (it == returns_.end()) it = returns_.insert(returns_.end(), returns{from.rank, 0, {}});
        wire_writer entry;
        entry.put(from.id).put(static_cast<std::uint64_t>(block.size())).put_raw(block);
        it->results.insert(it->results.end(), entry.view().begin(), entry.view().end());
        ++it->held;
    }
    void send_returns() {
        for (auto& r : returns_) {
            if (r.held == 0) continue;
            wire_writer w;
            w.put(static_cast<std::uint64_t>(r.held)).put_raw(std::span<std::byte const>(r.results));
            this->link_.send(r.rank, kind::reply, w.view());
            r.results.clear();
            r.held = 0;
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
        master_->give_up(ask, [&](std::uint64_t id, farm_book::task const& t) {
            auto const root_id = root_id_[id];
            write_task(tasks, farm_task_header{root_id, t.heur, t.priority, -static_cast<double>(root_id), t.payload.size()},
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
    std::vector<std::uint64_t> root_id_;  ///< by the group's task id: the root's
    std::vector<std::uint32_t> batch_of_; ///< by the group's task id: the message it came in
    std::vector<batch> batches_;
    std::vector<bool> member_; ///< by rank: in this group (or its sub-master)
    std::function<void(std::uint64_t, std::span<std::byte const>)> local_; ///< set: the group makes its own tasks
    // Producers in groups, work between groups:
    std::vector<lender> lenders_; ///< by place among the borrowed tasks (farm_master::borrowed_at)
    std::vector<returns> returns_; ///< by lending group
    std::vector<int> others_;    ///< the other groups' sub-masters
    std::vector<bool> refused_;  ///< by others_: had nothing to lend
    std::size_t untried_ = 0;    ///< others_ not refused
    int asked_ = -1;             ///< the sub-master asked (the master says whether a request is out)
    bool waited_ = false;        ///< the producer waited at a cycle's end at the last look
    std::minstd_rand random_;
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
            [&](master_port<T>& port) {
                return group_farm_master<T>(port, within, opening, farm_forward<T>{&relay});
            },
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
