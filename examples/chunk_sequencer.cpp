// chunk_sequencer: the user guide's first example (a policy driven by hand), run as a test so it stays true.
#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <iostream>

int main() {
    using namespace loopsched;

    // Pick a scheme by type (checked at compile time) ...
    auto policy = weighted(gss(80)); // W-GSS with a minimum chunk of 80
    // ... or by name at run time, e.g. from a command-line flag.
    any_policy chosen = parse_policy("w-gss:min=80");
    if (chosen.spec() != policy.spec()) return 1; // both "w-gss:min=80"

    // Drive it: every request gets the next chunk [first, first + size).
    chunk_sequencer seq(
            chosen,
            loop_info{.iterations = 10000, .workers = 4, .status = {{1.0, 1.0}, {0.8, 2.0}, {1.0, 1.0}, {0.8, 2.0}}});
    index_t sum = 0;
    while (auto c = seq.next(request{.worker = 0, .status = {1.0, 1.0}}))
        for (index_t i : c->indices()) sum += i; // the loop body
    std::cout << "sum of 0..9999 = " << sum << '\n';
    return sum == index_t{10000} * 9999 / 2 ? 0 : 1;
}
