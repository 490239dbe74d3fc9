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

/// A sub-master's side towards the root: the pool it fills by asking ahead,
/// the results it passes on, and its report once its group is done.
template <Transport T, ChunkPolicy P>
class group_relay {
public:
    group_relay(loop_link<T>& link, int root, P const& within, std::vector<worker_status> statuses, bool& verdict,
                bool trace)
            : link_(link), root_(root), pool_(within, std::move(statuses)), verdict_(verdict), trace_on_(trace) {}

    [[nodiscard]] int rank() const noexcept { return root_; } // whose messages handle() takes
    [[nodiscard]] group_pool<P>& pool() noexcept { return pool_; }
    [[nodiscard]] bool root_done() const noexcept { return root_done_; }
    [[nodiscard]] bool finished() const noexcept { return finished_; }
    [[nodiscard]] result_blocks& results() noexcept { return results_; }

    /// The root's messages: a chunk for the group, the end, the table, or the abort.
    void handle(message_view m) {
        switch (kind_of(m.tag)) {
        case kind::work: {
            chunk const c = wire_reader(m.payload).get<chunk>();
            pool_.add(c);
            asked_ = false;
            ++chunks_;
            iterations_ += c.size;
            break;
        }
        case kind::stop: root_done_ = true; break;
        case kind::table:
            decode_table(m, table_);
            finished_ = true;
            break;
        case kind::abort: verdict_ = true; failure::read(m).raise(link_.rank());
        default:
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " from the root at a sub-master");
        }
    }

    /// Asks the root for the group's next chunk once what is left to hand out
    /// is about one iteration per worker (the group's next round of requests),
    /// so that its workers do not wait for the root; asking earlier would hold
    /// a chunk here that an idle group could have run at the loop's end.
    void ask_ahead() {
        if (root_done_ || asked_ || pool_.has_reserve() || pool_.unassigned() > static_cast<index_t>(pool_.workers()))
            return;
        wire_writer w;
        link_.send(root_, kind::request, encode_request(w, group_status(pool_.statuses()), last_, results_));
        results_.clear();
        asked_ = true;
    }
    void started(chunk) { started_at_ = link_.now(); }
    void finished_handing_out(chunk c) {
        double const now = link_.now();
        last_ = chunk_timing{c.size, now - started_at_, now - started_at_};
        if (trace_on_) outer_trace_.push_back({link_.rank(), c.first, c.size, started_at_, now, 1});
    }

    /// Once the root said stop and the group is done: the group's workers'
    /// statistics, then this group's report (their sums), results and trace.
    template <class Loop, class Master>
    void report_when_done(Loop& loop, Master& master) {
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
        }
        group.trace.insert(group.trace.end(), outer_trace_.begin(), outer_trace_.end());
        wire_writer w;
        link_.send(root_, kind::report, encode_report(w, sums, trace_on_ ? link_.now() : 0.0, results_, group.trace));
        results_.clear();
        reported_ = true;
    }
    loop_statistics take_table() { return std::move(table_); }

private:
    loop_link<T>& link_;
    int root_;
    group_pool<P> pool_;
    bool& verdict_;
    bool trace_on_;
    result_blocks results_;
    chunk_timing last_{};
    std::vector<chunk_event> outer_trace_;
    loop_statistics table_;
    index_t chunks_ = 0, iterations_ = 0;
    double started_at_ = 0.0;
    bool asked_ = true; // the root serves the group's first request (its hello) at the opening
    bool root_done_ = false, finished_ = false, reported_ = false;
};

/// The sub-master's master client: its workers' requests get pieces of the pool.
template <Transport T, ChunkPolicy P>
class group_granting {
public:
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

/// The root's master client: the outer policy's chunks to the groups (as the
/// DOALL master grants them), and each group's workers' statistics for the table.
template <Transport T, ChunkPolicy P, class Body>
class root_granting {
public:
    root_granting(master_port<T>& port, P const& between, loop_info info, Body& body)
            : grants_(port, between, dynamic_mapping{}, std::move(info), body), leaves_(port.settings().workers()) {}

    index_t serve(std::size_t k, request const& r) { return grants_.serve(k, r); }
    [[nodiscard]] bool done() const noexcept { return grants_.done(); }
    void take_result(index_t first, index_t size, std::span<std::byte const> b) { grants_.take_result(first, size, b); }
    void on_message(std::size_t k, kind what, message_view m) {
        if (what != kind::group_table) return grants_.on_message(k, what, m);
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
    doall_master<T, P, dynamic_mapping, Body> grants_;
    std::vector<std::vector<worker_statistics>> leaves_;
};

/// The root of a hierarchical loop: decides the groups, tells each sub-master
/// its own, and grants chunks among them. It does not compute.
template <Transport T, ChunkPolicy B, ChunkPolicy W, class Body>
loop_statistics run_hierarchy_root(loop_link<T>& link, hierarchical<B, W> const& h, rank_plan const& plan,
                                   std::span<worker_status const> agreed, index_t iterations, Body& body) {
    return as_root(link, [&](bool& aborted) {
        int const ranks = link.size(), self = link.rank();
        std::size_t const others = static_cast<std::size_t>(ranks - 1);
        std::size_t size = h.group_size;
        if (size == 0)
            size = automatic_group_size(others,
                                        measure_request_seconds(h.within, std::min<std::size_t>(others, 256)) +
                                                2.0 * h.message_seconds,
                                        h.expected_chunk_seconds);
        group_layout const layout =
                make_groups(ranks, self, std::max<std::size_t>(size, 1), h.sub_masters_compute ? 1 : 2);

        runtime_settings settings = plan.settings;
        settings.worker_ranks.clear();
        settings.index_of_rank.assign(static_cast<std::size_t>(ranks), -1);
        settings.own_index = -1;
        status_by_rank opening(static_cast<std::size_t>(ranks));
        std::vector<worker_status> powers;
        std::size_t smallest = static_cast<std::size_t>(ranks);
        for (auto const& members : layout.members) {
            // The group's workers: its sub-master too when it computes.
            std::span<int const> workers(members);
            if (!h.sub_masters_compute && workers.size() > 1) workers = workers.subspan(1); // a group of one computes
            smallest = std::min(smallest, workers.size());
            std::vector<worker_status> statuses;
            for (int r : workers) statuses.push_back(agreed[static_cast<std::size_t>(r)]);
            wire_writer w;
            w.put(workers.size());
            for (std::size_t i = 0; i < workers.size(); ++i) w.put(workers[i]).put(statuses[i]);
            link.send(members.front(), kind::group, w.view());
            settings.index_of_rank[static_cast<std::size_t>(members.front())] =
                    static_cast<int>(settings.worker_ranks.size());
            settings.worker_ranks.push_back(members.front());
            powers.push_back(group_status(statuses));
            opening[static_cast<std::size_t>(members.front())] = powers.back();
        }
        // A group's chunk keeps each of its workers busy: at least one iteration
        // each (FSS's last chunks among groups would be single iterations,
        // leaving all but one worker of the group waiting for the root).
        widened<B> const between{h.between, static_cast<index_t>(smallest)};
        loopback local;
        master_port<T> port(link, settings, local);
        using granting_type = root_granting<T, widened<B>, Body>;
        granting_type granting(port, between, loop_info{iterations, powers.size(), powers}, body);
        master_core<T, granting_type> master(port, granting, aborted);
        using no_worker = doall_worker<T, Body>;
        return run_root<T, granting_type, no_worker>(link, local, master, nullptr,
                                                     std::span<worker_status const>(opening.data(), opening.size()),
                                                     undriven{});
    });
}

/// What a sub-master's loop hears from the root, and when it reports (root_loop's Parent).
template <Transport T, ChunkPolicy W>
struct sub_master_parent {
    group_relay<T, W>& relay;
    master_core<T, group_granting<T, W>>& master;
    [[nodiscard]] int rank() const noexcept { return relay.rank(); }
    [[nodiscard]] bool finished() const noexcept { return relay.finished(); }
    void handle(message_view m) { relay.handle(m); }
    template <class Loop>
    void settle(Loop& loop) {
        relay.report_when_done(loop, master);
    }
};

/// A sub-master: the group master for its workers (and its own worker when it
/// computes), and the root's worker for its group.
template <Transport T, ChunkPolicy W, class Body>
loop_statistics run_sub_master(loop_link<T>& link, message_view group, rank_plan& plan, W const& within, Body& body,
                               bool& verdict) {
    int const self = link.rank();
    runtime_settings settings = plan.settings;
    int const root = settings.root;
    settings.root = self;
    settings.worker_ranks.clear();
    settings.index_of_rank.assign(static_cast<std::size_t>(link.size()), -1);
    settings.own_index = -1;
    status_by_rank opening(static_cast<std::size_t>(link.size()));
    std::vector<worker_status> statuses;
    wire_reader r(group.payload);
    for (auto n = r.get<std::size_t>(); n > 0; --n) {
        int const rank = r.get<int>();
        auto const s = r.get<worker_status>();
        if (rank == self) settings.own_index = static_cast<int>(settings.worker_ranks.size());
        settings.index_of_rank[static_cast<std::size_t>(rank)] = static_cast<int>(settings.worker_ranks.size());
        settings.worker_ranks.push_back(rank);
        opening[static_cast<std::size_t>(rank)] = s;
        statuses.push_back(s);
    }
    bool aborted = false; // the group master never aborts: failures go to the root
    group_relay<T, W> relay(link, root, within, std::move(statuses), verdict, settings.trace);
    loopback local;
    master_port<T> mport(link, settings, local);
    group_granting<T, W> granting(mport, relay);
    master_core<T, group_granting<T, W>> master(mport, granting, aborted);
    using worker_client = doall_worker<T, Body>;
    std::optional<worker_port<T>> wport;
    std::optional<worker_client> working;
    std::optional<worker_core<T, worker_client>> own;
    if (settings.own_index >= 0) {
        wport.emplace(link, settings, &local);
        working.emplace(*wport, plan.profile, body);
        own.emplace(*wport, *working, verdict);
    }
    sub_master_parent<T, W> up{relay, master};
    root_loop<T, group_granting<T, W>, worker_client, sub_master_parent<T, W>> loop(link, local, master,
                                                                                    own ? &*own : nullptr, &up);
    loop.open(std::span<worker_status const>(opening.data(), opening.size()));
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
    if (ch.size() == 1) // a lone rank works alone, as in a flat loop
        return detail::run_doall<C, S, W, dynamic_mapping, Body, R>(source, space, h.within, dynamic_mapping{}, body,
                                                                    per_iteration, values, o);
    loop_link<T> link(ch);
    int const ranks = link.size(), self = link.rank();
    std::optional<failure> local;
    rank_plan plan;
    loop_shape shape;
    using value_type = std::conditional_t<std::is_void_v<R>, std::byte, R>;
    std::span<value_type> root_values;
    index_t n = 0;
    try {
        require(!o.deterministic, "options.deterministic", o.deterministic,
                "must be false in a hierarchical loop (a group's pool fills as the root answers)");
        require(std::isfinite(h.expected_chunk_seconds) && h.expected_chunk_seconds >= 0.0,
                "hierarchical.expected_chunk_seconds", h.expected_chunk_seconds, "must be >= 0");
        require(std::isfinite(h.message_seconds) && h.message_seconds >= 0.0, "hierarchical.message_seconds",
                h.message_seconds, "must be >= 0");
        std::size_t result_bytes = 0;
        std::tie(plan, result_bytes) = plan_doall<S, R>(space, per_iteration, o, ranks, self);
        n = plan.info.iterations;
        (void)h.between.start(loop_info{n, 1, {}}); // each policy's own checks, on every rank before any message
        (void)h.within.start(loop_info{n, 1, {}});
        fingerprint levels;
        levels.add(policy_fingerprint(h.between))
                .add(policy_fingerprint(h.within))
                .add(static_cast<index_t>(h.group_size))
                .add(static_cast<index_t>(h.sub_masters_compute));
        shape = shape_of(algorithm_id::parallel_for, o, n, space_fingerprint(space), o.dimension, result_bytes,
                         levels.value(), mapping_name(dynamic_mapping{}), o.request_ahead, 1);
        if (self == o.root) root_values = detail::root_buffer(values, n, per_iteration);
    } catch (...) {
        local = failure::current(self, false);
    }
    doall_body<S, Body, R> run(space, o.dimension, body, per_iteration, root_values);
    auto const agreed = agree(link, shape, local, plan.profile.status());
    if (self == o.root)
        return run_hierarchy_root(link, h, plan, std::span<worker_status const>(agreed.data(), agreed.size()), n, run);
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
