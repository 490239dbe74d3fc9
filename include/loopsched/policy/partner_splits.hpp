// Whether a policy wants the DOALL engine's partner splits (TreeS, policy/trees.hpp):
// a trait every engine and any_policy ask, without TreeS's own header.
#pragma once

namespace loopsched::detail {

/// Whether a policy (through its adaptors, and any_policy at run time) wants
/// the DOALL engine's partner splits (TreeS).
template <class P>
bool splits_with_partners(P const& p) {
    if constexpr (requires { P::splits_with_partners; })
        return P::splits_with_partners;
    else if constexpr (requires { p.splits_with_partners(); })
        return p.splits_with_partners();
    else if constexpr (requires { p.inner(); })
        return splits_with_partners(p.inner());
    else
        return false;
}

} // namespace loopsched::detail
