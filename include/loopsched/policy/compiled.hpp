// The chunk policies whose any_policy model loopsched::compiled holds: the
// catalogue's schemes, bare and under S, W and SW (see any_policy.hpp). Named
// by declaration only, so that a program pays for none it does not use.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/config.hpp>

#include <concepts>

namespace loopsched {

struct static_schedule;
struct ss;
class css;
class gss;
class tss;
class fss;
struct fac2;
class fiss;
class tfss;
class dtss;
class dfss;
class dfiss;
class dtfss;
class trees;
class wf;
class awf;
class af;
class fsc;
struct mfsc;
class rnd;

template <ChunkPolicy P>
class synchronized;
template <ChunkPolicy P>
class weighted;

namespace detail {

/// The catalogue's schemes the library holds erased: all but AWF's variants
/// B-E, whose type needs awf.hpp's enum (they erase in the caller's program).
template <class P>
inline constexpr bool compiled_scheme =
        (std::same_as<P, static_schedule> || std::same_as<P, ss> || std::same_as<P, css> || std::same_as<P, gss> ||
         std::same_as<P, tss> || std::same_as<P, fss> || std::same_as<P, fac2> || std::same_as<P, fiss> ||
         std::same_as<P, tfss> || std::same_as<P, dtss> || std::same_as<P, dfss> || std::same_as<P, dfiss> ||
         std::same_as<P, dtfss> || std::same_as<P, trees> || std::same_as<P, wf> || std::same_as<P, awf> ||
         std::same_as<P, af> || std::same_as<P, fsc> || std::same_as<P, mfsc> || std::same_as<P, rnd>);

/// The scheme under a policy's adaptors, S outside W, each at most once (P
/// itself for a bare scheme or any other composition).
template <class P>
struct unweighted {
    using type = P;
};
template <class P>
struct unweighted<weighted<P>> {
    using type = P;
};
template <class P>
struct scheme_under_adaptors : unweighted<P> {};
template <class P>
struct scheme_under_adaptors<synchronized<P>> : unweighted<P> {};

template <class P>
using scheme_of_form = typename scheme_under_adaptors<P>::type;

/// Whether P is A, S-A, W-A or SW-A for a scheme A that the linked library holds.
template <class P>
inline constexpr bool compiled_form = library_compiled && compiled_scheme<scheme_of_form<P>>;

} // namespace detail
} // namespace loopsched
