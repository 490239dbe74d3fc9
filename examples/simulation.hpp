// Simulated experiments shared by the simulate, policy_sweep and fidelity
// programs: the documents' clusters as platforms, the test problems as costs,
// and one function that runs a policy on both.
#pragma once

#include "doacross_kernels.hpp"
#include "mandelbrot.hpp"

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/simgrid.hpp>

#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched::examples {

/// Splits "name:key=value:flag" into its parts.
inline std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    std::size_t from = 0;
    while (true) {
        auto const at = text.find(separator, from);
        parts.emplace_back(text.substr(from, at - from));
        if (at == std::string_view::npos) return parts;
        from = at + 1;
    }
}

/// The `key=value` options of a "name:key=value:..." description, with a flag
/// (no '=') stored as "1". Rejects keys not in `known`.
class description {
public:
    description(std::string_view text, std::string_view what, std::vector<std::string> known) : what_(what) {
        auto parts = split(text, ':');
        name_ = parts.front();
        for (std::size_t i = 1; i < parts.size(); ++i) {
            auto const eq = parts[i].find('=');
            std::string key = parts[i].substr(0, eq), value = eq == std::string::npos ? "1" : parts[i].substr(eq + 1);
            if (std::ranges::find(known, key) == known.end()) {
                std::string list;
                for (auto const& k : known) list += " " + k;
                throw invalid_parameter(std::string(what) + " key", key, "valid keys:" + list);
            }
            values_.emplace_back(key, value);
        }
    }
    [[nodiscard]] std::string const& name() const noexcept { return name_; }
    [[nodiscard]] bool has(std::string_view key) const {
        return std::ranges::any_of(values_, [&](auto const& kv) { return kv.first == key; });
    }
    [[nodiscard]] double number(std::string_view key, double fallback) const {
        for (auto const& [k, v] : values_)
            if (k == key) {
                double x = 0;
                auto const [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
                if (ec != std::errc{} || end != v.data() + v.size())
                    throw invalid_parameter(what_ + " " + std::string(key), v, "must be a number");
                return x;
            }
        return fallback;
    }
    [[nodiscard]] std::string text(std::string_view key, std::string fallback) const {
        for (auto const& [k, v] : values_)
            if (k == key) return v;
        return fallback;
    }

private:
    std::string what_, name_;
    std::vector<std::pair<std::string, std::string>> values_;
};

/// "WxH" or "AxBxC" into extents.
inline std::vector<index_t> parse_size(std::string const& text) {
    std::vector<index_t> out;
    for (auto const& part : split(text, 'x')) {
        index_t v = 0;
        auto const [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (ec != std::errc{} || end != part.data() + part.size() || v <= 0)
            throw invalid_parameter("size", text, "must be positive extents joined by 'x', e.g. 4000x2000");
        out.push_back(v);
    }
    return out;
}

// --- Platforms -----------------------------------------------------------

/// Speed of a host of virtual power 1 in every preset, flop/s.
inline constexpr double reference_speed = 1e9;
inline constexpr double seed001_speed = 5.5e6;
inline constexpr double fast_ethernet = 12.5e6; ///< 100 Mbit/s in bytes/s
/// One-way latency of a host's link; a message crosses two, so c_d is about
/// 100 us, Table 5.11's 99 us.
inline constexpr double ethernet_latency = 50e-6;

/// The presets (see docs/simulation.md):
///   seed001[:loaded][:p=P]  1 master + 3 fast (V = 3, 100 Mbit/s) + 5 slow (V = 1, 10 Mbit/s);
///                         loaded: 2 CPU-heavy processes on 1 fast and 3 slow workers; p=P < 8:
///                         the first P of fast, slow, fast, slow, ... (loaded: 1 fast, 1 slow)
///   seed003-w             Table 4.2: 1 master + 4 workers, V = 1, 0.8, 1, 0.8, workers 2 and 4 at q = 2
///   seed003-sw[:m=M][:loaded]   section 5.3.4: twin master + M of twin2, kid1, twin3, kid2, ...
///                         (twins V = 1, kids V = 0.8); loaded: every kid at q = 2
///   seed003-dmps[:m=M][:loaded] section 5.3.3: zealot master + M of zealot2, kid1, zealot3, kid2,
///                         zealot4, kid3..kid6 (zealots V = 1.5, kids V = 0.5); loaded: kid3..kid6 at
///                         q = 2 (the tables' times jump when kid3 joins at m = 6, not before)
///   kids | twins | hetero Table 5.11: 10+1 kids (V = 0.606), 6+1 twins (V = 1), 5 kids + 5+1 twins
///   uniform:n=N[:bandwidth=B][:latency=L]   1 master + N equal workers
/// Every preset takes shared=B: every message also crosses one medium of B
/// bytes/s that all transfers share (one Ethernet segment or a hub, as the
/// documents' networks of workstations were; 1.25e6 is 10 Mbit/s).
/// Every preset takes speed=S, the flop/s of a host of V = 1 (default 1e9;
/// seed001: 5.5e6, so that its times are on Table 2's scale), and latency=L,
/// the one-way latency of each host's link (default 50 us; uniform: 5 us).
///   speeds[:v=4/1/1/1][:loads=0/0/1/0][:bandwidth=B]   a dedicated master (V = 1) and one worker per
///                         entry of v, with that V and that many competing processes
///   machine:c_d=..:c_c=..:n=2  two ranks with a measured one-way latency c_d (s) and
///                         per-byte cost c_c (s/byte), for predicting this machine
inline sim::platform make_platform(std::string const& text) {
    description d(text, "platform",
                  {"loaded", "m", "n", "p", "speed", "bandwidth", "latency", "c_d", "c_c", "v", "loads", "shared"});
    bool const loaded = d.has("loaded");
    sim::platform p;
    auto const& name = d.name();
    // Chronopoulos et al.'s workstations were slower: its V = 1 speed is set so that TSS
    // on the dedicated cluster takes about Table 2's 23.6 s.
    double const unit = d.number("speed", name == "seed001" ? seed001_speed : reference_speed);
    if (!(unit > 0)) throw invalid_parameter("platform speed", std::to_string(unit), "must be > 0 flop/s");
    double const latency = d.number("latency", name == "uniform" ? 5e-6 : ethernet_latency);
    if (!(latency >= 0)) throw invalid_parameter("platform latency", std::to_string(latency), "must be >= 0 s");
    auto node = [unit, latency](std::string n, double power, double bandwidth, int background = 0) {
        return sim::host{std::move(n), power * unit, bandwidth, latency, background};
    };
    if (name == "seed001") {
        // p = 1..8 slaves, taken fast and slow alternately (the document's loaded
        // sets: 1 fast at p = 1, 1 fast and 1 slow at p = 2 and 4, 1 fast and 3 slow at 8).
        int const slaves = static_cast<int>(d.number("p", 8));
        if (slaves < 1 || slaves > 8) throw invalid_parameter("platform p", std::to_string(slaves), "must be in 1..8");
        int const fast = std::min(3, (slaves + 1) / 2), slow = slaves - fast, loaded_slow = slaves == 8 ? 3 : 1;
        p.add(node("master", 3, fast_ethernet));
        for (int i = 1; i <= fast; ++i)
            p.add(node("fast-" + std::to_string(i), 3, fast_ethernet, loaded && i == 1 ? 2 : 0));
        for (int i = 1; i <= slow; ++i)
            p.add(node("slow-" + std::to_string(i), 1, fast_ethernet / 10, loaded && i <= loaded_slow ? 2 : 0));
    } else if (name == "seed003-w") {
        p.add(node("master", 1, fast_ethernet));
        for (int i = 1; i <= 4; ++i)
            p.add(node("worker-" + std::to_string(i), i % 2 ? 1.0 : 0.8, fast_ethernet, i % 2 ? 0 : 1));
    } else if (name == "seed003-sw" || name == "seed003-dmps") {
        bool const sw = name == "seed003-sw";
        int const m = static_cast<int>(d.number("m", sw ? 12 : 9));
        int const limit = sw ? 12 : 9;
        if (m < 1 || m > limit)
            throw invalid_parameter("platform m", std::to_string(m), "must be in 1.." + std::to_string(limit));
        double const fast = sw ? 1.0 : 1.5, slow = sw ? 0.8 : 0.5;
        std::string const fast_name = sw ? "twin" : "zealot";
        p.add(node(fast_name + "-1", fast, fast_ethernet));
        // The documents' slave orders: alternate fast and slow while both last.
        int fast_left = sw ? 6 : 3, slow_left = 6, f = 2, k = 1;
        for (int i = 0; i < m; ++i) {
            bool const take_fast = fast_left > 0 && (i % 2 == 0 || slow_left == 0);
            if (take_fast) {
                p.add(node(fast_name + "-" + std::to_string(f++), fast, fast_ethernet));
                --fast_left;
            } else {
                // Loaded kids: every kid in section 5.3.4; in 5.3.3 the kids that join
                // from m = 6 on (kid3..kid6), which is where Tables 5.3 and 5.4 jump.
                bool const busy = loaded && (sw || k >= 3);
                p.add(node("kid-" + std::to_string(k++), slow, fast_ethernet, busy ? 1 : 0));
                --slow_left;
            }
        }
    } else if (name == "kids" || name == "twins" || name == "hetero") {
        double const kid = 0.319 / 0.526; // Table 5.11's c_p ratio
        if (name == "kids") p.add(node("kid", kid, fast_ethernet), 11);
        if (name == "twins") p.add(node("twin", 1, fast_ethernet), 7);
        if (name == "hetero") {
            p.add(node("twin", 1, fast_ethernet), 6);
            p.add(node("kid", kid, fast_ethernet), 5);
        }
    } else if (name == "uniform") {
        int const n = static_cast<int>(d.number("n", 8));
        if (n < 1) throw invalid_parameter("platform n", std::to_string(n), "must be >= 1");
        sim::host h{"node", unit, d.number("bandwidth", 125e6), latency, 0};
        p.add(h, n + 1);
    } else if (name == "speeds") {
        // A dedicated master of V = 1 and one worker per entry of v (its V), loads: its competing processes.
        auto const powers = split(d.text("v", "4/1/1/1"), '/');
        auto const loads = d.has("loads") ? split(d.text("loads", ""), '/') : std::vector<std::string>{};
        if (!loads.empty() && loads.size() != powers.size())
            throw invalid_parameter("platform loads", d.text("loads", ""), "must have one entry per entry of v");
        auto number = [](std::string const& entry, char const* what) {
            double x = 0;
            auto const [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), x);
            if (ec != std::errc{} || end != entry.data() + entry.size() || !(x >= 0))
                throw invalid_parameter(std::string("platform ") + what, entry, "must be a number >= 0");
            return x;
        };
        double const bandwidth = d.number("bandwidth", fast_ethernet);
        p.add(node("master", 1, bandwidth));
        for (std::size_t i = 0; i < powers.size(); ++i)
            p.add(node("worker-" + std::to_string(i + 1), number(powers[i], "v"), bandwidth,
                       loads.empty() ? 0 : static_cast<int>(number(loads[i], "loads"))));
    } else if (name == "machine") {
        double const c_d = d.number("c_d", 20e-6), c_c = d.number("c_c", 1e-10);
        int const n = static_cast<int>(d.number("n", 2));
        // A message crosses two links: each adds half the latency; the slower caps the bandwidth.
        p.add(sim::host{"core", unit, 1.0 / c_c, c_d / 2.0, 0}, n);
    } else {
        throw invalid_parameter(
                "platform", text,
                "unknown; presets: seed001 seed003-w seed003-sw seed003-dmps kids twins hetero uniform speeds machine");
    }
    if (d.has("shared")) {
        double const medium = d.number("shared", 0.0);
        if (!(medium > 0)) throw invalid_parameter("platform shared", std::to_string(medium), "must be > 0 bytes/s");
        p.share_medium(medium);
    }
    return p;
}

// --- Workloads -----------------------------------------------------------

/// A loop to simulate: DOALL with a cost per iteration, or DOACROSS with a
/// cost per point of one of Ciorba's kernels.
/// A change of a host's speed during every run (Mohammed and Ciorba's perturbations),
/// times as fractions of `loop_seconds` (the unperturbed ideal: "from 30% of the loop on"):
///   slow:rank=K[:from=0.3][:until=U][:factor=10]   rank K computes `factor` times slower
///   stop:rank=K[:from=0.3][:for=0.2]               rank K stops computing for a while
///   load:rank=K[:from=0][:until=U][:period=0.2][:on=0.5][:factor=3]   background load that
///                         comes and goes: on for the first `on` of every `period`
inline sim::perturbation make_perturbation(std::string const& text, double loop_seconds) {
    description d(text, "perturbation", {"rank", "from", "until", "for", "factor", "period", "on"});
    auto const& kind = d.name();
    if (!d.has("rank")) throw invalid_parameter("perturbation " + kind + " rank", "(none)", "is required");
    double const inf = std::numeric_limits<double>::infinity();
    sim::perturbation x;
    x.rank = static_cast<int>(d.number("rank", 0));
    x.from = d.number("from", kind == "load" ? 0.0 : 0.3) * loop_seconds;
    x.until = d.has("until") ? d.number("until", 0) * loop_seconds : inf;
    if (kind == "slow") {
        x.slowdown = d.number("factor", 10.0);
    } else if (kind == "stop") {
        x.slowdown = inf;
        x.until = x.from + d.number("for", 0.2) * loop_seconds;
    } else if (kind == "load") {
        x.slowdown = d.number("factor", 3.0);
        x.period = d.number("period", 0.2) * loop_seconds;
        x.on = d.number("on", 0.5) * x.period;
    } else {
        throw invalid_parameter("perturbation", kind, "must be slow, stop or load");
    }
    return x;
}

/// A --fail text: failure:rank=K[:at=F], at F (0.5) of the unperturbed ideal `loop_seconds`.
inline sim::host_failure make_failure(std::string const& text, double loop_seconds) {
    description d(text, "failure", {"rank", "at"});
    if (d.name() != "failure") throw invalid_parameter("failure", d.name(), "must be failure:rank=K[:at=F]");
    if (!d.has("rank")) throw invalid_parameter("failure rank", "(none)", "is required");
    return {static_cast<int>(d.number("rank", 0)), d.number("at", 0.5) * loop_seconds};
}

struct workload {
    std::string kind;             ///< mandelbrot, uniform, random; heat, floyd-steinberg, hydro
    std::vector<index_t> extents; ///< DOACROSS space
    std::vector<double> prefix;   ///< DOALL: prefix sums of the iterations' flops
    double flops_per_point = 0.0; ///< DOACROSS
    std::size_t result_bytes = 0; ///< DOALL: bytes each iteration sends back to the root
    std::size_t task_bytes = 0;   ///< as tasks of a farm: bytes each task carries to its worker
    [[nodiscard]] bool doacross() const { return prefix.empty(); }
    [[nodiscard]] index_t iterations() const { return static_cast<index_t>(prefix.size()) - 1; }
    [[nodiscard]] double total_flops() const {
        if (!doacross()) return prefix.back();
        double points = 1;
        for (auto e : extents) points *= static_cast<double>(e);
        return points * flops_per_point;
    }
};

/// Escape-iteration counts of Mandelbrot's columns, in loop order (S_f
/// reordering). For tall images every `stride`-th row is counted and scaled,
/// so a 10000x10000 image costs a second to prepare.
inline std::vector<double> mandelbrot_column_costs(mandelbrot const& m) {
    index_t const stride = std::max<index_t>(1, m.height / 1000);
    std::vector<double> per_column(static_cast<std::size_t>(m.width));
    for (index_t x = 0; x < m.width; ++x) {
        double const cx = -2.0 + 3.25 * (static_cast<double>(x) + 0.5) / static_cast<double>(m.width);
        double count = 0;
        for (index_t y = 0; y < m.height; y += stride) {
            double const cy = 1.25 - 2.5 * (static_cast<double>(y) + 0.5) / static_cast<double>(m.height);
            // Points of the main cardioid and the period-2 bulb never escape: their
            // count is the maximum without iterating (the same counts, checked on every
            // sampled point of 10000x10000, in a sixth of the time).
            double const q = (cx - 0.25) * (cx - 0.25) + cy * cy;
            bool const inside = q * (q + (cx - 0.25)) <= 0.25 * cy * cy || (cx + 1.0) * (cx + 1.0) + cy * cy <= 0.0625;
            double zx = 0, zy = 0;
            int n = inside ? m.max_iterations : 0;
            while (n < m.max_iterations && zx * zx + zy * zy <= 4.0) {
                double const t = zx * zx - zy * zy + cx;
                zy = 2.0 * zx * zy + cy;
                zx = t;
                ++n;
            }
            count += n + 1; // the point's own set-up counts as one iteration
        }
        per_column[static_cast<std::size_t>(x)] = count * static_cast<double>(stride);
    }
    std::vector<double> ordered;
    for (index_t x : m.column_order()) ordered.push_back(per_column[static_cast<std::size_t>(x)]);
    return ordered;
}

/// Flops of one Mandelbrot escape iteration (a few multiply-adds and a compare).
inline constexpr double flops_per_escape_iteration = 10.0;

/// The workloads (see docs/simulation.md):
///   mandelbrot:size=WxH[:sf=4][:max=1000][:bytes=1]   Chronopoulos et al.'s problem, per-column cost from real
///                                           escape counts; `bytes` per pixel return to the root
///   uniform:n=N[:cost=F]                    N iterations of F flops (default 1e7: 10 ms at V = 1)
///   random:n=N[:mean=F][:dist=exp|uniform|normal][:seed=S]
///   heat|floyd-steinberg|hydro:size=AxB[xC][:cost=F]   Ciorba's DOACROSS kernels, F flops per point
///   matmul[:rows=900][:inner=600][:cols=600][:tasks=300]   Kazouris's C = A x B, a task per block of
///                                           rows (its rows of A out, its block of C back)
///   convolution[:n=120][:tasks=400][:order=decreasing|increasing]   Kazouris's adjoint convolution
///   ramp:n=N[:cost=F][:growth=9]         costs growing linearly, the last 1 + growth times the first
/// Every DOALL workload also runs as the tasks of a task farm (simulate --farm).
/// `seed_offset` is added to a random workload's seed (a time-stepping run's
/// step draws its own costs).
inline workload make_workload(std::string const& text, std::uint64_t seed_offset = 0) {
    description d(text, "workload",
                  {"size", "sf", "max", "n", "cost", "mean", "dist", "seed", "bytes", "rows", "inner", "cols", "tasks",
                   "order", "growth"});
    workload w;
    w.kind = d.name();
    auto prefix_of = [&](std::vector<double> const& costs) {
        w.prefix.assign(1, 0.0);
        for (double c : costs) w.prefix.push_back(w.prefix.back() + c);
    };
    if (w.kind == "mandelbrot") {
        auto const size = parse_size(d.text("size", "4000x2000"));
        if (size.size() != 2)
            throw invalid_parameter("workload size", d.text("size", ""), "must be WxH for mandelbrot");
        mandelbrot m{size[0], size[1], static_cast<int>(d.number("max", 1000)),
                     static_cast<index_t>(d.number("sf", 4))};
        if (m.sampling < 1) throw invalid_parameter("workload sf", std::to_string(m.sampling), "must be >= 1");
        auto costs = mandelbrot_column_costs(m);
        // Each column's pixels (one byte each) ride to the root on the next request.
        w.result_bytes = static_cast<std::size_t>(d.number("bytes", 1.0) * static_cast<double>(m.height));
        for (auto& c : costs) c *= flops_per_escape_iteration;
        prefix_of(costs);
    } else if (w.kind == "uniform" || w.kind == "random") {
        auto const n = static_cast<std::size_t>(d.number("n", 100000));
        if (n < 1) throw invalid_parameter("workload n", std::to_string(n), "must be >= 1");
        double const mean = d.number(w.kind == "uniform" ? "cost" : "mean", 1e7);
        if (!(mean > 0)) throw invalid_parameter("workload cost", std::to_string(mean), "must be > 0 flops");
        std::vector<double> costs(n, mean);
        if (w.kind == "random") {
            std::mt19937_64 rng(static_cast<std::uint64_t>(d.number("seed", 1)) + seed_offset);
            std::string const dist = d.text("dist", "exp");
            if (dist == "exp") {
                std::exponential_distribution<double> e(1.0 / mean);
                for (auto& c : costs) c = e(rng);
            } else if (dist == "uniform") {
                std::uniform_real_distribution<double> u(0.0, 2.0 * mean);
                for (auto& c : costs) c = u(rng);
            } else if (dist == "normal") {
                std::normal_distribution<double> g(mean, mean / 4);
                for (auto& c : costs) c = std::max(0.0, g(rng));
            } else {
                throw invalid_parameter("workload dist", dist, "must be exp, uniform or normal");
            }
        }
        prefix_of(costs);
    } else if (w.kind == "ramp") { // costs growing along the loop: the last iteration costs 1 + growth times the first
        auto const n = static_cast<std::size_t>(d.number("n", 100000));
        double const first = d.number("cost", 1e7), growth = d.number("growth", 9.0);
        if (n < 2 || !(first > 0) || !(growth >= 0))
            throw invalid_parameter("workload ramp", text, "needs n >= 2, cost > 0 and growth >= 0");
        std::vector<double> costs(n);
        for (std::size_t i = 0; i < n; ++i)
            costs[i] = first * (1.0 + growth * static_cast<double>(i) / static_cast<double>(n - 1));
        prefix_of(costs);
    } else if (w.kind == "matmul") { // Kazouris's C = A x B: a task is RowsA/tasks rows of A
        double const rows = d.number("rows", 900), inner = d.number("inner", 600), cols = d.number("cols", 600);
        auto const tasks = static_cast<std::size_t>(d.number("tasks", 300));
        if (!(rows >= 1 && inner >= 1 && cols >= 1) || tasks < 1 || static_cast<double>(tasks) > rows)
            throw invalid_parameter("workload matmul", text, "needs rows, inner, cols >= 1 and 1 <= tasks <= rows");
        double const per_task = rows / static_cast<double>(tasks);
        prefix_of(std::vector<double>(tasks, 2.0 * per_task * inner * cols));
        w.task_bytes = static_cast<std::size_t>(per_task * inner * 8.0);
        w.result_bytes = static_cast<std::size_t>(per_task * cols * 8.0);
    } else if (w.kind == "convolution") { // Kazouris's adjoint convolution: entry i costs M - i multiply-adds
        double const n = d.number("n", 120);
        auto const tasks = static_cast<std::size_t>(d.number("tasks", 400));
        double const m = n * n;
        std::string const order = d.text("order", "decreasing");
        if (!(n >= 1) || tasks < 1 || static_cast<double>(tasks) > m ||
            (order != "decreasing" && order != "increasing"))
            throw invalid_parameter("workload convolution", text,
                                    "needs n >= 1, 1 <= tasks <= n^2, order decreasing or increasing");
        std::vector<double> costs;
        for (std::size_t t = 0; t < tasks; ++t) {
            std::size_t const u = order == "decreasing" ? t : tasks - 1 - t;
            double const first = std::floor(static_cast<double>(u) * m / static_cast<double>(tasks));
            double const last = std::floor(static_cast<double>(u + 1) * m / static_cast<double>(tasks));
            // sum over i in [first, last) of (m - i), two flops each
            costs.push_back(2.0 * ((last - first) * m - (last * (last - 1) - first * (first - 1)) / 2.0));
        }
        prefix_of(costs);
        w.task_bytes = 16;
        w.result_bytes = static_cast<std::size_t>(m / static_cast<double>(tasks) * 8.0);
    } else if (w.kind == "heat" || w.kind == "floyd-steinberg" || w.kind == "hydro") {
        w.extents = parse_size(d.text("size", w.kind == "hydro" ? "200x200x200" : "5000x10000"));
        std::size_t const rank = w.kind == "hydro" ? 3 : 2;
        if (w.extents.size() != rank)
            throw invalid_parameter("workload size", d.text("size", ""),
                                    "must have " + std::to_string(rank) + " extents for " + w.kind);
        // Table 5.11's c_p on a twin (V = 1): 0.319 us per Floyd-Steinberg point.
        w.flops_per_point = d.number("cost", w.kind == "floyd-steinberg" ? 319.0 : w.kind == "heat" ? 100.0 : 400.0);
        if (!(w.flops_per_point > 0))
            throw invalid_parameter("workload cost", std::to_string(w.flops_per_point), "must be > 0 flops");
    } else {
        throw invalid_parameter("workload", text,
                                "unknown; workloads: mandelbrot uniform random ramp matmul convolution heat "
                                "floyd-steinberg hydro");
    }
    return w;
}

// --- Running one case ----------------------------------------------------

struct simulated_run {
    loop_statistics statistics; ///< the root's
    double seconds = 0.0;       ///< simulated parallel time
    double wall = 0.0;          ///< the simulator's own run time
    double root_engine_seconds = 0.0; ///< rank 0's engine time charged (when the simulation charges it)
    std::vector<double> engine_seconds{}; ///< every rank's, by rank
    index_t interval = 0;       ///< DOACROSS: h
    std::optional<interval_model> model{}; ///< DOACROSS with h=auto: Ciorba's model as measured
};

/// `out` once its simulation `r` ran: the root's times taken from its statistics and from `r`.
inline simulated_run finished(simulated_run out, sim::run_result const& r) {
    out.seconds = out.statistics.parallel_seconds;
    out.wall = r.wall_seconds;
    out.root_engine_seconds = r.engine_seconds.empty() ? 0.0 : r.engine_seconds.front();
    out.engine_seconds = r.engine_seconds;
    return out;
}

/// A simulated DOALL chunk: its iterations' flops (a prefix sum) charged on
/// the simulated clock; with results, their bytes travel uncomputed. A named
/// type rather than a lambda inside simulate<P>, so that every policy type
/// shares the engines compiled for it (the policy sweep runs 92 types).
struct doall_charge {
    sim::transport* t;
    std::vector<double> const* prefix;
    void operator()(index_range const& part) const {
        t->compute((*prefix)[static_cast<std::size_t>(part.upper()[0])] -
                   (*prefix)[static_cast<std::size_t>(part.lower()[0])]);
    }
    void operator()(index_range const& part, std::span<std::byte>) const { (*this)(part); }
};

/// How a simulated DOALL loop or farm meets slow and failing hosts: copies of
/// unfinished work for idle workers (reissue), and the master's failure
/// detector (presumed_lost_after seconds of silence; infinity: off).
struct robustness {
    bool reissue = false;
    double presumed_lost_after = std::numeric_limits<double>::infinity();
};

/// A simulated DOACROSS chunk: its points' flops charged (named, as doall_charge).
struct doacross_charge {
    sim::transport* t;
    double flops_per_point;
    template <std::size_t N, class... Windows>
    void operator()(box<N> const& part, Windows&...) const {
        t->compute(static_cast<double>(part.size()) * flops_per_point);
    }
};

/// Runs `policy` (any_policy or a concrete type) on
/// the simulator's platform: a dedicated master on rank 0 (as in the
/// documents) unless master_computes, powers and run-queue lengths from the
/// platform. DOACROSS loops fill and send their kernel's real fields; they need the S adaptor,
/// and run one chunk at a time per rank, as in the documents. `policy` may
/// also be a doacross_mapping (SDS or a chain mapping: no self-scheduling).
/// hide_load: the library is told every run queue is 1, as when the
/// background load starts after the loop has opened. `robust`: DOALL loops
/// only (parallel_for_options::reissue and presumed_lost_after).
/// `masterless`: DOALL loops only, every rank claiming steps through the
/// shared counter (parallel_for_options::masterless; the root too when master_computes).
template <class P>
requires ChunkPolicy<P> || std::same_as<P, doacross_mapping>
simulated_run simulate(sim::simulator& simulator, workload const& w, P const& policy, bool master_computes = false,
                       bool trace = false, bool hide_load = false, robustness robust = {}, bool masterless = false) {
    if (masterless && w.doacross()) throw invalid_parameter("masterless", "true", "is for DOALL loops");
    if (robust.reissue && w.doacross()) throw invalid_parameter("reissue", "true", "is for DOALL loops");
    constexpr bool mapped = std::same_as<P, doacross_mapping>;
    auto const& p = simulator.layout();
    simulated_run out;
    // What DOALL and DOACROSS options share: the master, the platform's V and Q, tracing.
    auto configure = [&](auto& o) {
        o.master_computes = master_computes;
        o.powers = p.powers();
        o.run_queues = hide_load ? std::vector<double>(p.run_queues().size(), 1.0) : p.run_queues();
        o.trace = trace;
    };
    auto program = [&](sim::transport& t) {
        if constexpr (mapped) {
            if (!w.doacross())
                throw invalid_parameter("policy", std::string(policy.name()),
                                        "a static mapping runs DOACROSS workloads only");
        } else if (!w.doacross()) {
            parallel_for_options o;
            configure(o);
            o.reissue = robust.reissue;
            o.presumed_lost_after = robust.presumed_lost_after;
            o.masterless = masterless;
            doall_charge const cost{&t, &w.prefix};
            loop_statistics stats;
            if (w.result_bytes == 0)
                stats = parallel_for(t, make_range(w.iterations()), policy, cost, o).statistics;
            else
                stats = parallel_for(t, make_range(w.iterations()), policy, cost, gather<std::byte>{w.result_bytes}, o)
                                .statistics;
            if (t.rank() == 0) out.statistics = std::move(stats);
            return;
        }
        if constexpr (!mapped && !std::same_as<P, any_policy> && !is_synchronized_v<P>) {
            throw invalid_parameter("policy", policy.spec(), "a DOACROSS workload needs the S adaptor");
        } else {
            doacross_options o;
            configure(o);
            o.extend_when_waiting = false; // the documents' protocol, which the reproductions compare with
            // The kernel's own fields, filled with their initial values when the
            // simulator charges engine time (filling a chunk's window is then the
            // runtime's real work, and a zero fill is cheaper than Heat's or
            // Hydro's); else left unfilled: the charged body touches nothing, and
            // filling GBs of windows was most of a Hydro simulation's wall time.
            bool const filled = simulator.options().charge_engine_time;
            auto run = [&]<class K>(std::type_identity<K>) {
                constexpr std::size_t N = K::rank;
                typename box<N>::point extents{};
                for (std::size_t d = 0; d < N; ++d) extents[d] = w.extents[d];
                auto const space = box<N>::from_extents(extents);
                auto result = kernels::run_with<K>(t, space, policy, doacross_charge{&t, w.flops_per_point}, o, false,
                                                   kernels::fields_filled_if<K>(filled));
                if (t.rank() == 0) {
                    out.statistics = std::move(result.statistics);
                    out.interval = result.interval;
                    out.model = result.model;
                }
            };
            if (w.kind == "heat")
                run(std::type_identity<kernels::heat>{});
            else if (w.kind == "floyd-steinberg")
                run(std::type_identity<kernels::floyd_steinberg>{});
            else
                run(std::type_identity<kernels::hydro>{});
        }
    };
    return finished(std::move(out), simulator.run(program));
}

// --- Time-stepping runs (simulate --steps) ---------------------------------

/// A --step-perturb text, slow:rank=K:steps=A-B[:every=E:for=F][:factor=10]:
/// a sim::perturbation whose times are steps (rank K computes `factor` times
/// slower in steps A to B-1, or in the first F of every E steps from A on).
inline sim::perturbation make_step_perturbation(std::string const& text) {
    description d(text, "step perturbation", {"rank", "steps", "every", "for", "factor"});
    if (d.name() != "slow") throw invalid_parameter("step perturbation", d.name(), "must be slow");
    sim::perturbation p;
    p.rank = static_cast<int>(d.number("rank", 1));
    auto const steps = d.text("steps", "0-1e18");
    auto const dash = steps.find('-');
    if (dash == std::string::npos) throw invalid_parameter("step perturbation steps", steps, "must be A-B");
    p.from = std::stod(steps.substr(0, dash));
    p.until = std::stod(steps.substr(dash + 1));
    p.period = d.number("every", 0);
    p.on = d.number("for", 0);
    p.slowdown = d.number("factor", 10.0);
    if (p.rank < 0 || p.from < 0 || p.until <= p.from || p.period < 0 || p.on < 0 || !(p.slowdown >= 1.0))
        throw invalid_parameter("step perturbation", text,
                                "needs rank >= 0, 0 <= A < B, every and for >= 0, factor >= 1");
    return p;
}

/// What a time-stepping run measured on the root: each step's T_p and the scheme that ran it.
struct stepped_run {
    std::vector<double> seconds;      ///< each step's parallel time
    std::vector<std::string> schemes; ///< each step's scheme (the policy's spec, or automatic's choice)
    double wall = 0.0;                ///< the simulator's own run time
    [[nodiscard]] double total() const { return std::accumulate(seconds.begin(), seconds.end(), 0.0); }
};

/// Runs `policy` on the DOALL workload `text` `steps` times in one simulation
/// (a time-stepping program: the steps follow one another on the simulated
/// clock), with hosts slowed during some steps (`perturbations`, their times
/// counted in steps: make_step_perturbation). `redraw`: a random workload
/// draws new costs each step (its seed plus the step).
inline stepped_run simulate_steps(sim::simulator& simulator, std::string const& text, any_policy const& policy,
                                  index_t steps, std::vector<sim::perturbation> const& perturbations, bool redraw,
                                  bool master_computes = false, bool hide_load = false) {
    auto const& p = simulator.layout();
    workload const base = make_workload(text);
    if (base.doacross()) throw invalid_parameter("steps", std::to_string(steps), "runs DOALL workloads");
    if (auto const* a = policy.target<automatic>()) a->reset(); // each run learns from its own steps
    std::map<index_t, workload> drawn; // the steps' own costs, made by the first rank to reach them
    auto costs_of = [&](index_t step) -> workload const& {
        if (!redraw) return base;
        auto found = drawn.find(step);
        if (found == drawn.end()) {
            found = drawn.emplace(step, make_workload(text, static_cast<std::uint64_t>(step))).first;
            while (drawn.size() > 4) drawn.erase(drawn.begin()); // ranks stay within a step or two of each other
        }
        return found->second;
    };
    std::string const spec = policy.spec();
    stepped_run out;
    auto program = [&](sim::transport& t) {
        int const background = p.hosts()[static_cast<std::size_t>(t.rank())].background;
        ::simgrid::s4u::ExecPtr load; // a competing execution while this host is slowed
        double slowed = 1.0;
        for (index_t step = 0; step < steps; ++step) {
            double factor = 1.0;
            for (auto const& x : perturbations)
                if (x.rank == t.rank() && x.active(static_cast<double>(step))) factor = std::max(factor, x.slowdown);
            if (factor != slowed) {
                if (load) load->cancel();
                load = nullptr;
                if (factor > 1.0) { // its priority leaves this rank 1/factor of the share it had
                    load = ::simgrid::s4u::this_actor::exec_init(1e30);
                    load->set_priority((1.0 + background) * (factor - 1.0));
                    load->start();
                }
                slowed = factor;
            }
            workload const& w = costs_of(step);
            parallel_for_options o;
            o.master_computes = master_computes;
            o.powers = p.powers();
            o.run_queues = hide_load ? std::vector<double>(p.run_queues().size(), 1.0) : p.run_queues();
            doall_charge const cost{&t, &w.prefix};
            loop_statistics stats =
                    w.result_bytes == 0
                            ? parallel_for(t, make_range(w.iterations()), policy, cost, o).statistics
                            : parallel_for(t, make_range(w.iterations()), policy, cost,
                                           gather<std::byte>{w.result_bytes}, o)
                                      .statistics;
            if (t.rank() == 0) {
                out.seconds.push_back(stats.parallel_seconds);
                out.schemes.push_back(stats.scheme.empty() ? spec : stats.scheme);
            }
        }
        if (load) load->cancel();
    };
    out.wall = simulator.run(program).wall_seconds;
    return out;
}

/// Runs a DOALL workload's loop hierarchically (`h`: a policy among groups,
/// one within each) on the simulator's platform, powers and run-queue lengths
/// from the platform, as simulate() runs a flat one.
inline simulated_run simulate_hierarchy(sim::simulator& simulator, workload const& w,
                                        hierarchical<any_policy, any_policy> const& h, bool trace = false,
                                        double request_ahead = 0.0) {
    if (w.doacross()) throw invalid_parameter("workload", w.kind, "a hierarchical loop runs DOALL workloads only");
    auto const& p = simulator.layout();
    simulated_run out;
    auto program = [&](sim::transport& t) {
        parallel_for_options o;
        o.powers = p.powers();
        o.run_queues = p.run_queues();
        o.trace = trace;
        o.request_ahead = request_ahead;
        auto const& prefix = w.prefix;
        auto cost = [&](index_range const& part) {
            t.compute(prefix[static_cast<std::size_t>(part.upper()[0])] -
                      prefix[static_cast<std::size_t>(part.lower()[0])]);
        };
        auto run = parallel_for(t, make_range(w.iterations()), h, cost, o);
        if (t.rank() == 0) out.statistics = std::move(run.statistics);
    };
    return finished(std::move(out), simulator.run(program));
}

/// Runs the workload's iterations as the tasks of a task farm with `scheme`
/// ("kazouris", "ss" or a chunk policy; two as "BETWEEN/WITHIN" for a
/// hierarchical farm, its groups of `group_size` or chosen from the expected
/// task time): each task carries `task_bytes` to its worker, costs its
/// iteration's flops, and returns `result_bytes`. Options as simulate().
/// A farm over the workload's iterations, one task each; with
/// `producers_in_groups` (two levels) each sub-master makes its group's part,
/// and groups lend each other tasks unless `lend_between_groups` is false.
inline simulated_run simulate_farm(sim::simulator& simulator, workload const& w, std::string const& scheme,
                                   bool master_computes = false, bool trace = false, std::size_t group_size = 0,
                                   double expected_task_seconds = 0.0, robustness robust = {},
                                   bool producers_in_groups = false, bool lend_between_groups = true) {
    if (w.doacross()) throw invalid_parameter("workload", w.kind, "a task farm runs DOALL workloads only");
    auto const& p = simulator.layout();
    simulated_run out;
    auto program = [&](sim::transport& t) {
        task_farm_options o;
        o.master_computes = master_computes;
        o.powers = p.powers();
        o.run_queues = p.run_queues();
        o.load_aware = true; // speeds V/Q, as the distributed loop schemes see a loaded host
        o.trace = trace;
        o.expected_tasks = producers_in_groups ? 0 : static_cast<std::size_t>(w.iterations());
        o.producers_in_groups = producers_in_groups;
        o.lend_between_groups = lend_between_groups;
        o.reissue = robust.reissue;
        o.presumed_lost_after = robust.presumed_lost_after;
        if (scheme.find('/') == std::string::npos) {
            o.placement = scheme;
        } else {
            auto levels = parse_farm_hierarchy(scheme);
            levels.group_size = group_size;
            levels.expected_chunk_seconds = expected_task_seconds;
            o.placement = levels;
        }
        // A task: its index in the first bytes, padded to task_bytes (what a real task carries).
        using payload = std::vector<char>;
        auto stats = task_farm<payload>(
                             t,
                             [&](auto& farm) {
                                 auto const [first, last] = farm.share(static_cast<std::uint64_t>(w.iterations()));
                                 for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
                                     payload task(std::max<std::size_t>(w.task_bytes, sizeof(index_t)));
                                     std::memcpy(task.data(), &i, sizeof i);
                                     farm.submit(task);
                                 }
                             },
                             [&](payload const& task) {
                                 index_t i = 0;
                                 std::memcpy(&i, task.data(), sizeof i);
                                 t.compute(w.prefix[static_cast<std::size_t>(i) + 1] -
                                           w.prefix[static_cast<std::size_t>(i)]);
                                 return payload(w.result_bytes);
                             },
                             o)
                             .statistics;
        if (t.rank() == 0) out.statistics = std::move(stats);
    };
    return finished(std::move(out), simulator.run(program));
}

/// Kazouris's divide-and-conquer experiment (section 3.5): the Mandelbrot set
/// on [-2,2]x[-2,2], `side` x `side` pixels, each division halving the larger
/// side, leaves at most `leaf` pixels a side; one byte per pixel travels back.
/// A leaf costs its pixels' escape iterations (at most 255) times
/// `flops_per_iteration`.
struct dnc_mandelbrot {
    int side = 1000, leaf = 125;
    double flops_per_iteration = 1.0;
    std::vector<std::uint64_t> prefix; ///< (side + 1)^2 summed iterations: region sums in O(1)

    dnc_mandelbrot(int side_, int leaf_) : side(side_), leaf(leaf_) {
        mandelbrot const m{side, side, 255, 1, -2.0, 2.0, -2.0, 2.0};
        auto const n = static_cast<std::size_t>(side) + 1;
        prefix.assign(n * n, 0);
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) {
                double const cx = m.left + (m.right - m.left) * (x + 0.5) / side;
                double const cy = m.top - (m.top - m.bottom) * (y + 0.5) / side;
                double zx = 0.0, zy = 0.0;
                std::uint64_t it = 0;
                while (it < 255 && zx * zx + zy * zy <= 4.0) {
                    double const t = zx * zx - zy * zy + cx;
                    zy = 2.0 * zx * zy + cy;
                    zx = t;
                    ++it;
                }
                auto const at = [n](int a, int b) { return static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b); };
                prefix[at(y + 1, x + 1)] = it + prefix[at(y, x + 1)] + prefix[at(y + 1, x)] - prefix[at(y, x)];
            }
    }
    [[nodiscard]] std::uint64_t iterations(int x, int y, int w, int h) const {
        auto const n = static_cast<std::size_t>(side) + 1;
        auto const at = [n](int a, int b) { return static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b); };
        return prefix[at(y + h, x + w)] - prefix[at(y, x + w)] - prefix[at(y + h, x)] + prefix[at(y, x)];
    }
    [[nodiscard]] double total_flops() const { return static_cast<double>(iterations(0, 0, side, side)) * flops_per_iteration; }
};

/// A rectangle of pixels: a divide-and-conquer problem of the simulation.
struct sim_region {
    std::int32_t x = 0, y = 0, w = 0, h = 0;
};

/// Runs Kazouris's Mandelbrot quadtree with `placement` on the simulated cluster.
inline simulated_run simulate_dnc(sim::simulator& simulator, dnc_mandelbrot const& m, std::string const& placement,
                                  bool master_computes = true, bool trace = false) {
    auto const& p = simulator.layout();
    simulated_run out;
    auto program = [&](sim::transport& t) {
        dnc_options o;
        o.placement = placement;
        o.master_computes = master_computes;
        o.powers = p.powers();
        o.run_queues = p.run_queues();
        o.trace = trace;
        struct quadtree {
            sim::transport* t;
            dnc_mandelbrot const* m;
            [[nodiscard]] bool is_leaf(sim_region const& r) const { return std::max(r.w, r.h) <= m->leaf; }
            /// Row by row, as a real leaf loops, looking at messages between rows (this_task::poll).
            [[nodiscard]] std::vector<char> solve(sim_region const& r) const {
                for (int y = r.y; y < r.y + r.h; ++y) {
                    t->compute(static_cast<double>(m->iterations(r.x, y, r.w, 1)) * m->flops_per_iteration);
                    this_task::poll();
                }
                return std::vector<char>(static_cast<std::size_t>(r.w) * static_cast<std::size_t>(r.h));
            }
            [[nodiscard]] std::vector<sim_region> divide(sim_region const& r) const {
                if (r.w > r.h) return {{r.x, r.y, r.w / 2, r.h}, {r.x + r.w / 2, r.y, r.w - r.w / 2, r.h}};
                return {{r.x, r.y, r.w, r.h / 2}, {r.x, r.y + r.h / 2, r.w, r.h - r.h / 2}}; // a square: top and bottom
            }
            [[nodiscard]] std::vector<char> combine(sim_region const& r, std::span<std::vector<char>>) const {
                return std::vector<char>(static_cast<std::size_t>(r.w) * static_cast<std::size_t>(r.h));
            }
        };
        auto result = divide_and_conquer(t, sim_region{0, 0, m.side, m.side}, quadtree{&t, &m}, o);
        if (t.rank() == 0) out.statistics = std::move(result.statistics);
    };
    return finished(std::move(out), simulator.run(program));
}

} // namespace loopsched::examples
