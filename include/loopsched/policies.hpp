// Every chunk policy of the catalogue, and the compile-time list that names them.
#pragma once

#include <loopsched/policy/af.hpp>
#include <loopsched/policy/awf.hpp>
#include <loopsched/policy/css.hpp>
#include <loopsched/policy/dfiss.hpp>
#include <loopsched/policy/dfss.hpp>
#include <loopsched/policy/dtfss.hpp>
#include <loopsched/policy/dtss.hpp>
#include <loopsched/policy/fiss.hpp>
#include <loopsched/policy/fsc.hpp>
#include <loopsched/policy/fss.hpp>
#include <loopsched/policy/gss.hpp>
#include <loopsched/policy/rnd.hpp>
#include <loopsched/policy/static.hpp>
#include <loopsched/policy/tfss.hpp>
#include <loopsched/policy/trees.hpp>
#include <loopsched/policy/tss.hpp>
#include <loopsched/policy/wf.hpp>

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

namespace loopsched {

/// The catalogue, in the order tools list it. Each type has a `name`, its spec
/// `keys`, `from_spec(spec_args)` and `spec()`; adding a type here makes its
/// name known to parse_policy() and to every compile-time sweep.
inline constexpr auto policy_catalogue =
        boost::hana::tuple_t<static_schedule, ss, css, gss, tss, fss, fac2, fiss, tfss, // Chronopoulos et al., simple
                             dtss, dfss, dfiss, dtfss, trees,                           // theirs, distributed; TreeS
                             wf, awf, awf_b, awf_c, awf_d, awf_e, af, fsc, mfsc, rnd>;  // peers

} // namespace loopsched
