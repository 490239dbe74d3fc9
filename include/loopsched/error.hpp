// Exceptions thrown by loopsched: every run-time error derives from loopsched::error.
// What throws them is out of line (error.ipp): in a program
// linked to loopsched::compiled, a translation unit that can throw them does not
// compile the code that builds their messages.
#pragma once

#include <loopsched/config.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loopsched {

/// Base of every exception loopsched throws.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A parameter had a value outside its domain. Names the parameter and the value.
class invalid_parameter : public error {
public:
    /// "loopsched: invalid PARAMETER = VALUE (REQUIREMENT)".
    invalid_parameter(std::string parameter, std::string value, std::string_view requirement);

    /// The parameter's name, as the user wrote it ("options.root", "gss min").
    [[nodiscard]] std::string const& parameter() const noexcept { return parameter_; }
    /// The value it had, as text.
    [[nodiscard]] std::string const& value() const noexcept { return value_; }
    /// What the value must satisfy.
    [[nodiscard]] std::string const& requirement() const noexcept { return requirement_; }

private:
    // One buffer, appended to: the chain of operator+ it replaces was 4 KB of
    // code in every translation unit that can throw this.
    static std::string message(std::string_view parameter, std::string_view value, std::string_view requirement) {
        std::string_view const parts[] = {"loopsched: invalid ", parameter, " = ", value, " (", requirement, ")"};
        std::string text;
        for (std::string_view part : parts) text.append(part);
        return text;
    }

    std::string parameter_;
    std::string value_;
    std::string requirement_;
};

/// A policy spec string ("gss:min=80") could not be understood.
class spec_error : public error {
public:
    using error::error;
};

/// A loop failed on some rank; every rank of the loop throws this.
class remote_error : public error {
public:
    /// "loopsched: rank ORIGIN failed: WHAT".
    remote_error(int origin_rank, std::string const& what)
            : error("loopsched: rank " + std::to_string(origin_rank) + " failed: " + what), origin_(origin_rank),
              original_(what) {}

    /// The rank whose body (or scheduler) threw.
    [[nodiscard]] int origin_rank() const noexcept { return origin_; }
    /// The original exception's message.
    [[nodiscard]] std::string const& original_message() const noexcept { return original_; }

private:
    int origin_;
    std::string original_;
};

/// A rank of the loop failed (the MPI library reported it: User-Level Failure
/// Mitigation) and the loop could not finish without it: it held work and
/// options.reissue was off, it was the loop's root or a sub-master, or the
/// algorithm (DOACROSS, divide and conquer) cannot do without any rank. Every
/// surviving rank throws it, with the same message; the next loop runs on
/// loopsched::survivors(comm).
class rank_lost : public error {
public:
    /// "loopsched: rank RANK failed (...)".
    explicit rank_lost(int lost_rank)
            : error("loopsched: rank " + std::to_string(lost_rank) +
                    " failed (the MPI library reported it) and the loop cannot finish without it; "
                    "options.reissue finishes a lost worker's work elsewhere, and the next loop runs on "
                    "loopsched::survivors(comm)"),
              rank_(lost_rank) {}
    /// The failed rank, numbered in the loop's communicator.
    [[nodiscard]] int lost_rank() const noexcept { return rank_; }

private:
    int rank_;
};

namespace detail {

/// The message of the exception being handled; call only inside a catch block.
inline std::string current_exception_message() {
    try {
        throw;
    } catch (std::exception const& e) {
        return e.what();
    } catch (...) {
        return "unknown exception";
    }
}

/// A number as an error names it: std::to_string's text, "%g" for a double.
LOOPSCHED_DECL std::string number_text(long long value);
LOOPSCHED_DECL std::string number_text(unsigned long long value);
LOOPSCHED_DECL std::string number_text(double value);
/// An integer's text, through the number_text of its signedness.
template <class I>
std::string integer_text(I value) {
    if constexpr (std::is_signed_v<I>)
        return number_text(static_cast<long long>(value));
    else
        return number_text(static_cast<unsigned long long>(value));
}

/// A parameter's value as an error names it, as a stream would print it
/// (<sstream> cost every translation unit a quarter of a second).
template <class T>
std::string to_text(T const& value) {
    if constexpr (std::is_same_v<T, bool>) {
        return value ? "1" : "0";
    } else if constexpr (std::is_same_v<T, char>) {
        return std::string(1, value);
    } else if constexpr (std::is_enum_v<T>) { // its number, even where the underlying type is char
        return integer_text(static_cast<std::underlying_type_t<T>>(value));
    } else if constexpr (std::is_integral_v<T>) {
        return integer_text(value);
    } else if constexpr (std::is_floating_point_v<T>) {
        return number_text(static_cast<double>(value));
    } else {
        static_assert(std::is_convertible_v<T const&, std::string_view>,
                      "loopsched: a parameter's value in an error is a number, an enum or a string");
        return std::string(std::string_view(value));
    }
}

/// Throws invalid_parameter(parameter, value, requirement).
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_with_text(std::string_view parameter, std::string value,
                                                           std::string_view requirement);

template <class T>
[[noreturn, gnu::cold, gnu::noinline]] void fail_requirement(std::string_view parameter, T const& value,
                                                             std::string_view requirement) {
    fail_with_text(parameter, to_text(value), requirement);
}

/// box<N>'s failures, one copy for every N: a box's bounds out of order, a
/// dimension past its rank, a slice outside its extent.
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_box_bounds(std::size_t dim, std::int64_t lower, std::int64_t upper);
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_box_dimension(std::size_t dim, std::size_t rank);
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_box_slice(std::int64_t first, std::int64_t last, std::int64_t extent);

/// A point or a vector as errors name it: "(1,-2)".
LOOPSCHED_DECL std::string tuple_text(std::int64_t const* values, std::size_t count);

/// Results that arrived malformed: `bytes` where `expected` were due, or
/// `bytes` that do not hold `count` counted vectors.
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_result_bytes(std::size_t bytes, std::size_t expected);
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_counted_vectors(std::size_t bytes, std::size_t count);

/// Divide and conquer's: a result for a frame nobody waits for; a tree deeper
/// than a worker's continuations may hold, or than its stack (`kib` used) allows.
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_unknown_frame(std::uint64_t frame);
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_continuation_depth(std::uint32_t depth);
[[noreturn, gnu::cold]] LOOPSCHED_DECL void fail_stack_depth(std::uint32_t depth, std::size_t kib);

/// Throws invalid_parameter unless `ok`; constexpr so that a policy built in a
/// constant expression with a bad value fails to compile. The check stays inline
/// and the throw out of line: loops check their arguments every time they start.
template <class T>
constexpr void require(bool ok, std::string_view parameter, T const& value, std::string_view requirement) {
    if (!ok) [[unlikely]]
        fail_requirement(parameter, value, requirement);
}

} // namespace detail
} // namespace loopsched

#ifndef LOOPSCHED_COMPILED // else loopsched::compiled holds them (impl/compiled_core.ipp)
#include <loopsched/error.ipp>
#endif
