// Hierarchical DOALL loops, past one master (seed 000's future work): the root
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
#include <loopsched/runtime/core.hpp>
#include <loopsched/runtime/doall.hpp>
#include <loopsched/runtime/plan.hpp>
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
#include <vector>

namespace loopsched::detail {

/// Who leads whom: each group's ranks, its sub-master first. Decided on the
/// root; the other ranks learn it from their first message.
struct group_layout {
    std::vector<std::vector<int>> members;
};

/// The ranks other than the root in consecutive groups of about `group_size`
/// (the sizes differ by at most one), each of at least `least` ranks where
/// there are that many (a sub-master that does not compute needs a worker).
inline group_layout make_groups(int ranks, int root, std::size_t group_size, std::size_t least = 1) {
    std::vector<int> others;
    for (int r = 0; r < ranks; ++r)
        if (r != root) others.push_back(r);
    group_layout out;
    if (others.empty()) return out;
    std::size_t const groups =
            std::max<std::size_t>(1, std::min((others.size() + group_size - 1) / group_size, others.size() / least));
    std::size_t const base = others.size() / groups, longer = others.size() % groups;
    auto at = others.begin();
    for (std::size_t g = 0; g < groups; ++g) {
        auto const n = static_cast<std::ptrdiff_t>(base + (g < longer ? 1 : 0));
        out.members.emplace_back(at, at + n);
        at += n;
    }
    return out;
}

/// A sub-master that serves one request in `request_seconds` keeps up with
/// chunk_seconds / request_seconds workers at full load; it is given a tenth
/// of that, where a request rarely waits for another (queueing grows as
/// load / (1 - load)). Unknown chunk time: groups of about sqrt(workers),
/// which loads the root and the sub-masters alike.
inline constexpr double sub_master_load = 0.1;

inline std::size_t automatic_group_size(std::size_t workers, double request_seconds, double chunk_seconds) {
    if (workers <= 1) return 1;
    double size = chunk_seconds > 0.0 && request_seconds > 0.0 ? sub_master_load * chunk_seconds / request_seconds
                                                               : std::ceil(std::sqrt(static_cast<double>(workers)));
    size = std::clamp(size, 2.0, static_cast<double>(workers));
    return static_cast<std::size_t>(size);
}

/// The engine's own cost of one request under `within` among `workers`
/// workers, measured here: a chunk sequencer's decisions and a request's and a
/// reply's encoding, over a loop of 64 iterations per worker.
template <ChunkPolicy P>
double measure_request_seconds(P const& within, std::size_t workers) {
    using clock = std::chrono::steady_clock;
    loop_info const info{static_cast<index_t>(64 * workers), workers, {}};
    chunk_sequencer<P> seq(within, info);
    result_blocks none;
    std::size_t served = 0, k = 0;
    auto const begin = clock::now();
    while (served < 4096 && !seq.done()) {
        request const r{k, {}, chunk_timing{1, 1e-3, 1e-3}};
        wire_writer w;
        (void)encode_request(w, r.status, r.last, none);
        if (auto c = seq.next(r)) {
            wire_writer reply;
            reply.put(*c);
        }
        k = (k + 1) % workers;
        ++served;
    }
    double const seconds = std::chrono::duration<double>(clock::now() - begin).count();
    return served > 0 ? seconds / static_cast<double>(served) : 0.0;
}

/// A group's power as the root's policies see it: the sum of its workers' V/Q.
inline worker_status group_status(std::span<worker_status const> workers) {
    double power = 0.0;
    for (auto const& s : workers) power += s.power / s.run_queue;
    return worker_status{std::max(power, least_power), 1.0};
}

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

/// A sub-master's side towards the root, whatever its group runs: the root's
/// stop, table and abort, the results it passes on, and its report once its
/// group is done (its workers' rows, their sums, results and trace).
template <Transport T>
class group_uplink {
public:
    group_uplink(loop_link<T>& link, int root, bool& verdict, bool trace)
            : link_(link), root_(root), verdict_(verdict), trace_on_(trace) {}

    [[nodiscard]] int rank() const noexcept { return root_; } // whose messages handle() takes
    [[nodiscard]] bool root_done() const noexcept { return root_done_; }
    [[nodiscard]] bool finished() const noexcept { return finished_; }
    [[nodiscard]] result_blocks& results() noexcept { return results_; }

    /// The root's messages every group hears; false for the others (its work).
    bool handle_common(message_view m) {
        switch (kind_of(m.tag)) {
        case kind::stop: root_done_ = true; return true;
        case kind::table:
            decode_table(m, table_);
            finished_ = true;
            return true;
        case kind::abort: verdict_ = true; failure::read(m).raise(link_.rank());
        default: return false;
        }
    }
    [[noreturn]] void unexpected(message_view m) const {
        throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                    " from the root at a sub-master");
    }
    /// Work from the root: `units` iterations or tasks in one message.
    void received(index_t units) {
        ++chunks_;
        iterations_ += units;
    }
    /// One of the group's level-1 trace events (what the root gave it, and how long it lasted).
    void record(index_t first, index_t size, double start, double end) {
        if (trace_on_) outer_trace_.push_back({link_.rank(), first, size, start, end, 1});
    }

    /// Once the root said stop and the group is done: the group's workers'
    /// statistics, then this group's report (their sums), results and trace;
    /// `relabel(event)` puts its workers' trace events in the root's numbering.
    template <class Loop, class Master, class Relabel = void (*)(chunk_event&)>
    void report_when_done(Loop& loop, Master& master, Relabel&& relabel = [](chunk_event&) {}) {
        if (reported_ || !root_done_ || !loop.master_finished()) return;
        loop_statistics group = master.collect();
        double const start = master.started();
        wire_writer table;
        table.put(group.workers.size());
        for (auto const& w : group.workers) table.put(w);
        link_.send(root_, kind::group_table, table.view());
        worker_statistics sums{link_.rank(), 0.0, 0.0, 0.0, iterations_, chunks_};
        for (auto const& w : group.workers) {
            sums.compute_seconds += w.compute_seconds;
            sums.wait_seconds += w.wait_seconds;
            sums.comm_seconds += w.comm_seconds;
        }
        for (auto& e : group.trace) { // onto this rank's clock, as the root expects
            e.start += start;
            e.end += start;
            relabel(e);
        }
        group.trace.insert(group.trace.end(), outer_trace_.begin(), outer_trace_.end());
        wire_writer w;
        link_.send(root_, kind::report, encode_report(w, sums, trace_on_ ? link_.now() : 0.0, results_, group.trace));
        results_.clear();
        reported_ = true;
    }
    loop_statistics take_table() { return std::move(table_); }

protected:
    loop_link<T>& link_;
    int root_;

private:
    bool& verdict_;
    bool trace_on_;
    result_blocks results_;
    std::vector<chunk_event> outer_trace_;
    loop_statistics table_;
    index_t chunks_ = 0, iterations_ = 0;
    bool root_done_ = false, finished_ = false, reported_ = false;
};

/// What a sub-master's loop hears from the root, and when it reports
/// (root_loop's Parent), whatever its group runs: the relay decides both.
template <class Relay>
struct relay_parent {
    Relay& relay;
    [[nodiscard]] int rank() const noexcept { return relay.rank(); }
    [[nodiscard]] bool finished() const noexcept { return relay.finished(); }
    void handle(message_view m) { relay.handle(m); }
    template <class Loop>
    void settle(Loop& loop) {
        relay.settle(loop);
    }
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

/// The sub-master's master client: its workers' requests get pieces of the pool.
template <Transport T, ChunkPolicy P>
class group_granting {
public:
    static constexpr master_hooks hooks{.expecting_work = true};

    group_granting(master_port<T>& port, group_relay<T, P>& relay) : port_(port), relay_(relay) {}

    index_t serve(std::size_t k, request const& r) {
        auto& pool = relay_.pool();
        pool.note(k, r.status);
        auto const c = pool.next(
                r, [&](chunk c0) { relay_.started(c0); }, [&](chunk c0) { relay_.finished_handing_out(c0); });
        relay_.ask_ahead();
        if (!c) return 0;
        port_.send_worker(k, kind::work, std::as_bytes(std::span(&*c, 1)));
        return c->size;
    }
    [[nodiscard]] bool done() const noexcept { return relay_.root_done() && relay_.pool().empty(); }
    /// Work is on its way only while the pool waits for the root's next chunk:
    /// a pool that holds work no worker qualifies for is a dead end, as in a flat loop.
    [[nodiscard]] bool expecting_work() const noexcept { return !relay_.root_done() && relay_.pool().empty(); }
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
};

/// The root's master client over groups: `Client` schedules among the groups
/// as among workers; each group's workers' statistics, sent before its report,
/// make the table's worker rows, the groups' own rows its group rows.
template <class Client>
class with_groups {
public:
    static constexpr master_hooks hooks{.results_first = Client::hooks.results_first,
                                        .late_requests = Client::hooks.late_requests,
                                        .pushes_work = Client::hooks.pushes_work,
                                        .holds = Client::hooks.holds,
                                        .expecting_work = Client::hooks.expecting_work,
                                        .complete = true};

    template <class... Args>
    explicit with_groups(std::size_t groups, Args&&... args) : inner_(std::forward<Args>(args)...), leaves_(groups) {}

    [[nodiscard]] Client& inner() noexcept { return inner_; }
    index_t serve(std::size_t k, request const& r) { return inner_.serve(k, r); }
    [[nodiscard]] bool done() const noexcept { return inner_.done(); }
    [[nodiscard]] bool holds(std::size_t k) const noexcept
    requires(Client::hooks.holds)
    {
        return inner_.holds(k);
    }
    [[nodiscard]] bool expecting_work() const noexcept
    requires(Client::hooks.expecting_work)
    {
        return inner_.expecting_work();
    }
    void take_result(index_t first, index_t size, std::span<std::byte const> b) { inner_.take_result(first, size, b); }
    void on_message(std::size_t k, kind what, message_view m) {
        if (what != kind::group_table) return inner_.on_message(k, what, m);
        wire_reader r(m.payload);
        auto& rows = leaves_[k];
        for (auto n = r.get<std::size_t>(); n > 0; --n) rows.push_back(r.get<worker_statistics>());
    }
    /// The table: every group's workers, in rank order, and one row per group.
    void complete(loop_statistics& table) {
        table.groups = std::move(table.workers);
        table.workers.clear();
        for (auto& rows : leaves_) table.workers.insert(table.workers.end(), rows.begin(), rows.end());
        std::ranges::sort(table.workers, {}, &worker_statistics::rank);
    }

private:
    Client inner_;
    std::vector<std::vector<worker_statistics>> leaves_;
};

/// The root's view of its groups: the settings with one "worker" per group
/// (its sub-master's rank), their opening statuses and summed powers, and
/// each group's worker count.
struct group_opening {
    runtime_settings settings;
    status_by_rank opening;
    std::vector<worker_status> powers;
    std::vector<std::size_t> sizes;
    [[nodiscard]] std::size_t smallest() const { return sizes.empty() ? 1 : std::ranges::min(sizes); }
};

/// Decides the groups and tells each sub-master its workers and their statuses.
template <Transport T>
group_opening open_groups(loop_link<T>& link, runtime_settings const& base, std::size_t group_size,
                          bool sub_masters_compute, std::span<worker_status const> agreed) {
    int const ranks = link.size();
    group_layout const layout =
            make_groups(ranks, link.rank(), std::max<std::size_t>(group_size, 1), sub_masters_compute ? 1 : 2);
    group_opening out{base, status_by_rank(static_cast<std::size_t>(ranks)), {}, {}};
    out.settings.worker_ranks.clear();
    out.settings.index_of_rank.assign(static_cast<std::size_t>(ranks), -1);
    out.settings.own_index = -1;
    for (auto const& members : layout.members) {
        // The group's workers: its sub-master too when it computes.
        std::span<int const> workers(members);
        if (!sub_masters_compute && workers.size() > 1) workers = workers.subspan(1); // a group of one computes
        std::vector<worker_status> statuses;
        for (int r : workers) statuses.push_back(agreed[static_cast<std::size_t>(r)]);
        wire_writer w;
        w.put(workers.size());
        for (std::size_t i = 0; i < workers.size(); ++i) w.put(workers[i]).put(statuses[i]);
        link.send(members.front(), kind::group, w.view());
        out.settings.index_of_rank[static_cast<std::size_t>(members.front())] =
                static_cast<int>(out.settings.worker_ranks.size());
        out.settings.worker_ranks.push_back(members.front());
        out.powers.push_back(group_status(statuses));
        out.sizes.push_back(workers.size());
        out.opening[static_cast<std::size_t>(members.front())] = out.powers.back();
    }
    return out;
}

/// A sub-master's settings from its group message: it is the master of its
/// workers (itself among them when it computes), whose statuses it lists.
struct group_membership {
    runtime_settings settings;
    status_by_rank opening;
    std::vector<worker_status> statuses;
    int root = 0; ///< the hierarchy's root, its own master
};

inline group_membership join_group(int self, int ranks, runtime_settings const& base, message_view group) {
    group_membership out{base, status_by_rank(static_cast<std::size_t>(ranks)), {}, base.root};
    auto& settings = out.settings;
    settings.root = self;
    settings.worker_ranks.clear();
    settings.index_of_rank.assign(static_cast<std::size_t>(ranks), -1);
    settings.own_index = -1;
    wire_reader r(group.payload);
    for (auto n = r.get<std::size_t>(); n > 0; --n) {
        int const rank = r.get<int>();
        auto const s = r.get<worker_status>();
        if (rank == self) settings.own_index = static_cast<int>(settings.worker_ranks.size());
        settings.index_of_rank[static_cast<std::size_t>(rank)] = static_cast<int>(settings.worker_ranks.size());
        settings.worker_ranks.push_back(rank);
        out.opening[static_cast<std::size_t>(rank)] = s;
        out.statuses.push_back(s);
    }
    return out;
}

/// The group size to use: the given one, or one from the measured cost of a
/// request under `within` and the expected time of a chunk (or task).
template <ChunkPolicy W>
std::size_t group_size_for(std::size_t given, std::size_t others, W const& within, double message_seconds,
                           double expected_seconds) {
    if (given != 0) return given;
    return automatic_group_size(
            others, measure_request_seconds(within, std::min<std::size_t>(others, 256)) + 2.0 * message_seconds,
            expected_seconds);
}

/// The root of a hierarchical loop: decides the groups, tells each sub-master
/// its own, and grants chunks among them. It does not compute.
template <Transport T, ChunkPolicy B, ChunkPolicy W, class Body>
loop_statistics run_hierarchy_root(loop_link<T>& link, hierarchical<B, W> const& h, rank_plan const& plan,
                                   std::span<worker_status const> agreed, index_t iterations, Body& body) {
    return as_root(link, [&](bool& aborted) {
        std::size_t const others = static_cast<std::size_t>(link.size() - 1);
        group_opening groups = open_groups(
                link, plan.settings,
                group_size_for(h.group_size, others, h.within, h.message_seconds, h.expected_chunk_seconds),
                h.sub_masters_compute, agreed);
        // A group's chunk keeps each of its workers busy: at least one iteration
        // each (FSS's last chunks among groups would be single iterations,
        // leaving all but one worker of the group waiting for the root).
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

/// Runs a hierarchical DOALL loop on this rank: the checks and the agreement
/// as for any loop, then the root, a sub-master, or a worker, whose master is
/// whoever sends its first grant.
template <channel_source C, IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body, class R>
loop_statistics run_hierarchical_doall(C& source, S const& space, hierarchical<B, W> const& h, Body& body,
                                       std::size_t per_iteration, std::vector<R>* values,
                                       parallel_for_options const& o) {
    auto& ch = channel_of(source);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    if (ch.size() == 1) { // a lone rank works alone, as in a flat loop
        check_root_serves(o);
        return detail::run_doall<C, S, W, dynamic_mapping, Body, R>(source, space, h.within, dynamic_mapping{}, body,
                                                                    per_iteration, values, o);
    }
    loop_link<T> link(ch);
    int const ranks = link.size(), self = link.rank();
    using value_type = std::conditional_t<std::is_void_v<R>, std::byte, R>;
    std::span<value_type> root_values;
    index_t n = 0;
    auto opened = open_loop(link, [&] {
        require(!o.deterministic, "options.deterministic", o.deterministic,
                "must be false in a hierarchical loop (a group's pool fills as the root answers)");
        check_hierarchy(h);
        check_root_serves(o);
        auto [plan, result_bytes] = plan_doall<S, R>(space, per_iteration, o, ranks, self);
        n = plan.info.iterations;
        (void)h.between.start(loop_info{n, 1, {}}); // each policy's own checks, on every rank before any message
        (void)h.within.start(loop_info{n, 1, {}});
        std::uint64_t const levels =
                hierarchy_fingerprint(h, policy_fingerprint(h.between), policy_fingerprint(h.within));
        loop_shape const shape = shape_of(o, {.algorithm = algorithm_id::parallel_for,
                                              .extent = n,
                                              .space = space_fingerprint(space),
                                              .dimension = o.dimension,
                                              .result_bytes = result_bytes,
                                              .policy = levels,
                                              .mapping = mapping_name(dynamic_mapping{}),
                                              .request_ahead = o.request_ahead,
                                              .extra = options_fingerprint(o)});
        if (self == o.root) root_values = detail::root_buffer(values, n, per_iteration);
        return std::pair{std::move(plan), shape};
    });
    auto& plan = opened.plan;
    doall_body<S, Body, R> run(space, o.dimension, body, per_iteration, root_values);
    if (self == o.root) return run_hierarchy_root(link, h, plan, opened.statuses(), n, run);
    return as_worker(link, o.root, [&](bool& verdict) -> loop_statistics {
        message_view const first = link.receive();
        switch (kind_of(first.tag)) {
        case kind::abort: verdict = true; failure::read(first).raise(self);
        case kind::group: return run_sub_master(link, first, plan, h.within, run, verdict);
        default: break;
        }
        // A worker of a group: its master is whoever granted its first piece.
        plan.settings.root = first.source;
        using client = doall_worker<T, decltype(run)>;
        worker_port<T> port(link, plan.settings, nullptr);
        client working(port, plan.profile, run);
        worker_core<T, client> core(port, working, verdict);
        core.handle(first);
        return run_worker(link, core);
    });
}

} // namespace loopsched::detail
