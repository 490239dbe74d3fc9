// How user values travel between ranks: a trivially copyable value as the
// bytes it lies in, a vector of such values as its length and bytes, any other
// type through Boost.Serialization, which <loopsched/serialization.hpp> opts
// into (so that the archives cost only the programs that send such values).
#pragma once

#include <loopsched/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace loopsched {

/// True for the types that travel as their bytes; the others are serialized.
template <class T>
inline constexpr bool travels_as_bytes = std::is_trivially_copyable_v<T>;

/// True for a std::vector of values that travel as bytes (not vector<bool>,
/// which packs its bits): it travels as its length and its elements' bytes,
/// without an archive (a farm's typical task, and 1.3 us per task through one).
template <class T>
inline constexpr bool travels_as_counted_bytes = false;
template <class U, class A>
inline constexpr bool travels_as_counted_bytes<std::vector<U, A>> = travels_as_bytes<U> && !std::is_same_v<U, bool>;

namespace detail {

/// How a value that is neither kind of bytes travels: write(out, values) and
/// read(in, values), defined by <loopsched/serialization.hpp> (Boost.Serialization).
template <class T>
struct archived;

template <class T>
concept archivable = requires { sizeof(archived<T>); };

template <class T>
constexpr void require_archive() {
    static_assert(archivable<T>, "loopsched: this value is not trivially copyable, so it travels through "
                                 "Boost.Serialization: include <loopsched/serialization.hpp> (and give the type "
                                 "a serialize() member, or include Boost's header for a standard type)");
}

/// A counted vector's size on the wire: its length, then its elements' bytes.
template <class V>
std::size_t counted_size(V const& v) noexcept {
    return sizeof(std::uint64_t) + v.size() * sizeof(typename V::value_type);
}

} // namespace detail

/// True for the types whose bytes' count is known without writing them, so
/// that they may be written in place (write_bytes_to).
template <class T>
inline constexpr bool travels_in_place = travels_as_bytes<T> || travels_as_counted_bytes<T>;

/// Writes `values` into `out`, which holds exactly their bytes' count (the sum
/// of byte_size): a message's room, so a large payload is copied once.
template <class T>
requires travels_in_place<T>
void write_bytes_to(std::span<std::byte> out, std::span<T const> values) {
    if constexpr (travels_as_bytes<T>) {
        auto const b = std::as_bytes(values);
        if (!b.empty()) std::memcpy(out.data(), b.data(), b.size());
    } else {
        std::size_t at = 0;
        for (auto const& v : values) {
            std::uint64_t const count = v.size();
            std::memcpy(out.data() + at, &count, sizeof count);
            at += sizeof count;
            std::size_t const size = v.size() * sizeof(typename T::value_type);
            if (size != 0) std::memcpy(out.data() + at, v.data(), size);
            at += size;
        }
    }
}

/// Appends `values` to `out`: their bytes, or one binary archive of them all.
template <class T>
void write_values(std::vector<std::byte>& out, std::span<T const> values) {
    if constexpr (travels_in_place<T>) {
        std::size_t total = 0;
        if constexpr (travels_as_bytes<T>)
            total = values.size_bytes();
        else
            for (auto const& v : values) total += detail::counted_size(v);
        // resize and copy, not a range insert: GCC 12 warns falsely (stringop-overflow) on that into an empty vector
        std::size_t const at = out.size();
        out.resize(at + total);
        write_bytes_to(std::span<std::byte>(out).subspan(at), values);
    } else {
        detail::require_archive<T>();
        detail::archived<T>::write(out, values);
    }
}

/// Reads exactly `out.size()` values written by write_values from `in`.
template <class T>
void read_values(std::span<std::byte const> in, std::span<T> out) {
    if constexpr (travels_as_bytes<T>) {
        if (in.size() != out.size_bytes()) [[unlikely]]
            detail::fail_result_bytes(in.size(), out.size_bytes());
        if (!in.empty()) std::memcpy(static_cast<void*>(out.data()), in.data(), in.size());
    } else if constexpr (travels_as_counted_bytes<T>) {
        using element = typename T::value_type;
        std::size_t at = 0;
        auto malformed = [&] { detail::fail_counted_vectors(in.size(), out.size()); };
        for (auto& v : out) {
            std::uint64_t count = 0;
            if (in.size() - at < sizeof count) malformed();
            std::memcpy(&count, in.data() + at, sizeof count);
            at += sizeof count;
            if (count > (in.size() - at) / sizeof(element)) malformed();
            v.resize(static_cast<std::size_t>(count));
            std::size_t const size = v.size() * sizeof(element);
            if (size != 0) std::memcpy(static_cast<void*>(v.data()), in.data() + at, size);
            at += size;
        }
        if (at != in.size()) malformed();
    } else {
        detail::require_archive<T>();
        detail::archived<T>::read(in, out);
    }
}

/// One value as bytes, and back.
template <class T>
std::vector<std::byte> to_bytes(T const& value) {
    std::vector<std::byte> out;
    write_values(out, std::span<T const>(&value, 1));
    return out;
}
/// How many bytes to_bytes(value) makes, without making them where the kind
/// fixes the count (a cost measure asks this of every subproblem).
template <class T>
std::size_t byte_size(T const& value) {
    if constexpr (travels_as_bytes<T>)
        return sizeof(T);
    else if constexpr (travels_as_counted_bytes<T>)
        return detail::counted_size(value);
    else
        return to_bytes(value).size();
}
template <class T>
T from_bytes(std::span<std::byte const> in) {
    T value{};
    read_values(in, std::span<T>(&value, 1));
    return value;
}

} // namespace loopsched
