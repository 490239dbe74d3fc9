// window<T, N>: the part of an array a rank holds (its chunk plus halo),
// indexed by global iteration points; and field<T>, an array a DOACROSS loop writes.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/space/box.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

/// The initializer of a field the body writes before it reads (an output):
/// its windows are not filled, so a chunk's first write is the first touch of
/// its memory, and reading a point before writing it reads an unspecified value.
struct written_first {};

namespace detail {
template <class F>
struct is_optional : std::false_type {};
template <class F>
struct is_optional<std::optional<F>> : std::true_type {};
} // namespace detail

/// Row-major storage of one T per point of `region()`, addressed with the
/// loop's own (global) indices, so a body reads `a(i - 1, j)` as in the
/// sequential code. Points outside the region are not held: `at()` checks,
/// `operator()` does not.
template <class T, std::size_t N>
class window {
    static_assert(std::is_trivially_copyable_v<T>,
                  "loopsched::window: elements travel as bytes and must be trivially copyable");

public:
    using point = typename box<N>::point;
    using value_type = T;

    window() = default;
    explicit window(box<N> const& region) { reset(region); }

    window(window const& other) : window() { *this = other; }
    window(window&&) noexcept = default;
    window& operator=(window const& other) {
        if (this == &other) return *this;
        reset(other.region_);
        std::memcpy(data_.get(), other.data_.get(), size_ * sizeof(T));
        return *this;
    }
    window& operator=(window&&) noexcept = default;

    /// Holds `region` now; the contents are unspecified until written. The
    /// storage is kept when it is large enough and never zeroed: a rank runs
    /// chunk after chunk, and each one's initial values overwrite it anyway.
    void reset(box<N> const& region) {
        region_ = region;
        index_t s = 1;
        for (std::size_t d = N; d-- > 0;) {
            stride_[d] = s;
            s *= region.extent(d);
        }
        size_ = static_cast<std::size_t>(s);
        if (size_ > capacity_) {
            data_ = std::make_unique_for_overwrite<T[]>(size_);
            capacity_ = size_;
        }
    }

    /// Sets every point of `part` to f(point), row by row; nothing for
    /// written_first or an empty std::optional initializer.
    template <class F>
    void fill(box<N> const& part, F&& f) {
        if constexpr (detail::is_optional<std::remove_cvref_t<F>>::value) {
            if (f) fill(part, *f);
        } else if constexpr (!std::same_as<std::remove_cvref_t<F>, written_first>) {
            for_runs(part, [&](std::size_t at, std::size_t n) {
                point p = global_of(at);
                T* out = data_.get() + at;
                for (std::size_t k = 0; k < n; ++k, ++p[N - 1]) out[k] = f(std::as_const(p));
            });
        }
    }

    [[nodiscard]] box<N> const& region() const noexcept { return region_; }
    [[nodiscard]] bool contains(point const& p) const noexcept { return region_.contains(p); }

    template <std::integral... I>
    requires(sizeof...(I) == N) [[nodiscard]] T& operator()(I... i) noexcept {
        return data_[offset(point{static_cast<index_t>(i)...})];
    }
    template <std::integral... I>
    requires(sizeof...(I) == N) [[nodiscard]] T const& operator()(I... i) const noexcept {
        return data_[offset(point{static_cast<index_t>(i)...})];
    }
    [[nodiscard]] T& operator[](point const& p) noexcept { return data_[offset(p)]; }
    [[nodiscard]] T const& operator[](point const& p) const noexcept { return data_[offset(p)]; }

    /// Checked access: throws invalid_parameter for a point the window does not hold.
    [[nodiscard]] T& at(point const& p) {
        if (!contains(p)) detail::require(false, "window point", to_text(p), "lies outside the region this rank holds");
        return data_[offset(p)];
    }

    [[nodiscard]] std::span<T> values() noexcept { return {data_.get(), size_}; }
    [[nodiscard]] std::span<T const> values() const noexcept { return {data_.get(), size_}; }

    /// Calls f(point) for every point of `part` (inside the region), in row-major order.
    template <class F>
    void for_each_point(box<N> const& part, F&& f) const {
        if (part.empty()) return;
        point p = part.lower();
        while (true) {
            f(p);
            std::size_t d = N;
            while (d-- > 0) {
                if (++p[d] < part.upper()[d]) break;
                p[d] = part.lower()[d];
                if (d == 0) return;
            }
        }
    }

    /// Appends the bytes of `part`'s elements, row-major, to `out`.
    template <class Bytes>
    void pack(box<N> const& part, Bytes& out) const {
        for_runs(part, [&](std::size_t at, std::size_t n) {
            auto const* b = reinterpret_cast<std::byte const*>(data_.get() + at);
            out.insert(out.end(), b, b + n * sizeof(T));
        });
    }
    /// Reads `part`'s elements from `in` (as pack wrote them); returns the bytes used.
    std::size_t unpack(box<N> const& part, std::span<std::byte const> in) {
        std::size_t used = 0;
        for_runs(part, [&](std::size_t at, std::size_t n) {
            if (in.size() - used < n * sizeof(T)) throw error("loopsched: truncated communication set");
            std::memcpy(data_.get() + at, in.data() + used, n * sizeof(T));
            used += n * sizeof(T);
        });
        return used;
    }
    /// Copies `part` from another window holding it.
    void copy_from(window const& other, box<N> const& part) {
        for_runs(part, [&](std::size_t at, std::size_t n) {
            std::memcpy(data_.get() + at, &other[global_of(at)], n * sizeof(T));
        });
    }

private:
    static std::string to_text(point const& p) { return detail::tuple_text(p.data(), N); }

    [[nodiscard]] std::size_t offset(point const& p) const noexcept {
        index_t o = 0;
        for (std::size_t d = 0; d < N; ++d) o += (p[d] - region_.lower()[d]) * stride_[d];
        return static_cast<std::size_t>(o);
    }
    [[nodiscard]] point global_of(std::size_t at) const noexcept {
        point p{};
        auto rest = static_cast<index_t>(at);
        for (std::size_t d = 0; d < N; ++d) {
            p[d] = region_.lower()[d] + rest / stride_[d];
            rest %= stride_[d];
        }
        return p;
    }

    /// f(offset, count) for each contiguous run of `part` (its innermost rows).
    template <class F>
    void for_runs(box<N> const& part, F&& f) const {
        if (part.empty()) return;
        auto const n = static_cast<std::size_t>(part.extent(N - 1));
        if constexpr (N == 1) {
            f(offset(part.lower()), n);
        } else {
            point lo = part.lower(), hi = part.upper();
            hi[N - 1] = lo[N - 1] + 1;
            box<N> const rows(lo, hi);
            for_each_point(rows, [&](point const& p) { f(offset(p), n); });
        }
    }

    box<N> region_{};
    std::array<index_t, N> stride_{};
    std::unique_ptr<T[]> data_;
    std::size_t size_ = 0, capacity_ = 0;
};

/// An array a DOACROSS loop writes: one T per iteration point, holding
/// `initial(point)` before the loop. Every rank evaluates `initial` for the
/// points it holds (its chunk and halo), so read-only inputs never travel: see
/// parallel_for_doacross for why.
template <class T, class Initial>
requires std::is_trivially_copyable_v<T>
struct field {
    using value_type = T;
    Initial initial;
};

/// field<T>(initial): deduces the initializer.
template <class T, class Initial>
requires std::is_trivially_copyable_v<T> field<T, std::decay_t<Initial>> make_field(Initial&& initial) {
    return {std::forward<Initial>(initial)};
}
/// field<T>(): an output the body writes before it reads (see written_first).
/// An initializer in a std::optional decides at run time: empty, as field<T>().
template <class T>
requires std::is_trivially_copyable_v<T> field<T, written_first> make_field() {
    return {};
}

} // namespace loopsched
