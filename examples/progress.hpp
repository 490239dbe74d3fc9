// A progress line for the long-running programs: what runs, how many of how
// many, the time so far; on standard error, and only when that is a terminal
// (under mpiexec, whose ranks write to pipes, ./run says so in LOOPSCHED_PROGRESS).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace loopsched::examples {

class progress {
public:
    progress(std::string what, std::size_t total)
            : what_(std::move(what)), total_(total), shown_(wanted()),
              start_(std::chrono::steady_clock::now()) {}
    progress(progress const&) = delete;
    progress& operator=(progress const&) = delete;
    ~progress() { clear(); }

    /// Takes the line away, before the program prints a line of its own.
    void clear() {
        if (shown_ && drawn_) std::fprintf(stderr, "\r\033[K");
        drawn_ = false;
    }

    /// Shows that `item`, the next of the total, is starting.
    void next(std::string_view item) {
        ++done_;
        if (!shown_) return;
        auto const seconds =
                static_cast<long>(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
        std::fprintf(stderr, "\r\033[K%s: %zu/%zu %.*s, %ldm%02lds", what_.c_str(), done_, total_,
                     static_cast<int>(item.size()), item.data(), seconds / 60, seconds % 60);
        std::fflush(stderr);
        drawn_ = true;
    }

private:
    static bool wanted() {
        if (char const* v = std::getenv("LOOPSCHED_PROGRESS")) return std::string_view(v) == "1";
        return isatty(STDERR_FILENO) != 0;
    }

    std::string what_;
    std::size_t total_, done_ = 0;
    bool shown_, drawn_ = false;
    std::chrono::steady_clock::time_point start_;
};

} // namespace loopsched::examples
