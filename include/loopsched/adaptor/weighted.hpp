// W: the weighting mechanism of Ciorba as an adaptor over any chunk policy.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/request.hpp>

#include <algorithm>
#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loopsched {

namespace detail {
/// A policy's minimum chunk, if it has one (GSS(k)); weighting never goes below
/// it. The member is declared by name (hook_set{.min_chunk = true}), and a
/// declaration and a member that disagree are refused at compile time.
template <class P>
constexpr index_t min_chunk_of(P const& p) {
    constexpr bool present = requires {
        { p.min_chunk() } -> std::convertible_to<index_t>;
    };
    constexpr bool declared = declared_hooks<std::remove_cvref_t<P>>.min_chunk;
    static_assert(present || !declared, "loopsched: the chunk policy declares hook_set{.min_chunk = true} but has no "
                                        "min_chunk() const returning index_t (misspelled?)");
    static_assert(declared || !present, "loopsched: the chunk policy has min_chunk() but does not declare it: add "
                                        "`static constexpr loopsched::hook_set hooks{.min_chunk = true};`");
    if constexpr (present)
        return p.min_chunk();
    else
        return 1;
}
/// Whether a spec string's arguments (after the ':') name `key`.
inline bool spec_has_key(std::string_view spec, std::string_view key) {
    auto const colon = spec.find(':');
    if (colon == std::string_view::npos) return false;
    for (std::string_view rest = spec.substr(colon + 1); !rest.empty();) {
        auto const comma = rest.find(',');
        std::string_view const pair = rest.substr(0, comma);
        if (pair.substr(0, pair.find('=')) == key) return true;
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return false;
}
} // namespace detail

/// W-A: the chunk C of scheme A for worker k becomes floor(C V_k / (V_max Q_k)),
/// and A's remaining count drops by what was really handed out.
///
/// Ciorba writes C x VP_k / q_k with the fastest machine at VP = 1; dividing by
/// V_max gives that reading whatever scale the powers are given in, so the
/// fastest unloaded worker receives the scheme's own chunk. The result is never
/// below the scheme's minimum chunk (GSS(k)): with gss:min=80,round=floor this
/// reproduces the W-GSS column of Ciorba's Table 4.2.
template <ChunkPolicy P>
class weighted {
public:
    constexpr weighted() = default;
    // Exactly a P: a converting parameter would let weighted<any_policy> convert
    // into any_policy while checking its own copyability.
    template <class Q>
    requires std::same_as<std::remove_cvref_t<Q>, P>
    constexpr explicit weighted(Q&& inner) : inner_(std::forward<Q>(inner)) {}

    [[nodiscard]] constexpr P const& inner() const noexcept { return inner_; }

    class state {
    public:
        state(state_of<P> inner, double max_power, index_t min_chunk)
                : inner_(std::move(inner)), max_power_(max_power), min_(min_chunk) {}

        index_t propose(request const& r) {
            index_t const c = inner_.propose(r);
            if (c == 0) return 0; // the scheme leaves this worker out
            max_power_ = std::max(max_power_, r.status.power);
            double const weight = r.status.power / (max_power_ * r.status.run_queue);
            return std::max(min_, detail::floor_real(static_cast<double>(c) * weight));
        }
        void commit(request const& r, index_t granted) { inner_.commit(r, granted); }
        [[nodiscard]] state_of<P> const& inner() const noexcept { return inner_; }

    private:
        state_of<P> inner_;
        double max_power_;
        index_t min_;
    };

    [[nodiscard]] state start(loop_info const& info) const {
        double max_power = 0.0;
        for (std::size_t k = 0; k < info.workers; ++k) max_power = std::max(max_power, info.of(k).power);
        return state(inner_.start(info), max_power, detail::min_chunk_of(inner_));
    }

    [[nodiscard]] std::string spec() const requires requires(P const& p) {
        { p.spec() } -> std::convertible_to<std::string>;
    }
    {
        // Thresholds inside W (clamped under weighted) are written so that
        // parse_policy reads them back there: by default it puts them outside.
        std::string const inner = inner_.spec();
        bool const clamped_inside = detail::spec_has_key(inner, "lower") || detail::spec_has_key(inner, "upper");
        return "w-" + inner + (clamped_inside ? ",thresholds=scheme" : "");
    }

    friend bool operator==(weighted const&, weighted const&) = default;

private:
    P inner_{};
};

template <ChunkPolicy P>
weighted(P) -> weighted<P>;

} // namespace loopsched
