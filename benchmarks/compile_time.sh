#!/usr/bin/env bash
# Compile cost, side by side: each translation unit's time (median of ROUNDS,
# interleaved so that the machine's drift hits all alike) and peak memory, with
# GCC and with Clang, each as a multiple of the floor: a plain Boost.MPI program
# (send and receive a serialized std::vector<double>). The TUs are a user's
# first programs: the README's quickstart (parse_policy, one gathering
# parallel_for over MPI), one task farm, one divide and conquer, one DOACROSS
# loop over MPI, each including its algorithm's own header
# (<loopsched/mpi/task_farm.hpp>, ...); all four again as a program linked to
# loopsched::compiled compiles them (the engines only declared); the farm through the umbrella <loopsched/mpi.hpp>, to show what
# the narrow header saves; and a parallel_for
# TU without MPI that includes only what it names. With a
# build directory, also the compile-time policy sweep's TU as the build compiles it.
#   benchmarks/compile_time.sh [BUILD_DIR]      (ROUNDS=3, COMPILERS="g++ clang++" by default)
# With INSTRUCTIONS=1, each TU's instructions as well (valgrind's cachegrind, the
# compiler and its children; about 20x the compile's time, two TUs at a time):
# unlike seconds they do not move with this VM's speed or its neighbours, so a
# change's effect on a TU shows from one run to the next. INSTRUCTION_TUS picks
# the TUs besides the floor (by default the four compiled ones).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
read -r -a compilers <<< "${COMPILERS:-g++ clang++}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/vector.cpp" <<'EOF'
#include <vector>
int main() { std::vector<int> v{1, 2, 3}; return v.size() == 3 ? 0 : 1; }
EOF
cat > "$tmp/boost_mpi.cpp" <<'EOF'
#include <boost/mpi.hpp>
#include <boost/serialization/vector.hpp>
#include <vector>
int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    std::vector<double> v(100, 1.0);
    if (world.rank() == 0 && world.size() > 1) world.send(1, 0, v);
    if (world.rank() == 1) world.recv(0, 0, v);
    return v.size() == 100 ? 0 : 1;
}
EOF
cp examples/quickstart.cpp "$tmp/quickstart.cpp"
cat > "$tmp/farm.cpp" <<'EOF'
#include <loopsched/mpi/task_farm.hpp>
#include <boost/mpi/environment.hpp>
#include <cstddef>
int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    auto out = loopsched::task_farm<std::size_t>(
            world, [](auto& farm) { for (std::size_t i = 0; i < 4; ++i) farm.submit(i); },
            [](std::size_t const& i) { return i * i; });
    return out.value.size() == (world.rank() == 0 ? 4u : 0u) ? 0 : 1;
}
EOF
cat > "$tmp/dnc.cpp" <<'EOF'
#include <loopsched/mpi/divide_and_conquer.hpp>
#include <boost/mpi/environment.hpp>
#include <cstdint>
#include <span>
#include <vector>
struct fib {
    bool is_leaf(int n) const { return n < 2; }
    std::uint64_t solve(int n) const { return static_cast<std::uint64_t>(n); }
    std::vector<int> divide(int n) const { return {n - 1, n - 2}; }
    std::uint64_t combine(int, std::span<std::uint64_t> r) const { return r[0] + r[1]; }
};
int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    auto out = loopsched::divide_and_conquer(world, 20, fib{});
    return world.rank() != 0 || out.value == 6765 ? 0 : 1;
}
EOF
cat > "$tmp/doacross.cpp" <<'EOF'
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/policy/tss.hpp>
#include <boost/mpi/environment.hpp>
int main(int argc, char** argv) {
    using namespace loopsched;
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    box<2> const space{{0, 0}, {200, 100}};
    auto out = parallel_for_doacross(
            world, space, uniform<vec{1, 0}, vec{0, 1}>{}, synchronized(tss{}),
            make_field<double>([](auto const&) { return 1.0; }),
            [](box<2> const& part, window<double, 2>& a) {
                for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
                    for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j)
                        if (i > 0 && j > 0) a(i, j) = 0.5 * (a(i - 1, j) + a(i, j - 1));
            });
    return world.rank() != 0 || out.statistics.workers.size() > 0 ? 0 : 1;
}
EOF
cat > "$tmp/parallel_for_only.cpp" <<'EOF'
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/policy/gss.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/transport/in_process.hpp>
#include <vector>
int main() {
    std::vector<int> runs(1000);
    loopsched::in_process::run(2, [&](loopsched::in_process::endpoint& t) {
        loopsched::parallel_for(t, loopsched::make_range(1000), loopsched::gss{},
                                [&](loopsched::index_range const& r) { for (auto i : r.indices()) runs[i]++; });
    });
    return runs[7] == 1 ? 0 : 1;
}
EOF
sed 's#<loopsched/mpi/task_farm.hpp>#<loopsched/mpi.hpp>#' "$tmp/farm.cpp" > "$tmp/farm_umbrella.cpp"
# The same quickstart, farm, divide and conquer and DOACROSS loop as a program linked to
# loopsched::compiled compiles them: the target's LOOPSCHED_COMPILED, the engines only declared.
for tu in quickstart farm dnc doacross; do
  { echo '#define LOOPSCHED_COMPILED'; cat "$tmp/$tu.cpp"; } > "$tmp/${tu}_compiled.cpp"
done
tus=(vector boost_mpi parallel_for_only quickstart quickstart_compiled farm farm_compiled farm_umbrella dnc dnc_compiled doacross doacross_compiled)

flags=(-std=c++20 -O2 -Iinclude $(mpicxx --showme:compile) -c)
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # compiler file -> "seconds peak_kb"
  /usr/bin/time -f '%e %M' -o "$tmp/measured" "$1" "${flags[@]}" "$2" -o "$tmp/out.o"
  cat "$tmp/measured"
}
timed_compilers=()
if [ "$rounds" -gt 0 ]; then # ROUNDS=0: instructions only
  timed_compilers=("${compilers[@]}")
  printf 'compile cost of one TU (-std=c++20 -O2 -c, median of %s interleaved rounds; floor: the Boost.MPI program)\n' "$rounds"
fi
for cxx in "${timed_compilers[@]}"; do
  command -v "$cxx" >/dev/null || { echo "compile_time: $cxx not found, skipped" >&2; continue; }
  for tu in "${tus[@]}"; do # each must compile before it is timed
    "$cxx" "${flags[@]}" "$tmp/$tu.cpp" -o "$tmp/out.o" || { echo "compile_time: $tu.cpp fails with $cxx" >&2; exit 1; }
  done
  declare -A secs=() mems=()
  for _ in $(seq "$rounds"); do
    for tu in "${tus[@]}"; do
      read -r s kb <<< "$(measure "$cxx" "$tmp/$tu.cpp")"
      secs[$tu]+="$s "
      mems[$tu]+="$kb "
    done
  done
  floor_s=$(printf '%s\n' ${secs[boost_mpi]} | median)
  floor_kb=$(printf '%s\n' ${mems[boost_mpi]} | median)
  version=$("$cxx" --version | head -1)
  for tu in "${tus[@]}"; do
    s=$(printf '%s\n' ${secs[$tu]} | median)
    kb=$(printf '%s\n' ${mems[$tu]} | median)
    awk -v cxx="$cxx" -v tu="$tu" -v s="$s" -v kb="$kb" -v fs="$floor_s" -v fkb="$floor_kb" 'BEGIN {
      printf "compile_tu_%s[%s]: seconds=%.2f peak_memory_mb=%d ratio_to_boost_mpi=%.2f memory_ratio=%.2f\n",
             tu, cxx, s, kb / 1024, s / fs, kb / fkb }'
  done
  echo "  ($cxx: $version)"
  unset secs mems
done

# Instructions: deterministic (the same count, run after run, on this machine).
if [ "${INSTRUCTIONS:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "compile_time: INSTRUCTIONS=1 needs valgrind (apt-get install valgrind)" >&2; exit 1; }
  read -r -a counted <<< "${INSTRUCTION_TUS:-quickstart_compiled farm_compiled dnc_compiled doacross_compiled}"
  count() { # compiler tu -> writes the summed instructions of the compiler's processes to $tmp/tu.cxx.count
    valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
      "$1" "${flags[@]}" "$tmp/$2.cpp" -o "$tmp/$2.$1.counted.o" 2>&1 |
      awk '/I +refs/ {gsub(",", "", $4); s += $4} END {printf "%.0f\n", s}' > "$tmp/$2.$1.count" ||
      true # a TU that fails is named below, by its missing object file
  }
  for cxx in "${compilers[@]}"; do
    command -v "$cxx" >/dev/null || continue
    running=0
    for tu in $(printf '%s\n' boost_mpi "${counted[@]}" | awk '!seen[$0]++'); do # two at a time
      count "$cxx" "$tu" &
      running=$((running + 1))
      if [ "$running" -ge 2 ]; then wait -n; running=$((running - 1)); fi
    done
    wait
    floor_i=$(cat "$tmp/boost_mpi.$cxx.count")
    echo "compile_tu_boost_mpi[$cxx]: instructions=$floor_i (the floor)"
    for tu in "${counted[@]}"; do
      [ -f "$tmp/$tu.$cxx.counted.o" ] || { echo "compile_time: $tu.cpp fails with $cxx" >&2; exit 1; }
      awk -v cxx="$cxx" -v tu="$tu" -v i="$(cat "$tmp/$tu.$cxx.count")" -v fi="$floor_i" 'BEGIN {
        printf "compile_tu_%s[%s]: instructions=%.0f ratio_to_boost_mpi=%.3f\n", tu, cxx, i, i / fi }'
    done
  done
fi

# The sweep's TU, compiled with the build's own command line.
if [ $# -ge 1 ] && [ -f "$1/build.ninja" ]; then
  command=$(cd "$1" && ninja -t commands policy_sweep | grep -- '-c .*policy_sweep\.cpp' | tail -1)
  if [ -n "$command" ]; then
    (cd "$1" && /usr/bin/time -f '%e %M' -o "$tmp/sweep" bash -c "$command")
    read -r seconds kilobytes < "$tmp/sweep"
    printf 'compile_policy_sweep_tu: seconds=%s peak_memory_mb=%d (targets: 60 s, 2048 MB)\n' \
      "$seconds" $((kilobytes / 1024))
  fi
fi
