// S: static scheduling, ceil(I/p) iterations to each request.
#pragma once

#include <loopsched/policy/css.hpp>
#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// Static scheduling (S): I/p iterations per worker, in one chunk each.
struct static_schedule {
    static constexpr std::string_view name = "static";
    static constexpr std::array<std::string_view, 0> keys{};

    [[nodiscard]] detail::fixed_chunk_state start(loop_info const& info) const {
        detail::validate(info);
        return detail::fixed_chunk_state(
                std::max<index_t>(1, detail::ceil_div(info.iterations, static_cast<index_t>(info.workers))));
    }

    static static_schedule from_spec(spec_args const&) { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(static_schedule const&, static_schedule const&) = default;
};

} // namespace loopsched
