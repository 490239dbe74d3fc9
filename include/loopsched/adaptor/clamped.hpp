// clamped: an adaptor that keeps any policy's chunks between a lower and an
// upper threshold (Ciorba's Table 5.5: 10 and 500-1,000 iterations).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/request.hpp>

#include <algorithm>
#include <concepts>
#include <string>
#include <type_traits>
#include <utility>

namespace loopsched {

/// A policy whose chunks stay within [lower, upper]: Ciorba bounds the chunks
/// of every self-scheduling scheme "to avoid excessive synchronization
/// overheads and large idle times" (section 5.3.4, Table 5.5). A chunk the
/// scheme proposes below `lower` grows to it, one above `upper` shrinks to it;
/// the runtime still clips the loop's last chunk to what remains, and a
/// scheme that leaves a worker out (a chunk of 0) still does. The scheme's
/// state is told what was really handed out, so its own count of what
/// remains stays right (TSS's next chunk follows from the clamped one).
template <ChunkPolicy P>
class clamped {
public:
    constexpr clamped() = default;
    template <class Q>
    requires std::same_as<std::remove_cvref_t<Q>, P>
    constexpr clamped(Q&& inner, index_t lower, index_t upper)
            : inner_(std::forward<Q>(inner)), lower_(lower), upper_(upper) {
        detail::require(lower >= 1, "clamped lower", lower, "must be >= 1 iteration");
        detail::require(upper >= lower, "clamped upper", upper, "must be >= lower");
    }

    [[nodiscard]] constexpr P const& inner() const noexcept { return inner_; }
    [[nodiscard]] constexpr index_t lower() const noexcept { return lower_; }
    [[nodiscard]] constexpr index_t upper() const noexcept { return upper_; }
    /// An adaptor over this one (W, S) never goes below the lower threshold either.
    static constexpr hook_set hooks{.min_chunk = true};
    [[nodiscard]] constexpr index_t min_chunk() const noexcept { return lower_; }

    class state {
    public:
        state(state_of<P> inner, index_t lower, index_t upper)
                : inner_(std::move(inner)), lower_(lower), upper_(upper) {}
        index_t propose(request const& r) {
            index_t const c = inner_.propose(r);
            return c == 0 ? 0 : std::clamp(c, lower_, upper_);
        }
        void commit(request const& r, index_t granted) { inner_.commit(r, granted); }

    private:
        state_of<P> inner_;
        index_t lower_, upper_;
    };
    [[nodiscard]] state start(loop_info const& info) const { return state(inner_.start(info), lower_, upper_); }

    /// The inner spec with lower=..,upper=.. added (parse_policy reads them back).
    [[nodiscard]] std::string spec() const requires requires(P const& p) {
        { p.spec() } -> std::convertible_to<std::string>;
    }
    {
        std::string inner = inner_.spec();
        return inner + (inner.find(':') == std::string::npos ? ":" : ",") + "lower=" + std::to_string(lower_) +
               ",upper=" + std::to_string(upper_);
    }

    friend bool operator==(clamped const&, clamped const&) = default;

private:
    P inner_{};
    index_t lower_ = 1, upper_ = 1;
};

template <ChunkPolicy P>
clamped(P, index_t, index_t) -> clamped<P>;

} // namespace loopsched
