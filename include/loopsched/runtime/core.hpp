// The protocol core every algorithm runs on: the master's per-worker state
// (active, parked, stopped, reported), requests that carry results, the
// stop -> report -> table sequence, failure and abort, and the computing
// master (the root runs a worker of its own, talking to the master through a
// loopback instead of the transport). An algorithm plugs in two clients: the
// master's says what to grant, the worker's what to do with a grant.
//
// (A worker's first request is its hello, gathered by the agreement.)
//   worker -> master: request {status, timing of its last unit, result blocks}
//                     failed  {failure}          (then waits for the abort)
//                     report  {statistics, clock, result blocks, trace}   (after stop)
//   master -> worker: work    {the client's grant}
//                     stop    {}                 (nothing more: report)
//                     abort   {failure}          (some rank failed: every rank throws it)
//                     table   {statistics}       (the loop's, to every rank)
// plus each algorithm's own kinds, which the core hands to its clients.
// Failure ends the loop at once on the master: it sends the abort to every
// rank and throws; whatever of the loop is still in flight is dropped by its
// receiver as an earlier loop's (loop_link).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/agreement.hpp>
#include <loopsched/runtime/link.hpp>
#include <loopsched/runtime/messages.hpp>
#include <loopsched/runtime/profile.hpp>
#include <loopsched/runtime/statistics.hpp>
#include <loopsched/runtime/wire.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// Between the master and the worker that share the root's rank: the worker's
/// messages reach the master at once, by a call (its bytes lent for the call);
/// the master's wait in a queue for the worker's next turn, so the master
/// never calls back into a worker that is in the middle of a step.
struct loopback {
    void (*deliver)(void* master, message_view) = nullptr;
    void* master = nullptr;
    // A vector drained from the front, not a deque: libstdc++'s deque
    // allocates when made, and the root makes this every loop.
    std::vector<message> to_worker;
    std::size_t next = 0;

    void to_master(int from, kind what, std::span<std::byte const> data) const {
        deliver(master, message_view(from, static_cast<int>(what), data));
    }
    void post_to_worker(int from, kind what, std::span<std::byte const> data) {
        to_worker.push_back(message{from, static_cast<int>(what), bytes(data.begin(), data.end())});
    }
    std::optional<message> take_for_worker() {
        if (next == to_worker.size()) return std::nullopt;
        message m = std::move(to_worker[next++]);
        if (next == to_worker.size()) { // drained: start again at the front
            to_worker.clear();
            next = 0;
        }
        return m;
    }
};

// ---------------------------------------------------------------- master

/// What the master's client may use: sending to workers and ranks, and the
/// per-worker statistics the core keeps.
template <Transport T>
class master_port {
public:
    master_port(loop_link<T>& link, runtime_settings const& settings, loopback& local)
            : link_(link), settings_(settings), local_(local), stats_(settings.workers()) {
        for (std::size_t k = 0; k < stats_.size(); ++k) stats_[k].rank = settings.worker_ranks[k];
    }

    [[nodiscard]] runtime_settings const& settings() const noexcept { return settings_; }
    [[nodiscard]] int rank() const { return link_.rank(); }
    [[nodiscard]] double now() const { return link_.now(); }
    [[nodiscard]] loop_link<T>& link() noexcept { return link_; }
    [[nodiscard]] bool is_own(std::size_t k) const noexcept { return static_cast<int>(k) == settings_.own_index; }

    void send_worker(std::size_t k, kind what, std::span<std::byte const> data) {
        if (is_own(k))
            local_.post_to_worker(link_.rank(), what, data);
        else
            link_.send(settings_.worker_ranks[k], what, data);
    }
    /// To a rank's worker (DOACROSS: the previous chunk's holder).
    void send_rank(int rank, kind what, std::span<std::byte const> data) {
        int const k = settings_.index_of(rank);
        if (k >= 0)
            send_worker(static_cast<std::size_t>(k), what, data);
        else
            link_.send(rank, what, data);
    }

    /// Work sent to worker k outside an answer to its request (the task farm
    /// pushes tasks as they are created): the core looks at k's state again.
    void push_worker(std::size_t k, kind what, std::span<std::byte const> data) {
        send_worker(k, what, data);
        touch(k);
    }
    /// Worker k's state may have changed (it now holds work, or no longer
    /// expects any): the core asks the client's holds(k) again.
    void touch(std::size_t k) { touched_.push_back(k); }
    [[nodiscard]] std::vector<std::size_t>& touched() noexcept { return touched_; }

    /// Worker k was granted `iterations` more (one unit).
    void count(std::size_t k, index_t iterations) {
        stats_[k].iterations += iterations;
        ++stats_[k].chunks;
    }
    [[nodiscard]] std::vector<worker_statistics>& statistics() noexcept { return stats_; }

private:
    loop_link<T>& link_;
    runtime_settings const& settings_;
    loopback& local_;
    std::vector<worker_statistics> stats_;
    std::vector<std::size_t> touched_;
};

/// The optional hooks a master client has, as it declares them in
/// `static constexpr master_hooks hooks{.holds = true, ...}`: a misspelled
/// name does not compile, and MasterClient checks that every declared hook is
/// there with its signature and that no undeclared one is (which would be ignored).
///   results_first    hand a request's results to the client before serving it
///                    (it must know what finished);
///   late_requests    a request from a stopped worker is dropped (workers that
///                    request unasked: its stop was on the way);
///   pushes_work      a parked worker gets work only by a push (it is touched
///                    then): asking the client again for every parked worker at
///                    each turn is skipped until the client is done;
///   holds            bool holds(k) const: worker k will send again without a
///                    grant (it holds work): it is not parked;
///   expecting_work   bool expecting_work() const: more work may still be
///                    created: workers all parked is a wait, not a dead end;
///   complete         void complete(loop_statistics&): completes the table.
struct master_hooks {
    bool results_first = false;
    bool late_requests = false;
    bool pushes_work = false;
    bool holds = false;
    bool expecting_work = false;
    bool complete = false;
};

/// The master's side of the protocol for any client. The client provides:
///   index_t serve(k, request)   grants worker k a unit (sending it through the
///                               port) and returns its iterations, or 0 for none now;
///   bool done()                 nothing is left to grant;
///   void take_result(first, size, bytes)   a result block riding on a request or report;
///   void on_message(k, kind, message_view) the algorithm's own kinds;
///   static constexpr master_hooks hooks    the optional hooks it has (above).
template <class C>
concept MasterClient =
        requires {
            { C::hooks } -> std::convertible_to<master_hooks>;
        } &&
        requires(C& c, std::size_t k, request const& r, index_t i, std::span<std::byte const> b, kind what,
                 message_view m) {
            { c.serve(k, r) } -> std::same_as<index_t>;
            { c.done() } -> std::convertible_to<bool>;
            c.take_result(i, i, b);
            c.on_message(k, what, m);
        } &&
        (C::hooks.holds == requires(C const& c, std::size_t k) {
            { c.holds(k) } -> std::convertible_to<bool>;
        }) &&
        (C::hooks.expecting_work == requires(C const& c) {
            { c.expecting_work() } -> std::convertible_to<bool>;
        }) &&
        (C::hooks.complete == requires(C& c, loop_statistics& table) { c.complete(table); });

template <Transport T, MasterClient Client>
class master_core {
public:
    /// `aborted` is set once this master has sent the loop's abort (see as_root).
    master_core(master_port<T>& port, Client& client, bool& aborted)
            : port_(port), client_(client), settings_(port.settings()), aborted_(aborted),
              state_(settings_.workers(), peer::active), waiting_(settings_.workers()), parked_(settings_.workers()),
              last_(settings_.workers()) {
        owing_ = state_.size();
    }

    /// Serves every worker's first request: its hello, whose status the agreement gathered (by rank).
    void open(std::span<worker_status const> statuses) {
        start_ = port_.now();
        for (std::size_t k = 0; k < state_.size(); ++k) {
            request const first{k, statuses[static_cast<std::size_t>(settings_.worker_ranks[k])], {}};
            if (settings_.deterministic)
                waiting_[k] = first;
            else
                serve(k, first);
        }
        if (settings_.deterministic) serve_in_turn();
        settle_parked();
    }

    void handle(message_view m) {
        kind const what = kind_of(m.tag);
        if (what == kind::failed) fail(failure::read(m));
        std::size_t const k = index_of(m.source);
        if (what == kind::request) {
            wire_reader r(m.payload);
            auto const h = r.get<request_header>();
            if (state_[k] != peer::active) {
                // A worker that reports on its own (divide and conquer: "I am
                // idle") may have sent it while its stop was on the way.
                if (late_requests && state_[k] == peer::stopped) return;
                protocol_error(m.source, "a request from a worker that is not running");
            }
            request const asked{k, h.status, h.timing};
            auto take = [&] {
                read_result_blocks(r, h.result_blocks, [&](index_t first, index_t size, std::span<std::byte const> b) {
                    client_.take_result(first, size, b);
                });
            };
            if constexpr (results_first) take();
            // The reply first, then the results that came with the request: the worker is waiting.
            if (settings_.deterministic) {
                waiting_[k] = asked;
                serve_in_turn();
            } else {
                serve(k, asked);
            }
            if constexpr (!results_first) take();
        } else if (what == kind::report) {
            if (state_[k] != peer::stopped) protocol_error(m.source, "a report from a worker that was not stopped");
            take_report(k, m);
        } else {
            client_.on_message(k, what, m);
        }
        settle_parked();
    }

    [[nodiscard]] bool finished() const noexcept { return owing_ == 0; }
    [[nodiscard]] double started() const noexcept { return start_; }

    /// After the client acted outside a message (work created on the root):
    /// the workers it touched, then the parked ones, are looked at again.
    void settle() { settle_parked(); }
    [[nodiscard]] runtime_settings const& settings() const noexcept { return settings_; }
    [[nodiscard]] Client& client() noexcept { return client_; }

    /// The loop is over: every rank gets the table (completed by the client's
    /// complete(table), if it has one); the root keeps the trace.
    loop_statistics close() {
        loop_statistics table{port_.now() - start_, std::move(port_.statistics()), {}};
        if constexpr (Client::hooks.complete) client_.complete(table);
        send_table_to_everyone(port_.link(), table);
        table.trace = std::move(trace_);
        std::ranges::sort(table.trace, {}, &chunk_event::start);
        return table;
    }
    /// The loop is over at a master that answers to another (a hierarchical
    /// loop's sub-master): its workers' statistics and trace (on its loop's
    /// time), for it to pass on; no table is sent.
    loop_statistics collect() {
        loop_statistics out{port_.now() - start_, std::move(port_.statistics()), std::move(trace_)};
        return out;
    }

    /// Ends the loop on every rank with `f`.
    [[noreturn]] void fail(failure const& f) {
        aborted_ = true;
        abort_everyone(port_.link(), f);
    }

private:
    enum class peer : std::uint8_t { active, parked, stopped, reported };

    static constexpr bool owes(peer p) noexcept { return p != peer::reported; }
    static constexpr bool results_first = Client::hooks.results_first;
    static constexpr bool late_requests = Client::hooks.late_requests;
    static constexpr bool pushes_work = Client::hooks.pushes_work;

    [[nodiscard]] bool holds(std::size_t k) const {
        if constexpr (Client::hooks.holds)
            return client_.holds(k);
        else
            return false;
    }
    [[nodiscard]] bool expecting_work() const {
        if constexpr (Client::hooks.expecting_work)
            return client_.expecting_work();
        else
            return false;
    }
    /// Every state change goes through here, so the counts the hot path reads stay exact.
    void become(std::size_t k, peer next) {
        peer const before = std::exchange(state_[k], next);
        owing_ += static_cast<std::size_t>(owes(next)) - static_cast<std::size_t>(owes(before));
        parked_count_ +=
                static_cast<std::size_t>(next == peer::parked) - static_cast<std::size_t>(before == peer::parked);
    }

    std::size_t index_of(int rank) const {
        int const k = settings_.index_of(rank);
        if (k < 0) protocol_error(rank, "a message from a rank that is not a worker of this loop");
        return static_cast<std::size_t>(k);
    }
    [[noreturn]] void protocol_error(int rank, char const* what) const {
        throw error(std::string("loopsched: protocol: ") + what + " (rank " + std::to_string(rank) + ")");
    }

    /// Answers worker k's request with a unit, a stop, or nothing for now.
    void serve(std::size_t k, request const& r) {
        last_[k] = r;
        if (index_t const n = client_.serve(k, r); n > 0) {
            port_.count(k, n);
            become(k, peer::active);
        } else if (holds(k)) {
            become(k, peer::active); // it holds work and will ask again
        } else if (client_.done()) {
            port_.send_worker(k, kind::stop, {});
            become(k, peer::stopped);
        } else {
            become(k, peer::parked); // left out for now (A_k < A_min)
            parked_[k] = r;
        }
    }

    /// Parked workers: stopped once the loop is done; otherwise asked again,
    /// since a newer status from anyone may have changed who qualifies. If
    /// every worker still owing a message is parked, none will ask again:
    /// rather than wait for ever, the loop fails.
    void settle_parked() {
        take_touched();
        if (parked_count_ == 0) return;
        // A pushing client's parked workers wait for a push: asking again for
        // each of them at every turn cost O(workers) per task (a farm's start).
        if ((!settings_.deterministic && !pushes_work) || client_.done())
            for (std::size_t k = 0; k < state_.size(); ++k) {
                if (state_[k] != peer::parked) continue;
                become(k, peer::active);
                serve(k, *parked_[k]); // may park it again, or stop it
            }
        take_touched();
        if (parked_count_ > 0 && parked_count_ == owing_ && !expecting_work())
            throw error("loopsched: the policy leaves every worker out while work remains");
    }

    /// Workers the client pushed work to, or took work from, outside serve():
    /// parked ones that now hold work become active; active ones that no
    /// longer do are parked (or stopped) as if they had just asked.
    void take_touched() {
        auto& touched = port_.touched();
        for (std::size_t i = 0; i < touched.size(); ++i) { // serve() may touch more
            std::size_t const k = touched[i];
            if (state_[k] == peer::parked && holds(k)) {
                parked_[k].reset();
                become(k, peer::active);
            } else if (state_[k] == peer::active && !holds(k) && last_[k] && !waiting_[k]) {
                serve(k, *last_[k]);
            }
        }
        touched.clear();
    }

    /// Deterministic mode: serves the waiting requests strictly in worker order.
    void serve_in_turn() {
        std::size_t idle = 0;
        while (idle < state_.size()) {
            std::size_t const k = turn_;
            if (state_[k] == peer::active && waiting_[k]) {
                serve(k, *std::exchange(waiting_[k], std::nullopt));
                settle_parked();
                idle = 0;
            } else if (state_[k] == peer::active) {
                return; // its request decides what comes next: wait for it
            } else {
                ++idle;
            }
            turn_ = (turn_ + 1) % state_.size();
        }
    }

    void take_report(std::size_t k, message_view m) {
        double const received = settings_.trace ? port_.now() : 0.0; // places the trace's events only
        wire_reader r(m.payload);
        auto const w = read_report(
                r, received, start_,
                [&](index_t first, index_t size, std::span<std::byte const> b) { client_.take_result(first, size, b); },
                trace_);
        auto& s = port_.statistics()[k];
        s.compute_seconds = w.compute_seconds;
        s.wait_seconds = w.wait_seconds;
        s.comm_seconds = w.comm_seconds;
        become(k, peer::reported);
    }

    master_port<T>& port_;
    Client& client_;
    runtime_settings const& settings_;
    bool& aborted_;
    // Inline up to 16 workers: back-to-back short loops should not allocate for them.
    boost::container::small_vector<peer, 16> state_;
    boost::container::small_vector<std::optional<request>, 16> waiting_, parked_,
            last_; ///< deterministic mode's queue; parked requests; each worker's last request
    std::size_t turn_ = 0;
    std::size_t owing_ = 0, parked_count_ = 0; ///< workers not yet reported; parked workers (kept by become())
    std::vector<chunk_event> trace_;
    double start_ = 0.0;
};

// ---------------------------------------------------------------- worker

/// What the worker's client may use: sending requests (with results) to the
/// master, and messages to other ranks.
template <Transport T>
class worker_port {
public:
    /// `local`: this worker shares the root's rank with the master.
    worker_port(loop_link<T>& link, runtime_settings const& settings, loopback* local)
            : link_(link), settings_(settings), local_(local) {}

    [[nodiscard]] runtime_settings const& settings() const noexcept { return settings_; }
    [[nodiscard]] int rank() const { return link_.rank(); }
    [[nodiscard]] double now() const { return link_.now(); }
    [[nodiscard]] bool is_local() const noexcept { return local_ != nullptr; }
    [[nodiscard]] loop_link<T>& link() noexcept { return link_; }

    void send_master(kind what, std::span<std::byte const> data) {
        if (local_)
            local_->to_master(link_.rank(), what, data);
        else
            link_.send(settings_.root, what, data);
    }
    /// To another rank's worker (never this one).
    void send_rank(int rank, kind what, bytes data) { link_.send(rank, what, std::move(data)); }

    /// Handles the loop's messages from inside a step (divide and conquer: a
    /// task waiting for its subproblems' results, or polling while it
    /// recurses): `block` waits for one; otherwise takes what has arrived.
    /// The runner of this rank's loop sets how (run_worker, root_loop).
    void pump(bool block) {
        if (!pump_) throw error("loopsched: protocol: a worker pumped messages outside a running loop");
        pump_(pump_context_, block);
    }
    template <class F>
    void set_pump(F& f) noexcept {
        pump_context_ = &f;
        pump_ = [](void* c, bool block) { (*static_cast<F*>(c))(block); };
    }

    /// Asks for more work, carrying `results` (then cleared).
    void request(worker_status status, chunk_timing last, result_blocks& results) {
        wire_writer w;
        send_master(kind::request, encode_request(w, status, last, results));
        results.clear();
    }

private:
    loop_link<T>& link_;
    runtime_settings const& settings_;
    loopback* local_;
    void (*pump_)(void*, bool) = nullptr;
    void* pump_context_ = nullptr;
};

/// The optional hooks a worker client has, declared as
/// `static constexpr worker_hooks hooks{.waited = true}` and checked as MasterClient's are.
///   waited   void waited(double seconds): how long its rank was blocked waiting for a message.
struct worker_hooks {
    bool waited = false;
};

/// The worker's side of the protocol for any client. The client provides:
///   void on_work(message_view)          a grant arrived;
///   bool can_step(), double step()       one bounded piece of work, if any is ready
///                                        (step returns the clock at its end, or 0);
///   bool poll_after_step()               look for messages after each step (not only when idle);
///   void on_message(kind, message_view)  the algorithm's own kinds;
///   worker_statistics statistics(double stopped), result_blocks& results(),
///   std::span<chunk_event const> trace() what its report carries.
///   static constexpr worker_hooks hooks   the optional hooks it has (above).
template <class C>
concept WorkerClient =
        requires {
            { C::hooks } -> std::convertible_to<worker_hooks>;
        } &&
        requires(C& c, kind what, message_view m, double t) {
            c.on_work(m);
            { c.can_step() } -> std::convertible_to<bool>;
            { c.step() } -> std::convertible_to<double>;
            { c.poll_after_step() } -> std::convertible_to<bool>;
            c.on_message(what, m);
            { c.statistics(t) } -> std::convertible_to<worker_statistics>;
            { c.results() } -> std::same_as<result_blocks&>;
            c.trace();
        } &&
        (C::hooks.waited == requires(C& c, double seconds) { c.waited(seconds); });

template <Transport T, WorkerClient Client>
class worker_core {
public:
    /// `verdict` is set once the master's abort arrived (see as_worker).
    worker_core(worker_port<T>& port, Client& client, bool& verdict)
            : port_(port), client_(client), verdict_(verdict) {}

    void handle(message_view m) {
        switch (kind_of(m.tag)) {
        case kind::work: client_.on_work(m); break;
        case kind::stop: report(); break;
        case kind::table:
            decode_table(m, table_);
            finished_ = true;
            break;
        case kind::abort: verdict_ = true; failure::read(m).raise(port_.rank());
        case kind::probe: port_.send_rank(m.source, kind::probe, bytes(m.payload.begin(), m.payload.end())); break;
        default: client_.on_message(kind_of(m.tag), m);
        }
    }

    /// Whether the client wants to hear how long its rank was blocked waiting for a message.
    static constexpr bool counts_waits = Client::hooks.waited;
    void waited(double seconds) {
        if constexpr (counts_waits)
            if (!reported_) client_.waited(seconds);
    }

    [[nodiscard]] worker_port<T>& port() noexcept { return port_; }
    [[nodiscard]] bool can_step() { return !reported_ && client_.can_step(); }
    /// One step; returns the clock at its end when the client read it, else 0.
    double step() { return client_.step(); }
    [[nodiscard]] bool poll_after_step() const { return client_.poll_after_step(); }
    /// Remote: the table arrived. Local (on the root): the report left.
    [[nodiscard]] bool finished() const noexcept { return finished_; }
    loop_statistics take_table() { return std::move(table_); }

private:
    void report() {
        double const stopped = port_.now();
        worker_statistics const mine = client_.statistics(stopped);
        wire_writer w;
        // The clock goes along only to place the trace's events on the master's clock.
        port_.send_master(kind::report, encode_report(w, mine, port_.settings().trace ? port_.now() : 0.0,
                                                      client_.results(), client_.trace()));
        reported_ = true;
        if (port_.is_local())
            finished_ = true;
        else
            // Its room is made while the table travels (one row past full_table_ranks).
            table_.workers.reserve(port_.link().size() > full_table_ranks ? 1 : port_.settings().workers());
    }

    worker_port<T>& port_;
    Client& client_;
    bool& verdict_;
    loop_statistics table_;
    bool reported_ = false, finished_ = false;
};

// ---------------------------------------------------------------- runners

/// Runs `part(verdict)`, a worker's part of a loop on a rank other than the
/// root, from its set-up to its table. If anything in it throws, other than
/// the master's verdict (`part` passes `verdict` to its worker_core), this rank
/// tells the master and waits for the verdict (the abort every rank receives),
/// so that every rank throws the same.
template <Transport T, class Part>
loop_statistics as_worker(loop_link<T>& link, int root, Part&& part) {
    bool verdict = false;
    try {
        return part(verdict);
    } catch (...) {
        if (verdict) throw;
        tell_and_wait(link, root, failure::current(link.rank(), true));
    }
}

/// Runs `part(aborted)`, the root's part of a loop, from its set-up to its
/// table. If anything in it throws before the master aborted the loop (`part`
/// passes `aborted` to its master_core), every rank is told.
template <Transport T, class Part>
loop_statistics as_root(loop_link<T>& link, Part&& part) {
    bool aborted = false;
    try {
        return part(aborted);
    } catch (...) {
        if (aborted) throw;
        abort_everyone(link, failure::current(link.rank(), true));
    }
}

/// The loop's next message, blocking; the time blocked goes to `w` if it counts waits.
template <Transport T, class Client>
message_view wait_for_message(loop_link<T>& link, worker_core<T, Client>* w) {
    if constexpr (worker_core<T, Client>::counts_waits) {
        if (w) {
            double const before = link.now();
            message_view const m = link.receive();
            w->waited(link.now() - before);
            return m;
        }
    }
    return link.receive();
}

/// A worker's loop on a rank other than the root: steps while it has work,
/// else waits for the next message.
template <Transport T, class Client>
loop_statistics run_worker(loop_link<T>& link, worker_core<T, Client>& w) {
    auto pump = [&](bool block) {
        if (block)
            w.handle(wait_for_message(link, &w));
        else
            while (auto m = link.try_receive()) w.handle(*m);
    };
    w.port().set_pump(pump);
    while (!w.finished()) {
        if (w.can_step()) {
            w.step();
            if (w.poll_after_step())
                while (auto m = link.try_receive()) w.handle(*m);
        } else {
            w.handle(wait_for_message(link, &w));
        }
    }
    return w.take_table();
}

/// Which side of the root a message from the transport is for.
inline bool is_for_master(kind k) noexcept {
    return k == kind::request || k == kind::report || k == kind::failed || k == kind::extend || k == kind::moved ||
           k == kind::info || k == kind::solution || k == kind::group_table;
}

/// The root's loop: the master, and its own worker when it computes (stepped
/// between messages: a step keeps a request waiting about one poll interval).
/// After a step the transport is looked at only if `probe_gap` has passed since
/// the last look: a look (MPI_Iprobe) costs as much as a short step's own
/// bookkeeping, and a request then waits at most that gap longer.
/// An algorithm whose work is created on the root while the loop runs (the task
/// farm) drives it in turns: poll() between creations, run_until() to wait.
/// A master that answers to another (a hierarchical loop's sub-master) has a
/// `Parent`: handle(m) takes its master's messages (from parent rank()),
/// settle() acts once anything happened, finished() says its part is over.
template <Transport T, class MasterClient, class WorkerClient, class Parent = void>
class root_loop {
public:
    root_loop(loop_link<T>& link, loopback& local, master_core<T, MasterClient>& master,
              worker_core<T, WorkerClient>* own, Parent* parent = nullptr)
            : link_(link), local_(local), master_(master), own_(own), parent_(parent),
              probe_gap_(master.settings().poll_interval / 16) {
        local.master = &master;
        local.deliver = [](void* m, message_view v) { static_cast<master_core<T, MasterClient>*>(m)->handle(v); };
        if (own_) own_->port().set_pump(pump_);
    }
    root_loop(root_loop const&) = delete; // its worker's port points at it
    root_loop& operator=(root_loop const&) = delete;

    void open(std::span<worker_status const> opening) { master_.open(opening); }
    [[nodiscard]] master_core<T, MasterClient>& master() noexcept { return master_; }

    [[nodiscard]] bool finished() const {
        if constexpr (has_parent) return parent_->finished();
        return master_finished();
    }
    /// The loop's master and this rank's own worker are done (a sub-master may report).
    [[nodiscard]] bool master_finished() const { return master_.finished() && (!own_ || own_->finished()); }

    /// Handles what has arrived, without blocking and without stepping the own worker.
    void poll() {
        while (true) {
            if (auto n = local_.take_for_worker())
                own_->handle(*n);
            else if (auto v = link_.try_receive())
                dispatch(*v);
            else
                return;
        }
    }

    /// Turns until `until()` holds or the loop is over.
    template <class Until>
    void run_until(Until&& until) {
        while (!until()) {
            if constexpr (has_parent) parent_->settle(*this);
            if (auto n = local_.take_for_worker()) {
                own_->handle(*n);
            } else if (finished()) {
                return;
            } else if (own_ && own_->can_step()) {
                double const done = own_->step();
                if (done == 0.0 || done - looked_ >= probe_gap_) {
                    looked_ = done;
                    while (auto v = link_.try_receive()) dispatch(*v);
                }
            } else {
                dispatch(wait_for_message(link_, own_));
            }
        }
    }
    void run() {
        run_until([] { return false; });
    }

private:
    static constexpr bool has_parent = !std::is_void_v<Parent>;

    void dispatch(message_view m) {
        if constexpr (has_parent) {
            if (m.source == parent_->rank() && !is_for_master(kind_of(m.tag))) {
                parent_->handle(m);
                master_.settle(); // new work, or the end: parked workers are looked at again
                return;
            }
        }
        if (is_for_master(kind_of(m.tag)))
            master_.handle(m);
        else if (own_)
            own_->handle(m);
        else
            throw error("loopsched: protocol: a worker's message reached a master that does not compute");
    }

    /// The own worker's messages from inside its step (worker_port::pump).
    struct pumping {
        root_loop* loop;
        void operator()(bool block) const {
            if (!block) return loop->poll();
            if (auto n = loop->local_.take_for_worker())
                loop->own_->handle(*n);
            else
                loop->dispatch(wait_for_message(loop->link_, loop->own_));
        }
    };

    loop_link<T>& link_;
    loopback& local_;
    master_core<T, MasterClient>& master_;
    worker_core<T, WorkerClient>* own_;
    Parent* parent_;
    double probe_gap_, looked_ = 0.0;
    pumping pump_{this};
};

/// No driver: the loop's work is known when it opens.
struct undriven {
    template <class Loop>
    void operator()(Loop&) const noexcept {}
};

/// What a master that never computes passes for its own worker's maker (a
/// hierarchy's root, a farm's root over groups).
struct no_own_worker {};

/// A master on this rank, assembled the same way for every algorithm and
/// level (a flat loop's root, a hierarchy's root and sub-masters, a farm's):
/// the queue between it and its own worker, its port, the master core over
/// `Client` and, where this rank computes (settings.own_index >= 0), its own
/// worker. `make_client(master_port&)` and `make_worker(worker_port&)` build
/// the two clients in place; `verdict` is the own worker's (see worker_core).
template <Transport T, class Client, class WorkerClient>
class master_node {
public:
    template <class MakeClient, class MakeWorker>
    master_node(loop_link<T>& link, runtime_settings const& settings, bool& aborted, bool& verdict,
                MakeClient&& make_client, MakeWorker&& make_worker)
            : link_(link), port_(link, settings, local_), client_(make_client(port_)),
              master_(port_, client_, aborted) {
        if (settings.own_index < 0) return;
        if constexpr (std::is_same_v<std::remove_cvref_t<MakeWorker>, no_own_worker>) {
            throw error("loopsched: internal: a master that does not compute was given a worker of its own");
        } else {
            worker_port_.emplace(link, settings, &local_);
            own_.emplace(*worker_port_, make_worker, verdict);
        }
    }
    master_node(master_node const&) = delete; // the ports point at its members
    master_node& operator=(master_node const&) = delete;

    [[nodiscard]] Client& client() noexcept { return client_; }
    [[nodiscard]] master_core<T, Client>& master() noexcept { return master_; }

    /// The loop of this master and its own worker; a sub-master passes its `Parent`.
    template <class Parent = void>
    [[nodiscard]] root_loop<T, Client, WorkerClient, Parent> loop(Parent* parent = nullptr) {
        return root_loop<T, Client, WorkerClient, Parent>(link_, local_, master_, own_ ? &own_->core : nullptr,
                                                          parent);
    }

    /// The whole loop from `opening` to the table; `drive(root_loop&)` runs
    /// first, once the opening is served (the task farm's producer).
    template <class Drive = undriven>
    loop_statistics run(std::span<worker_status const> opening, Drive&& drive = {}) {
        auto whole = loop();
        whole.open(opening);
        drive(whole);
        whole.run();
        return master_.close();
    }

private:
    /// The own worker's client and core, built in place (clients need not move).
    struct own_worker {
        template <class MakeWorker>
        own_worker(worker_port<T>& port, MakeWorker& make, bool& verdict)
                : client(make(port)), core(port, client, verdict) {}
        WorkerClient client;
        worker_core<T, WorkerClient> core;
    };

    loop_link<T>& link_;
    loopback local_;
    master_port<T> port_;
    Client client_;
    master_core<T, Client> master_;
    std::optional<worker_port<T>> worker_port_;
    std::optional<own_worker> own_;
};

/// A loop on this rank once its opening is agreed: on the root, the master
/// (its client from `make_master(master_port&)`) and, when it computes, its own
/// worker; elsewhere a worker (its client from `make_worker(worker_port&)`).
/// Failures anywhere in it end the loop on every rank (as_root, as_worker).
/// `drive(root_loop&)`: see master_node::run.
template <Transport T, class MakeMaster, class MakeWorker, class Drive = undriven>
loop_statistics run_loop(loop_link<T>& link, runtime_settings const& settings, std::span<worker_status const> opening,
                         MakeMaster&& make_master, MakeWorker&& make_worker, Drive&& drive = {}) {
    using worker_client = decltype(make_worker(std::declval<worker_port<T>&>()));
    using master_client = decltype(make_master(std::declval<master_port<T>&>()));
    if (link.rank() == settings.root)
        return as_root(link, [&](bool& aborted) {
            bool verdict = false; // the root's own worker never receives one: the master decides
            master_node<T, master_client, worker_client> node(link, settings, aborted, verdict, make_master,
                                                              make_worker);
            return node.run(opening, drive);
        });
    return as_worker(link, settings.root, [&](bool& verdict) {
        worker_port<T> port(link, settings, nullptr);
        auto working = make_worker(port);
        worker_core<T, worker_client> core(port, working, verdict);
        return run_worker(link, core);
    });
}

} // namespace loopsched::detail
