// FNV-1a fingerprints: what ranks must pass alike (arguments, types, policies)
// reduced to 64 bits, so that the opening agreement can compare them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <typeinfo>

namespace loopsched::detail {

/// FNV-1a over bytes (not a cryptographic hash: it tells a mistake from
/// agreement, nothing more).
class fingerprint {
public:
    fingerprint& add_bytes(std::span<std::byte const> data) noexcept {
        for (std::byte b : data) value_ = (value_ ^ static_cast<std::uint64_t>(b)) * 0x100000001b3ULL;
        return *this;
    }
    template <class T>
    requires std::is_trivially_copyable_v<T> fingerprint& add(T const& v) noexcept {
        return add_bytes(std::as_bytes(std::span(&v, 1)));
    }
    fingerprint& add(std::string_view s) noexcept {
        add(s.size());
        return add_bytes(std::as_bytes(std::span(s.data(), s.size())));
    }
    template <class T>
    requires std::is_trivially_copyable_v<T> fingerprint& add_all(std::span<T const> values) noexcept {
        add(values.size());
        return add_bytes(std::as_bytes(values));
    }
    /// The types' names, in order: a farm's task and result, a tree's problem and result.
    template <class... Ts>
    fingerprint& add_types() noexcept {
        (add(std::string_view(typeid(Ts).name())), ...);
        return *this;
    }
    [[nodiscard]] std::uint64_t value() const noexcept { return value_; }

private:
    std::uint64_t value_ = 0xcbf29ce484222325ULL;
};

/// The user's types of a task algorithm (a farm's task and result, a tree's
/// problem and result), for the agreement: ranks built from other types differ.
template <class... Ts>
std::uint64_t types_fingerprint() noexcept {
    return fingerprint().add_types<Ts...>().value();
}

/// A space's fingerprint: its bounds in every dimension (S an IterationSpace).
template <class S>
std::uint64_t space_fingerprint(S const& space) {
    fingerprint f;
    for (std::size_t d = 0; d < S::rank; ++d) f.add(space.extent(d));
    if constexpr (requires { space.lower(); }) f.add(space.lower());
    return f.value();
}

} // namespace loopsched::detail
