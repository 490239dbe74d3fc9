// S: static scheduling, ceil(I/p) iterations to each request.
#pragma once

#include <loopsched/policy/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// Static scheduling (S): I/p iterations per worker, in one chunk each.
struct static_schedule {
    static constexpr std::string_view name = "static";
    static constexpr std::array<std::string_view, 0> keys{};

    class state {
    public:
        explicit state(index_t chunk) : chunk_(chunk) {}
        index_t propose(request const&) const noexcept { return chunk_; }
        void commit(request const&, index_t) noexcept {}

    private:
        index_t chunk_;
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(std::max<index_t>(1, detail::ceil_div(info.iterations, static_cast<index_t>(info.workers))));
    }

    static static_schedule from_spec(spec_args const&) { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(static_schedule const&, static_schedule const&) = default;
};

} // namespace loopsched
