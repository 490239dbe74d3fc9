// iota_range: the indices [first, last) as a random-access view, what a
// chunk's and a box's indices() return. A quarter of the compile cost of
// range-v3's iota (5k lines against 20k in every loop's translation unit),
// and unlike <ranges>' iota_view it compiles with Clang 14 over libstdc++ 12;
// the views of both libraries take it, as a temporary too.
#pragma once

#include <loopsched/detail/arithmetic.hpp>

#include <range/v3/range_fwd.hpp>

#include <compare>
#include <cstddef>
#include <iterator>
#include <ranges>

namespace loopsched {

class iota_range : public ranges::view_base { // a view for range-v3
public:
    /// A random-access iterator over the indices, yielding them by value.
    class iterator {
    public:
        using iterator_concept = std::random_access_iterator_tag;
        using iterator_category = std::input_iterator_tag; // yields values, as std::views::iota's
        using value_type = index_t;
        using difference_type = std::ptrdiff_t;
        using reference = index_t;
        using pointer = void;

        constexpr iterator() noexcept = default;
        constexpr explicit iterator(index_t at) noexcept : at_(at) {}

        constexpr index_t operator*() const noexcept { return at_; }
        constexpr index_t operator[](difference_type n) const noexcept { return at_ + n; }
        constexpr iterator& operator++() noexcept {
            ++at_;
            return *this;
        }
        constexpr iterator operator++(int) noexcept { return iterator(at_++); }
        constexpr iterator& operator--() noexcept {
            --at_;
            return *this;
        }
        constexpr iterator operator--(int) noexcept { return iterator(at_--); }
        constexpr iterator& operator+=(difference_type n) noexcept {
            at_ += n;
            return *this;
        }
        constexpr iterator& operator-=(difference_type n) noexcept {
            at_ -= n;
            return *this;
        }
        friend constexpr iterator operator+(iterator i, difference_type n) noexcept { return i += n; }
        friend constexpr iterator operator+(difference_type n, iterator i) noexcept { return i += n; }
        friend constexpr iterator operator-(iterator i, difference_type n) noexcept { return i -= n; }
        friend constexpr difference_type operator-(iterator a, iterator b) noexcept { return a.at_ - b.at_; }
        friend constexpr bool operator==(iterator, iterator) noexcept = default;
        friend constexpr std::strong_ordering operator<=>(iterator, iterator) noexcept = default;

    private:
        index_t at_ = 0;
    };

    constexpr iota_range() noexcept = default;
    constexpr iota_range(index_t first, index_t last) noexcept : first_(first), last_(last) {}

    [[nodiscard]] constexpr iterator begin() const noexcept { return iterator(first_); }
    [[nodiscard]] constexpr iterator end() const noexcept { return iterator(last_); }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return static_cast<std::size_t>(last_ - first_); }
    [[nodiscard]] constexpr bool empty() const noexcept { return first_ == last_; }
    [[nodiscard]] constexpr index_t front() const noexcept { return first_; }
    [[nodiscard]] constexpr index_t back() const noexcept { return last_ - 1; }
    [[nodiscard]] constexpr index_t operator[](std::size_t n) const noexcept {
        return first_ + static_cast<index_t>(n);
    }

private:
    index_t first_ = 0, last_ = 0;
};

} // namespace loopsched

/// A view for the standard library too.
template <>
inline constexpr bool std::ranges::enable_view<loopsched::iota_range> = true;
