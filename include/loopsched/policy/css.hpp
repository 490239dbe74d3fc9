// CSS(k): chunk self-scheduling with a fixed chunk k; SS is CSS(1).
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <cmath>
#include <string>
#include <string_view>

namespace loopsched {

namespace detail {
class fixed_chunk_state {
public:
    explicit fixed_chunk_state(index_t chunk) : chunk_(chunk) {}
    index_t propose(request const&) const noexcept { return chunk_; }
    void commit(request const&, index_t) noexcept {}

private:
    index_t chunk_;
};
} // namespace detail

/// Pure self-scheduling: one iteration per request.
struct ss {
    static constexpr std::string_view name = "ss";
    static constexpr std::array<std::string_view, 0> keys{};

    [[nodiscard]] detail::fixed_chunk_state start(loop_info const& info) const {
        detail::validate(info);
        return detail::fixed_chunk_state(1);
    }
    static ss from_spec(spec_args const&) { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(ss const&, ss const&) = default;
};

/// Chunk self-scheduling CSS(k). Without k the chunk is ceil(I / 2p), the choice of
/// Ciorba's experiments ("so that every worker receives work twice").
class css {
public:
    static constexpr std::string_view name = "css";
    static constexpr std::array<std::string_view, 1> keys{"chunk"};

    constexpr css() = default;
    constexpr explicit css(index_t chunk) : chunk_(chunk) {
        detail::require(chunk >= 1, "css chunk k", chunk, "must be >= 1");
    }

    /// k, or 0 when it is derived from the loop.
    [[nodiscard]] constexpr index_t chunk() const noexcept { return chunk_; }

    [[nodiscard]] detail::fixed_chunk_state start(loop_info const& info) const {
        detail::validate(info);
        index_t k = chunk_ > 0 ? chunk_
                               : std::max<index_t>(
                                         1, detail::ceil_div(info.iterations, 2 * static_cast<index_t>(info.workers)));
        return detail::fixed_chunk_state(k);
    }

    static css from_spec(spec_args const& a) { return a.raw("chunk") ? css(a.integer("chunk", 1)) : css(); }
    [[nodiscard]] std::string spec() const { return detail::spec_writer(name).add("chunk", chunk_, index_t{0}).str(); }
    friend constexpr bool operator==(css const&, css const&) = default;

private:
    index_t chunk_ = 0;
};

/// mFSC (modified fixed-size chunk, as in LB4OMP): a fixed chunk chosen so the loop
/// takes about as many chunks as factoring would, P log2(I/P):
/// k = (I/P) ln 2 / ln(I/P) with I/P rounded up. LB4OMP truncates x + 0.55; we
/// round to nearest.
struct mfsc {
    static constexpr std::string_view name = "mfsc";
    static constexpr std::array<std::string_view, 0> keys{};

    [[nodiscard]] detail::fixed_chunk_state start(loop_info const& info) const {
        detail::validate(info);
        double const share = static_cast<double>(detail::ceil_div(info.iterations, static_cast<index_t>(info.workers)));
        index_t k = 1;
        if (share > 2.0)
            k = std::max<index_t>(1, detail::clamp_to_index(std::floor(share * std::log(2.0) / std::log(share) + 0.5)));
        else if (share == 2.0)
            k = 2;
        return detail::fixed_chunk_state(k);
    }
    static mfsc from_spec(spec_args const&) { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(mfsc const&, mfsc const&) = default;
};

} // namespace loopsched
