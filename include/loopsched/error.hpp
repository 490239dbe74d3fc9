// Exceptions thrown by loopsched: every run-time error derives from loopsched::error.
#pragma once

#include <cstdio>
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
    invalid_parameter(std::string parameter, std::string value, std::string_view requirement)
            : error(message(parameter, value, requirement)), parameter_(std::move(parameter)),
              value_(std::move(value)), requirement_(requirement) {}

    [[nodiscard]] std::string const& parameter() const noexcept { return parameter_; }
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

/// A parameter's value as an error names it, as a stream would print it
/// (<sstream> cost every translation unit a quarter of a second).
template <class T>
std::string to_text(T const& value) {
    if constexpr (std::is_same_v<T, bool>) {
        return value ? "1" : "0";
    } else if constexpr (std::is_same_v<T, char>) {
        return std::string(1, value);
    } else if constexpr (std::is_enum_v<T>) {
        return std::to_string(static_cast<std::underlying_type_t<T>>(value));
    } else if constexpr (std::is_integral_v<T>) {
        return std::to_string(value);
    } else if constexpr (std::is_floating_point_v<T>) {
        char text[32];
        int const n = std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
        return std::string(text, static_cast<std::size_t>(n > 0 ? n : 0));
    } else {
        static_assert(std::is_convertible_v<T const&, std::string_view>,
                      "loopsched: a parameter's value in an error is a number, an enum or a string");
        return std::string(std::string_view(value));
    }
}

template <class T>
[[noreturn, gnu::cold, gnu::noinline]] void fail_requirement(std::string_view parameter, T const& value,
                                                             std::string_view requirement) {
    throw invalid_parameter(std::string(parameter), to_text(value), requirement);
}

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
