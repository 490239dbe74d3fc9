// spec_of: the canonical spec a value (a policy, a placement, a mapping) goes
// by: its spec() or its name, else "custom" for a user's type without either.
#pragma once

#include <concepts>
#include <string>
#include <string_view>

namespace loopsched::detail {

template <class V>
std::string spec_of(V const& v) {
    if constexpr (requires {
                      { v.spec() } -> std::convertible_to<std::string>;
                  })
        return v.spec();
    else if constexpr (requires {
                           { v.name() } -> std::convertible_to<std::string_view>;
                       })
        return std::string(v.name());
    else if constexpr (requires {
                           { V::name } -> std::convertible_to<std::string_view>;
                       })
        return std::string(V::name);
    else
        return "custom";
}

} // namespace loopsched::detail
