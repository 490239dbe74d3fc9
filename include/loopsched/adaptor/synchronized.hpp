// S: the synchronization mechanism of Ciorba as an adaptor over any chunk
// policy, with the synchronization interval h it places along u_s; and DMPS(A).
#pragma once

#include <loopsched/adaptor/sync_interval.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>

#include <algorithm>
#include <concepts>
#include <string>
#include <type_traits>
#include <utility>

namespace loopsched {

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

    static constexpr hook_set hooks{.min_chunk = true};
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

// The schemes DMPS(A) is defined for, named only: a program includes the one
// it uses (<loopsched/policy/css.hpp>, tss.hpp or dtss.hpp), not all three
// (with their spec parsing and dtss's power book) in every DOACROSS TU.
class css;
class tss;
class dtss;

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
