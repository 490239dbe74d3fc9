// task_farm_options::scheme, the former name of placement, still compiles for
// one release but warns at every use in the user's code (an error here).
// expect: scheme is now task_farm_options::placement
#include <loopsched/task_options.hpp>

#pragma GCC diagnostic error "-Wdeprecated-declarations"

int main() {
    loopsched::task_farm_options o;
    o.scheme = "ss";
    return o.initial_tasks == 3 ? 0 : 1;
}
