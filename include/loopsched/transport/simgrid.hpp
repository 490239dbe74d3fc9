// The SimGrid transport: the runtime's own master and worker engines run as
// SimGrid actors on simulated hosts; bodies charge simulated work instead of
// computing. Optional: only code that includes this header needs libsimgrid.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/channel.hpp>
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
#include <string>
#include <utility>
#include <vector>

namespace loopsched::sim {

/// One simulated machine: a rank of the simulated cluster.
struct host {
    std::string name;
    double speed = 1e9;        ///< flop/s
    double bandwidth = 12.5e6; ///< bytes/s of its private link to the switch
    double latency = 50e-6;    ///< seconds, one way through its link
    int background = 0;        ///< competing CPU-bound processes: Q = 1 + background, speed shared among them
};

/// A change of one host's speed while a run goes on (a workstation's owner
/// comes back): from `from` to `until` seconds after the run starts, the rank
/// on host `rank` computes `slowdown` times slower than its load alone leaves
/// it (infinity: it stops computing; its messages still travel). With
/// `period` > 0 the change comes and goes: on for the first `on` seconds of
/// every `period` from `from`. Changes on one host multiply.
struct perturbation {
    int rank = 0;
    double from = 0.0;
    double until = std::numeric_limits<double>::infinity();
    double slowdown = 10.0;
    double period = 0.0;
    double on = 0.0;

    [[nodiscard]] bool active(double t) const noexcept {
        if (t < from || t >= until) return false;
        return period <= 0.0 || std::fmod(t - from, period) < on;
    }
    /// The first time after `t` at which active() may change.
    [[nodiscard]] double next_change(double t) const noexcept {
        if (t < from) return from;
        if (t >= until) return std::numeric_limits<double>::infinity();
        if (period <= 0.0) return until;
        // The first window edge after t; floor() may land one period early when t is on an edge.
        double const start = from + std::floor((t - from) / period) * period;
        for (double edge : {start + on, start + period, start + period + on})
            if (edge > t) return std::min(until, edge);
        return std::min(until, start + 2.0 * period);
    }
};

/// A host that fails `at` seconds after the run starts: its rank is killed
/// mid-whatever (SimGrid unwinds its stack), anything it had not sent is lost
/// and so is every message sent to it from then on; what it had already sent
/// still arrives. (Not SimGrid's Host::turn_off: a message cut off by it stays
/// at the head of a receiver's mailbox and holds back everything behind it.)
/// A loop or farm survives it only with reissue and a finite
/// presumed_lost_after (the master's failure detector).
struct host_failure {
    int rank = 0;
    double at = 0.0;
};

/// A star of hosts, each on its own link to one switch (switched Ethernet):
/// a message crosses the sender's link and the receiver's link. Rank k is
/// the k-th host added. With a shared medium (a hub, or one Ethernet
/// segment as the documents' networks of workstations had), every message
/// also crosses one link that all transfers at the same moment share.
class platform {
public:
    /// Every message also crosses one medium of `bytes_per_second`, shared by all.
    platform& share_medium(double bytes_per_second) {
        loopsched::detail::require(bytes_per_second > 0.0, "shared medium bandwidth", bytes_per_second,
                                   "must be > 0 bytes/s");
        medium_ = bytes_per_second;
        return *this;
    }
    [[nodiscard]] std::optional<double> shared_medium() const noexcept { return medium_; }

    platform& add(host h) {
        loopsched::detail::require(h.speed > 0.0, "host " + h.name + " speed", h.speed, "must be > 0 flop/s");
        loopsched::detail::require(h.bandwidth > 0.0, "host " + h.name + " bandwidth", h.bandwidth,
                                   "must be > 0 bytes/s");
        loopsched::detail::require(h.latency >= 0.0, "host " + h.name + " latency", h.latency, "must be >= 0 s");
        loopsched::detail::require(h.background >= 0, "host " + h.name + " background", h.background, "must be >= 0");
        if (h.name.empty()) h.name = "host-" + std::to_string(hosts_.size());
        for (auto const& other : hosts_)
            if (other.name == h.name) throw invalid_parameter("host name", h.name, "is used twice");
        hosts_.push_back(std::move(h));
        return *this;
    }
    /// `count` copies of `h`, named name-1 .. name-count.
    platform& add(host const& h, int count) {
        for (int i = 1; i <= count; ++i) {
            host copy = h;
            copy.name = h.name + "-" + std::to_string(i);
            add(std::move(copy));
        }
        return *this;
    }

    [[nodiscard]] std::vector<host> const& hosts() const noexcept { return hosts_; }
    [[nodiscard]] std::vector<host>& hosts() noexcept { return hosts_; }
    [[nodiscard]] int size() const noexcept { return static_cast<int>(hosts_.size()); }

    /// V_k = speed_k / slowest speed (Chronopoulos et al.'s virtual power; the slowest has V = 1).
    [[nodiscard]] std::vector<double> powers() const {
        double slowest = 1e300;
        for (auto const& h : hosts_) slowest = std::min(slowest, h.speed);
        std::vector<double> v;
        for (auto const& h : hosts_) v.push_back(h.speed / slowest);
        return v;
    }
    /// Q_k = 1 + competing processes.
    [[nodiscard]] std::vector<double> run_queues() const {
        std::vector<double> q;
        for (auto const& h : hosts_) q.push_back(1.0 + h.background);
        return q;
    }

    /// Adds a change of speed that every run of this platform goes through.
    platform& perturb(perturbation p) {
        using loopsched::detail::require;
        require(p.rank >= 0 && p.rank < size(), "perturbation rank", p.rank,
                "must name a host added before (0.." + std::to_string(size() - 1) + ")");
        require(p.from >= 0.0, "perturbation from", p.from, "must be >= 0 s");
        require(p.until > p.from, "perturbation until", p.until, "must be after from");
        require(p.slowdown >= 1.0, "perturbation slowdown", p.slowdown, "must be >= 1 (infinity: stopped)");
        require(p.period >= 0.0, "perturbation period", p.period, "must be >= 0 s");
        require(p.period == 0.0 || (p.on > 0.0 && p.on < p.period), "perturbation on", p.on,
                "must be in (0, period)");
        perturbations_.push_back(p);
        return *this;
    }
    [[nodiscard]] std::vector<perturbation> const& perturbations() const noexcept { return perturbations_; }

    /// Turns a host off during every run of this platform (see host_failure).
    /// At least one host never fails: the one its failures are run from.
    platform& fail(host_failure f) {
        using loopsched::detail::require;
        require(f.rank >= 0 && f.rank < size(), "failure rank", f.rank,
                "must name a host added before (0.." + std::to_string(size() - 1) + ")");
        require(f.at >= 0.0 && f.at < std::numeric_limits<double>::infinity(), "failure at", f.at,
                "must be finite and >= 0 s");
        for (auto const& g : failures_) require(g.rank != f.rank, "failure rank", f.rank, "fails twice");
        require(static_cast<int>(failures_.size()) + 1 < size(), "failures", failures_.size() + 1,
                "must leave at least one host that never fails");
        failures_.push_back(f);
        return *this;
    }
    [[nodiscard]] std::vector<host_failure> const& failures() const noexcept { return failures_; }

    /// The host's speed at time t of a run, with its background load and its perturbations.
    [[nodiscard]] double speed_at(int rank, double t) const {
        auto const& h = hosts_[static_cast<std::size_t>(rank)];
        double speed = h.speed / (1.0 + h.background);
        for (auto const& p : perturbations_)
            if (p.rank == rank && p.active(t)) speed /= p.slowdown;
        return speed;
    }

    /// The ideal time of `flops` spread over ranks first_rank..size()-1 as
    /// their speeds change: no waiting, no messages, any split (the bound a
    /// perturbed run's makespan is measured against).
    [[nodiscard]] double ideal_seconds(double flops, int first_rank = 1) const {
        double t = 0.0, left = flops;
        while (left > 0.0) {
            double rate = 0.0, next = std::numeric_limits<double>::infinity();
            for (int r = first_rank; r < size(); ++r) rate += speed_at(r, t);
            for (auto const& p : perturbations_)
                if (p.rank >= first_rank) next = std::min(next, p.next_change(t));
            if (rate * (next - t) >= left) return t + left / rate;
            left -= rate * (next - t);
            t = next;
        }
        return t;
    }

private:
    std::vector<host> hosts_;
    std::optional<double> medium_;
    std::vector<perturbation> perturbations_;
    std::vector<host_failure> failures_;
};

/// How the simulated runtime's own work is charged. Bodies charge their work
/// through transport::compute; the engines' own code (policy, encoding,
/// bookkeeping) is free unless one of these is set.
struct simulation_options {
    double message_overhead = 0.0;   ///< CPU seconds per message sent and per message received (MPI's o)
    bool charge_engine_time = false; ///< charge the real time the engines run between transport calls
    double engine_time_scale = 1.0;  ///< simulated seconds per real second of engine time
    std::size_t envelope_bytes = 64; ///< bytes a message carries besides its payload
    /// Messages of at least this many payload bytes follow MPI's rendezvous
    /// protocol: the receiver's clear-to-send takes `rendezvous_round_trip`
    /// seconds, and the data move only at the sender's first transport call
    /// after that (a blocking receive moves them at once: MPI progresses while
    /// it waits). A halo sent before a tile thus arrives after it. 0: every
    /// message is eager. Open MPI's shared-memory eager limit is 4 KiB.
    std::size_t rendezvous_bytes = 0;
    double rendezvous_round_trip = 0.0;
};

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

    /// The library's channel for this rank (set by the simulator).
    channel<transport>& library_channel() {
        if (!library_)
            throw error("loopsched: this simulated transport has no library channel (made outside a simulator run)");
        return *library_;
    }
    void lend_channel(channel<transport>* library) noexcept { library_ = library; }

private:
    detail::rank_state& state() const { return net_->ranks[static_cast<std::size_t>(rank_)]; }
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

/// Per-rank outcome of one simulated program.
struct run_result {
    double simulated_seconds = 0.0; ///< from the first actor's start to the last one's end
    double wall_seconds = 0.0;      ///< what the simulation itself took
    std::vector<int> failed_ranks{}; ///< ranks killed by a host_failure before the run ended, in rank order
    /// Each rank's engine time charged (simulation_options::charge_engine_time), in simulated seconds.
    std::vector<double> engine_seconds{};
};

/// A simulated cluster. Any number may be made in one process (each is a zone
/// of the process's one SimGrid engine), all before the first run: SimGrid
/// seals the platform when a simulation starts. run() may be called many
/// times, each run a fresh set of actors, its times measured from its start.
class simulator {
public:
    explicit simulator(platform p, simulation_options options = {}) : platform_(std::move(p)) {
        loopsched::detail::require(platform_.size() >= 1, "platform size", platform_.size(), "must be >= 1 host");
        loopsched::detail::require(options.message_overhead >= 0.0, "simulation message_overhead",
                                   options.message_overhead, "must be >= 0");
        loopsched::detail::require(options.engine_time_scale >= 0.0, "simulation engine_time_scale",
                                   options.engine_time_scale, "must be >= 0");
        build();
        net_->options = options;
    }
    simulator(simulator&&) = default;

    /// A simulator on a SimGrid XML platform file: every host is a rank, in the
    /// order of their `rank` property (else of their names); a host's
    /// `background` property gives its competing processes. Only one per
    /// process, made before any other simulator.
    static simulator from_xml(std::string const& path, simulation_options options = {}) {
        auto& world = detail::world::get();
        if (world.root || world.from_xml)
            throw error("loopsched: load the XML platform " + path + " before making any other simulator");
        world.engine->load_platform(path);
        world.from_xml = true;
        auto found = world.engine->get_all_hosts();
        auto rank_of = [](::simgrid::s4u::Host const* h) {
            char const* r = h->get_property("rank");
            return r ? std::stol(r) : 0L;
        };
        std::ranges::stable_sort(found, [&](auto* a, auto* b) {
            return rank_of(a) != rank_of(b) ? rank_of(a) < rank_of(b) : a->get_name() < b->get_name();
        });
        simulator out(options);
        std::vector<std::string> names;
        for (auto* h : found) {
            char const* load = h->get_property("background");
            int const background = load ? std::stoi(load) : 0;
            loopsched::detail::require(background >= 0, "host " + h->get_name() + " background", background,
                                       "must be >= 0");
            out.platform_.hosts().push_back(host{h->get_name(), h->get_speed(), 0.0, 0.0, background});
            out.net_->hosts.push_back(h);
            names.push_back(h->get_name());
        }
        out.net_->name_boxes("xml/", names);
        loopsched::detail::require(out.platform_.size() >= 1, "platform size", out.platform_.size(),
                                   "must be >= 1 host");
        return out;
    }

    [[nodiscard]] platform const& layout() const noexcept { return platform_; }
    [[nodiscard]] simulation_options const& options() const noexcept { return net_->options; }
    /// Adds a change of speed to every later run (see platform::perturb).
    simulator& perturb(perturbation p) {
        platform_.perturb(p);
        return *this;
    }
    /// Turns a host off in every later run (see platform::fail).
    simulator& fail(host_failure f) {
        platform_.fail(f);
        return *this;
    }
    [[nodiscard]] int size() const noexcept { return platform_.size(); }

    /// Runs `program(transport&)` on every rank, each on its host, with the
    /// platform's background processes competing. If any rank throws, the
    /// first exception (by rank) is rethrown once the simulation ends.
    run_result run(std::function<void(transport&)> const& program) {
        int const n = platform_.size();
        std::vector<std::exception_ptr> failures(static_cast<std::size_t>(n));
        std::vector<std::unique_ptr<transport>> ends;
        // The library's channels outlive a run: a later run's loops carry later
        // loop numbers, so nothing a failed run left in a mailbox can reach them.
        while (static_cast<int>(channels_.size()) < n)
            channels_.push_back(
                    std::make_unique<channel<transport>>(std::in_place, *net_, static_cast<int>(channels_.size()), 1));
        for (auto& state : net_->ranks) { // the stopwatch of a rank's last run must not run into this one
            state.engine_seconds = 0.0;
            state.ran_since.reset();
        }
        double const begin = ::simgrid::s4u::Engine::get_clock();
        double last_end = begin;
        auto const wall = std::chrono::steady_clock::now();
        for (int r = 0; r < n; ++r) {
            ends.push_back(std::make_unique<transport>(*net_, r));
            ends.back()->lend_channel(channels_[static_cast<std::size_t>(r)].get());
            auto* host = net_->hosts[static_cast<std::size_t>(r)];
            auto* t = ends.back().get();
            auto const actor = ::simgrid::s4u::Actor::create("rank-" + std::to_string(r), host, [&, r, t] {
                for (int c = 0; c < detail::network::contexts; ++c)
                    net_->box(r, c)->set_receiver(::simgrid::s4u::Actor::self());
                try {
                    program(*t);
                } catch (::simgrid::ForcefulKillException const&) {
                    throw; // its host failed: it must not live on
                } catch (...) {
                    failures[static_cast<std::size_t>(r)] = std::current_exception();
                }
                last_end = std::max(last_end, ::simgrid::s4u::Engine::get_clock());
            });
            net_->ranks[static_cast<std::size_t>(r)].actor = actor->get_pid();
            // Competing processes: run until the program's actors end.
            int const background = platform_.hosts()[static_cast<std::size_t>(r)].background;
            for (int b = 0; b < background; ++b)
                ::simgrid::s4u::Actor::create("load-" + std::to_string(r) + "-" + std::to_string(b), host, [] {
                    ::simgrid::s4u::Actor::self()->daemonize();
                    while (true) ::simgrid::s4u::this_actor::execute(1e15);
                });
            for (auto const& p : platform_.perturbations())
                if (p.rank == r) start_perturbation(p, host, background, begin);
        }
        start_failures(begin);
        detail::world::get().started = true;
        detail::world::get().engine->run();
        for (auto* box : net_->boxes) box->set_receiver(nullptr);
        run_result out{last_end - begin,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count()};
        for (auto const& state : net_->ranks) out.engine_seconds.push_back(state.engine_seconds);
        for (auto const& f : platform_.failures()) { // up again for the next run
            auto& state = net_->ranks[static_cast<std::size_t>(f.rank)];
            if (!state.down) continue;
            state = detail::rank_state{};
            out.failed_ranks.push_back(f.rank);
        }
        std::ranges::sort(out.failed_ranks);
        for (auto& f : failures)
            if (f) std::rethrow_exception(f);
        return out;
    }

private:
    explicit simulator(simulation_options options) { net_->options = options; }

    /// A competing execution whose priority leaves the rank 1/slowdown of the
    /// CPU share it had (SimGrid shares a host's CPU by priority), present
    /// in the perturbation's windows only.
    static void start_perturbation(perturbation const& p, ::simgrid::s4u::Host* host, int background, double begin) {
        constexpr double stopped = 1e9; // priority of a stop: the rank keeps a billionth of its share
        double const priority = std::isinf(p.slowdown) ? stopped : (1.0 + background) * (p.slowdown - 1.0);
        if (priority <= 0.0) return;
        ::simgrid::s4u::Actor::create("perturbation", host, [p, priority, begin] {
            ::simgrid::s4u::Actor::self()->daemonize();
            for (double t = p.from; t < p.until; t += p.period) {
                double const end = p.period > 0.0 ? std::min(t + p.on, p.until) : p.until;
                ::simgrid::s4u::this_actor::sleep_until(begin + t);
                auto exec = ::simgrid::s4u::this_actor::exec_init(1e30)->set_priority(priority);
                exec->start();
                if (std::isinf(end)) {
                    exec->wait();
                    return;
                }
                ::simgrid::s4u::this_actor::sleep_until(begin + end);
                exec->cancel();
                if (p.period <= 0.0) return;
            }
        });
    }

    /// One daemon, on a host that never fails, kills the failing ranks in time
    /// order; a rank is marked down first, so that nothing more reaches it.
    void start_failures(double begin) {
        auto failures = platform_.failures();
        if (failures.empty()) return;
        std::ranges::sort(failures, {}, &host_failure::at);
        int safe = 0;
        while (std::ranges::any_of(failures, [&](auto const& f) { return f.rank == safe; })) ++safe;
        ::simgrid::s4u::Actor::create("failures", net_->hosts[static_cast<std::size_t>(safe)],
                                      [failures, begin, net = net_.get()] {
                                          ::simgrid::s4u::Actor::self()->daemonize();
                                          for (auto const& f : failures) {
                                              ::simgrid::s4u::this_actor::sleep_until(begin + f.at);
                                              auto& rank = net->ranks[static_cast<std::size_t>(f.rank)];
                                              rank.down = true;
                                              if (auto victim = ::simgrid::s4u::Actor::by_pid(rank.actor))
                                                  victim->kill(); // nothing if it ended already
                                          }
                                      });
    }

    void build() {
        auto& world = detail::world::get();
        std::string const prefix = "cluster-" + std::to_string(world.clusters++) + "/";
        auto* parent = world.zone_root(); // first: SimGrid's first zone becomes the root
        auto* zone = ::simgrid::s4u::create_star_zone(prefix);
        std::vector<std::string> names;
        zone->set_parent(parent);
        ::simgrid::s4u::Link* medium = nullptr;
        if (auto const b = platform_.shared_medium()) {
            medium = zone->create_link(prefix + "shared-medium", *b); // SHARED: concurrent flows split it
            medium->seal();
        }
        for (auto const& h : platform_.hosts()) {
            auto* simulated = zone->create_host(prefix + h.name, h.speed);
            auto* link = zone->create_link(prefix + h.name + "-link", h.bandwidth)->set_latency(h.latency);
            link->seal();
            // Star zone: the host's route to anywhere (and back) crosses its own link, and the
            // shared medium if there is one (a star zone keeps a link once per route).
            std::vector<::simgrid::s4u::LinkInRoute> route{::simgrid::s4u::LinkInRoute(link)};
            if (medium) route.emplace_back(medium);
            zone->add_route(simulated->get_netpoint(), nullptr, nullptr, nullptr, route, true);
            simulated->seal();
            net_->hosts.push_back(simulated);
            names.push_back(h.name);
        }
        net_->name_boxes(prefix, names);
        zone->seal();
    }

    platform platform_;
    std::unique_ptr<detail::network> net_ =
            std::make_unique<detail::network>(); // transports point into it: it must not move
    std::vector<std::unique_ptr<channel<transport>>> channels_;
};

} // namespace loopsched::sim

#ifdef LOOPSCHED_SIMGRID_COMPILED
namespace loopsched::detail {
template <>
inline constexpr bool engines_compiled_for<sim::transport> = true; // src/compiled_simgrid.cpp
} // namespace loopsched::detail
#endif
