// The DOACROSS engines loopsched::compiled holds, for nests of depth 2 and 3,
// over any transport's erased view (transport/erased.hpp): declared here,
// defined once in impl/compiled_engines.ipp. With LOOPSCHED_COMPILED the
// facades call these instead of instantiating the engines; deeper nests
// instantiate them where they run.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/transport/erased.hpp>

#include <cstddef>
#include <exception>

namespace loopsched::detail {

/// The depths of loop nest loopsched::compiled holds DOACROSS engines for.
template <std::size_t N>
inline constexpr bool doacross_depth_compiled = N == 2 || N == 3;

/// A self-scheduled nest: the body, the fields and the policy erased.
template <std::size_t N>
doacross_run run_erased_doacross(channel<erased_transport>& ch, box<N> const& space, dependence_set<N> const& deps,
                                 any_policy const& policy, doacross_body<N>& body, doacross_options const& o,
                                 bool gather, std::exception_ptr earlier);
/// A nest tiled ahead of time by a doacross_mapping.
template <std::size_t N>
doacross_run run_erased_tiled(channel<erased_transport>& ch, box<N> const& space, dependence_set<N> const& deps,
                              doacross_mapping const& mapping, doacross_body<N>& body, doacross_options const& o,
                              bool gather, std::exception_ptr earlier);

} // namespace loopsched::detail
