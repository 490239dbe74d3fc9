// sync_interval, where a DOACROSS loop's synchronization points go, and the
// trait telling the S adaptor apart, without the adaptor and its schemes.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>

#include <algorithm>
#include <cstddef>
#include <string>

namespace loopsched {

/// Where the synchronization points of a DOACROSS loop go along u_s.
/// Three choices: a fixed interval h; M = points_per_worker x m points, so
/// h = ceil(U_s / M) (Ciorba's rule M >= 3m, default 3); or `automatic`,
/// the optimum of Ciorba's model (4.6/4.9/4.11/4.14) from measured costs.
class sync_interval {
public:
    enum class kind { fixed, per_worker, automatic };

    /// The default: M = 3m synchronization points.
    constexpr sync_interval() = default;

    static constexpr sync_interval fixed(index_t h) {
        detail::require(h >= 1, "synchronization interval h", h, "must be >= 1");
        return sync_interval(kind::fixed, h);
    }
    static constexpr sync_interval points_per_worker(index_t k) {
        detail::require(k >= 1, "synchronization points per worker", k, "must be >= 1 (Ciorba advises >= 3)");
        return sync_interval(kind::per_worker, k);
    }
    static constexpr sync_interval automatic() { return sync_interval(kind::automatic, 0); }

    [[nodiscard]] constexpr kind how() const noexcept { return kind_; }
    /// h for `fixed`, the points per worker for `per_worker`, 0 for `automatic`.
    [[nodiscard]] constexpr index_t value() const noexcept { return value_; }

    /// h for a loop of extent U_s along u_s and m workers; `automatic` needs the
    /// model and is resolved by the runtime, so here it counts as the default.
    [[nodiscard]] constexpr index_t resolve(index_t extent_s, std::size_t workers) const {
        if (kind_ == kind::fixed) return value_;
        index_t const per = kind_ == kind::per_worker ? value_ : 3;
        index_t const points = per * static_cast<index_t>(workers);
        return std::max<index_t>(1, detail::ceil_div(extent_s, std::max<index_t>(1, points)));
    }

    /// "h=100", "h=auto", or "" for the default.
    [[nodiscard]] std::string spec() const {
        switch (kind_) {
        case kind::fixed: return "h=" + std::to_string(value_);
        case kind::automatic: return "h=auto";
        case kind::per_worker: return value_ == 3 ? "" : "h=" + std::to_string(value_) + "m";
        }
        return "";
    }

    friend constexpr bool operator==(sync_interval const&, sync_interval const&) = default;

private:
    constexpr sync_interval(kind k, index_t v) : kind_(k), value_(v) {}
    kind kind_ = kind::per_worker;
    index_t value_ = 3;
};

template <ChunkPolicy P>
class synchronized;

/// True for synchronized<P>: what a DOACROSS loop needs.
template <class P>
inline constexpr bool is_synchronized_v = false;
template <class P>
inline constexpr bool is_synchronized_v<synchronized<P>> = true;

} // namespace loopsched
