// S: the synchronization mechanism of Ciorba as an adaptor over any chunk
// policy, with the synchronization interval h it places along u_s; and DMPS(A).
#pragma once

#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/policy/css.hpp>
#include <loopsched/policy/dtss.hpp>
#include <loopsched/policy/tss.hpp>

#include <algorithm>
#include <concepts>
#include <string>
#include <type_traits>
#include <utility>

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

/// S-A: scheme A's chunks along u_c, with synchronization points every h along
/// u_s. S balances no load (Ciorba section 4.4.2): as a ChunkPolicy it hands
/// out exactly A's chunks; the interval and the inter-worker protocol are what
/// it adds, and parallel_for_doacross accepts only policies wrapped in it.
template <ChunkPolicy P>
class synchronized {
public:
    constexpr synchronized() = default;
    template <class Q>
    requires std::same_as<std::remove_cvref_t<Q>, P>
    constexpr explicit synchronized(Q&& inner, sync_interval interval = {})
            : inner_(std::forward<Q>(inner)), interval_(interval) {}

    [[nodiscard]] constexpr P const& inner() const noexcept { return inner_; }
    [[nodiscard]] constexpr sync_interval interval() const noexcept { return interval_; }
    /// The same scheme with another interval.
    [[nodiscard]] constexpr synchronized with_interval(sync_interval h) const { return synchronized(inner_, h); }

    [[nodiscard]] auto start(loop_info const& info) const { return inner_.start(info); }

    [[nodiscard]] constexpr index_t min_chunk() const { return detail::min_chunk_of(inner_); }

    [[nodiscard]] std::string spec() const requires requires(P const& p) {
        { p.spec() } -> std::convertible_to<std::string>;
    }
    {
        std::string inner = inner_.spec();
        std::string const h = interval_.spec();
        if (h.empty()) return "s-" + inner;
        return "s-" + inner + (inner.find(':') == std::string::npos ? ":" : ",") + h;
    }

    friend bool operator==(synchronized const&, synchronized const&) = default;

private:
    P inner_{};
    sync_interval interval_{};
};

template <ChunkPolicy P>
synchronized(P) -> synchronized<P>;
template <ChunkPolicy P>
synchronized(P, sync_interval) -> synchronized<P>;

/// True for synchronized<P>: what a DOACROSS loop needs.
template <class P>
inline constexpr bool is_synchronized_v = false;
template <class P>
inline constexpr bool is_synchronized_v<synchronized<P>> = true;

/// The schemes DMPS(A) is defined for in Ciorba (section 4.3.3).
template <class A>
concept dmps_scheme = std::same_as<A, css> || std::same_as<A, tss> || std::same_as<A, dtss>;

/// DMPS(A), A in {CSS, TSS, DTSS}: phase 1 self-schedules along u_c with A,
/// phase 2 places synchronization points every h along u_s. It is S-A with a
/// fixed interval chosen by the programmer.
template <dmps_scheme A>
constexpr synchronized<A> dmps(A scheme, index_t h) {
    return synchronized<A>(std::move(scheme), sync_interval::fixed(h));
}

} // namespace loopsched
