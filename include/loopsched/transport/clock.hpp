// The runtime's clock: seconds from the CPU's time-stamp counter where the
// kernel itself keeps time with it, else from std::chrono::steady_clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace loopsched::detail {

/// A worker reads the clock up to twice per chunk, once on the request-reply
/// path. Measured on the development VM: MPI_Wtime 53 ns, steady_clock 43 ns,
/// the time-stamp counter 18-30 ns, 2-3% of a 1.0-1.2 us round trip.
/// The counter is used only when the kernel's clocksource is "tsc": Linux picks
/// it only if it is invariant and synchronised across CPUs, so readings from
/// different cores of one process compare. Its rate is calibrated once per
/// process against steady_clock over 2 ms (relative error about 1e-5).
class fast_clock {
public:
    [[nodiscard]] static double now() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        static calibration const c = calibrate();
        if (c.seconds_per_tick > 0.0) return static_cast<double>(__rdtsc() - c.origin) * c.seconds_per_tick;
#endif
        return steady_seconds();
    }

private:
    static double steady_seconds() noexcept {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }

#if defined(__x86_64__) || defined(__i386__)
    struct calibration {
        std::uint64_t origin = 0;
        double seconds_per_tick = 0.0; ///< 0: use steady_clock
    };

    static bool kernel_keeps_time_with_tsc() {
        std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
        std::string source;
        return in >> source && source == "tsc";
    }

    static calibration calibrate() noexcept {
        try {
            if (!kernel_keeps_time_with_tsc()) return {};
        } catch (...) {
            return {};
        }
        auto const start_time = steady_seconds();
        auto const start_ticks = __rdtsc();
        double end_time = start_time;
        std::uint64_t end_ticks = start_ticks;
        while (end_time - start_time < 2e-3) {
            end_time = steady_seconds();
            end_ticks = __rdtsc();
        }
        if (end_ticks <= start_ticks) return {};
        return {start_ticks, (end_time - start_time) / static_cast<double>(end_ticks - start_ticks)};
    }
#endif
};

} // namespace loopsched::detail
