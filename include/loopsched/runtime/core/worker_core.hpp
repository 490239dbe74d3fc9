// The protocol core's worker side (runtime/core/core.hpp tells the protocol): the
// worker's port, the hooks a worker client declares, and worker_core, which
// runs a worker's part from its first grant to the table.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/agreement.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/loopback.hpp>
#include <loopsched/runtime/core/messages.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/runtime/core/wire.hpp>

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

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
    /// As above, for bytes made to be sent: over a link they leave as they are, not copied.
    void send_master(kind what, bytes data) {
        if (local_)
            local_->to_master(link_.rank(), what, std::span<std::byte const>(data.data(), data.size()));
        else
            link_.send(settings_.root, what, std::move(data));
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
        if (kind_of(m.tag) != kind::probe) started_ = true;
        switch (kind_of(m.tag)) {
        case kind::work: client_.on_work(m); break;
        case kind::stop: report(); break;
        case kind::table:
            decode_table(m, table_);
            finished_ = true;
            break;
        case kind::abort: verdict_ = true; failure::read(m).raise(port_.rank());
        case kind::probe: port_.send_rank(m.source, kind::probe, copy_bytes(m.payload)); break;
        default: client_.on_message(kind_of(m.tag), m);
        }
    }

    /// Whether the client wants to hear how long its rank was blocked waiting for a message.
    static constexpr bool counts_waits = Client::hooks.waited;
    /// Counted from the master's first message (its first work, or the stop),
    /// not before: T_wait is waiting inside the loop, which starts when the
    /// master is ready (after, say, h=auto's measurements), as its T_p does.
    void waited(double seconds) {
        if constexpr (counts_waits)
            if (!reported_ && started_) client_.waited(seconds);
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
    bool started_ = false; ///< a message other than a link probe came from the master
};

} // namespace loopsched::detail
