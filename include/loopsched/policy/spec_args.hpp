// Parsed key=value arguments of one policy spec string, with typed, checked access.
#pragma once

#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

/// The `key=value` pairs given to one policy in a spec string. Construction
/// rejects keys the policy does not have, listing the ones it has.
class spec_args {
public:
    using pair = std::pair<std::string, std::string>;

    /// `what`: the kind of thing the spec names ("policy", "placement"), for messages.
    spec_args(std::string_view policy, std::span<std::string_view const> allowed, std::vector<pair> given = {},
              std::string_view what = "policy")
            : policy_(std::string(what) + " '" + std::string(policy) + "'"), given_(std::move(given)) {
        for (std::size_t i = 0; i < given_.size(); ++i) {
            auto const& key = given_[i].first;
            if (std::ranges::find(allowed, std::string_view(key)) == allowed.end())
                throw spec_error("loopsched: " + policy_ + " has no parameter '" + key +
                                 "'; valid: " + (allowed.empty() ? std::string("none") : join(allowed)));
            for (std::size_t j = 0; j < i; ++j)
                if (given_[j].first == key)
                    throw spec_error("loopsched: parameter '" + key + "' given twice to " + policy_);
        }
    }

    [[nodiscard]] std::optional<std::string_view> raw(std::string_view key) const {
        for (auto const& [k, v] : given_)
            if (k == key) return std::string_view(v);
        return std::nullopt;
    }

    [[nodiscard]] index_t integer(std::string_view key, index_t fallback) const {
        auto text = raw(key);
        if (!text) return fallback;
        index_t value{};
        auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
        if (ec != std::errc{} || end != text->data() + text->size()) fail(key, *text, "an integer");
        return value;
    }

    /// A non-negative integer that may use the whole 64 bits (seeds).
    [[nodiscard]] std::uint64_t natural(std::string_view key, std::uint64_t fallback) const {
        auto text = raw(key);
        if (!text) return fallback;
        std::uint64_t value{};
        auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
        if (text->empty() || ec != std::errc{} || end != text->data() + text->size())
            fail(key, *text, "an integer in [0, 2^64)");
        return value;
    }

    [[nodiscard]] double real(std::string_view key, double fallback) const {
        auto text = raw(key);
        return text ? to_real(key, *text) : fallback;
    }

    /// A '/'-separated list of reals, e.g. weights=1/1/2.5
    [[nodiscard]] std::vector<double> reals(std::string_view key) const {
        std::vector<double> values;
        auto text = raw(key);
        if (!text) return values;
        std::string_view rest = *text;
        while (true) {
            auto slash = rest.find('/');
            values.push_back(to_real(key, rest.substr(0, slash)));
            if (slash == std::string_view::npos) break;
            rest.remove_prefix(slash + 1);
        }
        return values;
    }

    /// One of a fixed set of words.
    [[nodiscard]] std::string_view word(std::string_view key, std::span<std::string_view const> choices,
                                        std::string_view fallback) const {
        auto text = raw(key);
        if (!text) return fallback;
        if (std::ranges::find(choices, *text) == choices.end()) fail(key, *text, "one of: " + join(choices));
        return *text;
    }

private:
    /// Every real a policy takes is finite: infinity and NaN are refused here,
    /// by key, before a formula turns them into a count.
    double to_real(std::string_view key, std::string_view text) const {
        double value{};
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
            fail(key, text, "a finite number");
        return value;
    }

    [[noreturn]] void fail(std::string_view key, std::string_view text, std::string const& expected) const {
        throw spec_error("loopsched: " + policy_ + " parameter '" + std::string(key) + "' expects " +
                         expected + ", got '" + std::string(text) + "'");
    }

    static std::string join(std::span<std::string_view const> words) {
        std::string out;
        for (auto w : words) out += (out.empty() ? "" : ", ") + std::string(w);
        return out;
    }

    std::string policy_; ///< "policy 'gss'": what the messages name
    std::vector<pair> given_;
};

namespace detail {

/// A spec value as text that parses back to the same value: integers as they
/// are, reals in their shortest exact form (2.0000001 stays 2.0000001, where
/// a stream's six significant digits would print 2).
template <class T>
std::string spec_text(T const& value) {
    if constexpr (std::is_arithmetic_v<T>) {
        char buffer[64];
        auto const [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
        return std::string(buffer, ec == std::errc{} ? end : buffer);
    } else {
        return std::string(value);
    }
}

/// Builds the canonical "name:key=value,..." text; keys whose value is the
/// default are left out so that specs stay short.
class spec_writer {
public:
    explicit spec_writer(std::string_view name) : text_(name) {}

    template <class T>
    spec_writer& add(std::string_view key, T const& value, T const& fallback) {
        if (value != fallback) append(key, spec_text(value));
        return *this;
    }
    spec_writer& add_list(std::string_view key, std::vector<double> const& values) {
        if (values.empty()) return *this;
        std::string list;
        for (double v : values) list += (list.empty() ? "" : "/") + spec_text(v);
        append(key, list);
        return *this;
    }
    [[nodiscard]] std::string str() const { return text_; }

private:
    void append(std::string_view key, std::string const& value) {
        text_ += (has_args_ ? "," : ":") + std::string(key) + "=" + value;
        has_args_ = true;
    }
    std::string text_;
    bool has_args_ = false;
};

} // namespace detail
} // namespace loopsched
