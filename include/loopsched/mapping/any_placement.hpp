// any_placement: where work goes, held by value: a task farm's or a
// divide-and-conquer tree's placement (a library one, a chunk policy over a
// farm's task stream, or any EstimatePlacement, the user's included), a DOALL
// loop's mapping or a DOACROSS loop's tile mapping; parse_placement makes one.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/mapping/placement.hpp>

#include <array>
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace loopsched {

/// SS for a task farm: an idle worker gets one task.
struct self_scheduling_placement {
    static constexpr std::string_view name = "ss";
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(self_scheduling_placement, self_scheduling_placement) = default;
};

/// A chunk policy over a farm's task stream: a worker's next chunk of tasks
/// is the policy's next chunk of iterations (the count must be known ahead,
/// task_farm_options::expected_tasks, except within a hierarchical farm's group).
struct chunked_placement {
    any_policy policy;
    [[nodiscard]] std::string spec() const { return policy.spec(); }
    friend bool operator==(chunked_placement const&, chunked_placement const&) = default;
};

/// Any placement, by value. The task farm takes kazouris, ss, a chunked
/// policy or an estimate placement; divide-and-conquer takes kazouris, april,
/// steal (steal-half) or an estimate placement; parallel_for a loop mapping
/// (any_mapping: dynamic, block, cyclic); parallel_for_doacross a tile mapping
/// (doacross_mapping: sds, chains-cyclic, cps, acs).
class any_placement {
public:
    /// What kind of placement it holds: the engines' protocols differ by it.
    enum class family : std::uint8_t {
        kazouris,
        self_scheduling,
        chunks,
        april,
        steal,
        estimates,
        loop_mapping,
        tiles,
        dividing ///< a TreePlacement of the user's
    };

    any_placement() = default; // Kazouris's scheme
    any_placement(kazouris_placement p) : held_(std::move(p)) {}
    any_placement(april_placement p) : held_(std::move(p)) {}
    any_placement(steal_placement p) : held_(std::move(p)) {}
    any_placement(self_scheduling_placement p) : held_(p) {}
    any_placement(chunked_placement p) : held_(std::move(p)) {}
    any_placement(any_mapping m) : held_(std::move(m)) {}
    any_placement(dynamic_mapping m) : held_(any_mapping(m)) {}
    any_placement(static_block_mapping m) : held_(any_mapping(m)) {}
    any_placement(static_cyclic_mapping m) : held_(any_mapping(m)) {}
    any_placement(doacross_mapping m) : held_(std::move(m)) {}
    // The wrapper itself is excluded before EstimatePlacement<P> is asked.
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, any_placement> && EstimatePlacement<P>) any_placement(P p)
            : held_(any_estimate_placement(std::move(p))) {}
    /// A dividing placement of the user's (divide and conquer's decisions at every worker).
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, any_placement> && !EstimatePlacement<P> && TreePlacement<P>)
            any_placement(P p)
            : held_(any_dividing_placement(std::move(p))) {}
    any_placement(any_dividing_placement p) : held_(std::move(p)) {}

    [[nodiscard]] family kind() const noexcept { return static_cast<family>(held_.index()); }
    /// The canonical spec ("kazouris", "steal-half", "random:seed=7", "fss"); "custom" for a user's without one.
    [[nodiscard]] std::string spec() const {
        return std::visit(
                [](auto const& p) {
                    if constexpr (requires { p.spec(); })
                        return p.spec();
                    else
                        return std::string(p.name()); // the loops' mappings
                },
                held_);
    }
    /// Tells placements apart (kind, type and spec), for the agreement.
    [[nodiscard]] std::uint64_t fingerprint() const {
        detail::fingerprint f;
        f.add(held_.index()).add(std::string_view(spec()));
        if (auto const* e = estimates()) f.add(e->fingerprint());
        if (auto const* c = std::get_if<chunked_placement>(&held_)) f.add(c->policy.fingerprint());
        if (auto const* t = tiles()) f.add_all(std::span<index_t const>(t->tile));
        if (auto const* d = std::get_if<any_dividing_placement>(&held_)) f.add(d->fingerprint());
        return f.value();
    }
    /// The estimate placement held, if any.
    [[nodiscard]] any_estimate_placement const* estimates() const noexcept {
        return std::get_if<any_estimate_placement>(&held_);
    }
    /// The chunk policy over the task stream, if it is one.
    [[nodiscard]] any_policy const* policy() const noexcept {
        auto const* c = std::get_if<chunked_placement>(&held_);
        return c ? &c->policy : nullptr;
    }
    /// The DOALL loop mapping held, if any.
    [[nodiscard]] any_mapping const* mapping() const noexcept { return std::get_if<any_mapping>(&held_); }
    /// The DOACROSS tile mapping held, if any.
    [[nodiscard]] doacross_mapping const* tiles() const noexcept { return std::get_if<doacross_mapping>(&held_); }
    /// The held placement if it is a P (one of the library's kinds), else nullptr.
    template <class P>
    [[nodiscard]] P const* target() const noexcept {
        return std::get_if<P>(&held_);
    }
    friend bool operator==(any_placement const&, any_placement const&) = default;

private:
    // In family order.
    std::variant<kazouris_placement, self_scheduling_placement, chunked_placement, april_placement, steal_placement,
                 any_estimate_placement, any_mapping, doacross_mapping, any_dividing_placement>
            held_{};
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
/// options' word, which the placement's own must agree with); a placement of
/// a farm's kind is refused, naming `parameter`.
inline std::unique_ptr<task_decisions> decisions_for(any_placement const& p, bool spill, std::string_view parameter) {
    placement_info const info{};
    switch (p.kind()) {
    case any_placement::family::kazouris: {
        auto const& k = *p.target<kazouris_placement>();
        return std::make_unique<decisions_of<kazouris_placement>>(p.spec(), k.start(info), spill);
    }
    case any_placement::family::april:
        return std::make_unique<decisions_of<april_placement>>(p.spec(), p.target<april_placement>()->start(info),
                                                               spill);
    case any_placement::family::steal:
        return std::make_unique<decisions_of<steal_placement>>(p.spec(), p.target<steal_placement>()->start(info),
                                                               spill);
    case any_placement::family::estimates:
        return std::make_unique<decisions_of<estimate_decisions>>(p.spec(), estimate_decisions{}, spill,
                                                                  *p.estimates());
    case any_placement::family::dividing: return p.target<any_dividing_placement>()->decisions(info, spill);
    case any_placement::family::self_scheduling:
    case any_placement::family::chunks:
    case any_placement::family::loop_mapping:
    case any_placement::family::tiles: break;
    }
    refuse_placement(p, parameter, "a task farm's placement",
                     "divide and conquer takes kazouris, april, steal, steal-half,");
}

} // namespace detail
} // namespace loopsched
