// hooks: how a user type declares the optional members the library asks of it,
// so that a misspelled one is a compile error instead of a default taken in silence.
#pragma once

#include <concepts>
#include <type_traits>

namespace loopsched {

/// The optional members the library asks of a user's type. A type that has one
/// declares it by name, in the type:
///
///     struct fibonacci {
///         static constexpr loopsched::hook_set hooks{.cost = true};
///         double cost(int n) const { return n; }
///         // is_leaf, solve, divide, combine ...
///     };
///
/// or, for a type you cannot edit, by specialising declared_hooks:
///
///     template <> inline constexpr loopsched::hook_set loopsched::declared_hooks<their_ops>{.cost = true};
///
/// The library checks both directions at compile time: a declared hook that
/// the type does not have (misspelled, or with another signature), and a hook
/// the type has without declaring it, are each a static_assert naming the hook.
struct hook_set {
    /// Divide-and-conquer operations: `cost(problem)`, a number that grows with
    /// the problem's cost (it orders and places tasks; without it, the
    /// problem's size or depth does).
    bool cost = false;
    /// An estimate placement's state: `dlpt_rules() -> bool`, whether D_LPT's
    /// rules 2-4 apply around its choices.
    bool dlpt_rules = false;
    /// A tree placement's state: `give(queue, running, amount)`, what a busy
    /// worker gives when the thief asks for `amount` of work (without it, the
    /// two-argument `give`).
    bool give_amount = false;
    /// A chunk policy: `min_chunk() -> index_t`, the smallest chunk it hands
    /// out (weighting never goes below it; without it, 1).
    bool min_chunk = false;
    /// A chunk policy's state (or a farm placement's): `finish(loop_statistics&)`,
    /// called on the root when the DOALL loop (or task farm) it scheduled ends,
    /// with the table (a state that learns across executions reads it, and may
    /// name the scheme that ran in `table.scheme`).
    bool finish = false;
};

namespace detail {
template <class T>
consteval hook_set hooks_member() {
    if constexpr (requires {
                      { T::hooks } -> std::convertible_to<hook_set>;
                  })
        return T::hooks;
    else
        return {};
}
} // namespace detail

/// The hooks type T declares: its `static constexpr loopsched::hook_set hooks`,
/// else none. Specialise it for a type you cannot edit.
template <class T>
inline constexpr hook_set declared_hooks = detail::hooks_member<T>();

namespace detail {

/// Tells a chunk state that declares hook_set{.finish = true} how its loop
/// ended (`table`: the loop's loop_statistics); a declaration and a member that
/// disagree are refused at compile time.
template <class S, class Table>
void finish_state(S& state, Table& table) {
    constexpr bool present = requires { state.finish(table); };
    constexpr bool declared = declared_hooks<S>.finish;
    static_assert(present || !declared, "loopsched: the chunk state declares hook_set{.finish = true} but has no "
                                        "finish(loop_statistics&) (misspelled?)");
    static_assert(declared || !present, "loopsched: the chunk state has finish(loop_statistics&) but does not "
                                        "declare it: add `static constexpr loopsched::hook_set hooks{.finish = true};`");
    if constexpr (present) state.finish(table);
}

} // namespace detail
} // namespace loopsched
