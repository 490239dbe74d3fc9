// A chunk policy that declares a minimum chunk but spells the member otherwise
// (minimum_chunk) is refused where weighting asks for it: W would go below it
// in silence.
// expect: no min_chunk.. const returning index_t .misspelled
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/policy/css.hpp>

struct at_least_four : loopsched::css {
    using css::css;
    static constexpr loopsched::hook_set hooks{.min_chunk = true};
    loopsched::index_t minimum_chunk() const { return 4; } // meant: min_chunk
};

int main() {
    auto state = loopsched::weighted(at_least_four(8)).start(loopsched::loop_info{.iterations = 100, .workers = 2});
    (void)state;
}
