// placement_choice: an option's placement as the user gives it (a value, a
// hierarchy of two, or a spec string to be parsed when the run checks its
// arguments). It holds a value behind a pointer, so that options, and the
// compiled engines' facades, need no placement's definition; the spec parser
// is only in the algorithms' facades.
#pragma once

#include <loopsched/hierarchical.hpp>

#include <exception>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loopsched {

class any_placement; // mapping/any_placement.hpp

/// A placement as an option takes it: a value (any placement, the user's
/// EstimatePlacement included), two levels as hierarchical{between, within}
/// (a task farm past one root), or a spec ("kazouris", "ss/kazouris"), parsed
/// when the run checks its arguments so that a bad spec fails on every rank alike.
/// Giving a value needs <loopsched/mapping/any_placement.hpp> in the translation
/// unit (the members that touch a value are templates, instantiated where used).
class placement_choice {
public:
    using levels = hierarchical<any_placement, any_placement>;

    placement_choice(char const* spec) : spec_(spec) {}
    placement_choice(std::string spec) : spec_(std::move(spec)) {}
    placement_choice(std::string_view spec) : spec_(spec) {}
    template <class P, class A = any_placement>
    requires(!std::is_same_v<std::remove_cvref_t<P>, placement_choice> && !std::is_convertible_v<P, std::string_view>)
            placement_choice(P p)
            : one_(hold<A>(std::move(p))) {}
    template <class B, class W, class A = any_placement>
    placement_choice(hierarchical<B, W> h) : two_(hold_levels<A>(std::move(h))) {}

    /// The spec as given, or nullptr for a value. (No operator on two_: its
    /// argument-dependent lookup would need any_placement's definition.)
    [[nodiscard]] std::string const* given_spec() const noexcept {
        return one_ || static_cast<bool>(two_) ? nullptr : &spec_;
    }
    /// The one placement given as a value, or nullptr.
    [[nodiscard]] any_placement const* placement() const noexcept { return one_.get(); }
    /// The two levels given as a value, or nullptr.
    [[nodiscard]] levels const* hierarchy() const noexcept { return two_.get(); }
    /// Its text: the spec as given, or the value's canonical spec ("BETWEEN/WITHIN" for two levels).
    template <class A = any_placement>
    [[nodiscard]] std::string spec() const {
        if (two_) {
            auto const& two = *static_cast<hierarchical<A, A> const*>(two_.get()); // no ADL before A is complete
            return two.between.spec() + "/" + two.within.spec();
        }
        if (one_) return static_cast<A const&>(*one_).spec();
        return spec_;
    }
    template <class A = any_placement>
    friend std::ostream& operator<<(std::ostream& out, placement_choice const& c) {
        return out << c.spec<A>();
    }

private:
    template <class A, class P>
    static std::shared_ptr<A const> hold(P&& p) {
        static_assert(std::is_constructible_v<A, P>,
                      "placement_choice: not a placement: give a spec string, any_placement, one of the library's "
                      "placements, or a FarmPlacement, TreePlacement or EstimatePlacement of your own");
        if constexpr (std::is_constructible_v<A, P>) // else the assertion alone is the diagnostic
            return std::make_shared<A const>(std::forward<P>(p));
        else
            return nullptr;
    }
    template <class A, class B, class W>
    static std::shared_ptr<hierarchical<A, A> const> hold_levels(hierarchical<B, W>&& h) {
        static_assert(std::is_constructible_v<A, B> && std::is_constructible_v<A, W>,
                      "placement_choice: a level of hierarchical{between, within} is not a placement: give each "
                      "level any_placement (parse_placement(spec)), one of the library's placements, or an "
                      "FarmPlacement, TreePlacement or EstimatePlacement of your own");
        if constexpr (std::is_constructible_v<A, B> && std::is_constructible_v<A, W>)
            return std::make_shared<hierarchical<A, A> const>(
                    h.with_levels(A(std::move(h.between)), A(std::move(h.within))));
        else
            return nullptr;
    }

    std::string spec_;                        ///< the spec, when no value is held
    std::shared_ptr<any_placement const> one_; ///< one placement (values are shared: they never change)
    std::shared_ptr<levels const> two_;        ///< two levels
};

namespace detail {

/// An option's placement with its spec parsed by the facade that has the
/// parser, or the error parsing raised: the engine rethrows it inside the
/// run's checks, so that a bad spec fails every rank alike.
struct resolved_choice {
    placement_choice value = "kazouris"; // resolve_choice sets it
    std::exception_ptr error{};

    [[nodiscard]] placement_choice const& get() const {
        if (error) std::rethrow_exception(error);
        return value;
    }
};

} // namespace detail
} // namespace loopsched
