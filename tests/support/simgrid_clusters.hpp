// The simulated clusters of the SimGrid tests, shared by their translation
// units: SimGrid seals its platform when the first simulation starts, so
// every simulator of the program is made at once, on first use of all().
#pragma once

#include <loopsched/transport/simgrid.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace loopsched::testing {

/// 1 master + the given workers, all on 100 Mbit/s links.
inline sim::platform cluster(std::vector<double> const& worker_speeds, std::vector<int> const& background = {}) {
    sim::platform p;
    p.add({"master", 1e9, 12.5e6, 50e-6, 0});
    for (std::size_t k = 0; k < worker_speeds.size(); ++k)
        p.add({"w" + std::to_string(k + 1), worker_speeds[k], 12.5e6, 50e-6, background.empty() ? 0 : background[k]});
    return p;
}

/// A master and 4 equal workers, `count` of them (chosen by `seed`) failing
/// at random times in [0.02, 0.6] s.
inline sim::platform randomly_failing(int count, unsigned seed) {
    auto p = cluster({1e9, 1e9, 1e9, 1e9});
    std::mt19937 random(seed);
    std::vector<int> ranks{1, 2, 3, 4};
    std::shuffle(ranks.begin(), ranks.end(), random);
    std::uniform_real_distribution<double> when(0.02, 0.6);
    for (int i = 0; i < count; ++i) p.fail({.rank = ranks[static_cast<std::size_t>(i)], .at = when(random)});
    return p;
}

inline std::string testing_text(std::vector<int> const& ranks) {
    std::string out;
    for (int r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
    return "{" + out + "}";
}

/// Every simulator of this program, made before any runs (SimGrid seals its
/// platform when the first simulation starts).
struct clusters {
    sim::simulator mixed{cluster({3e9, 1e9, 1e9, 2e9}, {0, 1, 0, 2})};
    sim::simulator equal{cluster({1e9, 1e9})};
    sim::simulator fast_slow{cluster({3e9, 1e9})};
    sim::simulator free_loaded{cluster({1e9, 1e9}, {0, 1})};
    sim::simulator three{cluster({2e9, 1e9, 1e9}, {0, 1, 0})};
    sim::simulator doacross{cluster({1e9, 0.5e9, 1e9}, {0, 1, 0})};
    sim::simulator plain{cluster({1e9, 1e9, 1e9})};
    sim::simulator four_one{cluster({4e9, 1e9, 1e9, 1e9})};
    sim::simulator nine{cluster({2e9, 1e9, 1e9, 1e9, 2e9, 1e9, 1e9, 1e9, 3e9}, {0, 0, 1, 0, 0, 0, 2, 0, 0})};
    sim::simulator sixty_four{cluster(std::vector<double>(64, 1e9))};
    sim::simulator many{cluster(std::vector<double>(511, 1e9))};
    sim::simulator most{cluster(std::vector<double>(1023, 1e9))};
    sim::simulator switched4{cluster({1e9, 1e9, 1e9})};
    sim::simulator shared4{cluster({1e9, 1e9, 1e9}).share_medium(12.5e6)};
    // Rank 1 10x slower from 0.25 s; rank 2 stopped from 0.1 to 0.3 s; rank 3 at half speed
    // for the first 0.1 s of every 0.2 s.
    sim::simulator perturbed{[] {
        auto p = cluster({1e9, 1e9, 1e9});
        p.perturb({.rank = 1, .from = 0.25, .slowdown = 10.0});
        p.perturb({.rank = 2, .from = 0.1, .until = 0.3, .slowdown = std::numeric_limits<double>::infinity()});
        p.perturb({.rank = 3, .slowdown = 2.0, .period = 0.2, .on = 0.1});
        return p;
    }()};
    // Rank 1 10x slower from 0.3 s: reissue's test.
    sim::simulator slowed{[] {
        auto p = cluster({1e9, 1e9, 1e9, 1e9});
        p.perturb({.rank = 1, .from = 0.3, .slowdown = 10.0});
        return p;
    }()};
    // Ranks 2 and 4's hosts fail at 0.3 and 0.7 s: the failure detector's test.
    sim::simulator failing{[] {
        auto p = cluster({1e9, 1e9, 1e9, 1e9});
        p.fail({.rank = 4, .at = 0.7});
        p.fail({.rank = 2, .at = 0.3});
        return p;
    }()};
    // A master and 4 workers; 1, 2 and all 4 workers' hosts fail at random times in the
    // first 0.6 s (seeded): failures at any moment, the root left alone at worst.
    sim::simulator random_failures[3] = {sim::simulator(randomly_failing(1, 11)), sim::simulator(randomly_failing(2, 12)),
                                         sim::simulator(randomly_failing(4, 13))};
    sim::simulator charged{cluster({1e9}), [] {
                               sim::simulation_options o;
                               o.charge_engine_time = true;
                               return o;
                           }()};
    sim::simulator rendezvous{cluster({1e9}), [] {
                                  sim::simulation_options o;
                                  o.rendezvous_bytes = 1000;
                                  o.rendezvous_round_trip = 1e-3;
                                  return o;
                              }()};
};
inline clusters& all() {
    static clusters c;
    return c;
}

inline bytes bytes_of(std::size_t n) { return bytes(n, std::byte{1}); }

inline double seconds_per_iteration(worker_statistics const& w) {
    return w.compute_seconds / static_cast<double>(w.iterations);
}

} // namespace loopsched::testing
