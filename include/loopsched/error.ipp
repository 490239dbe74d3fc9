// What throws loopsched's errors, out of line: the end of error.hpp in every
// translation unit when header-only, once in loopsched::compiled otherwise
// (which includes error.hpp first).
#pragma once

#include <loopsched/config.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace loopsched {

LOOPSCHED_DECL invalid_parameter::invalid_parameter(std::string parameter, std::string value,
                                                    std::string_view requirement)
        : error(message(parameter, value, requirement)), parameter_(std::move(parameter)), value_(std::move(value)),
          requirement_(requirement) {}

namespace detail {

LOOPSCHED_DECL std::string number_text(long long value) { return std::to_string(value); }
LOOPSCHED_DECL std::string number_text(unsigned long long value) { return std::to_string(value); }
LOOPSCHED_DECL std::string number_text(double value) {
    char text[32];
    int const n = std::snprintf(text, sizeof text, "%g", value);
    return std::string(text, static_cast<std::size_t>(n > 0 ? n : 0));
}

LOOPSCHED_DECL void fail_with_text(std::string_view parameter, std::string value, std::string_view requirement) {
    throw invalid_parameter(std::string(parameter), std::move(value), requirement);
}

LOOPSCHED_DECL void fail_box_bounds(std::size_t dim, std::int64_t lower, std::int64_t upper) {
    fail_with_text("box upper[" + std::to_string(dim) + "]", std::to_string(upper),
                   "must be >= lower[" + std::to_string(dim) + "] = " + std::to_string(lower));
}
LOOPSCHED_DECL void fail_box_dimension(std::size_t dim, std::size_t rank) {
    fail_with_text("dimension", std::to_string(dim), "must be < rank " + std::to_string(rank));
}
LOOPSCHED_DECL void fail_box_slice(std::int64_t first, std::int64_t last, std::int64_t extent) {
    fail_with_text("slice range", "[" + std::to_string(first) + ", " + std::to_string(last) + ")",
                   "must lie within [0, " + std::to_string(extent) + ")");
}

LOOPSCHED_DECL std::string tuple_text(std::int64_t const* values, std::size_t count) {
    std::string text = "(";
    for (std::size_t d = 0; d < count; ++d) {
        if (d > 0) text += ',';
        text += std::to_string(values[d]);
    }
    return text + ")";
}

LOOPSCHED_DECL void fail_result_bytes(std::size_t bytes, std::size_t expected) {
    throw error("loopsched: " + std::to_string(bytes) + " bytes of results where " + std::to_string(expected) +
                " were expected");
}
LOOPSCHED_DECL void fail_counted_vectors(std::size_t bytes, std::size_t count) {
    throw error("loopsched: " + std::to_string(bytes) + " bytes that do not hold " + std::to_string(count) +
                " counted vectors");
}

LOOPSCHED_DECL void fail_unknown_frame(std::uint64_t frame) {
    throw error("loopsched: protocol: a result nobody waits for (frame " + std::to_string(frame) + ")");
}
LOOPSCHED_DECL void fail_continuation_depth(std::uint32_t depth) {
    throw error("loopsched: divide_and_conquer: the tree is deeper than a worker may hold: at depth " +
                std::to_string(depth) + " its divided tasks wait for their subproblems off the stack, " +
                "one frame each, and past 2^18 levels they would exhaust memory long before the end; " +
                "divide into fewer levels");
}
LOOPSCHED_DECL void fail_stack_depth(std::uint32_t depth, std::size_t kib) {
    throw error("loopsched: divide_and_conquer: the tree is deeper than a worker's stack allows: at depth " +
                std::to_string(depth) + " the recursion has used its " + std::to_string(kib) +
                " KiB; raise the stack limit (ulimit -s; a simulated actor's is set in transport/simgrid/network.hpp) "
                "or divide into fewer levels");
}

} // namespace detail
} // namespace loopsched
