// Divide and conquer's engine (Kazouris, chapter 3): the manager and the
// workers, as two clients of the protocol core (runtime/core/core.hpp). Where work
// goes is the placement's decision (mapping/placement.hpp); this engine
// carries it out: worker lists at the start, cost-ordered local queues,
// inlining, waits that run queued tasks, transfers and steals.
//
// How a worker runs (the document's run-time, with explicit frames):
// - A queued task taken for dividing is divided; its subproblems become
//   queued tasks (some sent along the worker list at the start) and the
//   divided problem becomes a continuation: its combine runs when the last
//   result is in, and meanwhile the worker runs any other task, so a queued
//   task never holds the stack (nor makes the worker wait). A task taken for
//   inlining is solved by direct recursion: no subproblem of it is queued,
//   unless it spills; a spilled problem waits on the stack, running only
//   deeper tasks meanwhile (see wait_for).
// Choices where the document is silent (docs/divide-and-conquer.md):
// - A worker waiting for results with an empty queue is idle: it reports (or
//   steals) and may be given a task, run on top of its stack (the argument
//   still holds: a task deeper in a stack started earlier).
// - Spilling (placement::spills): a worker asked for work while it recurses
//   inline with an empty queue answers at its next division, which it then
//   queues instead of inlining; the document refuses at once.
// - Messages are looked at every `poll_interval` while a worker recurses
//   (the document's alarm, every 4 s then); the clock is read every 1 to 64
//   problems, as their size asks (see tick() in dnc_recursion.hpp).
// - The cost measure's "sum of the queue" for the depth measure is the sum
//   of 2^-depth (a subtree's share of a balanced binary tree).
#pragma once

#include <loopsched/detail/stack.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/tasks/dnc_calls.hpp>
#include <loopsched/runtime/tasks/dnc_exchange.hpp>
#include <loopsched/runtime/tasks/dnc_manager.hpp>
#include <loopsched/runtime/tasks/dnc_queue.hpp>
#include <loopsched/runtime/tasks/dnc_recursion.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace loopsched::detail {

// ---------------------------------------------------------------- worker

/// A worker: the engine around the recursion over the user's types (the
/// only part typed on them, runtime/tasks/dnc_recursion.hpp), which it calls
/// once per queued task or message; so that the manager, the protocol core
/// and this worker are compiled once per transport, not once per user's
/// operations (runtime/tasks/dnc_driver.hpp).
template <Transport T>
class dnc_worker final : public dnc_exchange<T> {
    using base = dnc_exchange<T>;
    using typename base::outgoing;

public:
    /// `calls` makes the recursion over the user's types for this engine.
    dnc_worker(worker_port<T>& port, rank_profile& profile, task_decisions const& placement, dnc_settings const& ds,
               dnc_calls const& calls)
            : base(port, profile, placement, ds) {
        this->stack_left = stack_left_here(port.link().transport());
        this->rec_ = calls.make_recursion(static_cast<dnc_engine&>(*this));
        this->problem_bytes_ = this->rec_->fixed_problem_bytes();
    }

    [[nodiscard]] bool can_step() noexcept {
        return !this->stopped_ && (!this->queue_.empty() || this->rec_->has_completed() || wants_to_announce());
    }

    /// One queued task from the top of the stack (or, with none, tells the
    /// manager it is idle, or sends a thief out).
    double step() {
        auto& port = this->port_;
        if (!this->queue_.empty() || this->rec_->has_completed()) {
            double const before = port.now();
            double const idle_before = this->stats.idle_seconds;
            if (!this->rec_->combine_completed()) run_next();
            this->maybe_report();
            this->mine_.compute_seconds += port.now() - before - (this->stats.idle_seconds - idle_before);
        }
        if (this->queue_.empty() && !this->rec_->has_completed()) go_idle();
        return port.now();
    }

    // ---- what the recursion asks (dnc_engine)

    [[nodiscard]] double now() override { return this->port_.now(); }
    [[nodiscard]] bool poll_if_due() override {
        if (this->port_.now() - this->polled_ < this->port_.settings().poll_interval) return false;
        this->maybe_poll();
        return true;
    }
    void run_slowed(void (*work)(void*), void* context) override {
        this->profile_.run([&] { work(context); });
    }
    [[nodiscard]] cost_measure measure() override { return this->queue_.measure(); }
    void set_measure(cost_measure m) override { this->queue_.set_measure(m); }
    void leaf_reached() override {
        if (!this->coworkers_.empty() && this->queue_.empty()) return_coworkers();
    }
    void divided_at(std::uint32_t depth) override {
        last_divided_ = depth;
        divided_any_ = true;
        this->answer_pending();
    }
    void trace_event(std::uint64_t order, std::uint64_t nodes, double start) override {
        this->trace_.push_back({this->port_.rank(), static_cast<index_t>(order), static_cast<index_t>(nodes), start,
                                this->port_.now()});
    }

    /// Sends the subproblems at `slots` along the worker list, as the
    /// placement splits it (the costliest stays), and queues the rest.
    void place(std::span<double const> costs, std::span<std::uint32_t const> slots, std::uint32_t depth,
               std::uint64_t frame) override {
        std::size_t const n = slots.size();
        std::vector<std::size_t> by_cost(n);
        for (std::size_t i = 0; i < n; ++i) by_cost[i] = i;
        std::ranges::stable_sort(by_cost, [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
        auto const address = [&](std::size_t c) {
            return result_address{this->port_.rank(), static_cast<std::uint32_t>(c), frame};
        };
        std::size_t placed = 1; // the costliest stays
        auto& coworkers = this->coworkers_;
        if (!coworkers.empty() && n > 1) {
            std::vector<placed_worker> list{placed_worker{this->self_, this->speed_}};
            list.insert(list.end(), coworkers.begin(), coworkers.end());
            auto const lists = this->placement_.split(list, n);
            coworkers.clear();
            for (auto const& w : lists.front())
                if (w.index != this->self_) coworkers.push_back(w);
            for (std::size_t l = 1; l < lists.size() && placed < n; ++l, ++placed) {
                std::size_t const c = by_cost[placed];
                this->send_tasks(this->port_.settings().worker_ranks[lists[l].front().index], task_origin::list,
                                 {outgoing{slots[c], costs[c], depth, address(c), std::span(lists[l]).subspan(1)}});
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (i >= 1 && i < placed) continue; // sent along a list
            std::size_t const c = by_cost[i];
            this->queue_.push(slots[c], costs[c], depth, address(c), this->estimates);
        }
        if (this->estimates) this->report_queue(); // new tasks: the manager places them now
    }

    /// Runs queued tasks deeper than `depth` (the waiting problem's) until
    /// `missing` is 0; idle (reporting or stealing) when none is queued.
    /// Only deeper tasks: so the problems waiting on this stack are ever
    /// deeper, and their number is bounded by the tree's depth, not by how
    /// many tasks arrive meanwhile (a task nobody may run here now still
    /// goes to whoever asks). No deadlock: the deepest waiting problem
    /// anywhere waits only for tasks deeper still, which whoever holds them
    /// may run.
    void wait_for(std::size_t const& missing, std::uint32_t depth) override {
        std::uint32_t const outer = floor_;
        floor_ = depth;
        ++waits_;
        this->stats.peak_waits = std::max<std::uint64_t>(this->stats.peak_waits, waits_);
        while (missing > 0) {
            if (this->rec_->combine_completed()) continue; // never waits, so always allowed
            if (this->queue_.has_deeper(depth)) {
                run_next();
                this->maybe_report();
                this->maybe_poll();
                continue;
            }
            go_idle();
            this->port_.pump(true);
        }
        --waits_;
        floor_ = outer;
    }

private:
    [[nodiscard]] bool runs_a_queued_task_next() const noexcept override {
        return waits_ > 0 ? this->queue_.has_deeper(floor_) : !this->queue_.empty();
    }

    /// Takes the placement's next queued task and runs it; its result goes to its parent.
    void run_next() {
        auto& queue = this->queue_;
        bool const dividing = !this->coworkers_.empty() || this->placement_.divides(queue.size(), this->workers_);
        // Spilled waits allow only deeper tasks. Otherwise tasks below the last
        // problem divided here come first when there are any (depth-first, so
        // the queue stays about the tree's depth times its degree; a largest-
        // first placement would otherwise open the tree level by level), and
        // any task when there are none (so the worker never idles with work).
        std::uint32_t const below = waits_ > 0 ? floor_ : last_divided_;
        bool const deeper = waits_ > 0 || (divided_any_ && queue.has_deeper(below));
        dnc_task const t = deeper ? queue.take_deeper(this->placement_.next(queue.view_deeper(below), dividing))
                                  : queue.take(this->placement_.next(queue.view(), dividing));
        ++this->stats.tasks;
        this->rec_->run(t, dividing);
    }

    /// The stack this worker's recursion may use: a simulated actor's (it runs
    /// on a stack of its own), else what the thread has left here.
    static std::size_t stack_left_here(T const& t) noexcept {
        std::size_t const actor = actor_stack_bytes_of(t);
        return actor > 0 ? actor - actor / 16 : thread_stack_left(); // less the simulator's own frames
    }

    // ---- idle

    [[nodiscard]] bool wants_to_announce() const noexcept {
        if (this->placement_.when_idle() == idle_action::steal)
            return this->started_ && !this->steal_out_ && this->workers_ > 1;
        return !this->idle_reported_;
    }
    /// Nothing to run: pending asks are refused, unused workers go back, and
    /// the manager is told (or a random victim asked).
    void go_idle() {
        if (this->stopped_) return;
        this->refuse_pending();
        if (!this->coworkers_.empty()) return_coworkers();
        if (this->placement_.when_idle() == idle_action::steal) {
            if (!this->started_ || this->steal_out_ || this->workers_ < 2) return;
            std::uniform_int_distribution<std::size_t> pick(0, this->workers_ - 2);
            std::size_t victim = pick(this->random_);
            if (victim >= this->self_) ++victim;
            this->steal_out_ = true;
            ++this->stats.steals;
            // A thief whose problem waits asks for what it may run: tasks deeper than that problem.
            wire_writer w;
            w.put(waits_ > 0 ? static_cast<std::int64_t>(floor_) : std::int64_t{-1}).put(this->speed_);
            this->port_.send_rank(this->port_.settings().worker_ranks[victim], kind::steal,
                                  copy_bytes(w.view()));
        } else if (!this->idle_reported_) {
            this->idle_reported_ = true;
            this->results_.clear();
            // The tasks received so far, and (an exact count in a double) how many of
            // them answered transfers: the manager compares it with the transfers it heard of.
            this->port_.request(
                    this->profile_.status(),
                    chunk_timing{static_cast<index_t>(this->received_), static_cast<double>(this->transferred_), 0.0},
                    this->results_);
        }
    }
    void return_coworkers() {
        wire_writer w;
        w.put(info_unused_workers).put(static_cast<std::uint64_t>(this->coworkers_.size()));
        for (auto const& c : this->coworkers_) w.put(static_cast<std::uint64_t>(c.index));
        this->coworkers_.clear();
        this->port_.send_master(kind::info, w.view());
    }

    std::uint32_t last_divided_ = 0; ///< the depth of the last queued task divided here (run_next prefers below it)
    bool divided_any_ = false;
    std::uint64_t waits_ = 0; ///< spilled problems waiting on this stack now (then only tasks deeper than floor_ run)
    std::uint32_t floor_ = 0; ///< the innermost waiting problem's depth
};

/// The worker client the core runs (runtime/core/worker_core.hpp): the
/// worker held in place, since its recursion keeps a reference to it.
template <Transport T>
class any_dnc_worker {
public:
    static constexpr worker_hooks hooks{.waited = true};

    explicit any_dnc_worker(std::unique_ptr<dnc_worker<T>> w) : w_(std::move(w)) {}

    void on_work(message_view m) { w_->on_work(m); }
    void on_message(kind what, message_view m) { w_->on_message(what, m); }
    void waited(double seconds) { w_->waited(seconds); }
    [[nodiscard]] bool can_step() { return w_->can_step(); }
    double step() { return w_->step(); }
    [[nodiscard]] bool poll_after_step() const noexcept { return true; }
    worker_statistics statistics(double stopped) { return w_->statistics(stopped); }
    [[nodiscard]] result_blocks& results() { return w_->results(); }
    [[nodiscard]] std::span<chunk_event const> trace() const { return w_->trace(); }

private:
    std::unique_ptr<dnc_worker<T>> w_;
};

} // namespace loopsched::detail
