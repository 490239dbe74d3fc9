// The SimGrid transport: the runtime's own master and worker engines run as
// SimGrid actors on simulated hosts; bodies charge simulated work instead of
// computing. This header holds the simulator that runs them (the platform:
// transport/simgrid/platform.hpp; the transport: transport/simgrid/network.hpp).
// Optional: only code that includes it needs libsimgrid.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/channel.hpp>
#include <loopsched/transport/simgrid/network.hpp>
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
#include <string>
#include <utility>
#include <vector>

namespace loopsched::sim {

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
        loopsched::detail::require(options.atomic_latency >= 0.0, "simulation atomic_latency", options.atomic_latency,
                                   "must be >= 0");
        loopsched::detail::require(options.atomic_service >= 0.0, "simulation atomic_service", options.atomic_service,
                                   "must be >= 0");
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

