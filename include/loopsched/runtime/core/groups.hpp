// Two levels on the protocol core, whatever runs in the groups (loops and
// farms alike): the groups and their sizes, the root's client over groups
// (with_groups), a sub-master's side towards the root (group_uplink), and the
// group message that makes a rank a sub-master.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/group_place.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
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
    /// Units received and passed on to another group (a farm's transfer): not this group's.
    void passed_on(index_t units) { iterations_ -= units; }
    /// One of the group's level-1 trace events (what the root gave it, and how long it lasted).
    void record(index_t first, index_t size, double start, double end) {
        if (trace_on_) outer_trace_.push_back({link_.rank(), first, size, start, end, 1});
    }

    /// Once the root said stop and the group is done: the group's workers'
    /// statistics, then this group's report (their sums), results and trace;
    /// `relabel(event)` puts its workers' trace events in the root's numbering.
    template <class Loop, class Master, class Relabel = void (*)(chunk_event&)>
    void report_when_done(
            Loop& loop, Master& master, Relabel&& relabel = [](chunk_event&) {}) {
        if (reported_ || !root_done_ || !loop.master_finished()) return;
        loop_statistics group = master.collect();
        double const start = master.started();
        wire_writer table;
        table.put(group.workers.size());
        for (auto const& w : group.workers) table.put(w);
        table.put(group.lost.size());
        for (int r : group.lost) table.put(r);
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
    /// A message from elsewhere than the parent that the relay takes (farms: another group's transfer).
    [[nodiscard]] bool claims(message_view m) const {
        if constexpr (requires { relay.claims(m); })
            return relay.claims(m);
        else
            return false;
    }
    template <class Loop>
    void settle(Loop& loop) {
        relay.settle(loop);
    }
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
    /// The groups make their own work (a farm's producers in groups): each
    /// group's row counts what its workers ran, not what the root gave it.
    void groups_make_work() noexcept { groups_make_work_ = true; }
    index_t serve(std::size_t k, request const& r) { return inner_.serve(k, r); }
    [[nodiscard]] bool done() const noexcept { return inner_.done(); }
    [[nodiscard]] bool holds(std::size_t k) const noexcept requires(Client::hooks.holds) { return inner_.holds(k); }
    [[nodiscard]] bool expecting_work() const noexcept requires(Client::hooks.expecting_work) {
        return inner_.expecting_work();
    }
    void take_result(index_t first, index_t size, std::span<std::byte const> b) { inner_.take_result(first, size, b); }
    void on_message(std::size_t k, kind what, message_view m) {
        if (what != kind::group_table) return inner_.on_message(k, what, m);
        wire_reader r(m.payload);
        auto& rows = leaves_[k];
        for (auto n = r.get<std::size_t>(); n > 0; --n) rows.push_back(r.get<worker_statistics>());
        for (auto n = r.get<std::size_t>(); n > 0; --n) lost_.push_back(r.get<int>());
    }
    /// The table: every group's workers, in rank order, one row per group,
    /// and the workers the groups lost.
    void complete(loop_statistics& table) {
        table.groups = std::move(table.workers);
        table.workers.clear();
        if (groups_make_work_)
            for (std::size_t k = 0; k < leaves_.size() && k < table.groups.size(); ++k) {
                table.groups[k].iterations = table.groups[k].chunks = 0;
                for (auto const& w : leaves_[k]) {
                    table.groups[k].iterations += w.iterations;
                    table.groups[k].chunks += w.chunks;
                }
            }
        for (auto& rows : leaves_) table.workers.insert(table.workers.end(), rows.begin(), rows.end());
        std::ranges::sort(table.workers, {}, &worker_statistics::rank);
        table.lost.insert(table.lost.end(), lost_.begin(), lost_.end());
    }

private:
    Client inner_;
    std::vector<std::vector<worker_statistics>> leaves_;
    std::vector<int> lost_; ///< group workers their sub-masters lost
    bool groups_make_work_ = false;
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

/// A group message: the group's workers and their statuses, its place among
/// the groups, then every group's sub-master (join_group reads it).
inline void write_group(wire_writer& w, std::span<int const> workers, std::span<worker_status const> statuses,
                        group_place const& place, std::span<int const> sub_masters = {}) {
    w.put(workers.size());
    for (std::size_t i = 0; i < workers.size(); ++i) w.put(workers[i]).put(statuses[i]);
    w.put(place);
    w.put(sub_masters.size());
    for (int r : sub_masters) w.put(r);
}

/// Decides the groups and tells each sub-master its workers and their statuses,
/// and every group's sub-master when `list_sub_masters` (groups that lend
/// each other tasks ask each other; the others need not carry the list).
template <Transport T>
group_opening open_groups(loop_link<T>& link, runtime_settings const& base, std::size_t group_size,
                          bool sub_masters_compute, std::span<worker_status const> agreed,
                          bool list_sub_masters = false) {
    int const ranks = link.size();
    group_layout const layout =
            make_groups(ranks, link.rank(), std::max<std::size_t>(group_size, 1), sub_masters_compute ? 1 : 2);
    group_opening out{base, status_by_rank(static_cast<std::size_t>(ranks)), {}, {}};
    out.settings.worker_ranks.clear();
    out.settings.index_of_rank.assign(static_cast<std::size_t>(ranks), -1);
    out.settings.own_index = -1;
    // The group's workers: its sub-master too when it computes (a group of one computes).
    auto const workers_of = [&](std::vector<int> const& members) {
        std::span<int const> workers(members);
        return !sub_masters_compute && workers.size() > 1 ? workers.subspan(1) : workers;
    };
    // Every group's power first: each group's message carries its share of their sum.
    std::vector<std::vector<worker_status>> statuses_of(layout.members.size());
    double total = 0.0;
    for (std::size_t g = 0; g < layout.members.size(); ++g) {
        for (int r : workers_of(layout.members[g])) statuses_of[g].push_back(agreed[static_cast<std::size_t>(r)]);
        out.powers.push_back(group_status(statuses_of[g]));
        total += out.powers.back().power;
    }
    std::vector<int> sub_masters;
    if (list_sub_masters)
        for (auto const& members : layout.members) sub_masters.push_back(members.front());
    double summed = 0.0, before = 0.0;
    for (std::size_t g = 0; g < layout.members.size(); ++g) {
        auto const& members = layout.members[g];
        std::span<int const> const workers = workers_of(members);
        auto const& statuses = statuses_of[g];
        summed += out.powers[g].power;
        // The next group's begin is this one's end, the very same double: shares tile [0, 1).
        double const after = g + 1 == layout.members.size() ? 1.0 : summed / total;
        wire_writer w;
        write_group(w, workers, statuses, group_place{g, layout.members.size(), before, after}, sub_masters);
        before = after;
        link.send(members.front(), kind::group, w.view());
        out.settings.index_of_rank[static_cast<std::size_t>(members.front())] =
                static_cast<int>(out.settings.worker_ranks.size());
        out.settings.worker_ranks.push_back(members.front());
        out.sizes.push_back(workers.size());
        out.opening[static_cast<std::size_t>(members.front())] = out.powers[g];
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
    group_place place; ///< which group (the root's order), of how many, and its share of their power
    std::vector<int> sub_masters; ///< every group's sub-master, in the root's order
};

inline group_membership join_group(int self, int ranks, runtime_settings const& base, message_view group) {
    group_membership out{base, status_by_rank(static_cast<std::size_t>(ranks)), {}, base.root, {}, {}};
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
    out.place = r.get<group_place>();
    out.sub_masters.resize(r.get<std::size_t>());
    for (auto& rank : out.sub_masters) rank = r.get<int>();
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

} // namespace loopsched::detail
