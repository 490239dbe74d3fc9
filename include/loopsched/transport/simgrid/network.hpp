// The SimGrid transport itself: the process's one SimGrid engine, the mailboxes
// and per-rank state one simulation shares (network), and one rank's view of
// them, which models Transport (transport). Needs libsimgrid.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/channel.hpp>
#include <loopsched/transport/simgrid/platform.hpp>
#include <loopsched/transport/transport.hpp>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::sim {

namespace detail {

/// The process's SimGrid engine (SimGrid allows one) and the zone that holds
/// every simulator's cluster. Actors get 1 MiB stacks: the engines keep their
/// data on the heap, and 4,096 ranks then reserve 4 GiB of address space.
/// Links take their latency and bandwidth as given (SimGrid's default TCP
/// model multiplies latency by 13): platforms are described by measured
/// ping-pong figures such as Ciorba's c_d and c_c.
struct world {
    std::unique_ptr<::simgrid::s4u::Engine> engine;
    ::simgrid::s4u::NetZone* root = nullptr;
    int clusters = 0;

    static world& get() {
        static world w = [] {
            world made;
            static int argc = 5;
            static char name[] = "loopsched";
            static char quiet[] = "--log=root.thres:critical";
            static char stack[] = "--cfg=contexts/stack-size:1024"; // transport::actor_stack_bytes
            static char latency[] = "--cfg=network/latency-factor:1";
            static char bandwidth[] = "--cfg=network/bandwidth-factor:1";
            static char* argv[] = {name, quiet, stack, latency, bandwidth, nullptr};
            made.engine = std::make_unique<::simgrid::s4u::Engine>(&argc, argv);
            return made;
        }();
        return w;
    }

    ::simgrid::s4u::NetZone* zone_root() {
        if (started)
            throw error("loopsched: make every simulator before the first run (SimGrid seals its platform when a "
                        "simulation starts)");
        if (from_xml) throw error("loopsched: a simulator from an XML platform must be the process's only simulator");
        if (!root) root = ::simgrid::s4u::create_full_zone("loopsched");
        return root;
    }
    bool from_xml = false;
    bool started = false;
};

/// Large messages a rank holds back until its next transport call (rendezvous_bytes).
struct held_message {
    int dest;
    int context;
    message m;
    double ready_at; ///< simulated time from which a transport call moves it
};

/// What the engine-time stopwatch measures of itself: the median of empty
/// intervals (two clock reads back to back; about 30 ns in our VM). It is taken
/// off every charged interval: a real rank reads no clock between its MPI
/// calls, and a farm's root, with three intervals a task, would pay it three times.
inline double stopwatch_floor() {
    static double const floor = [] {
        using clock = std::chrono::steady_clock;
        std::array<double, 255> empty{};
        for (auto& d : empty) {
            auto const start = clock::now();
            d = std::chrono::duration<double>(clock::now() - start).count();
        }
        auto const middle = empty.begin() + empty.size() / 2;
        std::ranges::nth_element(empty, middle);
        return *middle;
    }();
    return floor;
}

/// What a rank's transports share, whatever their context: the work charged
/// but not yet run, the engine time since its last transport call, and the
/// messages held back (MPI keeps one order per sender).
struct rank_state {
    std::optional<std::chrono::steady_clock::time_point> ran_since; ///< when the last transport call returned
    double pending_flops = 0.0;                                     ///< charged by compute(), run by charge()
    std::deque<held_message> held;
    bool down = false; ///< its host failed (host_failure): it sends nothing, nothing reaches it
    aid_t actor = -1; ///< its actor's pid in the running simulation
    double engine_seconds = 0.0; ///< engine time charged in the running simulation (simulated seconds)
};

/// What every rank of one simulation shares: the hosts, the mailboxes (one
/// per rank and context: 0 the user's, 1 the library's) and each rank's state.
struct network {
    static constexpr int contexts = 2;
    std::vector<::simgrid::s4u::Host*> hosts;
    std::vector<::simgrid::s4u::Mailbox*> boxes; ///< context c of rank r at c * ranks + r
    std::vector<rank_state> ranks;
    simulation_options options;
    std::int64_t counter = 0;         ///< the shared counter (rank 0's)
    std::vector<std::int32_t> claims; ///< the claims log (rank 0's)
    double counter_busy_until = 0.0;  ///< when rank 0's network interface is free for the next atomic

    [[nodiscard]] int size() const noexcept { return static_cast<int>(hosts.size()); }
    [[nodiscard]] ::simgrid::s4u::Mailbox* box(int rank, int context) const {
        return boxes[static_cast<std::size_t>(context * size() + rank)];
    }
    /// Names the mailboxes of every host added so far (call once, after the hosts).
    void name_boxes(std::string const& prefix, std::vector<std::string> const& names) {
        boxes.clear();
        for (int c = 0; c < contexts; ++c)
            for (auto const& n : names)
                boxes.push_back(::simgrid::s4u::Mailbox::by_name(prefix + n + (c == 0 ? "" : "/library")));
        ranks.resize(hosts.size());
    }
};

} // namespace detail

/// One rank's view of the simulated network in one message context; models
/// Transport. Sends are eager, as MPI's are for small messages: each rank's
/// mailboxes have it as their permanent receiver, so a message travels as soon
/// as it is sent and a receive finds it waiting. The library runs over the
/// rank's context 1 (library_channel()).
class transport {
public:
    /// Each rank's (actor's) stack, as the simulator is configured (world::get).
    static constexpr std::size_t actor_stack_bytes = 1024 * 1024;

    transport(detail::network& net, int rank, int context = 0) : net_(&net), rank_(rank), context_(context) {}
    transport(transport const&) = delete;
    transport& operator=(transport const&) = delete;

    [[nodiscard]] int rank() const noexcept { return rank_; }
    [[nodiscard]] int size() const noexcept { return net_->size(); }

    /// Sends what is still held back, so that no receiver waits for ever.
    ~transport() {
        if (state().down) return;
        try {
            release_held(std::numeric_limits<double>::infinity());
        } catch (...) { // the simulation is being torn down
        }
    }

    void send(int dest, int tag, bytes data) {
        loopsched::detail::require(dest >= 0 && dest < size(), "destination rank", dest,
                                   "must be a rank of the platform");
        die_if_down();
        charge(net_->options.message_overhead);
        double const now = ::simgrid::s4u::Engine::get_clock();
        release_held(now); // back in MPI, its work done: the held messages that may move
        std::size_t const limit = net_->options.rendezvous_bytes;
        bool const large = limit > 0 && data.size() >= limit;
        // Behind a held message even a small one waits: MPI keeps a sender's order.
        auto& held = state().held;
        if (large || !held.empty())
            held.push_back({dest, context_, message{rank_, tag, std::move(data)},
                            large ? now + net_->options.rendezvous_round_trip : now});
        else
            post(dest, context_, message{rank_, tag, std::move(data)});
        resume();
    }

    message receive(int source, int tag) {
        die_if_down();
        charge(0.0);
        release_held(std::numeric_limits<double>::infinity());
        while (true) {
            if (auto m = take_early(source, tag)) return finish(std::move(*m));
            if (auto m = pull()) early_.push_back(std::move(*m));
        }
    }

    /// As receive(), giving up after `seconds` of simulated time.
    std::optional<message> receive_within(int source, int tag, double seconds) {
        die_if_down();
        charge(0.0);
        release_held(std::numeric_limits<double>::infinity());
        double const deadline = ::simgrid::s4u::Engine::get_clock() + seconds;
        while (true) {
            if (auto m = take_early(source, tag)) return finish(std::move(*m));
            double const left = deadline - ::simgrid::s4u::Engine::get_clock();
            if (left <= 0.0) break;
            try {
                keeps_task_listener const keep;
                std::unique_ptr<message> m(own_box()->get<message>(left));
                early_.push_back(std::move(*m));
            } catch (::simgrid::TimeoutException const&) {
                break;
            } catch (::simgrid::NetworkFailureException const&) { // lost on the way
            }
        }
        resume();
        return std::nullopt;
    }

    std::optional<message> try_receive(int source, int tag) {
        charge(0.0);
        release_held(::simgrid::s4u::Engine::get_clock());
        while (own_box()->ready())
            if (auto m = pull()) early_.push_back(std::move(*m));
        auto m = take_early(source, tag);
        if (m) return finish(std::move(*m));
        resume();
        return std::nullopt;
    }

    /// The simulated clock, once this rank's pending work is done.
    [[nodiscard]] double now() const {
        charge(0.0);
        resume();
        return ::simgrid::s4u::Engine::get_clock();
    }

    /// Simulated work: `flops` on this rank's host, at the speed its load
    /// leaves. The work is run at this rank's next transport call (or clock
    /// read), in any context: a body called once per column costs one
    /// simulated execution per subchunk, not one per call, and no one can
    /// observe the difference.
    void compute(double flops) {
        loopsched::detail::require(flops >= 0.0 && flops < std::numeric_limits<double>::infinity(), "simulated flops",
                                   flops, "must be finite and >= 0");
        state().pending_flops += flops;
    }

    /// This rank's host.
    [[nodiscard]] ::simgrid::s4u::Host* host() const { return net_->hosts[static_cast<std::size_t>(rank_)]; }

    /// The shared counter and claims log (see has_shared_counter), on rank
    /// 0's host: an atomic (a fetch-and-add, a compare-and-swap, or a read of
    /// a run of entries) reaches it in half simulation_options::atomic_latency,
    /// waits for the atomics before it at that host's network interface
    /// (atomic_service each), and its answer comes back in the other half.
    /// The caller sleeps meanwhile; rank 0's CPU is not charged. Atomics are
    /// applied in the order they reach the interface, which, all taking the
    /// same latency, is the order they are made in.
    [[nodiscard]] bool counter_opened() const noexcept { return true; }
    void counter_open() noexcept {}
    std::int64_t counter_fetch_add(std::int64_t n) {
        return remote_atomic([&] { return std::exchange(net_->counter, net_->counter + n); });
    }
    void claims_reserve(std::int64_t entries) {
        if (static_cast<std::size_t>(entries) > net_->claims.size()) net_->claims.resize(static_cast<std::size_t>(entries));
    }
    void claims_clear() noexcept {
        for (auto& entry : net_->claims) {
            if (entry == 0) break;
            entry = 0;
        }
    }
    std::int32_t claims_compare_and_swap(std::int64_t slot, std::int32_t who) {
        return remote_atomic([&] {
            std::int32_t& entry = net_->claims.at(static_cast<std::size_t>(slot));
            return entry == 0 ? std::exchange(entry, who) : entry;
        });
    }
    void claims_read(std::int64_t slot, std::span<std::int32_t> out) {
        remote_atomic([&] {
            for (std::size_t i = 0; i < out.size(); ++i) {
                auto const at = static_cast<std::size_t>(slot) + i;
                out[i] = at < net_->claims.size() ? net_->claims[at] : 0;
            }
            return 0;
        });
    }

    /// The library's channel for this rank (set by the simulator).
    channel<transport>& library_channel() {
        if (!library_)
            throw error("loopsched: this simulated transport has no library channel (made outside a simulator run)");
        return *library_;
    }
    void lend_channel(channel<transport>* library) noexcept { library_ = library; }

private:
    detail::rank_state& state() const { return net_->ranks[static_cast<std::size_t>(rank_)]; }
    /// An atomic on rank 0's host, as counter_opened() describes: `apply()`'s
    /// result, after the round trip.
    template <class Apply>
    std::invoke_result_t<Apply&> remote_atomic(Apply apply) {
        die_if_down();
        charge(0.0); // the work before it first
        auto const& o = net_->options;
        double const arrives = ::simgrid::s4u::Engine::get_clock() + o.atomic_latency / 2;
        double const served = std::max(arrives, net_->counter_busy_until) + o.atomic_service;
        net_->counter_busy_until = served;
        auto const result = apply();
        {
            keeps_task_listener const keep;
            ::simgrid::s4u::this_actor::sleep_until(served + o.atomic_latency / 2);
        }
        resume();
        return result;
    }
    /// A rank whose host failed goes on unwinding (SimGrid's kill): its
    /// stack may catch everything on the way, and must not live on.
    void die_if_down() const {
        if (state().down) throw ::simgrid::ForcefulKillException();
    }
    ::simgrid::s4u::Mailbox* own_box() const { return net_->box(rank_, context_); }

    /// The next message; none if it was lost on the way (a host failed under it).
    std::optional<message> pull() {
        try {
            keeps_task_listener const keep;
            std::unique_ptr<message> m(own_box()->get<message>());
            return std::move(*m);
        } catch (::simgrid::NetworkFailureException const&) {
            return std::nullopt;
        }
    }

    std::optional<message> take_early(int source, int tag) {
        return loopsched::detail::take_matching(early_, source, tag);
    }

    /// A received message's CPU cost joins the rank's pending work.
    message finish(message m) {
        state().pending_flops += net_->options.message_overhead * host()->get_speed();
        resume();
        return m;
    }

    /// Runs, as one simulated execution, the body's pending work, the engine
    /// time since the last transport call returned (when charged) and `extra`
    /// seconds. Real time spent inside SimGrid (other actors running) is
    /// never counted: the stopwatch restarts only when a call returns.
    void charge(double extra) const {
        auto& s = state();
        double seconds = extra;
        if (net_->options.charge_engine_time && s.ran_since) {
            double const measured = std::chrono::duration<double>(clock::now() - *s.ran_since).count();
            double const engine =
                    std::max(0.0, measured - detail::stopwatch_floor()) * net_->options.engine_time_scale;
            s.engine_seconds += engine;
            seconds += engine;
        }
        s.ran_since.reset();
        double const flops = std::exchange(s.pending_flops, 0.0) + seconds * host()->get_speed();
        keeps_task_listener const keep;
        if (flops > 0.0) ::simgrid::s4u::this_actor::execute(flops);
    }
    /// Ranks are coroutines of one thread: a rank's this_task listener (a
    /// thread_local) is its own again when it resumes after a blocking call.
    struct keeps_task_listener {
        loopsched::detail::task_listener* mine = loopsched::detail::current_task_listener;
        keeps_task_listener() = default;
        keeps_task_listener(keeps_task_listener const&) = delete;
        keeps_task_listener& operator=(keeps_task_listener const&) = delete;
        ~keeps_task_listener() { loopsched::detail::current_task_listener = mine; }
    };

    /// Puts a message into a mailbox of dest; it travels at once (eager).
    void post(int dest, int context, message m) const {
        if (net_->ranks[static_cast<std::size_t>(dest)].down) return; // lost with its host
        std::uint64_t const size = m.payload.size() + net_->options.envelope_bytes;
        auto* p = new message(std::move(m));
        auto comm = net_->box(dest, context)->put_init(p, size);
        comm->detach([](void* q) { delete static_cast<message*>(q); }); // freed if never received
    }
    /// Sends the held messages in order (MPI's non-overtaking rule: a later
    /// send is posted after them). Reading the clock does not release them:
    /// MPI_Wtime does not progress MPI.
    void release_held(double now) {
        auto& held = state().held;
        while (!held.empty() && held.front().ready_at <= now) {
            auto h = std::move(held.front());
            held.pop_front();
            post(h.dest, h.context, std::move(h.m));
        }
    }
    void resume() const {
        if (net_->options.charge_engine_time) state().ran_since = clock::now();
    }

    using clock = std::chrono::steady_clock;
    detail::network* net_;
    int rank_;
    int context_;
    std::deque<message> early_;
    channel<transport>* library_ = nullptr;
};

} // namespace loopsched::sim
