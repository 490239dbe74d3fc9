// The separately compiled library, part 1: the spec parser (parse_policy,
// parse_hierarchy, policy_names), what throws the errors (error.ipp),
// loop_statistics' operator<< and the any_policy models of the catalogue's
// schemes and their S, W and SW forms (policy/compiled.hpp). Included once,
// by impl/compiled.ipp, in a translation unit compiled with LOOPSCHED_COMPILED.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/statistics.hpp>
// The definitions, after the declarations above (with LOOPSCHED_COMPILED the headers leave them out).
#include <loopsched/error.ipp>
#include <loopsched/statistics.ipp>
#include <loopsched/spec.ipp>

#include <boost/hana/count_if.hpp>

#include <memory>
#include <utility>

namespace loopsched {

template <class A>
auto any_policy::compiled_forms<A>::make(A policy) -> held {
    return held(new model<A>(std::move(policy)));
}
template <class A>
auto any_policy::compiled_forms<A>::make(synchronized<A> policy) -> held {
    return held(new model<synchronized<A>>(std::move(policy)));
}
template <class A>
auto any_policy::compiled_forms<A>::make(weighted<A> policy) -> held {
    return held(new model<weighted<A>>(std::move(policy)));
}
template <class A>
auto any_policy::compiled_forms<A>::make(synchronized<weighted<A>> policy) -> held {
    return held(new model<synchronized<weighted<A>>>(std::move(policy)));
}

// One line per scheme of detail::compiled_scheme (checked below).
template struct any_policy::compiled_forms<static_schedule>;
template struct any_policy::compiled_forms<ss>;
template struct any_policy::compiled_forms<css>;
template struct any_policy::compiled_forms<gss>;
template struct any_policy::compiled_forms<tss>;
template struct any_policy::compiled_forms<fss>;
template struct any_policy::compiled_forms<fac2>;
template struct any_policy::compiled_forms<fiss>;
template struct any_policy::compiled_forms<tfss>;
template struct any_policy::compiled_forms<dtss>;
template struct any_policy::compiled_forms<dfss>;
template struct any_policy::compiled_forms<dfiss>;
template struct any_policy::compiled_forms<dtfss>;
template struct any_policy::compiled_forms<trees>;
template struct any_policy::compiled_forms<wf>;
template struct any_policy::compiled_forms<awf>;
template struct any_policy::compiled_forms<af>;
template struct any_policy::compiled_forms<fsc>;
template struct any_policy::compiled_forms<mfsc>;
template struct any_policy::compiled_forms<rnd>;

// The catalogue has 24 schemes; AWF's variants B-E are the four left out. The
// list names 20 distinct types, so a count of 20 also says each is in the catalogue.
static_assert(decltype(boost::hana::count_if(policy_catalogue, [](auto t) {
                  return boost::hana::bool_c<detail::compiled_scheme<typename decltype(t)::type>>;
              }))::value == 20);

} // namespace loopsched
