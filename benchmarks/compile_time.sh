#!/usr/bin/env bash
# Compile cost, side by side (interleaved, median of 5, -O2): a translation unit
# that runs a loop with only <loopsched/algorithm/parallel_for.hpp> (and the
# policy, space and transport it names), one that runs the same loop through the
# umbrella header, and one that includes only <vector>. With a build directory,
# also the compile-time policy sweep's TU (examples/policy_sweep.cpp): its
# time and peak memory, as the build compiles it.
#   benchmarks/compile_time.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
loop='int main() {
    std::vector<int> runs(1000);
    loopsched::in_process::run(2, [&](loopsched::in_process::endpoint& t) {
        loopsched::parallel_for(t, loopsched::make_range(1000), POLICY,
                                [&](loopsched::index_range const& r) { for (auto i : r.indices()) runs[i]++; });
    });
    return runs[7] == 1 ? 0 : 1;
}'
{
  printf '#include <loopsched/algorithm/parallel_for.hpp>\n#include <loopsched/policy/gss.hpp>\n'
  printf '#include <loopsched/space/box.hpp>\n#include <loopsched/transport/in_process.hpp>\n#include <vector>\n'
  printf '%s\n' "${loop/POLICY/loopsched::gss{\}}"
} > "$tmp/parallel_for.cpp"
{
  printf '#include <loopsched/loopsched.hpp>\n#include <vector>\n'
  printf '%s\n' "${loop/POLICY/loopsched::parse_policy(\"gss\")}"
} > "$tmp/umbrella.cpp"
printf '#include <vector>\nint main() { std::vector<int> v{1, 2, 3}; return v.size() == 3 ? 0 : 1; }\n' > "$tmp/vector.cpp"

flags=(-std=c++20 -O2 -Iinclude $(mpicxx --showme:compile) -c)
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_one() { # file -> seconds
  local start end
  start=$(date +%s.%N); g++ "${flags[@]}" "$1" -o "$tmp/out.o"; end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}
for tu in vector parallel_for umbrella; do # each must compile before it is timed
  g++ "${flags[@]}" "$tmp/$tu.cpp" -o "$tmp/out.o" || { echo "compile_time: $tu.cpp does not compile" >&2; exit 1; }
done
declare -A times
for _ in 1 2 3 4 5; do # interleaved, so that the machine's drift hits all alike
  for tu in vector parallel_for umbrella; do times[$tu]+="$(time_one "$tmp/$tu.cpp") "; done
done
for tu in vector parallel_for umbrella; do
  declare "m_$tu=$(printf '%s\n' ${times[$tu]} | median)"
done
printf 'compile time of one TU (s, median of 5, -O2, a 2-rank in-process GSS loop in the loopsched TUs)\n'
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
printf 'compile_tu_parallel_for_only: ours=%.2f baseline=%.2f ratio=%s (baseline: <vector>)\n' \
  "$m_parallel_for" "$m_vector" "$(ratio "$m_parallel_for" "$m_vector")"
printf 'compile_tu_umbrella: ours=%.2f baseline=%.2f ratio=%s (baseline: <vector>)\n' \
  "$m_umbrella" "$m_vector" "$(ratio "$m_umbrella" "$m_vector")"
printf 'compile_tu_umbrella_vs_parallel_for_only: ours=%.2f baseline=%.2f ratio=%s\n' \
  "$m_umbrella" "$m_parallel_for" "$(ratio "$m_umbrella" "$m_parallel_for")"

# The sweep's TU, compiled with the build's own command line.
if [ $# -ge 1 ] && [ -f "$1/build.ninja" ]; then
  command=$(cd "$1" && ninja -t commands policy_sweep | grep -- '-c .*policy_sweep\.cpp' | tail -1)
  if [ -n "$command" ]; then
    (cd "$1" && /usr/bin/time -f '%e %M' -o "$tmp/sweep" bash -c "$command")
    read -r seconds kilobytes < "$tmp/sweep"
    printf 'compile_policy_sweep_tu: seconds=%s peak_memory_mb=%d (targets: 120 s, 3072 MB)\n' \
      "$seconds" $((kilobytes / 1024))
  fi
fi
