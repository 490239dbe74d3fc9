// RND: random chunk sizes, uniform in [lo, hi], reproducible from a seed.
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace loopsched {

/// Random chunks (as in LB4OMP): uniform in [lo, hi], by default
/// [I/(100P), I/(2P)]. The generator is our own splitmix64, so a seed gives the
/// same sequence with every standard library.
class rnd {
public:
    static constexpr std::string_view name = "rnd";
    static constexpr std::array<std::string_view, 3> keys{"min", "max", "seed"};

    constexpr rnd() = default;
    /// lo = hi = 0 derive the bounds from the loop.
    constexpr rnd(index_t lo, index_t hi, std::uint64_t seed = 1) : lo_(lo), hi_(hi), seed_(seed) {
        detail::require(lo >= 0, "rnd min", lo, "must be >= 1 (or 0 for I/100P)");
        detail::require(hi == 0 || hi >= std::max<index_t>(lo, 1), "rnd max", hi, "must be >= min (or 0 for I/2P)");
    }

    class state {
    public:
        state(index_t lo, index_t hi, std::uint64_t seed)
                : lo_(lo), span_(static_cast<std::uint64_t>(hi - lo) + 1), x_(seed) {
            draw();
        }
        [[nodiscard]] index_t propose(request const&) const noexcept { return next_; }
        void commit(request const&, index_t) noexcept { draw(); }

    private:
        std::uint64_t splitmix() noexcept {
            std::uint64_t z = (x_ += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            return z ^ (z >> 31);
        }
        void draw() noexcept {
            // Rejection keeps the draw unbiased.
            std::uint64_t const limit = UINT64_MAX - UINT64_MAX % span_;
            std::uint64_t v;
            do v = splitmix();
            while (v >= limit);
            next_ = lo_ + static_cast<index_t>(v % span_);
        }
        index_t lo_;
        std::uint64_t span_, x_;
        index_t next_ = 1;
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        index_t const p = static_cast<index_t>(info.workers);
        index_t const lo = lo_ > 0 ? lo_ : std::max<index_t>(1, info.iterations / (100 * p));
        index_t const hi = hi_ > 0 ? hi_ : std::max<index_t>(lo, detail::ceil_div(info.iterations, 2 * p));
        detail::require(hi >= lo, "rnd max", hi, "must be >= min " + std::to_string(lo));
        return state(lo, hi, seed_);
    }

    static rnd from_spec(spec_args const& a) {
        return rnd(a.integer("min", 0), a.integer("max", 0), a.natural("seed", 1));
    }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name)
                .add("min", lo_, index_t{0})
                .add("max", hi_, index_t{0})
                .add("seed", seed_, std::uint64_t{1})
                .str();
    }
    friend constexpr bool operator==(rnd const&, rnd const&) = default;

private:
    index_t lo_ = 0, hi_ = 0;
    std::uint64_t seed_ = 1;
};

} // namespace loopsched
