// Uniform dependence sets, known at run time (dependence_set<N>) or at compile
// time (uniform<vec{1,0}, vec{0,1}>), and the questions the schedulers ask them.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace loopsched {

/// A distance vector usable as a template argument: `vec{1, 0}`.
template <std::size_t N>
struct vec {
    distance_vector<N> components{};

    constexpr vec() = default;
    template <std::integral... T>
    requires(sizeof...(T) == N) constexpr vec(T... c) : components{static_cast<index_t>(c)...} {}

    constexpr operator distance_vector<N>() const noexcept { return components; }
};
template <std::integral... T>
vec(T...) -> vec<sizeof...(T)>;

/// True when the first non-zero component is positive (Def 2.2.1 of Ciorba:
/// the source iteration runs before the sink in sequential order).
template <std::size_t N>
constexpr bool is_lexicographically_positive(distance_vector<N> const& v) noexcept {
    for (index_t c : v) {
        if (c > 0) return true;
        if (c < 0) return false;
    }
    return false;
}

template <std::size_t N>
std::string to_string(distance_vector<N> const& v) {
    return detail::tuple_text(v.data(), N);
}

/// A set of uniform dependence vectors given at run time. The constructor checks
/// legality and names the first offending vector.
template <std::size_t N>
class dependence_set {
public:
    static constexpr std::size_t rank = N;

    dependence_set() = default;
    dependence_set(std::initializer_list<distance_vector<N>> vectors) : vectors_(vectors) { check(); }
    explicit dependence_set(std::vector<distance_vector<N>> vectors) : vectors_(std::move(vectors)) { check(); }

    [[nodiscard]] std::span<distance_vector<N> const> vectors() const noexcept { return vectors_; }

private:
    void check() const {
        for (auto const& v : vectors_)
            detail::require(is_lexicographically_positive<N>(v), "dependence vector", to_string<N>(v),
                            "must be lexicographically positive: its first non-zero component > 0");
    }

    std::vector<distance_vector<N>> vectors_;
};

namespace detail {
template <class T>
struct vector_rank;
template <std::size_t N>
struct vector_rank<vec<N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t N>
struct vector_rank<std::array<index_t, N>> : std::integral_constant<std::size_t, N> {};
} // namespace detail

/// A set of uniform dependence vectors fixed at compile time:
/// `uniform<vec{1, 0}, vec{0, 1}>`. Illegal sets fail to compile.
template <auto First, auto... Rest>
struct uniform {
    static constexpr std::size_t rank = detail::vector_rank<std::remove_cv_t<decltype(First)>>::value;
    static_assert((std::is_same_v<decltype(First), decltype(Rest)> && ...),
                  "loopsched::uniform: every dependence vector must have the same number of components");
    static constexpr std::array<distance_vector<rank>, 1 + sizeof...(Rest)> all{distance_vector<rank>(First),
                                                                                distance_vector<rank>(Rest)...};
    static_assert(std::ranges::all_of(all, [](auto const& v) { return is_lexicographically_positive<rank>(v); }),
                  "loopsched::uniform: every dependence vector must be lexicographically positive "
                  "(its first non-zero component > 0)");

    [[nodiscard]] constexpr std::span<distance_vector<rank> const> vectors() const noexcept { return all; }
};

/// Every vector lexicographically positive: the loop can run in sequential order.
template <DependenceSet D>
constexpr bool is_legal(D const& deps) {
    return std::ranges::all_of(deps.vectors(), [](auto const& v) { return is_lexicographically_positive<D::rank>(v); });
}

/// Whether `dim` may be the scheduling dimension u_c: every vector has a component
/// >= 0 along it, so a chunk never needs data from a later chunk.
template <DependenceSet D>
constexpr bool may_schedule_along(D const& deps, std::size_t dim) {
    return std::ranges::all_of(deps.vectors(), [dim](auto const& v) { return v[dim] >= 0; });
}

/// The dimensions that may be u_c, in increasing order.
template <DependenceSet D>
std::vector<std::size_t> scheduling_dimensions(D const& deps) {
    std::vector<std::size_t> dims;
    for (std::size_t d = 0; d < D::rank; ++d)
        if (may_schedule_along(deps, d)) dims.push_back(d);
    return dims;
}

/// The largest component along `dim` (0 for an empty set): how far a dependence
/// reaches back across chunk boundaries along that dimension.
template <DependenceSet D>
constexpr index_t max_component(D const& deps, std::size_t dim) {
    index_t reach = 0;
    for (auto const& v : deps.vectors()) reach = std::max(reach, v[dim]);
    return reach;
}

/// The most negative component along `dim`, as a positive look-ahead (0 if none).
template <DependenceSet D>
constexpr index_t look_ahead(D const& deps, std::size_t dim) {
    index_t ahead = 0;
    for (auto const& v : deps.vectors()) ahead = std::max(ahead, -v[dim]);
    return ahead;
}

} // namespace loopsched
