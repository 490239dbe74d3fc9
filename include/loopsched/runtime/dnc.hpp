// Divide and conquer's engine (seed 000, chapter 3): the manager and the
// workers, as two clients of the protocol core (runtime/core.hpp). Where work
// goes is the placement's decision (mapping/placement.hpp); this engine
// carries it out: worker lists at the start, cost-ordered local queues,
// inlining, waits that run queued tasks, transfers and steals.
//
// How a worker runs (the document's run-time, with explicit frames):
// - A queued task taken for dividing is divided; its subproblems become
//   queued tasks (some sent along the worker list at the start) and the
//   worker waits for their results. While it waits it runs tasks from its own
//   queue, nested on its stack (the document's deadlock-freedom argument:
//   a worker blocks only with an empty queue). A task taken for inlining is
//   solved by direct recursion: no subproblem of it is queued.
// Choices where the document is silent (docs/divide-and-conquer.md):
// - A worker waiting for results with an empty queue is idle: it reports (or
//   steals) and may be given a task, run on top of its stack (the argument
//   still holds: a task deeper in a stack started earlier).
// - Spilling (placement::spills): a worker asked for work while it recurses
//   inline with an empty queue answers at its next division, which it then
//   queues instead of inlining; the document refuses at once.
// - Messages are looked at every `poll_interval` while a worker recurses
//   (the document's alarm, every 4 s then); the clock is read every 1 to 64
//   problems, as their size asks (see tick()).
// - The cost measure's "sum of the queue" for the depth measure is the sum
//   of 2^-depth (a subtree's share of a balanced binary tree).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/runtime/core.hpp>
#include <loopsched/runtime/dnc_manager.hpp>
#include <loopsched/runtime/payload.hpp>
#include <loopsched/runtime/profile.hpp>
#include <loopsched/this_task.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loopsched::detail {

// ---------------------------------------------------------------- worker

/// A worker: its queue, its frames (divided problems waiting for their
/// subproblems' results) and the recursion. Ops: is_leaf, solve, divide,
/// combine and optionally cost, as divide_and_conquer documents.
template <Transport T, class Ops, class Problem, class Result>
class dnc_worker : private estimate_listener {
public:
    static constexpr worker_hooks hooks{.waited = true};

    dnc_worker(worker_port<T>& port, rank_profile& profile, task_decisions const& placement, dnc_settings const& ds,
               Ops& ops)
            : port_(port), profile_(profile), placement_(placement), ds_(ds), ops_(ops),
              self_(static_cast<std::size_t>(port.settings().index_of(port.rank()))),
              workers_(port.settings().workers()), random_(static_cast<std::uint32_t>(port.rank()) * 7919u + 17u),
              estimates_(placement.estimates() != nullptr) {
        mine_.rank = port.rank();
        stats_.rank = port.rank();
        speed_ = [&] {
            auto const s = profile.status();
            return s.power / s.run_queue;
        }();
    }

    // ---- the protocol core's client

    void on_work(message_view m) {
        wire_reader r(m.payload);
        bool const stolen = r.get<std::uint8_t>() != 0;
        auto const n = r.get<std::uint64_t>();
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const h = r.get<dnc_task_header>();
            for (std::uint64_t j = 0; j < h.list; ++j) coworkers_.push_back(r.get<placed_worker>());
            if (measure_ == cost_measure::unknown) measure_ = static_cast<cost_measure>(h.measure);
            queue_.push_back(entry{from_bytes<Problem>(r.get_raw(static_cast<std::size_t>(h.bytes))), h.cost,
                                   next_order_++, h.depth, h.parent});
            load_ += queue_weight(h.cost, measure_);
        }
        if (n > 0) {
            received_ += n;
            stats_.received += n;
            idle_reported_ = false;
        }
        if (stolen) steal_out_ = false;
        started_ = true;
    }

    [[nodiscard]] bool can_step() const noexcept { return !stopped_ && (!queue_.empty() || wants_to_announce()); }
    [[nodiscard]] bool poll_after_step() const noexcept { return true; }

    /// One queued task from the top of the stack (or, with none, tells the
    /// manager it is idle, or sends a thief out).
    double step() {
        if (!queue_.empty()) {
            double const before = port_.now();
            double const idle_before = stats_.idle_seconds;
            run_next();
            maybe_report();
            mine_.compute_seconds += port_.now() - before - (stats_.idle_seconds - idle_before);
        }
        if (queue_.empty()) go_idle();
        return port_.now();
    }

    void on_message(kind what, message_view m) {
        wire_reader r(m.payload);
        switch (what) {
        case kind::reply: {
            auto const id = r.get<std::uint64_t>();
            auto const index = r.get<std::uint32_t>();
            fill(id, index, from_bytes<Result>(r.get_raw(r.remaining())));
            break;
        }
        case kind::transfer: {
            auto const t = r.get<dnc_transfer>();
            answer(ask{true, static_cast<int>(t.to_rank), t.to_index, t.task});
            break;
        }
        case kind::steal: answer(ask{false, m.source, 0}); break;
        default:
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " at a divide-and-conquer worker");
        }
    }
    void waited(double seconds) noexcept { stats_.idle_seconds += seconds; }

    worker_statistics statistics(double) {
        stopped_ = true; // the report: steal answers arriving late are dropped
        mine_.iterations = static_cast<index_t>(stats_.nodes);
        mine_.chunks = static_cast<index_t>(stats_.tasks);
        mine_.wait_seconds = stats_.idle_seconds;
        results_.clear();
        results_.add_written(0, 0, [&](std::vector<std::byte>& out) {
            auto const b = std::as_bytes(std::span(&stats_, 1));
            out.insert(out.end(), b.begin(), b.end());
        });
        return mine_;
    }
    [[nodiscard]] result_blocks& results() noexcept { return results_; }
    [[nodiscard]] std::span<chunk_event const> trace() const noexcept { return trace_; }

private:
    struct entry {
        Problem problem;
        double cost = 0.0;
        std::uint64_t order = 0;
        std::uint32_t depth = 0;
        result_address parent;
        bool fresh = false; ///< created here and not yet reported (placing by estimates)
    };
    /// A divided problem waiting for its subproblems' results (on the stack of run_divided).
    struct frame {
        std::vector<Result> results;
        std::vector<char> filled;
        std::size_t missing = 0;
    };
    /// A request for work: a transfer from the manager, or a thief's steal.
    struct ask {
        bool transfer = false;
        int rank = 0;            ///< who receives
        std::uint64_t index = 0; ///< its worker index (transfer)
        std::uint64_t task = 0;  ///< the task the manager names: its order + 1 (0: the placement chooses)
    };

    // ---- running tasks

    /// Takes the placement's next queued task and runs it; its result goes to its parent.
    void run_next() {
        bool const dividing = !coworkers_.empty() || placement_.divides(queue_.size(), workers_);
        std::size_t const at = placement_.next(view(), dividing);
        entry t = take(at);
        ++stats_.tasks;
        if (estimates_) set_running(queue_weight(t.cost, measure_));
        Result r = dividing ? run_divided_task(t) : run_inlined_task(t);
        if (estimates_) set_running(-1.0);
        deliver(t.parent, std::move(r));
    }

    Result run_inlined_task(entry const& t) {
        ++stats_.inlined;
        double const start = port_.now();
        std::uint64_t const nodes = stats_.nodes, traced_before = traced_nested_;
        ++inlining_;
        double const weight = queue_weight(t.cost, measure_);
        running_ += weight; // work in hand too: the manager looks for large inlined subtrees to spill
        std::optional<Result> r;
        profile_.run([&] { r.emplace(recurse(t.problem, t.depth)); });
        running_ -= weight;
        if (--inlining_ == 0) {
            running_ = 0.0;
            refuse_pending();
        }
        // A spill inside this recursion may run other inlined tasks here; their
        // events count their own nodes, so this event counts only the rest.
        std::uint64_t const under = stats_.nodes - nodes, nested = traced_nested_ - traced_before;
        traced_nested_ = traced_before + under;
        if (port_.settings().trace)
            trace_.push_back({port_.rank(), static_cast<index_t>(t.order), static_cast<index_t>(under - nested), start,
                              port_.now()});
        return std::move(*r);
    }

    Result run_divided_task(entry const& t) {
        tick();
        listening const listen(estimates_ ? this : nullptr); // this_task::estimate() from the body
        double const weight = queue_weight(t.cost, measure_), start = port_.now();
        if (ops_.is_leaf(t.problem)) {
            if (!coworkers_.empty() && queue_.empty()) return_coworkers();
            Result r;
            profile_.run([&] { r = ops_.solve(t.problem); });
            account(weight, port_.now() - start);
            return r;
        }
        std::vector<Problem> children;
        profile_.run([&] { children = divide(t.problem); });
        dividing_weight_ = weight;
        divide_seconds_ = port_.now() - start;
        return run_divided(t.problem, t.depth, std::move(children));
    }

    /// Direct recursion (inlining): no subproblem is queued, unless a request
    /// for work is pending and the placement spills.
    Result recurse(Problem const& p, std::uint32_t depth) {
        tick();
        if (ops_.is_leaf(p)) return ops_.solve(p);
        auto&& range = ops_.divide(p);
        if (!pending_.empty()) return run_divided(p, depth, to_vector(std::forward<decltype(range)>(range))); // spill
        // Inline, as the plain recursion: the subproblems straight from the
        // user's range, the results on the stack (no allocation for up to 8).
        boost::container::small_vector<Result, 8> results;
        for (auto&& c : range) results.push_back(recurse(c, depth + 1));
        return ops_.combine(p, std::span<Result>(results.data(), results.size()));
    }

    /// A divided problem: subproblems to the list's workers and the queue,
    /// then a wait that runs queued tasks.
    Result run_divided(Problem const& p, std::uint32_t depth, std::vector<Problem> children) {
        if (measure_ == cost_measure::unknown) choose_measure(p, children);
        std::uint64_t const id = next_frame_++;
        frame f;
        f.results.resize(children.size());
        f.filled.assign(children.size(), 0);
        f.missing = children.size();
        frames_.emplace(id, &f);
        std::vector<double> costs(children.size());
        for (std::size_t i = 0; i < children.size(); ++i) costs[i] = cost_of(children[i], depth + 1);
        if (dividing_weight_ >= 0.0) { // the node's own work: its estimate less its subproblems'
            double subproblems = 0.0;
            for (double c : costs) subproblems += queue_weight(c, measure_);
            account(std::max(0.0, dividing_weight_ - subproblems), divide_seconds_);
            dividing_weight_ = -1.0;
        }
        std::vector<std::size_t> by_cost(children.size());
        for (std::size_t i = 0; i < by_cost.size(); ++i) by_cost[i] = i;
        std::ranges::stable_sort(by_cost, [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
        std::size_t placed = 1; // the costliest stays
        if (!coworkers_.empty() && children.size() > 1) {
            std::vector<placed_worker> list{placed_worker{self_, speed_}};
            list.insert(list.end(), coworkers_.begin(), coworkers_.end());
            auto const lists = placement_.split(list, children.size());
            coworkers_.clear();
            for (auto const& w : lists.front())
                if (w.index != self_) coworkers_.push_back(w);
            for (std::size_t l = 1; l < lists.size() && placed < children.size(); ++l, ++placed) {
                std::size_t const c = by_cost[placed];
                send_tasks(port_.settings().worker_ranks[lists[l].front().index], false,
                           {outgoing{&children[c], costs[c], depth + 1,
                                     result_address{port_.rank(), static_cast<std::uint32_t>(c), id},
                                     std::span(lists[l]).subspan(1)}});
            }
        }
        for (std::size_t i = 0; i < by_cost.size(); ++i) {
            if (i >= 1 && i < placed) continue; // sent along a list
            std::size_t const c = by_cost[i];
            queue_.push_back(entry{std::move(children[c]), costs[c], next_order_++, depth + 1,
                                   result_address{port_.rank(), static_cast<std::uint32_t>(c), id}, estimates_});
            load_ += queue_weight(costs[c], measure_);
        }
        if (estimates_) report_queue(); // new tasks: the manager places them now
        answer_pending();
        wait_for(f);
        frames_.erase(id);
        Result r;
        profile_.run([&] { r = ops_.combine(p, std::span<Result>(f.results)); });
        return r;
    }

    /// Runs queued tasks until `f` has every result; idle (reporting or
    /// stealing) when the queue is empty.
    void wait_for(frame const& f) {
        while (f.missing > 0) {
            if (!queue_.empty()) {
                run_next();
                maybe_report();
                maybe_poll();
                continue;
            }
            go_idle();
            port_.pump(true);
        }
    }

    // ---- results

    void deliver(result_address const& to, Result r) {
        if (to.rank == port_.rank()) return fill(to.frame, to.index, std::move(r));
        scratch_.clear();
        write_values(scratch_, std::span<Result const>(&r, 1));
        wire_writer w;
        if (to.rank < 0) {
            port_.send_master(kind::solution, w.put_raw(scratch_).view());
            stopped_ = true; // nothing more goes to the manager: it stops every worker now
        } else {
            w.put(to.frame).put(to.index).put_raw(scratch_);
            port_.send_rank(to.rank, kind::reply, std::move(w).take());
        }
    }
    void fill(std::uint64_t id, std::uint32_t index, Result r) {
        auto it = frames_.find(id);
        if (it == frames_.end() || index >= it->second->results.size() || it->second->filled[index])
            throw error("loopsched: protocol: a result nobody waits for (frame " + std::to_string(id) + ")");
        frame& f = *it->second;
        f.results[index] = std::move(r);
        f.filled[index] = 1;
        --f.missing;
    }

    // ---- the queue

    std::vector<queued_task> const& view() {
        view_.clear();
        for (auto const& e : queue_) view_.push_back({e.cost, e.order});
        return view_;
    }
    entry take(std::size_t at) {
        entry e = std::move(queue_[at]);
        queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(at));
        load_ -= queue_weight(e.cost, measure_);
        if (queue_.empty()) load_ = 0.0; // no drift from the sums
        return e;
    }

    std::vector<Problem> divide(Problem const& p) { return to_vector(ops_.divide(p)); }
    template <class Range>
    static std::vector<Problem> to_vector(Range&& range) {
        if constexpr (std::same_as<Range, std::vector<Problem>>) { // a vector returned by value: taken as it is
            return std::move(range);
        } else {
            std::vector<Problem> out;
            for (auto&& c : range) out.push_back(static_cast<Problem>(c));
            return out;
        }
    }

    void choose_measure(Problem const& p, std::vector<Problem> const& children) {
        if constexpr (requires { ops_.cost(p); })
            measure_ = cost_measure::user;
        else if (!children.empty() && to_bytes(children.front()).size() != to_bytes(p).size())
            measure_ = cost_measure::size;
        else
            measure_ = cost_measure::depth;
    }
    double cost_of(Problem const& p, std::uint32_t depth) {
        switch (measure_) {
        case cost_measure::user:
            if constexpr (requires { ops_.cost(p); }) return static_cast<double>(ops_.cost(p));
            break;
        case cost_measure::size: return static_cast<double>(to_bytes(p).size());
        default: break;
        }
        return -static_cast<double>(depth);
    }

    // ---- requests for work

    /// Gives what the placement allows; a worker recursing inline defers
    /// (then spills at its next division) if the placement spills; else refuses.
    void answer(ask const& a) {
        if (stopped_) return;
        if (a.task != 0) return give_named(a);
        if (try_give(a)) return;
        if (placement_.spills() && inlining_ > 0) {
            pending_.push_back(a);
            return;
        }
        refuse(a);
    }
    bool try_give(ask const& a) {
        auto const chosen = placement_.give(view(), inlining_ > 0 || !frames_.empty());
        if (chosen.empty()) return false;
        std::vector<entry> given;
        auto sorted = chosen;
        std::ranges::sort(sorted, std::greater<>());
        for (auto const i : sorted) given.push_back(take(i));
        std::vector<outgoing> out;
        for (auto const& e : given) out.push_back(outgoing{&e.problem, e.cost, e.depth, e.parent, {}});
        send_tasks(a.rank, !a.transfer, out);
        if (a.transfer) tell_moved(a.index, given.size());
        return true;
    }
    /// The task the manager named, if it is still queued (else: refused).
    void give_named(ask const& a) {
        auto const it = std::ranges::find(queue_, a.task - 1, &entry::order);
        std::size_t given = 0;
        if (it != queue_.end()) {
            entry const e = take(static_cast<std::size_t>(it - queue_.begin()));
            send_tasks(a.rank, false, {outgoing{&e.problem, e.cost, e.depth, e.parent, {}}});
            given = 1;
        }
        tell_moved(a.index, given);
    }
    void refuse(ask const& a) {
        if (a.transfer)
            tell_moved(a.index, 0);
        else
            send_tasks(a.rank, true, {});
    }
    void answer_pending() {
        auto asks = std::move(pending_);
        pending_.clear();
        for (auto const& a : asks)
            if (!try_give(a)) refuse(a);
    }
    void refuse_pending() {
        auto asks = std::move(pending_);
        pending_.clear();
        for (auto const& a : asks) refuse(a);
    }
    void tell_moved(std::uint64_t to, std::size_t n) {
        if (estimates_) report_queue(); // first, so that the manager's board is current when it hears
        wire_writer w;
        last_load_ = load_ + running_;
        w.put(to).put(static_cast<std::uint64_t>(n)).put(last_load_);
        port_.send_master(kind::moved, w.view());
    }

    struct outgoing {
        Problem const* problem;
        double cost;
        std::uint32_t depth;
        result_address parent;
        std::span<placed_worker const> list;
    };
    /// Tasks to another worker in one message (none: a refused steal).
    void send_tasks(int rank, bool steal_answer, std::vector<outgoing> const& tasks) {
        wire_writer w;
        w.put(static_cast<std::uint8_t>(steal_answer)).put(static_cast<std::uint64_t>(tasks.size()));
        for (auto const& t : tasks) {
            scratch_.clear();
            write_values(scratch_, std::span<Problem const>(t.problem, 1));
            dnc_task_header h;
            h.parent = t.parent;
            h.cost = t.cost;
            h.depth = t.depth;
            h.measure = static_cast<std::uint8_t>(measure_);
            h.list = t.list.size();
            h.bytes = scratch_.size();
            w.put(h);
            for (auto const& x : t.list) w.put(x);
            w.put_raw(scratch_);
        }
        stats_.given += tasks.size();
        if (rank == port_.rank()) throw error("loopsched: protocol: tasks sent to the worker that holds them");
        port_.send_rank(rank, kind::work, std::move(w).take());
    }

    // ---- idle

    [[nodiscard]] bool wants_to_announce() const noexcept {
        if (placement_.when_idle() == idle_action::steal) return started_ && !steal_out_ && workers_ > 1;
        return !idle_reported_;
    }
    /// Nothing to run: pending asks are refused, unused workers go back, and
    /// the manager is told (or a random victim asked).
    void go_idle() {
        if (stopped_) return;
        refuse_pending();
        if (!coworkers_.empty()) return_coworkers();
        if (placement_.when_idle() == idle_action::steal) {
            if (!started_ || steal_out_ || workers_ < 2) return;
            std::uniform_int_distribution<std::size_t> pick(0, workers_ - 2);
            std::size_t victim = pick(random_);
            if (victim >= self_) ++victim;
            steal_out_ = true;
            ++stats_.steals;
            port_.send_rank(port_.settings().worker_ranks[victim], kind::steal, {});
        } else if (!idle_reported_) {
            idle_reported_ = true;
            results_.clear();
            port_.request(profile_.status(), chunk_timing{static_cast<index_t>(received_), 0.0, 0.0}, results_);
        }
    }
    void return_coworkers() {
        wire_writer w;
        w.put(info_unused_workers).put(static_cast<std::uint64_t>(coworkers_.size()));
        for (auto const& c : coworkers_) w.put(static_cast<std::uint64_t>(c.index));
        coworkers_.clear();
        port_.send_master(kind::info, w.view());
    }

    // ---- reports when the manager places by estimates

    /// The running task's estimate (cost units; < 0: none) as of now.
    void set_running(double weight) {
        running_estimate_ = weight;
        running_since_ = port_.now();
        dirty_ = true;
    }
    /// this_task::estimate(remaining) from a running body: reported at once.
    void revise(double remaining) override {
        set_running(remaining);
        report_queue(true);
    }
    void account(double units, double seconds) {
        if (units <= 0.0) return;
        own_units_ += units;
        own_seconds_ += seconds * speed_;
    }
    void maybe_report() {
        if (estimates_ && dirty_ && port_.now() - informed_ >= ds_.info_period) report_queue();
    }
    /// The queue and running task to the manager: the new tasks and the
    /// cheapest others listed, the rest summed; new tasks are new no more.
    void report_queue(bool revised = false) {
        if (stopped_ || workers_ < 2) return;
        double const now = port_.now();
        listed_.clear();
        old_.clear();
        for (std::size_t i = 0; i < queue_.size(); ++i) (queue_[i].fresh ? listed_ : old_).push_back(i);
        dnc_queue_report h{running_estimate_, now - running_since_, own_units_, own_seconds_};
        if (old_.size() > listed_old_tasks) {
            auto const cheap = [&](std::size_t a, std::size_t b) { return queue_[a].cost < queue_[b].cost; };
            std::ranges::nth_element(old_, old_.begin() + static_cast<std::ptrdiff_t>(listed_old_tasks), cheap);
            for (std::size_t i = listed_old_tasks; i < old_.size(); ++i)
                h.unlisted += queue_weight(queue_[old_[i]].cost, measure_);
            h.unlisted_count = old_.size() - listed_old_tasks;
            old_.resize(listed_old_tasks);
        }
        listed_.insert(listed_.end(), old_.begin(), old_.end());
        h.tasks = listed_.size();
        h.revised = revised ? 1 : 0;
        wire_writer w;
        w.put(info_queue).put(h);
        for (auto const i : listed_) {
            auto& e = queue_[i];
            dnc_reported_task t;
            t.order = e.order;
            t.cost = queue_weight(e.cost, measure_);
            if (measure_ == cost_measure::size)
                t.bytes = e.cost;
            else if constexpr (std::is_trivially_copyable_v<Problem>)
                t.bytes = static_cast<double>(sizeof(Problem));
            t.fresh = e.fresh ? 1 : 0;
            e.fresh = false;
            w.put(t);
        }
        port_.send_master(kind::info, w.view());
        informed_ = now;
        dirty_ = false;
    }

    // ---- polling while recursing

    /// A problem handled. The clock is read every `stride_` problems: the
    /// stride halves when a reading finds the poll interval passed (coarse
    /// problems: every problem) and doubles, up to 64, when not (a clock
    /// reading costs as much as a tiny problem).
    void tick() {
        ++stats_.nodes;
        if (++ticks_ < stride_) return;
        ticks_ = 0;
        if (port_.now() - polled_ >= port_.settings().poll_interval) {
            stride_ = std::max<std::uint32_t>(1, stride_ / 2);
            maybe_poll();
        } else {
            stride_ = std::min<std::uint32_t>(64, stride_ * 2);
        }
    }
    void maybe_poll() {
        double const now = port_.now();
        if (now - polled_ < port_.settings().poll_interval) return;
        polled_ = now;
        port_.pump(false);
        maybe_report();
        if (placement_.balances() && load_ + running_ != last_load_ && now - informed_ >= ds_.info_period) {
            informed_ = now;
            last_load_ = load_ + running_;
            wire_writer w;
            w.put(info_load).put(last_load_);
            port_.send_master(kind::info, w.view());
        }
    }

    worker_port<T>& port_;
    rank_profile& profile_;
    task_decisions const& placement_;
    dnc_settings const& ds_;
    Ops& ops_;
    std::size_t self_, workers_;
    double speed_ = 1.0;
    std::minstd_rand random_;
    cost_measure measure_ = cost_measure::unknown;
    std::vector<entry> queue_;
    std::vector<queued_task> view_;
    std::vector<placed_worker> coworkers_;
    std::unordered_map<std::uint64_t, frame*> frames_;
    std::vector<ask> pending_;
    std::vector<std::byte> scratch_;
    std::uint64_t next_order_ = 0, next_frame_ = 0, received_ = 0;
    std::uint32_t ticks_ = 0, stride_ = 1;
    int inlining_ = 0;
    std::uint64_t traced_nested_ = 0; ///< nodes of inlined tasks finished so far, for nested trace events
    double load_ = 0.0, running_ = 0.0, last_load_ = 0.0, polled_ = 0.0, informed_ = -1e300;
    // load_: the queue's summed weight; running_: the inlined task's; what the manager hears is their sum
    bool idle_reported_ = true, steal_out_ = false, stopped_ = false; // the hello is the first report
    bool started_ = false; ///< the manager's first word arrived: every rank is in the run
    bool const estimates_; ///< the manager places every task (task_decisions::estimates)
    bool dirty_ = false;   ///< the running task changed since the last queue report
    double running_estimate_ = -1.0, running_since_ = 0.0, own_units_ = 0.0, own_seconds_ = 0.0;
    double dividing_weight_ = -1.0, divide_seconds_ = 0.0;
    std::vector<std::size_t> listed_, old_; // report_queue's scratch
    worker_statistics mine_;
    dnc_worker_statistics stats_;
    result_blocks results_;
    std::vector<chunk_event> trace_;
};

} // namespace loopsched::detail
