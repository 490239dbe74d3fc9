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
//   problems, as their size asks (see tick()).
// - The cost measure's "sum of the queue" for the depth measure is the sum
//   of 2^-depth (a subtree's share of a balanced binary tree).
#pragma once

#include <loopsched/detail/stack.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/payload.hpp>
#include <loopsched/runtime/tasks/dnc_exchange.hpp>
#include <loopsched/runtime/tasks/dnc_manager.hpp>
#include <loopsched/runtime/tasks/dnc_queue.hpp>
#include <loopsched/this_task.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loopsched::detail {

// ---------------------------------------------------------------- worker

/// A worker as the engine sees it, whatever the user's types: one virtual call
/// per step or message (nothing per problem), so that the manager, the
/// protocol core and the run are compiled once per transport, not once per
/// user's operations (runtime/tasks/dnc_driver.hpp).
template <Transport T>
class dnc_worker_interface {
public:
    virtual ~dnc_worker_interface() = default;
    virtual void on_work(message_view m) = 0;
    virtual void on_message(kind what, message_view m) = 0;
    virtual void waited(double seconds) = 0;
    [[nodiscard]] virtual bool can_step() = 0;
    virtual double step() = 0;
    virtual worker_statistics statistics(double stopped) = 0;
    [[nodiscard]] virtual result_blocks& results() = 0;
    [[nodiscard]] virtual std::span<chunk_event const> trace() const = 0;
};

/// The worker client the core runs (runtime/core/worker_core.hpp): the worker
/// behind its interface.
template <Transport T>
class any_dnc_worker {
public:
    static constexpr worker_hooks hooks{.waited = true};

    explicit any_dnc_worker(std::unique_ptr<dnc_worker_interface<T>> w) : w_(std::move(w)) {}

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
    std::unique_ptr<dnc_worker_interface<T>> w_;
};

/// A worker: its recursion over the user's operations on top of the exchange.
/// Ops: is_leaf, solve, divide, combine and optionally cost, as
/// divide_and_conquer documents.
template <Transport T, class Ops, class Problem, class Result>
class dnc_worker final : public dnc_exchange<T, Problem, Result>, public dnc_worker_interface<T> {
    using base = dnc_exchange<T, Problem, Result>;
    using entry = typename dnc_queue<Problem>::entry;
    using frame = typename dnc_frames<Result>::frame;
    using typename base::outgoing;

public:
    dnc_worker(worker_port<T>& port, rank_profile& profile, task_decisions const& placement, dnc_settings const& ds,
               Ops& ops)
            : base(port, profile, placement, ds), ops_(ops), stack_(stack_left()) {}

    void on_work(message_view m) override { base::on_work(m); }
    void on_message(kind what, message_view m) override { base::on_message(what, m); }
    void waited(double seconds) override { base::waited(seconds); }
    worker_statistics statistics(double stopped) override { return base::statistics(stopped); }
    [[nodiscard]] result_blocks& results() override { return base::results(); }
    [[nodiscard]] std::span<chunk_event const> trace() const override { return base::trace(); }

    [[nodiscard]] bool can_step() noexcept override {
        return !this->stopped_ && (!this->queue_.empty() || !this->frames_.completed().empty() || wants_to_announce());
    }

    /// One queued task from the top of the stack (or, with none, tells the
    /// manager it is idle, or sends a thief out).
    double step() override {
        auto& port = this->port_;
        if (!this->queue_.empty() || !this->frames_.completed().empty()) {
            double const before = port.now();
            double const idle_before = this->stats_.idle_seconds;
            if (!combine_completed()) run_next();
            this->maybe_report();
            this->mine_.compute_seconds += port.now() - before - (this->stats_.idle_seconds - idle_before);
        }
        if (this->queue_.empty() && this->frames_.completed().empty()) go_idle();
        return port.now();
    }

private:
    // ---- running tasks

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
        entry t = deeper ? queue.take_deeper(this->placement_.next(queue.view_deeper(below), dividing))
                         : queue.take(this->placement_.next(queue.view(), dividing));
        ++this->stats_.tasks;
        if (this->estimates_) this->set_running(t.weight);
        std::optional<Result> r = dividing ? run_divided_task(t) : run_inlined_task(t);
        if (this->estimates_) this->set_running(-1.0);
        if (r) this->deliver(t.parent, std::move(*r));
    }

    /// Combines every continuation whose results are in and delivers its
    /// result; one delivered here may complete another, combined in turn.
    bool combine_completed() {
        auto& done = this->frames_.completed();
        if (done.empty()) return false;
        for (std::size_t i = 0; i < done.size(); ++i) { // deliver() may append
            std::uint64_t const id = done[i];
            auto node = continuations_.extract(id);
            this->frames_.close(id);
            continuation& c = *node.mapped();
            Result r;
            this->profile_.run([&] { r = ops_.combine(c.problem, std::span<Result>(c.f.results)); });
            this->deliver(c.parent, std::move(r));
        }
        done.clear();
        return true;
    }

    Result run_inlined_task(entry const& t) {
        auto& port = this->port_;
        ++this->stats_.inlined;
        double const start = port.now();
        std::uint64_t const nodes = this->stats_.nodes, traced_before = traced_nested_;
        ++this->inlining_;
        double const weight = t.weight;
        this->running_ += weight; // work in hand too: the manager looks for large inlined subtrees to spill
        std::optional<Result> r;
        listening const listen(this->listener()); // this_task::poll() from a leaf of the recursion
        this->profile_.run([&] { r.emplace(recurse(t.problem, t.depth)); });
        this->running_ -= weight;
        if (--this->inlining_ == 0) {
            this->running_ = 0.0;
            this->refuse_pending();
        }
        // A spill inside this recursion may run other inlined tasks here; their
        // events count their own nodes, so this event counts only the rest.
        std::uint64_t const under = this->stats_.nodes - nodes, nested = traced_nested_ - traced_before;
        traced_nested_ = traced_before + under;
        if (port.settings().trace)
            this->trace_.push_back({port.rank(), static_cast<index_t>(t.order), static_cast<index_t>(under - nested),
                                    start, port.now()});
        return std::move(*r);
    }

    /// A queued task run as one node (a leaf solved, or a division): its own
    /// trace event, which an enclosing inlined task's event does not count again.
    void trace_node(entry const& t, double start) {
        if (!this->port_.settings().trace) return;
        ++traced_nested_;
        this->trace_.push_back({this->port_.rank(), static_cast<index_t>(t.order), 1, start, this->port_.now()});
    }

    /// A leaf's result; a divided task's comes later, from its continuation.
    std::optional<Result> run_divided_task(entry& t) {
        tick();
        listening const listen(this->listener()); // this_task::estimate() and poll() from the body
        double const weight = t.weight, start = this->port_.now();
        if (ops_.is_leaf(t.problem)) {
            if (!this->coworkers_.empty() && this->queue_.empty()) return_coworkers();
            Result r;
            this->solving_ = true;
            this->profile_.run([&] { r = ops_.solve(t.problem); });
            this->solving_ = false;
            this->account(weight, this->port_.now() - start);
            trace_node(t, start);
            return r;
        }
        std::vector<Problem> children;
        this->profile_.run([&] { children = divide(t.problem); });
        dividing_weight_ = weight;
        divide_seconds_ = this->port_.now() - start;
        trace_node(t, start);
        if (t.depth >= max_continuation_depth)
            throw error("loopsched: divide_and_conquer: the tree is deeper than a worker may hold: at depth " +
                        std::to_string(t.depth) + " its divided tasks wait for their subproblems off the stack, " +
                        "one frame each, and past 2^18 levels they would exhaust memory long before the end; " +
                        "divide into fewer levels");
        auto c = std::make_unique<continuation>(std::move(t.problem), t.parent);
        c->f.continuation = true;
        std::uint64_t const id = spread(c->problem, t.depth, children, c->f);
        if (children.empty()) { // nothing to wait for: combined now
            this->frames_.close(id);
            Result r;
            this->profile_.run([&] { r = ops_.combine(c->problem, std::span<Result>(c->f.results)); });
            return r;
        }
        continuations_.emplace(id, std::move(c));
        last_divided_ = t.depth;
        divided_any_ = true;
        this->answer_pending();
        return std::nullopt;
    }

    /// Direct recursion (inlining): no subproblem is queued, unless a request
    /// for work is pending and the placement spills.
    Result recurse(Problem const& p, std::uint32_t depth) {
        tick();
        if (stack_.exceeded()) too_deep(depth);
        if (ops_.is_leaf(p)) return ops_.solve(p);
        auto&& range = ops_.divide(p);
        if (this->has_pending()) return run_divided(p, depth, to_vector(std::forward<decltype(range)>(range))); // spill
        // Inline, as the plain recursion: the subproblems straight from the
        // user's range, the results on the stack (no allocation for up to 8).
        // A sized range's results are made first and assigned: GCC 12 then
        // sees every element the combine reads initialised (with push_back
        // it warns that they may not be, at -O2, once this is inlined).
        boost::container::small_vector<Result, 8> results;
        if constexpr (std::ranges::sized_range<decltype(range)>) {
            results.resize(static_cast<std::size_t>(std::ranges::size(range)));
            std::size_t i = 0;
            for (auto&& c : range) results[i++] = recurse(c, depth + 1);
        } else {
            for (auto&& c : range) results.push_back(recurse(c, depth + 1));
        }
        return ops_.combine(p, std::span<Result>(results.data(), results.size()));
    }

    /// A problem spilled from an inline recursion: its subproblems spread,
    /// then a wait on the stack (the recursion needs the result to go on).
    Result run_divided(Problem const& p, std::uint32_t depth, std::vector<Problem> children) {
        if (stack_.exceeded()) too_deep(depth);
        frame f;
        std::uint64_t const id = spread(p, depth, children, f);
        this->answer_pending();
        wait_for(f, depth);
        this->frames_.close(id);
        Result r;
        this->profile_.run([&] { r = ops_.combine(p, std::span<Result>(f.results)); });
        return r;
    }

    /// Opens `f` for p's subproblems and sends them along the worker list
    /// or queues them; the frame's id.
    std::uint64_t spread(Problem const& p, std::uint32_t depth, std::vector<Problem>& children, frame& f) {
        auto& queue = this->queue_;
        if (queue.measure() == cost_measure::unknown) choose_measure(p, children);
        std::uint64_t const id = this->frames_.open(f, children.size());
        std::vector<double> costs(children.size());
        for (std::size_t i = 0; i < children.size(); ++i) costs[i] = cost_of(children[i], depth + 1);
        double subproblems = 0.0;
        for (double c : costs) subproblems += queue.weight(c);
        if (dividing_weight_ >= 0.0) { // the node's own work: its estimate less its subproblems'
            this->account(std::max(0.0, dividing_weight_ - subproblems), divide_seconds_);
            dividing_weight_ = -1.0;
        }
        // The running task's estimate counted this subtree; from now on its
        // subproblems do, queued or sent. Else the manager's board would count
        // the work twice and place tasks away from a worker that has half of it.
        this->shed_running(subproblems);
        std::vector<std::size_t> by_cost(children.size());
        for (std::size_t i = 0; i < by_cost.size(); ++i) by_cost[i] = i;
        std::ranges::stable_sort(by_cost, [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
        std::size_t placed = 1; // the costliest stays
        auto& coworkers = this->coworkers_;
        if (!coworkers.empty() && children.size() > 1) {
            std::vector<placed_worker> list{placed_worker{this->self_, this->speed_}};
            list.insert(list.end(), coworkers.begin(), coworkers.end());
            auto const lists = this->placement_.split(list, children.size());
            coworkers.clear();
            for (auto const& w : lists.front())
                if (w.index != this->self_) coworkers.push_back(w);
            for (std::size_t l = 1; l < lists.size() && placed < children.size(); ++l, ++placed) {
                std::size_t const c = by_cost[placed];
                this->send_tasks(this->port_.settings().worker_ranks[lists[l].front().index], task_origin::list,
                                 {outgoing{&children[c], costs[c], depth + 1,
                                           result_address{this->port_.rank(), static_cast<std::uint32_t>(c), id},
                                           std::span(lists[l]).subspan(1)}});
            }
        }
        for (std::size_t i = 0; i < by_cost.size(); ++i) {
            if (i >= 1 && i < placed) continue; // sent along a list
            std::size_t const c = by_cost[i];
            queue.push(std::move(children[c]), costs[c], depth + 1,
                       result_address{this->port_.rank(), static_cast<std::uint32_t>(c), id}, this->estimates_);
        }
        if (this->estimates_) this->report_queue(); // new tasks: the manager places them now
        return id;
    }

    /// Runs queued tasks deeper than `depth` (the waiting problem's) until `f`
    /// has every result; idle (reporting or stealing) when none is queued.
    /// Only deeper tasks: so the problems waiting on this stack are ever
    /// deeper, and their number is bounded by the tree's depth, not by how
    /// many tasks arrive meanwhile (a task nobody may run here now still
    /// goes to whoever asks). No deadlock: the deepest waiting problem
    /// anywhere waits only for tasks deeper still, which whoever holds them
    /// may run.
    void wait_for(frame const& f, std::uint32_t depth) {
        std::uint32_t const outer = floor_;
        floor_ = depth;
        ++waits_;
        this->stats_.peak_waits = std::max<std::uint64_t>(this->stats_.peak_waits, waits_);
        while (f.missing > 0) {
            if (combine_completed()) continue; // never waits, so always allowed
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

    /// The stack this worker's recursion may use: a simulated actor's (it runs
    /// on a stack of its own), else what the thread has left here.
    static std::size_t stack_left() noexcept {
        if constexpr (requires { T::actor_stack_bytes; })
            return T::actor_stack_bytes - T::actor_stack_bytes / 16; // less the simulator's own frames
        else
            return thread_stack_left();
    }
    [[noreturn]] void too_deep(std::uint32_t depth) const {
        throw error("loopsched: divide_and_conquer: the tree is deeper than a worker's stack allows: at depth " +
                    std::to_string(depth) + " the recursion has used its " + std::to_string(stack_.usable() / 1024) +
                    " KiB; raise the stack limit (ulimit -s; a simulated actor's is set in transport/simgrid.hpp) "
                    "or divide into fewer levels");
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
            this->queue_.set_measure(cost_measure::user);
        else if (!children.empty() && byte_size(children.front()) != byte_size(p))
            this->queue_.set_measure(cost_measure::size);
        else
            this->queue_.set_measure(cost_measure::depth);
    }
    double cost_of(Problem const& p, std::uint32_t depth) {
        switch (this->queue_.measure()) {
        case cost_measure::user:
            if constexpr (requires { ops_.cost(p); }) return static_cast<double>(ops_.cost(p));
            break;
        case cost_measure::size: return static_cast<double>(byte_size(p));
        default: break;
        }
        return -static_cast<double>(depth);
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
            ++this->stats_.steals;
            // A thief whose problem waits asks for what it may run: tasks deeper than that problem.
            wire_writer w;
            w.put(waits_ > 0 ? static_cast<std::int64_t>(floor_) : std::int64_t{-1});
            this->port_.send_rank(this->port_.settings().worker_ranks[victim], kind::steal,
                                  bytes(w.view().begin(), w.view().end()));
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

    /// A problem handled. The clock is read every `stride_` problems: the
    /// stride halves when a reading finds the poll interval passed (coarse
    /// problems: every problem) and doubles, up to 64, when not (a clock
    /// reading costs as much as a tiny problem).
    void tick() {
        ++this->stats_.nodes;
        if (++ticks_ < stride_) return;
        ticks_ = 0;
        if (this->port_.now() - this->polled_ >= this->port_.settings().poll_interval) {
            stride_ = std::max<std::uint32_t>(1, stride_ / 2);
            this->maybe_poll();
        } else {
            stride_ = std::min<std::uint32_t>(64, stride_ * 2);
        }
    }

    Ops& ops_;
    std::uint32_t ticks_ = 0, stride_ = 1;
    stack_budget stack_;
    /// A queued task divided here, waiting for its subproblems' results off the stack.
    struct continuation {
        continuation(Problem&& p, result_address to) : problem(std::move(p)), parent(to) {}
        Problem problem;
        result_address parent;
        frame f;
    };
    std::unordered_map<std::uint64_t, std::unique_ptr<continuation>> continuations_; ///< by frame id
    static constexpr std::uint32_t max_continuation_depth = 1u << 18;
    std::uint32_t last_divided_ = 0; ///< the depth of the last queued task divided here (run_next prefers below it)
    bool divided_any_ = false;
    std::uint64_t waits_ = 0; ///< spilled problems waiting on this stack now (then only tasks deeper than floor_ run)
    std::uint32_t floor_ = 0; ///< the innermost waiting problem's depth
    std::uint64_t traced_nested_ = 0; ///< nodes of inlined tasks finished so far, for nested trace events
    double dividing_weight_ = -1.0, divide_seconds_ = 0.0;
};

} // namespace loopsched::detail
