// A divide-and-conquer worker's dealings with the others, whatever the
// user's operations: its queue, answers to requests for work, the results it
// sends, and the reports to the manager. The problems and results themselves
// are the recursion's (runtime/tasks/dnc_recursion.hpp).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/runtime/tasks/dnc_manager.hpp>
#include <loopsched/runtime/tasks/dnc_queue.hpp>
#include <loopsched/runtime/tasks/dnc_recursion.hpp>
#include <loopsched/runtime/tasks/dnc_wire.hpp>
#include <loopsched/this_task.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// A worker's dealings with the others, whatever the user's operations: its
/// queue, answers to requests for work (transfers, steals, spills), the
/// results it sends, and the reports to the manager. dnc_worker runs the
/// tasks and goes idle on top of it.
template <Transport T>
class dnc_exchange : public dnc_engine, private task_listener {
public:
    void on_work(message_view m) {
        wire_reader r(m.payload);
        auto const origin = static_cast<task_origin>(r.get<std::uint8_t>());
        auto const n = r.get<std::uint64_t>();
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const h = r.get<dnc_task_header>();
            for (std::uint64_t j = 0; j < h.list; ++j) coworkers_.push_back(r.get<placed_worker>());
            if (queue_.measure() == cost_measure::unknown) queue_.set_measure(static_cast<cost_measure>(h.measure));
            auto const bytes = r.get<std::uint64_t>();
            queue_.push(rec_->problem_from(r.get_raw(static_cast<std::size_t>(bytes))), h.cost, h.depth, h.parent,
                        false);
        }
        if (n > 0) {
            received_ += n;
            if (origin == task_origin::transfer) transferred_ += n;
            stats.received += n;
            idle_reported_ = false;
        }
        if (origin == task_origin::steal) steal_out_ = false;
        started_ = true;
    }

    void on_message(kind what, message_view m) {
        wire_reader r(m.payload);
        switch (what) {
        case kind::reply: {
            auto const id = r.get<std::uint64_t>();
            auto const index = r.get<std::uint32_t>();
            rec_->result_from(id, index, r.get_raw(r.remaining()));
            break;
        }
        case kind::transfer: {
            auto const t = r.get<dnc_transfer>();
            answer(ask{true, static_cast<int>(t.to_rank), t.to_index, t.task, -1, t.share});
            break;
        }
        case kind::steal: {
            ask a{false, m.source, 0};
            a.deeper_than = r.get<std::int64_t>();
            // A slower thief's steal is sized by speeds, as the manager sizes transfers.
            a.thief_speed = r.get<double>();
            if (a.thief_speed > 0.0 && a.thief_speed < speed_) a.share = a.thief_speed / (a.thief_speed + speed_);
            answer(a);
            break;
        }
        default:
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " at a divide-and-conquer worker");
        }
    }
    void waited(double seconds) noexcept { stats.idle_seconds += seconds; }

    worker_statistics statistics(double) {
        stopped_ = true; // the report: steal answers arriving late are dropped
        mine_.iterations = static_cast<index_t>(stats.nodes);
        mine_.chunks = static_cast<index_t>(stats.tasks);
        mine_.wait_seconds = stats.idle_seconds;
        results_.clear();
        results_.add_written(0, 0, [&](std::vector<std::byte>& out) {
            auto const b = std::as_bytes(std::span(&stats, 1));
            out.insert(out.end(), b.begin(), b.end());
        });
        return mine_;
    }
    [[nodiscard]] result_blocks& results() noexcept { return results_; }
    [[nodiscard]] std::span<chunk_event const> trace() const noexcept { return trace_; }

protected:
    /// Whether this worker's next task comes from its queue now (a task its
    /// waiting problems allow is queued).
    [[nodiscard]] virtual bool runs_a_queued_task_next() const noexcept = 0;

    /// A task for another worker, with the workers it is to divide among.
    struct outgoing {
        std::uint32_t slot; ///< the recursion's
        double cost;
        std::uint32_t depth;
        result_address parent;
        std::span<placed_worker const> list;
    };

    dnc_exchange(worker_port<T>& port, rank_profile& profile, task_decisions const& placement, dnc_settings const& ds)
            : port_(port), profile_(profile), placement_(placement), ds_(ds),
              self_(static_cast<std::size_t>(port.settings().index_of(port.rank()))),
              workers_(port.settings().workers()),
              random_(static_cast<std::uint32_t>(port.rank()) * 7919u + 17u) {
        mine_.rank = port.rank();
        stats.rank = port.rank();
        auto const s = profile.status();
        speed_ = s.power / s.run_queue;
        own_rank = port.rank();
        estimates = placement.estimates() != nullptr;
        tracing = port.settings().trace;
        slowed = profile.slowness.slowdown() > 0.0;
        listener = this;
    }

    // ---- results

    void send_result(result_address const& to, wire_writer&& w) final {
        if (to.rank < 0) {
            port_.send_master(kind::solution, std::move(w).take());
            stopped_ = true; // nothing more goes to the manager: it stops every worker now
        } else {
            port_.send_rank(to.rank, kind::reply, std::move(w).take());
        }
    }

    // ---- requests for work

    /// Tasks to another worker in one message (none: a refused steal).
    void send_tasks(int rank, task_origin origin, std::vector<outgoing> const& tasks) {
        wire_writer w;
        w.put(static_cast<std::uint8_t>(origin)).put(static_cast<std::uint64_t>(tasks.size()));
        for (auto const& t : tasks) {
            dnc_task_header h;
            h.parent = t.parent;
            h.cost = t.cost;
            h.depth = t.depth;
            h.measure = static_cast<std::uint8_t>(queue_.measure());
            h.list = t.list.size();
            w.put(h);
            for (auto const& x : t.list) w.put(x);
            rec_->put_problem(t.slot, w);
        }
        stats.given += tasks.size();
        if (rank == port_.rank()) throw error("loopsched: protocol: tasks sent to the worker that holds them");
        port_.send_rank(rank, kind::work, std::move(w).take());
    }
    void answer_pending() final {
        auto asks = std::move(pending_);
        pending_.clear();
        counters.pending = false;
        // Fastest thief first (the manager's transfers before any): the tasks
        // that spilled go where they finish soonest. Answered in arrival order,
        // a slow thief took a dear leaf while a fast one got the next, smaller
        // task (2 of 4 workers loaded: 1.21 of the ideal, 1.10 fastest first).
        std::ranges::stable_sort(asks, std::greater<>(), [](ask const& a) {
            return a.transfer ? std::numeric_limits<double>::infinity() : a.thief_speed;
        });
        for (auto const& a : asks)
            if (!try_give(a)) refuse(a);
    }
    void refuse_pending() final {
        auto asks = std::move(pending_);
        pending_.clear();
        counters.pending = false;
        for (auto const& a : asks) refuse(a);
    }

    // ---- reports when the manager places by estimates

    /// The running task's estimate (cost units; < 0: none) as of now.
    void set_running(double weight) final {
        running_estimate_ = weight;
        running_since_ = port_.now();
        dirty_ = true;
    }
    /// `weight` of the running task's work left it (its subproblems, divided off).
    void shed_running(double weight) final {
        if (running_estimate_ < 0.0) return;
        running_estimate_ = std::max(0.0, running_estimate_ - weight);
        dirty_ = true;
    }
    void account(double units, double seconds) final {
        if (units <= 0.0) return;
        own_units_ += units;
        own_seconds_ += seconds * speed_;
    }
    void maybe_report() {
        if (estimates && dirty_ && port_.now() - informed_ >= ds_.info_period) report_queue();
    }
    /// The queue and running task to the manager.
    void report_queue(bool revised = false) {
        if (stopped_ || workers_ < 2) return;
        double const now = port_.now();
        dnc_queue_report h{running_estimate_, now - running_since_, own_units_, own_seconds_};
        h.revised = revised ? 1 : 0;
        wire_writer w;
        queue_.report(h, w, problem_bytes_);
        port_.send_master(kind::info, w.view());
        informed_ = now;
        dirty_ = false;
    }
    /// Looks at messages once every poll_interval, and tells the manager a changed load (kazouris).
    void maybe_poll() {
        double const now = port_.now();
        if (now - polled_ < port_.settings().poll_interval) return;
        polled_ = now;
        port_.pump(false);
        maybe_report();
        if (placement_.balances() && queue_.load() + counters.running != last_load_ &&
            now - informed_ >= ds_.info_period) {
            informed_ = now;
            last_load_ = queue_.load() + counters.running;
            wire_writer w;
            w.put(info_load).put(last_load_);
            port_.send_master(kind::info, w.view());
        }
    }

    worker_port<T>& port_;
    rank_profile& profile_;
    task_decisions const& placement_;
    dnc_settings const& ds_;
    std::size_t self_, workers_;
    double speed_ = 1.0;
    std::unique_ptr<dnc_recursion_base> rec_; ///< the user's problems and operations
    double problem_bytes_ = 0.0;              ///< rec_'s fixed_problem_bytes()
    dnc_queue queue_;
    std::vector<placed_worker> coworkers_;
    double polled_ = 0.0, informed_ = -1e300;
    bool stopped_ = false;
    worker_statistics mine_;
    std::vector<chunk_event> trace_;
    result_blocks results_;
    std::minstd_rand random_;
    std::uint64_t received_ = 0;
    std::uint64_t transferred_ = 0; ///< of those, the answers to the manager's transfers (its idle reports count them)
    bool idle_reported_ = true, steal_out_ = false; // the hello is the first report
    bool started_ = false;                          ///< the manager's first word arrived: every rank is in the run

private:
    /// A request for work: a transfer from the manager, or a thief's steal.
    struct ask {
        bool transfer = false;
        int rank = 0;            ///< who receives
        std::uint64_t index = 0; ///< its worker index (transfer)
        std::uint64_t task = 0;  ///< the task the manager names: its order + 1 (0: the placement chooses)
        /// A thief whose own problem waits runs only tasks deeper than this (-1: any).
        std::int64_t deeper_than = -1;
        double share = 0.0; ///< the load to give, as a share of this worker's (transfer; 0: one task)
        double thief_speed = 0.0; ///< a steal's thief's V/Q (0: a transfer, or not sent)
    };

    /// Gives what the placement allows; a worker recursing inline defers
    /// (then spills at its next division) if the placement spills; else refuses.
    void answer(ask const& a) {
        if (stopped_) return;
        if (a.task != 0) return give_named(a);
        if (try_give(a)) return;
        if (placement_.spills() && counters.inlining > 0) {
            pending_.push_back(a);
            counters.pending = true;
            return;
        }
        refuse(a);
    }
    bool try_give(ask const& a) {
        // A worker whose problem waits counts as busy, so it gives its last
        // task; but not to a thief no faster than itself while that task is
        // one it may run next: the thief would run it no sooner, and on a
        // narrow tree the task went back and forth between the two, level
        // after level (a chain under steal: 25 s of a sanitized test).
        bool const thief_no_faster = !a.transfer && a.thief_speed <= speed_;
        bool const busy = counters.inlining > 0 || counters.solving ||
                          (rec_->waiting() && !(thief_no_faster && runs_a_queued_task_next()));
        bool const deeper = a.deeper_than >= 0;
        auto const depth = static_cast<std::uint32_t>(std::max<std::int64_t>(0, a.deeper_than));
        auto const& view = deeper ? queue_.view_deeper(depth) : queue_.view();
        // sized by the manager: a share of this worker's load, its inlined task's included
        auto chosen = a.share > 0.0 ? placement_.give(view, busy, a.share * (queue_.load() + counters.running))
                                    : placement_.give(view, busy);
        if (chosen.empty()) return false;
        if (deeper)
            for (auto& i : chosen) i = queue_.position(i);
        auto sorted = chosen;
        std::ranges::sort(sorted, std::greater<>());
        std::vector<outgoing> out;
        for (auto const i : sorted) {
            auto const e = queue_.take(i);
            out.push_back(outgoing{e.slot, e.cost, e.depth, e.parent, {}});
        }
        send_tasks(a.rank, a.transfer ? task_origin::transfer : task_origin::steal, out);
        if (a.transfer) tell_moved(a.index, out.size());
        return true;
    }
    /// The task the manager named, if it is still queued (else: refused).
    void give_named(ask const& a) {
        std::size_t given = 0;
        if (auto const at = queue_.find(a.task - 1)) {
            auto const e = queue_.take(*at);
            send_tasks(a.rank, task_origin::named, {outgoing{e.slot, e.cost, e.depth, e.parent, {}}});
            given = 1;
        }
        tell_moved(a.index, given);
    }
    void refuse(ask const& a) {
        if (a.transfer)
            tell_moved(a.index, 0);
        else
            send_tasks(a.rank, task_origin::steal, {});
    }
    void tell_moved(std::uint64_t to, std::size_t n) {
        if (estimates) report_queue(); // first, so that the manager's board is current when it hears
        wire_writer w;
        last_load_ = queue_.load() + counters.running;
        w.put(to).put(static_cast<std::uint64_t>(n)).put(last_load_);
        port_.send_master(kind::moved, w.view());
    }
    /// this_task::estimate(remaining) from a running body: reported at once
    /// when the manager places by estimates (nobody else reads it).
    bool revise(double remaining) override {
        if (!estimates) return false;
        set_running(remaining);
        report_queue(true);
        return true;
    }
    /// this_task::poll() from a running body: its messages, as between problems.
    void poll() override { maybe_poll(); }

    std::vector<ask> pending_;
    double last_load_ = 0.0;
    bool dirty_ = false; ///< the running task changed since the last queue report
    double running_estimate_ = -1.0, running_since_ = 0.0, own_units_ = 0.0, own_seconds_ = 0.0;
};

} // namespace loopsched::detail
