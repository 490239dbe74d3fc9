// An option's placement takes a spec or a placement value; anything else is
// refused with a message that says what it takes.
// expect: not a placement
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/task_options.hpp>

struct not_a_placement {};

int main() {
    loopsched::task_farm_options o;
    o.placement = not_a_placement{};
}
