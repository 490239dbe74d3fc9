// Where a group stands among a hierarchy's groups: what a sub-master learns
// from its root, and what a farm's producer there reads from its handle.
#pragma once

#include <cstddef>

namespace loopsched::detail {

/// Which group of how many, and its share of the groups' summed power: the
/// fractions [begin, end) of it that come before it and with it (0 of 1,
/// [0, 1): the whole, as on a root without groups).
struct group_place {
    std::size_t group = 0, groups = 1;
    double share_begin = 0.0, share_end = 1.0;
};

} // namespace loopsched::detail
