// Divide-and-conquer ops that declare the optional cost but spell it otherwise
// (costs) are refused: the cost would be ignored in silence.
// expect: no cost.Problem const&. returning a number .misspelled
#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/transport/in_process.hpp>

#include <span>
#include <vector>

struct fib {
    static constexpr loopsched::hook_set hooks{.cost = true};
    bool is_leaf(int n) const { return n < 2; }
    long solve(int n) const { return n; }
    std::vector<int> divide(int n) const { return {n - 1, n - 2}; }
    long combine(int, std::span<long> r) const { return r[0] + r[1]; }
    double costs(int n) const { return n; } // meant: cost
};

int main() {
    loopsched::in_process::run(2,
                               [](loopsched::in_process::endpoint& t) { loopsched::divide_and_conquer(t, 10, fib{}); });
}
