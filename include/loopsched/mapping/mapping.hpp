// The loop mappings (see LoopMapping): dynamic (whoever asks), static block
// and static cyclic, and any_mapping, which holds any LoopMapping by value.
#pragma once

#include <loopsched/detail/erased_placement.hpp>
#include <loopsched/detail/spec_of.hpp>
#include <loopsched/mapping/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/request.hpp>

#include <concepts>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

/// Units go to whichever worker asks first (self-scheduling): the default.
struct dynamic_mapping {
    static constexpr std::string_view name = "dynamic";
    struct state {
        [[nodiscard]] std::size_t place(work_unit const&, request const& asking) const noexcept {
            return asking.worker;
        }
    };
    [[nodiscard]] constexpr bool ahead_of_time() const noexcept { return false; }
    [[nodiscard]] state start(placement_info const&) const noexcept { return {}; }
    friend constexpr bool operator==(dynamic_mapping, dynamic_mapping) = default;
};

/// Unit i of u goes to worker floor(i p / u): a contiguous run of units per worker.
struct static_block_mapping {
    static constexpr std::string_view name = "block";
    struct state {
        std::size_t workers = 1, units = 0;
        [[nodiscard]] std::size_t place(work_unit const& u, request const&) const noexcept {
            if (units == 0) return 0;
            // u.index < units <= SIZE_MAX / workers is not guaranteed: divide first where the product would wrap.
            if (u.index <= std::numeric_limits<std::size_t>::max() / workers) return u.index * workers / units;
            return u.index / (units / workers + (units % workers != 0));
        }
    };
    [[nodiscard]] constexpr bool ahead_of_time() const noexcept { return true; }
    [[nodiscard]] state start(placement_info const& info) const {
        detail::require(info.workers >= 1, "placement workers", info.workers, "must be >= 1");
        return {info.workers, info.units};
    }
    friend constexpr bool operator==(static_block_mapping, static_block_mapping) = default;
};

/// Unit i goes to worker i mod p (round robin).
struct static_cyclic_mapping {
    static constexpr std::string_view name = "cyclic";
    struct state {
        std::size_t workers = 1;
        [[nodiscard]] std::size_t place(work_unit const& u, request const&) const noexcept { return u.index % workers; }
    };
    [[nodiscard]] constexpr bool ahead_of_time() const noexcept { return true; }
    [[nodiscard]] state start(placement_info const& info) const {
        detail::require(info.workers >= 1, "placement workers", info.workers, "must be >= 1");
        return {info.workers};
    }
    friend constexpr bool operator==(static_cyclic_mapping, static_cyclic_mapping) = default;
};

/// Any LoopMapping by value, the library's (dynamic, block, cyclic: chosen at
/// run time by parse_mapping, in placement_spec.hpp) or the user's: what a
/// loop's engine compiled once per transport takes. Its state asks the held
/// state once per chunk (one indirect call).
class any_mapping {
public:
    class state {
    public:
        [[nodiscard]] std::size_t place(work_unit const& u, request const& asking) {
            return self_->place(u, asking);
        }

    private:
        friend class any_mapping;
        struct concept_base {
            virtual ~concept_base() = default;
            [[nodiscard]] virtual std::size_t place(work_unit const&, request const&) = 0;
        };
        template <class S>
        struct model final : concept_base {
            explicit model(S s) : held(std::move(s)) {}
            [[nodiscard]] std::size_t place(work_unit const& u, request const& asking) override {
                return held.place(u, asking);
            }
            S held;
        };
        explicit state(std::unique_ptr<concept_base> self) : self_(std::move(self)) {}
        std::unique_ptr<concept_base> self_;
    };

    any_mapping() : any_mapping(dynamic_mapping{}) {}
    // The wrapper itself is excluded before LoopMapping<M> is asked (no
    // recursion through copyable, which asks this constructor again).
    template <class M>
    requires(!std::is_same_v<std::remove_cvref_t<M>, any_mapping> && LoopMapping<M>) any_mapping(M m)
            : self_(new model<M>(std::move(m))) {}

    [[nodiscard]] bool ahead_of_time() const { return self_->ahead_of_time(); }
    [[nodiscard]] state start(placement_info const& info) const { return self_->start(info); }
    /// Its spec ("dynamic", "block", "cyclic"), or "custom" for a user's without one.
    [[nodiscard]] std::string name() const { return self_->spec(); }
    /// The held mapping if it is an M, else nullptr.
    template <class M>
    [[nodiscard]] M const* target() const noexcept {
        auto const* m = dynamic_cast<model<M> const*>(self_.get());
        return m ? &m->placement : nullptr;
    }
    friend bool operator==(any_mapping const& a, any_mapping const& b) { return a.self_->equals(*b.self_); }

private:
    struct concept_base : detail::erased_placement {
        [[nodiscard]] virtual bool ahead_of_time() const = 0;
        [[nodiscard]] virtual state start(placement_info const&) const = 0;
    };
    template <class M>
    struct model final : detail::erased_placement_of<concept_base, M> {
        using detail::erased_placement_of<concept_base, M>::erased_placement_of;
        [[nodiscard]] bool ahead_of_time() const override { return this->placement.ahead_of_time(); }
        [[nodiscard]] state start(placement_info const& info) const override {
            using S = decltype(this->placement.start(info));
            return state(std::make_unique<typename state::template model<S>>(this->placement.start(info)));
        }
    };
    detail::shared_erased<concept_base> self_; // immutable: copies share it
};

namespace detail {
/// The name a mapping goes by in the loop's agreement.
template <LoopMapping M>
std::string mapping_name(M const& m) {
    return spec_of(m);
}
} // namespace detail

} // namespace loopsched
