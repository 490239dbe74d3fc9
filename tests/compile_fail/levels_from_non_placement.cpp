// Two levels of placements take a placement at each level; anything else is
// refused with a message that names the level.
// expect: a level of hierarchical
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/task_options.hpp>

struct not_a_placement {};

int main() {
    loopsched::task_farm_options o;
    o.placement = loopsched::hierarchical{not_a_placement{}, not_a_placement{}};
}
