// any_placement: where work goes, held by value, whatever it is: any member
// of the Mapping family (a task farm's or a divide-and-conquer tree's
// placement, an estimate placement, a DOALL loop's mapping, a DOACROSS loop's
// tile mapping), the library's or the user's. Each engine asks it for the
// refinement it needs; parse_placement makes one from a spec.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/detail/erased_placement.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/concepts.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/mapping/farm_placements.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/mapping/tree_decisions.hpp>

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace loopsched {

/// A value any_placement holds: a member of the Mapping family that some
/// engine asks (a FarmPlacement, a TreePlacement, an EstimatePlacement, a
/// loop's any_mapping, a DOACROSS loop's doacross_mapping), or a held tree
/// placement (any_dividing_placement).
template <class P>
concept held_placement = FarmPlacement<P> || TreePlacement<P> || EstimatePlacement<P> || std::same_as<P, any_mapping> ||
        std::same_as<P, doacross_mapping> || std::same_as<P, any_dividing_placement>;

/// Any placement, by value: the library's (kazouris, ss, a chunk policy over
/// a farm's task stream, april, steal, dlpt and its baselines, a loop's
/// mapping, a tile mapping) or the user's own FarmPlacement, TreePlacement or
/// EstimatePlacement. Each engine asks it for what it needs: a task farm its
/// farm decisions or its estimates, divide and conquer its tree decisions or
/// its estimates, parallel_for its mapping(), parallel_for_doacross its tiles();
/// one it does not have is refused by name.
class any_placement {
public:
    any_placement() : any_placement(kazouris_placement{}) {}
    // The wrapper itself is excluded before held_placement<P> is asked (no
    // recursion through copyable, which asks this constructor again).
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, any_placement> && held_placement<P>) any_placement(P p)
            : self_(new model<P>(std::move(p))) {}
    /// A loop's mapping (the library's or the user's) is held as any_mapping (mapping() gives it).
    template <class M>
    requires(!std::is_same_v<std::remove_cvref_t<M>, any_placement> && !held_placement<M> && LoopMapping<M>)
            any_placement(M m)
            : any_placement(any_mapping(std::move(m))) {}

    /// The canonical spec ("kazouris", "steal-half", "random:seed=7", "fss"); "custom" for a user's without one.
    [[nodiscard]] std::string spec() const { return self_->spec(); }
    /// Tells placements apart (type, spec and what they hold), for the agreement.
    [[nodiscard]] std::uint64_t fingerprint() const { return self_->fingerprint(); }

    /// A task farm's decisions as workers become idle, if it is a FarmPlacement (else null).
    [[nodiscard]] std::unique_ptr<detail::farm_decisions> farm_decisions(farm_info const& info) const {
        return self_->farm(info);
    }
    /// Whether it is a FarmPlacement.
    [[nodiscard]] bool places_farms() const { return self_->places_farms(); }
    /// A divide-and-conquer run's decisions at every worker, if it is a
    /// TreePlacement or an EstimatePlacement (else null); `spill`: the options' word.
    [[nodiscard]] std::unique_ptr<detail::task_decisions> tree_decisions(placement_info const& info, bool spill) const {
        return self_->tree(info, spill);
    }
    /// The estimate placement held, if it is an EstimatePlacement.
    [[nodiscard]] any_estimate_placement const* estimates() const noexcept { return self_->estimates(); }
    /// The chunk policy over a farm's task stream, if it is one.
    [[nodiscard]] any_policy const* policy() const noexcept {
        auto const* c = target<chunked_placement>();
        return c ? &c->policy : nullptr;
    }
    /// The DOALL loop mapping held, if any.
    [[nodiscard]] any_mapping const* mapping() const noexcept { return target<any_mapping>(); }
    /// The DOACROSS tile mapping held, if any.
    [[nodiscard]] doacross_mapping const* tiles() const noexcept { return target<doacross_mapping>(); }
    /// The held placement if it is a P, else nullptr.
    template <class P>
    [[nodiscard]] P const* target() const noexcept {
        return static_cast<P const*>(self_->target(typeid(P)));
    }
    friend bool operator==(any_placement const& a, any_placement const& b) { return a.self_->equals(*b.self_); }

private:
    struct concept_base : detail::erased_placement {
        [[nodiscard]] virtual std::unique_ptr<detail::farm_decisions> farm(farm_info const&) const = 0;
        [[nodiscard]] virtual bool places_farms() const = 0;
        [[nodiscard]] virtual std::unique_ptr<detail::task_decisions> tree(placement_info const&, bool) const = 0;
        [[nodiscard]] virtual any_estimate_placement const* estimates() const = 0;
        [[nodiscard]] virtual void const* target(std::type_info const&) const = 0;
    };
    template <class P>
    struct model final : detail::erased_placement_of<concept_base, P> {
        using base = detail::erased_placement_of<concept_base, P>;
        explicit model(P p) : base(std::move(p)) {
            if constexpr (EstimatePlacement<P>) as_estimates.emplace(this->placement);
        }
        std::uint64_t fingerprint() const override {
            detail::fingerprint f;
            f.add(base::fingerprint());
            if (as_estimates) f.add(as_estimates->fingerprint());
            if constexpr (std::same_as<P, chunked_placement>) f.add(this->placement.policy.fingerprint());
            if constexpr (std::same_as<P, doacross_mapping>) f.add_all(std::span<index_t const>(this->placement.tile));
            if constexpr (std::same_as<P, any_dividing_placement>) f.add(this->placement.fingerprint());
            return f.value();
        }
        std::unique_ptr<detail::farm_decisions> farm(farm_info const& info) const override {
            if constexpr (FarmPlacement<P>)
                return detail::farm_decisions_for(this->placement, info);
            else
                return nullptr;
        }
        bool places_farms() const override { return FarmPlacement<P>; }
        std::unique_ptr<detail::task_decisions> tree(placement_info const& info, bool spill) const override {
            if constexpr (EstimatePlacement<P>) { // every new task placed from the manager
                return std::make_unique<detail::decisions_of<detail::estimate_decisions>>(
                        this->spec(), detail::estimate_decisions{}, spill, *as_estimates);
            } else if constexpr (TreePlacement<P>) {
                using S = decltype(this->placement.start(info));
                return std::make_unique<detail::decisions_of<S>>(this->spec(), this->placement.start(info), spill);
            } else if constexpr (std::same_as<P, any_dividing_placement>) {
                return this->placement.decisions(info, spill);
            } else {
                return nullptr;
            }
        }
        any_estimate_placement const* estimates() const override { return as_estimates ? &*as_estimates : nullptr; }
        void const* target(std::type_info const& type) const override {
            return type == typeid(P) ? &this->placement : nullptr;
        }
        std::optional<any_estimate_placement> as_estimates; ///< the placement as such, if it is one
    };

    detail::shared_erased<concept_base> self_; // immutable: copies share it
};

namespace detail {

/// Refuses `p`, given as `parameter` to an algorithm that takes `takes`:
/// named as a loop's mapping, or as the other task algorithm's (`other`).
[[noreturn]] inline void refuse_placement(any_placement const& p, std::string_view parameter, std::string_view other,
                                          std::string_view takes) {
    bool const loops = p.mapping() != nullptr || p.tiles() != nullptr;
    throw invalid_parameter(std::string(parameter), p.spec(),
                            (loops ? std::string("is a loop's mapping") : "is " + std::string(other)) + ": " +
                                    std::string(takes) +
                                    " or an estimate placement (dlpt, random, round-robin, objects, messages, or "
                                    "your own)");
}

/// The decisions a divide-and-conquer run makes with `p` (`spill`: the
/// options' word, which the placement's own must agree with); a placement
/// that is no tree's is refused, naming `parameter`.
inline std::unique_ptr<task_decisions> decisions_for(any_placement const& p, bool spill, std::string_view parameter) {
    if (auto d = p.tree_decisions(placement_info{}, spill)) return d;
    refuse_placement(p, parameter, "a task farm's placement",
                     "divide and conquer takes kazouris, april, steal, steal-half,");
}

} // namespace detail
} // namespace loopsched
