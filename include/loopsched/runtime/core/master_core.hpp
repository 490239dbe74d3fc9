// The protocol core's master side (runtime/core/core.hpp tells the protocol):
// the hooks a master client declares, and master_core, which keeps every
// worker's state from its hello to its report (its port: master_port.hpp).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/agreement.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/loopback.hpp>
#include <loopsched/runtime/core/master_port.hpp>
#include <loopsched/runtime/core/messages.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/runtime/core/wire.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

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
///   complete         void complete(loop_statistics&): completes the table;
///   lost             bool lost(k, held_work): worker k was presumed lost (runtime_settings::
///                    silence) or failed (the transport said so); false: the loop
///                    cannot go on without it (it fails).
///                    Without the hook, a loss fails the loop.
struct master_hooks {
    bool results_first = false;
    bool late_requests = false;
    bool pushes_work = false;
    bool holds = false;
    bool expecting_work = false;
    bool complete = false;
    bool lost = false;
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
        (C::hooks.complete == requires(C& c, loop_statistics& table) { c.complete(table); }) &&
        (C::hooks.lost == requires(C& c, std::size_t k, bool held) {
            { c.lost(k, held) } -> std::convertible_to<bool>;
        });

template <Transport T, MasterClient Client>
class master_core {
public:
    /// `aborted` is set once this master has sent the loop's abort (see as_root).
    master_core(master_port<T>& port, Client& client, bool& aborted)
            : port_(port), client_(client), settings_(port.settings()), aborted_(aborted),
              state_(settings_.workers(), peer::active), waiting_(settings_.workers()), parked_(settings_.workers()),
              last_(settings_.workers()) {
        owing_ = state_.size();
        if (settings_.detects_failures()) heard_.assign(state_.size(), 0.0);
    }

    /// Serves every worker's first request: its hello, whose status the agreement gathered (by rank).
    void open(std::span<worker_status const> statuses) {
        start_ = port_.now();
        std::ranges::fill(heard_, start_); // every hello just came
        for (std::size_t k = 0; k < state_.size(); ++k) {
            request const first{k, statuses[static_cast<std::size_t>(settings_.worker_ranks[k])], {}};
            if (settings_.deterministic)
                waiting_[k] = first;
            else
                serve(k, first);
        }
        if (settings_.deterministic) serve_in_turn();
        settle_parked();
        // Workers whose failure the transport told before the loop ran (the
        // agreement's last moments): their first grants went nowhere.
        for (int const rank : port_.link().failed())
            if (int const k = settings_.index_of(rank); k >= 0 && state_[static_cast<std::size_t>(k)] != peer::lost)
                known_lost(static_cast<std::size_t>(k));
    }

    void handle(message_view m) {
        kind const what = kind_of(m.tag);
        if (what == kind::failed) fail(failure::read(m));
        std::size_t const k = index_of(m.source);
        if (state_[k] == peer::lost) return; // back from the dead, or its last words: its work went to others
        if (what == kind::lost) return known_lost(k);
        if (!heard_.empty()) {
            heard_[k] = port_.now();
            if (what == kind::alive) return;
        }
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
                port_.set_result_sender(k);
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

    /// The failure detector is on (runtime_settings::silence is finite).
    [[nodiscard]] bool detecting() const noexcept { return !heard_.empty(); }
    /// When the first worker the master waits for becomes overdue (infinity: none).
    [[nodiscard]] double deadline() const noexcept {
        double first = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < heard_.size(); ++k)
            if (expected(k)) first = std::min(first, heard_[k] + settings_.silence);
        return first;
    }
    /// Between steps of the root's own worker: presumes lost the workers overdue
    /// at `now`, looking (an O(workers) scan) at most every eighth of the silence.
    void watch(double now) {
        if (now < next_look_) return;
        next_look_ = now + settings_.silence / 8;
        if (now >= deadline()) presume_lost(now);
    }
    /// Presumes lost every worker overdue at `now`: the client carries on
    /// without it (its lost hook), or the loop fails on every rank.
    void presume_lost(double now) {
        for (std::size_t k = 0; k < heard_.size(); ++k) {
            if (!expected(k) || now < heard_[k] + settings_.silence) continue;
            lose(k, [&](bool held_work) {
                return failure::fault(port_.rank(),
                                      "loopsched: rank " + std::to_string(settings_.worker_ranks[k]) +
                                              " was presumed lost: silent for " + to_text(settings_.silence) +
                                              " s (options.presumed_lost_after) while " +
                                              (held_work ? "it held work" : "its report was due") +
                                              "; without options.reissue its work cannot be finished elsewhere");
            });
        }
        settle_parked(); // its work may go to a parked worker
    }
    /// Worker k failed, as the transport said: as presumed lost, at once; the
    /// loop fails with rank_lost on every rank if it cannot go on. A worker
    /// that had reported is only named among the lost.
    void known_lost(std::size_t k) {
        if (state_[k] == peer::reported) {
            state_[k] = peer::lost; // owes nothing either way
            lost_.push_back(settings_.worker_ranks[k]);
            return;
        }
        lose(k, [&](bool) { return failure::lost(settings_.worker_ranks[k]); });
        settle_parked();
    }

    /// After the client acted outside a message (work created on the root):
    /// the workers it touched, then the parked ones, are looked at again.
    void settle() { settle_parked(); }
    [[nodiscard]] runtime_settings const& settings() const noexcept { return settings_; }
    [[nodiscard]] Client& client() noexcept { return client_; }

    /// The loop is over: every rank gets the table (completed by the client's
    /// complete(table), if it has one); the root keeps the trace.
    loop_statistics close() {
        loop_statistics table{port_.now() - start_, std::move(port_.statistics()), {}};
        if constexpr (Client::hooks.complete) client_.complete(table); // a hierarchy's root: the groups' lost
        table.lost.insert(table.lost.end(), lost_.begin(), lost_.end());
        std::ranges::sort(table.lost);
        send_table_to_everyone(port_.link(), table);
        table.trace = std::move(trace_);
        std::ranges::sort(table.trace, {}, &chunk_event::start);
        return table;
    }
    /// The loop is over at a master that answers to another (a hierarchical
    /// loop's sub-master): its workers' statistics and trace (on its loop's
    /// time) and its lost workers, for it to pass on; no table is sent.
    loop_statistics collect() {
        loop_statistics out{port_.now() - start_, std::move(port_.statistics()), std::move(trace_)};
        out.lost = lost_;
        return out;
    }

    /// Ends the loop on every rank with `f`.
    [[noreturn]] void fail(failure const& f) {
        aborted_ = true;
        abort_everyone(port_.link(), f);
    }

private:
    enum class peer : std::uint8_t { active, parked, stopped, reported, lost };

    /// Worker k is gone: the client carries on without it (its lost hook), or
    /// the loop fails on every rank with `otherwise(held_work)`.
    template <class Otherwise>
    void lose(std::size_t k, Otherwise&& otherwise) {
        bool const held_work = state_[k] == peer::active;
        if (state_[k] == peer::parked) parked_[k].reset();
        become(k, peer::lost);
        lost_.push_back(settings_.worker_ranks[k]);
        bool carried_on = false;
        if constexpr (Client::hooks.lost) carried_on = client_.lost(k, held_work);
        if (!carried_on) fail(otherwise(held_work));
    }

    static constexpr bool owes(peer p) noexcept { return p != peer::reported && p != peer::lost; }
    /// The master waits for a message from worker k: it holds work, or owes its report.
    [[nodiscard]] bool expected(std::size_t k) const noexcept {
        return !port_.is_own(k) && (state_[k] == peer::active || state_[k] == peer::stopped);
    }
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
        if (!heard_.empty() && before == peer::parked && next != peer::parked)
            heard_[k] = port_.now(); // silent while parked: its clock starts with what it was sent
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
        port_.set_result_sender(k);
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
    std::vector<double> heard_; ///< with a failure detector: when each worker was last heard from (or sent work)
    std::vector<int> lost_;     ///< ranks presumed lost or failed
    double next_look_ = 0.0;    ///< watch(): when it next scans for overdue workers
};

} // namespace loopsched::detail
