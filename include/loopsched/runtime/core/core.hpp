// The protocol core every algorithm runs on: the master's per-worker state
// (active, parked, stopped, reported), requests that carry results, the
// stop -> report -> table sequence, failure and abort, and the computing
// master (the root runs a worker of its own, talking to the master through a
// loopback instead of the transport). An algorithm plugs in two clients: the
// master's says what to grant, the worker's what to do with a grant.
// master_core.hpp and worker_core.hpp hold the two sides; this header, how a
// rank runs a loop (root_loop, master_node, run_loop, run_worker).
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
#include <loopsched/runtime/core/agreement.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/master_core.hpp>
#include <loopsched/runtime/core/messages.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/runtime/core/worker_core.hpp>

#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

namespace loopsched::detail {

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
           k == kind::info || k == kind::solution || k == kind::group_table || k == kind::leave || k == kind::alive ||
           k == kind::lost;
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
              probe_gap_(master.settings().probe_gap()) {
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
            if constexpr (has_parent) {
                parent_->settle(*this);
                // Settling takes in what has arrived: that may be what the caller waits
                // for, and then no message may come to end a wait (a group whose producer
                // waits at a cycle's end, its last results in, its workers idle).
                if (until()) return;
            }
            if (auto n = local_.take_for_worker()) {
                own_->handle(*n);
            } else if (finished()) {
                return;
            } else if (own_ && own_->can_step()) {
                double const done = own_->step();
                if (done == 0.0 || done - looked_ >= probe_gap_) {
                    looked_ = done;
                    while (auto v = link_.try_receive()) dispatch(*v);
                    if (master_.detecting()) master_.watch(link_.now());
                }
            } else {
                wait();
            }
        }
    }
    void run() {
        run_until([] { return false; });
    }

private:
    static constexpr bool has_parent = !std::is_void_v<Parent>;

    /// Blocks for the loop's next message; with a failure detector, only until
    /// the first expected worker is overdue, which is then presumed lost.
    void wait() {
        double const deadline = master_.detecting() ? master_.deadline() : std::numeric_limits<double>::infinity();
        if (deadline == std::numeric_limits<double>::infinity()) return dispatch(wait_for_message(link_, own_));
        double const before = link_.now();
        auto const m = link_.receive_until(deadline);
        if (own_) own_->waited(link_.now() - before);
        if (m)
            dispatch(*m);
        else
            master_.presume_lost(link_.now());
    }

    void dispatch(message_view m) {
        // A peer failed (loss_rule::deliver): the master's affair if it was one
        // of its workers; a sub-master's master is not replaced; any other
        // rank is a group's worker, its own sub-master's affair.
        if (kind_of(m.tag) == kind::lost && master_.settings().index_of(m.source) < 0) {
            if constexpr (has_parent)
                if (m.source == parent_->rank()) throw rank_lost(m.source);
            return;
        }
        if constexpr (has_parent) {
            if ((m.source == parent_->rank() && !is_for_master(kind_of(m.tag))) || parent_->claims(m)) {
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
                loop->wait();
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
    // A failed worker is the master's to handle; a worker ends its part only
    // when its master fails (every other failure reaches it as the master's verdict).
    if (link.rank() == settings.root) {
        link.on_losses(loss_rule::deliver);
        return as_root(link, [&](bool& aborted) {
            bool verdict = false; // the root's own worker never receives one: the master decides
            master_node<T, master_client, worker_client> node(link, settings, aborted, verdict, make_master,
                                                              make_worker);
            return node.run(opening, drive);
        });
    }
    link.on_losses(loss_rule::answers_to, settings.root);
    return as_worker(link, settings.root, [&](bool& verdict) {
        worker_port<T> port(link, settings, nullptr);
        auto working = make_worker(port);
        worker_core<T, worker_client> core(port, working, verdict);
        return run_worker(link, core);
    });
}

} // namespace loopsched::detail
