// What a worker knows of its own load: the run-queue length Q_k read from the
// OS, and a virtual power V_k calibrated by timing a short probe.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/wire.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace loopsched {

/// Processes ready to run per online CPU, at least 1: seed 001's Q_k for a node
/// with several cores. Read from the `procs_running` line of /proc/stat; 1 where
/// that file does not exist. The loop's own busy-polling ranks count too.
inline double read_run_queue() {
    std::ifstream stat("/proc/stat");
    std::string key;
    double running = 0.0;
    while (stat >> key) {
        if (key == "procs_running") {
            stat >> running;
            break;
        }
        stat.ignore(1 << 20, '\n');
    }
    double const cpus = std::max(1u, std::thread::hardware_concurrency());
    return std::max(1.0, running / cpus);
}

namespace detail {

/// Q_k, read again at most once per `interval` seconds: reading /proc/stat costs
/// microseconds, a request should not.
class run_queue_monitor {
public:
    constexpr explicit run_queue_monitor(double interval) : interval_(interval) {}

    double current(double now) {
        if (now - read_at_ >= interval_ || now < read_at_) { // or another transport's clock
            value_ = read_run_queue();
            read_at_ = now;
            read_ = true;
        }
        return value_;
    }
    /// The last reading, whatever its age; read now if there is none.
    double latest() {
        if (!read_) {
            value_ = read_run_queue();
            read_ = true;
        }
        return value_;
    }

private:
    double interval_;
    double read_at_ = -1e300;
    double value_ = 1.0;
    bool read_ = false;
};

/// Seconds this rank takes for a fixed arithmetic kernel (best of three).
inline double probe_seconds() {
    double best = 1e300;
    for (int round = 0; round < 3; ++round) {
        auto const start = std::chrono::steady_clock::now();
        double x = 0.5;
        for (int i = 0; i < 2'000'000; ++i) x = x * 3.7 * (1.0 - x); // the logistic map: no shortcut for the optimiser
        auto const took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (x == 42.0) return -1.0; // keeps x alive; never true
        best = std::min(best, took);
    }
    return best;
}

inline constexpr int calibrate_tag = 7720;

} // namespace detail

/// Every rank's virtual power V_k = (slowest probe time) / (rank k's probe time):
/// the slowest rank has V = 1, as seed 001 defines it. Collective over the
/// transport; `root` gathers and sends the result to every rank.
template <Transport T>
std::vector<double> measure_powers(T& transport, int root = 0) {
    int const n = transport.size(), self = transport.rank();
    detail::require(root >= 0 && root < n, "root", root, "must be a rank of the transport");
    double const mine = detail::probe_seconds();
    if (self != root) {
        transport.send(root, detail::calibrate_tag, std::move(detail::wire_writer{}.put(mine)).take());
        message m = transport.receive(root, detail::calibrate_tag);
        detail::wire_reader r(m.payload);
        std::vector<double> powers(static_cast<std::size_t>(n));
        for (auto& v : powers) v = r.get<double>();
        return powers;
    }
    std::vector<double> seconds(static_cast<std::size_t>(n), mine);
    for (int k = 1; k < n; ++k) {
        message m = transport.receive(any_source, detail::calibrate_tag);
        seconds[static_cast<std::size_t>(m.source)] = detail::wire_reader(m.payload).get<double>();
    }
    double const slowest = *std::ranges::max_element(seconds);
    std::vector<double> powers;
    for (double s : seconds) powers.push_back(slowest / s);
    for (int k = 0; k < n; ++k) {
        if (k == root) continue;
        detail::wire_writer w;
        for (double v : powers) w.put(v);
        transport.send(k, detail::calibrate_tag, std::move(w).take());
    }
    return powers;
}

} // namespace loopsched
