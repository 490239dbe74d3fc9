// Earliest and latest computation times of a uniform-dependence loop run one
// iteration per processor per step (Ciorba, chapter 3): ECT, LCT, OET, the
// crucial points and the delay classes D_i^k, and the processor bounds LB, UB, LB3.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>
#include <loopsched/space/box.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace loopsched {

/// The points of a box numbered in lexicographic (row-major) order: the
/// sequential loop's order, and the order every analysis below sweeps in.
template <std::size_t N>
class point_numbering {
public:
    using point = typename box<N>::point;

    explicit point_numbering(box<N> const& space) : space_(space) {
        index_t stride = 1;
        for (std::size_t d = N; d-- > 0;) {
            strides_[d] = stride;
            stride *= space.extent(d);
        }
    }

    [[nodiscard]] box<N> const& space() const noexcept { return space_; }
    [[nodiscard]] std::size_t size() const noexcept { return static_cast<std::size_t>(space_.size()); }

    [[nodiscard]] std::size_t number(point const& p) const noexcept {
        index_t n = 0;
        for (std::size_t d = 0; d < N; ++d) n += (p[d] - space_.lower()[d]) * strides_[d];
        return static_cast<std::size_t>(n);
    }
    [[nodiscard]] point at(std::size_t number) const noexcept {
        point p{};
        auto n = static_cast<index_t>(number);
        for (std::size_t d = 0; d < N; ++d) {
            p[d] = space_.lower()[d] + n / strides_[d];
            n %= strides_[d];
        }
        return p;
    }

private:
    box<N> space_;
    std::array<index_t, N> strides_{};
};

/// p - d (source) or p + d (dependent) for a distance vector d.
template <std::size_t N>
constexpr std::array<index_t, N> shifted(std::array<index_t, N> p, distance_vector<N> const& d, int sign) noexcept {
    for (std::size_t k = 0; k < N; ++k) p[k] += sign * d[k];
    return p;
}

/// ECT and LCT of every point of a box under a uniform dependence set, with
/// the sets the static schedulers read: |ECT_i|, the crucial points CR_i and
/// the delay classes D_i^k. Steps count from 1; OET = max ECT (ECT(U) in the thesis).
template <std::size_t N>
class time_steps {
public:
    using point = typename box<N>::point;

    template <DependenceSet D>
    requires(D::rank == N) time_steps(box<N> const& space, D const& deps)
        : numbering_(space), vectors_(deps.vectors().begin(), deps.vectors().end()) {
        detail::require(!space.empty(), "iteration space", space.size(), "must hold at least one point");
        for (auto const& v : vectors_) {
            bool const legal = is_lexicographically_positive<N>(v);
            detail::require(legal, "dependence vector", to_string<N>(v),
                            "must be lexicographically positive: its first non-zero component > 0");
        }
        std::size_t const n = numbering_.size();
        ect_.assign(n, 1);
        // Lexicographic order visits every source before its dependents.
        for (std::size_t j = 0; j < n; ++j) {
            point const p = numbering_.at(j);
            std::uint32_t e = 1;
            for (auto const& d : vectors_)
                if (auto const s = shifted<N>(p, d, -1); space.contains(s)) e = std::max(e, ect_[numbering_.number(s)] + 1);
            ect_[j] = e;
        }
        // ECT(U) when no vector has a negative component (the thesis's A.1); the
        // longest chain may end elsewhere when one does, as (1,-1) lets it.
        oet_ = *std::ranges::max_element(ect_);
        // (3.1): the dependence graph reversed is the same graph mirrored through the centre.
        lct_.resize(n);
        for (std::size_t j = 0; j < n; ++j) lct_[j] = oet_ - ect_[n - 1 - j] + 1;
        out_degree_.assign(n, 0);
        for (std::size_t j = 0; j < n; ++j) {
            point const p = numbering_.at(j);
            for (auto const& d : vectors_) out_degree_[j] += space.contains(shifted<N>(p, d, +1)) ? 1u : 0u;
        }
    }

    [[nodiscard]] point_numbering<N> const& numbering() const noexcept { return numbering_; }
    [[nodiscard]] box<N> const& space() const noexcept { return numbering_.space(); }
    [[nodiscard]] std::span<distance_vector<N> const> vectors() const noexcept { return vectors_; }
    [[nodiscard]] std::size_t size() const noexcept { return ect_.size(); }
    /// The optimal execution time: the number of steps of the longest dependence chain.
    [[nodiscard]] std::uint32_t oet() const noexcept { return oet_; }

    [[nodiscard]] std::uint32_t ect(std::size_t j) const { return ect_.at(j); }
    [[nodiscard]] std::uint32_t lct(std::size_t j) const { return lct_.at(j); }
    [[nodiscard]] std::uint32_t ect(point const& p) const { return ect(checked_number(p)); }
    [[nodiscard]] std::uint32_t lct(point const& p) const { return lct(checked_number(p)); }
    /// How many dependents of point j lie in the space.
    [[nodiscard]] std::uint32_t out_degree(std::size_t j) const { return out_degree_.at(j); }
    [[nodiscard]] std::uint32_t delay(std::size_t j) const { return lct(j) - ect(j); }

    /// |ECT_i| for i = 1..OET (index 0 is step 1).
    [[nodiscard]] std::vector<std::size_t> ect_sizes() const { return class_sizes(false); }
    /// |CR_i| = |D_i^0| for i = 1..OET.
    [[nodiscard]] std::vector<std::size_t> crucial_sizes() const { return class_sizes(true); }
    /// |D_i^k|: the points with ECT i and delay k (step i at index i - 1).
    [[nodiscard]] std::vector<std::vector<std::size_t>> delay_classes() const {
        std::vector<std::vector<std::size_t>> d(oet_, std::vector<std::size_t>(oet_, 0));
        for (std::size_t j = 0; j < size(); ++j) ++d[ect_[j] - 1][delay(j)];
        return d;
    }
    /// The points of ECT_i (1 <= i <= OET), in lexicographic order.
    [[nodiscard]] std::vector<point> ect_set(std::uint32_t step) const {
        std::vector<point> out;
        for (std::size_t j = 0; j < size(); ++j)
            if (ect_[j] == step) out.push_back(numbering_.at(j));
        return out;
    }

private:
    std::size_t checked_number(point const& p) const {
        detail::require(space().contains(p), "point", to_string<N>(p), "must lie in the iteration space");
        return numbering_.number(p);
    }
    std::vector<std::size_t> class_sizes(bool crucial_only) const {
        std::vector<std::size_t> sizes(oet_, 0);
        for (std::size_t j = 0; j < size(); ++j)
            if (!crucial_only || ect_[j] == lct_[j]) ++sizes[ect_[j] - 1];
        return sizes;
    }

    point_numbering<N> numbering_;
    std::vector<distance_vector<N>> vectors_;
    std::vector<std::uint32_t> ect_, lct_, out_degree_;
    std::uint32_t oet_ = 0;
};

template <std::size_t N, DependenceSet D>
time_steps(box<N> const&, D const&) -> time_steps<N>;

/// Bounds on the processors a schedule in OET steps needs (Ciorba, 3.2-3.6).
struct processor_bounds {
    std::size_t lb1 = 0;               ///< ceil(|J| / OET)
    std::size_t lb2 = 0;               ///< max |CR_i|
    std::size_t lb3 = 0;               ///< the last P_h of (3.4)-(3.6); a heuristic: it may exceed OP
    std::size_t ub = 0;                ///< max |ECT_i|
    std::vector<std::size_t> lb3_steps; ///< P_h for h = 1..OET

    /// max(LB1, LB2): the bound BSDA searches from (3.2).
    [[nodiscard]] std::size_t lb() const noexcept { return std::max(lb1, lb2); }
    /// max(LB1, LB2, LB3): the bound of section 3.3.
    [[nodiscard]] std::size_t dynamic_lb() const noexcept { return std::max(lb(), lb3); }
};

/// LB1, LB2, LB3 and UB of a loop's time steps.
template <std::size_t N>
processor_bounds bounds_of(time_steps<N> const& t) {
    processor_bounds b;
    auto const oet = static_cast<std::size_t>(t.oet());
    b.lb1 = (t.size() + oet - 1) / oet;
    auto const ect = t.ect_sizes(), crucial = t.crucial_sizes();
    b.lb2 = *std::ranges::max_element(crucial);
    b.ub = *std::ranges::max_element(ect);
    // (3.5)/(3.6): step h must run its crucial points plus, for every earlier
    // step k, what ECT_k holds with LCT <= h beyond the P points step k could run.
    // The check (3.5) keeps a negative term, spare room at step k offsetting
    // excess elsewhere (the example's E_5 = 49, E_6 = 40, E_7 = 36 need it);
    // solving (3.6) counts a negative term as 0, as the section says.
    auto const d = t.delay_classes();
    auto must_by = [&](std::size_t k, std::size_t h) { // sum_{i=0}^{h-k} |D_k^i|, steps from 1
        std::size_t s = 0;
        for (std::size_t i = 0; i <= h - k; ++i) s += d[k - 1][i];
        return static_cast<std::int64_t>(s);
    };
    auto demand = [&](std::size_t h, std::size_t processors, bool clip) { // E_h
        auto const p = static_cast<std::int64_t>(processors);
        auto e = static_cast<std::int64_t>(d[h - 1][0]);
        for (std::size_t k = 1; k < h; ++k) e += clip ? std::max<std::int64_t>(0, must_by(k, h) - p) : must_by(k, h) - p;
        return e;
    };
    std::size_t p = d[0][0]; // (3.4)
    b.lb3_steps.push_back(p);
    for (std::size_t h = 2; h <= oet; ++h) {
        if (demand(h, p, false) > static_cast<std::int64_t>(p)) {
            // (3.6): the smallest P_h >= E_h(P_h); the clipped E_h falls as P_h grows.
            std::size_t lo = p + 1, hi = static_cast<std::size_t>(demand(h, p, true));
            while (lo < hi) {
                std::size_t const mid = lo + (hi - lo) / 2;
                if (demand(h, mid, true) <= static_cast<std::int64_t>(mid)) hi = mid;
                else lo = mid + 1;
            }
            p = lo;
        }
        b.lb3_steps.push_back(p);
    }
    b.lb3 = p;
    return b;
}

} // namespace loopsched
