// What a rank knows of its own load: the run-queue length Q_k read from the
// OS, and the time of a short probe (see measure_powers in calibration.hpp).
#pragma once

#include <loopsched/error.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace loopsched {

/// Processes ready to run per online CPU, at least 1: Chronopoulos et al.'s Q_k for a node
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

} // namespace detail

} // namespace loopsched
