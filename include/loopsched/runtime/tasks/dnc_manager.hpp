// Divide and conquer's manager (runtime/tasks/dnc.hpp tells the engine): it starts
// the problem at the placement's first worker, tracks who is idle, has a busy
// worker send a task to an idle one, places by estimates through an
// estimate_scheduler, and takes the solution; and what its messages carry.
#pragma once

#include <loopsched/divide_and_conquer_ops.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/tasks/dnc_wire.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

// ---------------------------------------------------------------- manager

/// The manager: starts the problem, tracks who is idle, has the busiest
/// worker send a task to an idle one (when the placement balances), and
/// collects the solution.
template <Transport T>
class dnc_manager {
public:
    static constexpr master_hooks hooks{
            .results_first = true, .late_requests = true, .holds = true, .expecting_work = true};

    dnc_manager(master_port<T>& port, task_decisions const& placement, std::span<worker_status const> statuses,
                std::vector<std::byte> problem, migration_cost const& cost)
            : port_(port), placement_(placement), problem_(std::move(problem)), w_(port.settings().workers()) {
        auto const& s = port.settings();
        for (std::size_t k = 0; k < w_.size(); ++k) {
            auto const st = statuses[static_cast<std::size_t>(s.worker_ranks[k])];
            w_[k].speed = st.power / st.run_queue;
        }
        if (auto const* estimates = placement.estimates()) {
            std::vector<double> speeds;
            for (auto const& w : w_) speeds.push_back(w.speed);
            sched_.emplace(*estimates, speeds, cost);
            est_.resize(w_.size());
        }
    }

    index_t serve(std::size_t k, request const& r) {
        if (!started_) start();
        if (sched_) {
            est_serve(k, r);
            return 0;
        }
        auto& w = w_[k];
        auto const reported = static_cast<std::uint64_t>(r.last.size); // the worker's count of tasks received
        if (reported > w.seen) {                                       // a new report: k is idle
            w.seen = reported;
            w.transfers_reported = static_cast<std::uint64_t>(r.last.compute_seconds); // of them, transfers' answers
            w.busy = w.transferred > w.transfers_reported; // unless a donor sent it tasks it has not received yet
            w.load = 0.0;
        }
        if (placement_.balances() && !w.busy && w.incoming == 0 && !solved_) find_donors(k);
        return 0;
    }
    [[nodiscard]] bool done() const noexcept { return solved_; }
    [[nodiscard]] bool holds(std::size_t k) const noexcept {
        if (solved_) return false;
        if (placement_.when_idle() == idle_action::steal) return true; // they find work themselves
        if (sched_) return est_busy(k);
        return w_[k].busy || w_[k].incoming > 0;
    }
    [[nodiscard]] bool expecting_work() const noexcept { return !solved_; }

    void take_result(index_t, index_t size, std::span<std::byte const> b) {
        if (size != 0 || b.size() != sizeof(dnc_worker_statistics))
            throw error("loopsched: protocol: an unexpected result block in divide and conquer");
        dnc_worker_statistics s;
        std::memcpy(&s, b.data(), sizeof s);
        stats_.push_back(s);
        if (int const k = port_.settings().index_of(s.rank); k >= 0) { // the loop table: problems, tasks
            auto& row = port_.statistics()[static_cast<std::size_t>(k)];
            row.iterations = static_cast<index_t>(s.nodes);
            row.chunks = static_cast<index_t>(s.tasks);
        }
    }

    void on_message(std::size_t k, kind what, message_view m) {
        wire_reader r(m.payload);
        switch (what) {
        case kind::solution: {
            auto const b = r.get_raw(r.remaining());
            solution_.assign(b.begin(), b.end());
            solved_ = true;
            for (std::size_t j = 0; j < w_.size(); ++j) port_.touch(j);
            break;
        }
        case kind::info:
            if (auto const type = r.get<std::uint8_t>(); type == info_load) {
                w_[k].load = r.get<double>();
                if (std::exchange(w_[k].refused, false)) ++donor_epoch_;
            } else if (type == info_queue && sched_) {
                est_report(k, r);
            } else {
                for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
                    auto const j = static_cast<std::size_t>(r.get<std::uint64_t>());
                    if (j >= w_.size()) throw error("loopsched: protocol: an unknown worker returned");
                    w_[j].busy = false;
                    port_.touch(j);
                }
            }
            break;
        case kind::moved: {
            if (sched_) {
                est_moved(k, r, m.source);
                break;
            }
            auto const to = static_cast<std::size_t>(r.get<std::uint64_t>());
            auto const given = r.get<std::uint64_t>();
            double const load = r.get<double>();
            auto& from = w_[k];
            if (to >= w_.size() || !from.donating || w_[to].incoming == 0)
                throw error("loopsched: protocol: a transfer nobody asked for (rank " + std::to_string(m.source) + ")");
            from.donating = false;
            from.load = load;
            ++donor_epoch_; // the donor, and the idle worker if it got a task, may donate again
            auto& idle = w_[to];
            --idle.incoming;
            idle.transferred += given;
            // Busy until it reports having received them (it may have run them already).
            idle.busy = idle.transferred > idle.transfers_reported;
            if (given == 0) from.refused = true; // not asked again until it reports a new load
            port_.touch(to);
            break;
        }
        default:
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " at a divide-and-conquer manager");
        }
    }

    [[nodiscard]] std::vector<std::byte> const& solution() const noexcept { return solution_; }
    [[nodiscard]] std::vector<dnc_worker_statistics> take_statistics() { return std::move(stats_); }

private:
    struct worker {
        double speed = 1.0, load = 0.0;
        std::uint64_t seen = 0;
        /// Tasks donors said they sent it, and how many of those it had received at its last report.
        std::uint64_t transferred = 0, transfers_reported = 0;
        int incoming = 0; ///< donors asked to send it a task that have not answered yet
        bool busy = false, donating = false, refused = false;
    };

    /// The original problem to the placement's first worker, with its list.
    void start() {
        started_ = true;
        std::vector<placed_worker> by_speed;
        for (std::size_t k = 0; k < w_.size(); ++k) by_speed.push_back({k, w_[k].speed});
        std::ranges::stable_sort(by_speed, [](auto const& a, auto const& b) { return a.speed > b.speed; });
        auto const list = placement_.first_list(by_speed);
        if (list.empty()) throw error("loopsched: placement " + placement_.name() + " started on no worker");
        wire_writer w;
        w.put(static_cast<std::uint8_t>(task_origin::list)).put(std::uint64_t{1});
        dnc_task_header h;
        h.list = list.size() - 1;
        w.put(h);
        for (std::size_t i = 1; i < list.size(); ++i) w.put(list[i]);
        w.put(static_cast<std::uint64_t>(problem_.size())).put_raw(problem_);
        for (auto const& p : list) w_[p.index].busy = true;
        ++donor_epoch_;
        if (sched_) est_[list.front().index].expected = 1;
        port_.push_worker(list.front().index, kind::work, std::move(w));
        std::vector<std::byte>().swap(problem_);
        // The others hear that the run started (every rank agreed): a thief
        // must not ask a rank still in the agreement.
        wire_writer none;
        none.put(static_cast<std::uint8_t>(task_origin::list)).put(std::uint64_t{0});
        for (std::size_t k = 0; k < w_.size(); ++k)
            if (!w_[k].busy) port_.send_worker(k, kind::work, none.view());
    }

    /// Idle worker `to`: the busy workers with the largest load per speed, not
    /// in a transfer and not refusing, are asked to send it a task each, as
    /// many as it takes for their summed speed to reach its own. A donor
    /// answers between its tasks; asking several, a fast worker does not wait
    /// on one slow donor's long task, and it gets work in proportion to its speed.
    void find_donors(std::size_t to) {
        // Every parked idle worker asks again after each message: without this, a
        // scan of all workers each, O(workers^2) per message (28% of a 1,024-worker
        // simulation's time).
        if (no_donor_epoch_ == donor_epoch_) return; // none found, and none may donate since
        double asked_speed = 0.0;
        std::vector<std::size_t> donors;
        while (asked_speed < w_[to].speed) {
            std::optional<std::size_t> best;
            double most = -1.0;
            for (std::size_t k = 0; k < w_.size(); ++k) {
                auto const& w = w_[k];
                if (k == to || !w.busy || w.donating || w.incoming > 0 || w.refused) continue;
                double const v = w.load / w.speed;
                if (v > most) {
                    most = v;
                    best = k;
                }
            }
            if (!best) break;
            w_[*best].donating = true;
            ++w_[to].incoming;
            asked_speed += w_[*best].speed;
            donors.push_back(*best);
        }
        // Every donor and the idle worker to finish together (seed 000's (4.5)):
        // T = summed load over summed speed; donor j keeps T x its speed.
        double load = 0.0, speed = w_[to].speed;
        for (auto const j : donors) {
            load += w_[j].load;
            speed += w_[j].speed;
        }
        double const together = load / speed;
        for (auto const j : donors) {
            double const share =
                    w_[j].load > 0.0 ? std::clamp(1.0 - together * w_[j].speed / w_[j].load, 0.0, 1.0) : 0.0;
            dnc_transfer const ask{to, port_.settings().worker_ranks[to], 0, share};
            port_.send_worker(j, kind::transfer, std::as_bytes(std::span(&ask, 1)));
        }
        if (w_[to].incoming == 0) {
            no_donor_epoch_ = donor_epoch_;
            return;
        }
        port_.touch(to);
    }

    // ---- placing by estimates (Karamcheti and Wah): the board mirrors every worker's
    // queue and running task from its reports; tasks are named by worker and order.

    struct estimates_state {
        std::uint64_t expected = 0; ///< tasks it was given, as far as the manager knows
        int incoming = 0;           ///< named transfers to it not yet answered by their donors
        struct asked_move {
            double at = 0.0, bytes = 0.0;
            std::uint64_t order = 0;
        };
        std::deque<asked_move> asked; ///< named transfers it was asked for, in order
        double own_units = 0.0, own_seconds = 0.0;
    };
    static constexpr int order_bits = 40;
    static std::uint64_t id_of(std::size_t k, std::uint64_t order) noexcept {
        return (static_cast<std::uint64_t>(k) << order_bits) | order;
    }
    static std::size_t owner_of(std::uint64_t id) noexcept { return static_cast<std::size_t>(id >> order_bits); }
    static std::uint64_t order_of(std::uint64_t id) noexcept { return id & ((std::uint64_t{1} << order_bits) - 1); }

    /// Busy: it has not reported idle since the last task it was given, or one is on its way.
    [[nodiscard]] bool est_busy(std::size_t k) const noexcept {
        return w_[k].seen < est_[k].expected || est_[k].incoming > 0;
    }
    void est_serve(std::size_t k, request const& r) {
        auto const reported = static_cast<std::uint64_t>(r.last.size); // the worker's count of tasks received
        w_[k].seen = std::max(w_[k].seen, reported);
        if (!solved_ && !est_busy(k)) est_idle(k);
    }
    /// Worker k has nothing: its board entry empties; under D_LPT it pulls (rule 4).
    void est_idle(std::size_t k) {
        double const now = port_.now();
        sched_->board().report(k, std::nullopt, {}, now);
        // only a task its holder reported can be named to it
        auto const reported = [](std::size_t from, estimated_task const& t) { return owner_of(t.id) == from; };
        if (auto const m = sched_->idle(k, now, reported)) ask_move(*m);
    }
    /// A worker's queue and running task: the board's entry is replaced, then
    /// its new tasks are placed (D_LPT: rules 1 and 2, largest first; after
    /// its running task revised its estimate, every task it listed).
    void est_report(std::size_t k, wire_reader& r) {
        auto const head = r.get<dnc_queue_report>();
        auto& e = est_[k];
        e.own_units = head.own_units;
        e.own_seconds = head.own_seconds;
        double units = 0.0, seconds = 0.0;
        for (auto const& x : est_) {
            units += x.own_units;
            seconds += x.own_seconds;
        }
        // speed-1 seconds per cost unit, from the work measured so far (none yet: units as they are)
        double const scale = units > 0.0 && seconds > 0.0 ? seconds / units : 1.0;
        std::vector<estimated_task> ready, fresh;
        for (std::uint64_t i = 0; i < head.tasks; ++i) {
            auto const t = r.get<dnc_reported_task>();
            if (std::ranges::any_of(e.asked, [&](auto const& a) { return a.order == t.order; })) continue; // leaving
            estimated_task const et{id_of(k, t.order), t.cost * scale, t.bytes};
            ready.push_back(et);
            if (t.fresh != 0) fresh.push_back(et);
        }
        double const now = port_.now();
        std::optional<double> running;
        if (head.running >= 0.0) running = head.running * scale - head.running_for * w_[k].speed;
        sched_->board().report(k, running, std::move(ready), now, head.unlisted * scale,
                               static_cast<std::size_t>(head.unlisted_count));
        if (solved_ || w_.size() < 2) return;
        if (sched_->dlpt_rules() && head.revised != 0) { // rule 3: every task it listed, placed again
            auto const all = [](std::size_t, estimated_task const&) { return true; };
            for (auto const& m : sched_->revised(k, now, all)) ask_move(m);
            return;
        }
        std::ranges::stable_sort(fresh, [](auto const& a, auto const& b) { return a.rho > b.rho; });
        for (auto const& t : fresh) // rules 1 and 2 (or a baseline's choice): largest first
            if (auto const m = sched_->place_from(k, t, now)) ask_move(*m);
    }
    void ask_move(task_move const& m) {
        dnc_transfer const ask{m.to, port_.settings().worker_ranks[m.to], order_of(m.id) + 1, 0.0};
        est_[m.from].asked.push_back({port_.now(), m.bytes, order_of(m.id)});
        ++est_[m.to].incoming;
        port_.send_worker(m.from, kind::transfer, std::as_bytes(std::span(&ask, 1)));
        port_.touch(m.to);
    }
    /// A donor's answer (its queue report came just before): the move's
    /// handshake time is a sample of theta; a refused move leaves its
    /// target idle, and it pulls again.
    void est_moved(std::size_t k, wire_reader& r, int source) {
        auto const to = static_cast<std::size_t>(r.get<std::uint64_t>());
        auto const given = r.get<std::uint64_t>();
        auto& e = est_[k];
        if (to >= w_.size() || e.asked.empty() || est_[to].incoming == 0)
            throw error("loopsched: protocol: a transfer nobody asked for (rank " + std::to_string(source) + ")");
        auto const a = e.asked.front();
        e.asked.pop_front();
        sched_->fit(a.bytes, port_.now() - a.at);
        --est_[to].incoming;
        est_[to].expected += given;
        port_.touch(to);
        if (!solved_ && !est_busy(to)) est_idle(to);
    }
    master_port<T>& port_;
    task_decisions const& placement_;
    std::optional<estimate_scheduler> sched_; ///< placing by estimates: the load table and the rules
    std::vector<estimates_state> est_;
    std::vector<std::byte> problem_, solution_;
    std::vector<worker> w_;
    std::vector<dnc_worker_statistics> stats_;
    bool started_ = false, solved_ = false;
    /// Counts the events that may make a worker a donor (busy, out of a
    /// transfer, a new load after refusing); a scan that found none notes it.
    std::uint64_t donor_epoch_ = 0, no_donor_epoch_ = std::numeric_limits<std::uint64_t>::max();
};

} // namespace loopsched::detail
