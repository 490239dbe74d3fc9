// placement_choice: an option's placement as the user gives it (a value, a
// hierarchy of two, or a spec string to be parsed when the run checks its
// arguments), without the spec parser, which only the algorithms' facades include.
#pragma once

#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/any_placement.hpp>

#include <exception>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace loopsched {

/// A placement as an option takes it: a value (any placement, the user's
/// EstimatePlacement included), two levels as hierarchical{between, within}
/// (a task farm past one root), or a spec ("kazouris", "ss/kazouris"), parsed
/// when the run checks its arguments so that a bad spec fails on every rank alike.
class placement_choice {
public:
    using levels = hierarchical<any_placement, any_placement>;

    placement_choice(char const* spec) : held_(std::string(spec)) {}
    placement_choice(std::string spec) : held_(std::move(spec)) {}
    placement_choice(std::string_view spec) : held_(std::string(spec)) {}
    placement_choice(any_placement p) : held_(std::move(p)) {}
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, placement_choice> && !std::is_same_v<P, any_placement> &&
             !std::is_convertible_v<P, std::string_view> && std::is_constructible_v<any_placement, P>)
            placement_choice(P p)
            : held_(any_placement(std::move(p))) {}
    template <class B, class W>
    requires std::is_constructible_v<any_placement, B> && std::is_constructible_v<any_placement, W>
    placement_choice(hierarchical<B, W> h)
            : held_(h.with_levels(any_placement(std::move(h.between)), any_placement(std::move(h.within)))) {}

    /// The spec as given, or nullptr for a value.
    [[nodiscard]] std::string const* given_spec() const noexcept { return std::get_if<std::string>(&held_); }
    /// The one placement given as a value, or nullptr.
    [[nodiscard]] any_placement const* placement() const noexcept { return std::get_if<any_placement>(&held_); }
    /// The two levels given as a value, or nullptr.
    [[nodiscard]] levels const* hierarchy() const noexcept { return std::get_if<levels>(&held_); }
    /// Its text: the spec as given, or the value's canonical spec ("BETWEEN/WITHIN" for two levels).
    [[nodiscard]] std::string spec() const {
        if (auto const* s = given_spec()) return *s;
        if (auto const* h = hierarchy()) return h->between.spec() + "/" + h->within.spec();
        return placement()->spec();
    }
    friend std::ostream& operator<<(std::ostream& out, placement_choice const& c) { return out << c.spec(); }

private:
    std::variant<std::string, any_placement, levels> held_;
};

namespace detail {

/// An option's placement with its spec parsed by the facade that has the
/// parser, or the error parsing raised: the engine rethrows it inside the
/// run's checks, so that a bad spec fails every rank alike.
struct resolved_choice {
    placement_choice value = any_placement{};
    std::exception_ptr error{};

    [[nodiscard]] placement_choice const& get() const {
        if (error) std::rethrow_exception(error);
        return value;
    }
};

} // namespace detail
} // namespace loopsched
