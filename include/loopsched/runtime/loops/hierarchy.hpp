// Hierarchical DOALL loops, past one master (Kazouris's future work): the root
// grants chunks to groups, each group's sub-master schedules its chunks among
// its workers as loops of their own, a policy per level. A sub-master is a
// master of the protocol core to its group and a worker of the root's: it asks
// for its group's next chunk before the pool runs dry and passes its workers'
// results, statistics and trace on to the root.
#pragma once

#include <loopsched/adaptor/widened.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/groups.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/runtime/loops/doall.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <deque>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace loopsched::detail {
/// A sub-master's pool: the root's chunk its group works through, scheduled by
/// the inner policy as a loop of its own, and the chunks asked for ahead.
template <ChunkPolicy P>
class group_pool {
public:
    group_pool(P const& policy, std::vector<worker_status> statuses)
            : policy_(policy), statuses_(std::move(statuses)) {}

    void add(chunk c) {
        queued_.push_back(c);
        unassigned_ += c.size;
    }
    [[nodiscard]] bool empty() const noexcept { return !current_ && queued_.empty(); }
    /// Iterations not handed out yet, in the current chunk and the reserve.
    [[nodiscard]] index_t unassigned() const noexcept { return unassigned_; }
    [[nodiscard]] std::size_t workers() const noexcept { return statuses_.size(); }
    [[nodiscard]] bool has_reserve() const noexcept { return !queued_.empty(); }
    /// The latest status of group worker k (its requests carry it).
    void note(std::size_t k, worker_status s) { statuses_[k] = s; }
    [[nodiscard]] std::span<worker_status const> statuses() const noexcept { return statuses_; }

    /// The next piece for worker r.worker, in the loop's numbering; nullopt if
    /// the policy leaves it out or the pool is empty. `started(chunk)` and
    /// `finished(chunk)` hear when a root chunk begins and is all handed out.
    template <class Started, class Finished>
    std::optional<chunk> next(request const& r, Started&& started, Finished&& finished) {
        while (true) {
            if (!current_) {
                if (queued_.empty()) return std::nullopt;
                current_ = queued_.front();
                queued_.pop_front();
                seq_.emplace(policy_, loop_info{current_->size, statuses_.size(), statuses_});
                started(*current_);
            }
            if (auto c = seq_->next(r)) {
                chunk const piece{current_->first + c->first, c->size};
                unassigned_ -= c->size;
                if (seq_->done()) {
                    finished(*current_);
                    current_.reset();
                }
                return piece;
            }
            if (!seq_->done()) return std::nullopt; // left out for now
            finished(*current_);
            current_.reset();
        }
    }

private:
    P const& policy_;
    std::vector<worker_status> statuses_;
    std::optional<chunk> current_;
    std::deque<chunk> queued_;
    std::optional<chunk_sequencer<P>> seq_;
    index_t unassigned_ = 0;
};

/// A DOALL sub-master's side towards the root: the pool it fills by asking ahead.
template <Transport T, ChunkPolicy P>
class group_relay : public group_uplink<T> {
public:
    group_relay(loop_link<T>& link, int root, P const& within, std::vector<worker_status> statuses, bool& verdict,
                bool trace)
            : group_uplink<T>(link, root, verdict, trace), pool_(within, std::move(statuses)) {}

    [[nodiscard]] group_pool<P>& pool() noexcept { return pool_; }
    /// Between messages: reports once the root said stop and the group is done.
    template <class Loop>
    void settle(Loop& loop) {
        this->report_when_done(loop, loop.master());
    }

    /// The root's messages: a chunk for the group, the end, the table, or the abort.
    void handle(message_view m) {
        if (this->handle_common(m)) return;
        if (kind_of(m.tag) != kind::work) this->unexpected(m);
        chunk const c = wire_reader(m.payload).get<chunk>();
        pool_.add(c);
        asked_ = false;
        this->received(c.size);
    }

    /// Asks the root for the group's next chunk once what is left to hand out
    /// is about one iteration per worker (the group's next round of requests),
    /// so that its workers do not wait for the root; asking earlier would hold
    /// a chunk here that an idle group could have run at the loop's end.
    void ask_ahead() {
        if (this->root_done() || asked_ || pool_.has_reserve() ||
            pool_.unassigned() > static_cast<index_t>(pool_.workers()))
            return;
        wire_writer w;
        this->link_.send(this->root_, kind::request,
                         encode_request(w, group_status(pool_.statuses()), last_, this->results()));
        this->results().clear();
        asked_ = true;
    }
    void started(chunk) { started_at_ = this->link_.now(); }
    void finished_handing_out(chunk c) {
        double const now = this->link_.now();
        last_ = chunk_timing{c.size, now - started_at_, now - started_at_};
        this->record(c.first, c.size, started_at_, now);
    }

private:
    group_pool<P> pool_;
    chunk_timing last_{};
    double started_at_ = 0.0;
    bool asked_ = true; // the root serves the group's first request (its hello) at the opening
};

/// The sub-master's master client: its workers' requests get pieces of the
/// pool. With reissue it keeps the piece each worker holds (a request means
/// it is finished: reissue runs without request-ahead); a failed worker's
/// piece goes whole to the next worker of the group to ask, and the group is
/// done only when every piece is.
template <Transport T, ChunkPolicy P>
class group_granting {
public:
    static constexpr master_hooks hooks{.expecting_work = true, .lost = true};

    group_granting(master_port<T>& port, group_relay<T, P>& relay) : port_(port), relay_(relay) {
        if (port.settings().reissue) held_.resize(port.settings().workers());
        live_ = port.settings().workers();
    }

    index_t serve(std::size_t k, request const& r) {
        auto& pool = relay_.pool();
        pool.note(k, r.status);
        std::optional<chunk> c;
        if (!held_.empty()) {
            held_[k].reset(); // finished
            if (!orphans_.empty()) {
                c = orphans_.back();
                orphans_.pop_back();
            }
        }
        if (!c)
            c = pool.next(
                    r, [&](chunk c0) { relay_.started(c0); }, [&](chunk c0) { relay_.finished_handing_out(c0); });
        relay_.ask_ahead();
        if (!c) return 0;
        if (!held_.empty()) held_[k] = *c;
        port_.send_worker(k, kind::work, std::as_bytes(std::span(&*c, 1)));
        return c->size;
    }
    [[nodiscard]] bool done() const noexcept {
        return relay_.root_done() && relay_.pool().empty() &&
               (held_.empty() || (orphans_.empty() && std::ranges::none_of(held_, [](auto const& c) { return c.has_value(); })));
    }
    /// Work is on its way only while the pool waits for the root's next chunk:
    /// a pool that holds work no worker qualifies for is a dead end, as in a flat loop.
    [[nodiscard]] bool expecting_work() const noexcept { return !relay_.root_done() && relay_.pool().empty(); }
    /// Worker k failed. With reissue its piece waits for the next to ask; the
    /// group goes on while it has a worker. Without, the group goes on only if
    /// k held nothing and no results were to come with its report. Otherwise
    /// the failure goes to the root, which ends the loop with rank_lost on
    /// every rank (a sub-master never ends the loop itself).
    bool lost(std::size_t k, bool held_work) {
        --live_;
        bool const fails = held_.empty() ? held_work || port_.settings().request_ahead != 0.0 : live_ == 0;
        if (fails) throw rank_lost(port_.settings().worker_ranks[k]);
        if (!held_.empty() && held_[k]) orphans_.push_back(*std::exchange(held_[k], std::nullopt));
        return true;
    }
    /// Results pass through to the root (with the group's next request, or its report).
    void take_result(index_t first, index_t size, std::span<std::byte const> bytes) {
        auto room = relay_.results().add(first, size, bytes.size());
        std::ranges::copy(bytes, room.begin());
    }
    void on_message(std::size_t, kind, message_view m) {
        throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) + " at a sub-master");
    }

private:
    master_port<T>& port_;
    group_relay<T, P>& relay_;
    std::vector<std::optional<chunk>> held_; ///< with reissue: each worker's piece, until it asks again
    std::vector<chunk> orphans_;             ///< failed workers' pieces, for the next to ask
    std::size_t live_ = 0;                   ///< workers not lost
};

/// The root of a hierarchical loop: decides the groups, tells each sub-master
/// its own, and grants chunks among them. It does not compute.
template <Transport T, ChunkPolicy B, ChunkPolicy W, class Body>
loop_statistics run_hierarchy_root(loop_link<T>& link, hierarchical<B, W> const& h, rank_plan const& plan,
                                   std::span<worker_status const> agreed, index_t iterations, Body& body) {
    link.on_losses(loss_rule::deliver); // a sub-master's failure ends the loop; a group's worker is its sub-master's
    return as_root(link, [&](bool& aborted) {
        std::size_t const others = static_cast<std::size_t>(link.size() - 1);
        group_opening groups =
                open_groups(link, plan.settings,
                            group_size_for(h.group_size, others, h.within, h.message_seconds, h.expected_chunk_seconds),
                            h.sub_masters_compute, agreed);
        // A group's chunk keeps each of its workers busy: at least one iteration
        // each (FSS's last chunks among groups would be single iterations,
        // leaving all but one worker of the group waiting for the root).
        groups.settings.reissue = false; // a failed worker's piece is re-issued within its group
        widened<B> const between{h.between, static_cast<index_t>(groups.smallest())};
        using granting_type = with_groups<doall_master<T, widened<B>, dynamic_mapping, Body>>;
        bool no_verdict = false; // it has no worker of its own
        master_node<T, granting_type, doall_worker<T, Body>> node(
                link, groups.settings, aborted, no_verdict,
                [&](master_port<T>& port) {
                    return granting_type(groups.powers.size(), port, between, dynamic_mapping{},
                                         loop_info{iterations, groups.powers.size(), groups.powers}, body);
                },
                no_own_worker{});
        return node.run(std::span<worker_status const>(groups.opening.data(), groups.opening.size()));
    });
}

/// A sub-master: the group master for its workers (and its own worker when it
/// computes), and the root's worker for its group.
template <Transport T, ChunkPolicy W, class Body>
loop_statistics run_sub_master(loop_link<T>& link, message_view group, rank_plan& plan, W const& within, Body& body,
                               bool& verdict) {
    group_membership joined = join_group(link.rank(), link.size(), plan.settings, group);
    auto const& settings = joined.settings;
    bool aborted = false; // the group master never aborts: failures go to the root
    link.on_losses(loss_rule::deliver); // its workers' failures are its own affair, the root's ends its part
    group_relay<T, W> relay(link, joined.root, within, std::move(joined.statuses), verdict, settings.trace);
    master_node<T, group_granting<T, W>, doall_worker<T, Body>> node(
            link, settings, aborted, verdict, [&](master_port<T>& port) { return group_granting<T, W>(port, relay); },
            [&](worker_port<T>& port) { return doall_worker<T, Body>(port, plan.profile, body); });
    relay_parent<group_relay<T, W>> up{relay};
    auto loop = node.loop(&up);
    loop.open(std::span<worker_status const>(joined.opening.data(), joined.opening.size()));
    loop.run();
    return relay.take_table();
}

/// A hierarchical loop on this rank after the agreement: the root, a
/// sub-master, or a worker; compiled once per transport and pair of policies.
template <Transport T, ChunkPolicy B, ChunkPolicy W>
loop_statistics run_hierarchy_engine(loop_link<T>& link, hierarchical<B, W> const& h, loop_opening& opened,
                                     index_t n, chunk_body& run, parallel_for_options const& o) {
    int const self = link.rank();
    auto& plan = opened.plan;
    if (self == o.root) return run_hierarchy_root(link, h, plan, opened.statuses(), n, run);
    link.on_losses(loss_rule::answers_to, o.root); // until it knows its master: another rank's failure is not its affair
    return as_worker(link, o.root, [&](bool& verdict) -> loop_statistics {
        message_view const first = link.receive();
        switch (kind_of(first.tag)) {
        case kind::abort: verdict = true; failure::read(first).raise(self);
        case kind::group: return run_sub_master(link, first, plan, h.within, run, verdict);
        default: break;
        }
        // A worker of a group: its master is whoever granted its first piece.
        plan.settings.root = first.source;
        link.on_losses(loss_rule::answers_to, first.source);
        using client = doall_worker<T, chunk_body>;
        worker_port<T> port(link, plan.settings, nullptr);
        client working(port, plan.profile, run);
        worker_core<T, client> core(port, working, verdict);
        core.handle(first);
        return run_worker(link, core);
    });
}

/// Runs a hierarchical DOALL loop on this rank: the checks and the agreement
/// as for any loop, then the root, a sub-master, or a worker, whose master is
/// whoever sends its first grant.
template <Transport T, ChunkPolicy B, ChunkPolicy W>
doall_run run_hierarchical_checked(loop_link<T>& link, doall_call const& call, hierarchical<B, W> const& h,
                                         chunk_body& run, parallel_for_options const& o) {
    if (link.size() == 1) { // a lone rank works alone, as in a flat loop
        check_root_serves(o);
        return run_doall_checked(link, call, h.within, dynamic_mapping{}, run, o);
    }
    index_t n = 0;
    auto opened = open_loop(link, [&] {
        require(!o.deterministic, "options.deterministic", o.deterministic,
                "must be false in a hierarchical loop (a group's pool fills as the root answers)");
        require(!o.departures, "options.departures", o.departures,
                "is for flat loops (a hierarchy's groups do not take work back)");
        require(!o.masterless, "options.masterless", o.masterless,
                "is for flat loops (a loop without a master needs no sub-masters to relieve it)");
        require(std::isinf(o.presumed_lost_after), "options.presumed_lost_after",
                o.presumed_lost_after, "must be infinity in a hierarchical loop (its failure detector is for flat loops)");
        check_hierarchy(h);
        auto no_partner_splits = [](auto const& level) {
            require(!splits_with_partners(level), "policy", spec_of(level),
                    "is TreeS, whose partner splits are for flat loops (a hierarchy's groups do not split)");
        };
        no_partner_splits(h.between);
        no_partner_splits(h.within);
        check_root_serves(o);
        rank_plan plan = plan_doall(call, o, link.size(), link.rank());
        n = plan.info.iterations;
        (void)h.between.start(loop_info{n, 1, {}}); // each policy's own checks, on every rank before any message
        (void)h.within.start(loop_info{n, 1, {}});
        std::uint64_t const levels =
                hierarchy_fingerprint(h, policy_fingerprint(h.between), policy_fingerprint(h.within));
        loop_shape const shape = shape_of(o, {.algorithm = algorithm_id::parallel_for,
                                              .extent = n,
                                              .space = call.space,
                                              .dimension = o.dimension,
                                              .result_bytes = call.result_bytes,
                                              .policy = levels,
                                              .mapping = mapping_name(dynamic_mapping{}),
                                              .request_ahead = o.request_ahead,
                                              .extra = options_fingerprint(o)});
        return std::pair{std::move(plan), shape};
    });
    return {{}, run_hierarchy_engine(link, h, opened, n, run, o), {}};
}

} // namespace loopsched::detail
