// automatic: a chunk policy that chooses among candidate schemes across a
// loop's repeated executions, from what the root measured of the earlier ones.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/detail/masterless_claim.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/policy/af.hpp>
#include <loopsched/policy/css.hpp>
#include <loopsched/policy/dtss.hpp>
#include <loopsched/policy/fss.hpp>
#include <loopsched/policy/gss.hpp>
#include <loopsched/policy/static.hpp>
#include <loopsched/request.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <version>
#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

namespace loopsched {

/// How `automatic` picks the scheme of a loop's next execution.
enum class selection_method : std::uint8_t {
    /// Runs every candidate once, then the fastest; when the loop's time
    /// drifts from the chosen scheme's (options.drift, twice in a row), it
    /// runs them all again (Korndoerfer et al.'s ExhaustiveSel, re-selecting
    /// on the time rather than on the load imbalance).
    exhaustive,
    /// Learns online: a discounted upper-confidence-bound bandit over the
    /// candidates' times (Garivier and Moulines, "On upper-confidence bound
    /// policies for switching bandit problems"), which keeps trying a scheme
    /// in proportion to how close it came, and forgets old times so that a
    /// change of the machine or the load is followed.
    bandit,
    /// Auto4OMP's ExpertSel rules (Korndoerfer et al., "LB4OMP: a dynamic load
    /// balancing library for multithreaded applications"): fuzzy rules on the
    /// loop's time and its workers' percent imbalance, and on their changes,
    /// move along the candidates ordered from the least to the most adaptive.
    expert,
};

/// Why an execution ran the scheme it ran.
enum class selection_reason : std::uint8_t {
    trial,   ///< exhaustive: a candidate tried in a round of trials
    best,    ///< exhaustive: the fastest of the last round
    bandit,  ///< bandit: the lowest index (or a candidate not yet tried)
    rules,   ///< expert: where the rules moved
};

/// The reason's name: "trial", "best", "bandit" or "rules".
constexpr std::string_view to_string(selection_reason r) noexcept {
    switch (r) {
    case selection_reason::trial: return "trial";
    case selection_reason::best: return "best";
    case selection_reason::bandit: return "bandit";
    case selection_reason::rules: return "rules";
    }
    return "?";
}

/// The method's name in a spec: "exhaustive", "bandit" or "expert".
constexpr std::string_view to_string(selection_method m) noexcept {
    switch (m) {
    case selection_method::exhaustive: return "exhaustive";
    case selection_method::bandit: return "bandit";
    case selection_method::expert: return "expert";
    }
    return "?";
}

/// One execution of an automatic loop, as the root measured it.
struct selection_record {
    std::uint64_t execution = 0;   ///< 0 for the loop's first execution
    std::size_t candidate = 0;     ///< index into the candidates
    std::string scheme;            ///< the candidate's spec
    selection_reason reason = selection_reason::trial; ///< why it ran
    double seconds = 0.0;          ///< the execution's parallel time T_p
    /// The workers' percent imbalance, (max - mean) / max * P / (P - 1) * 100
    /// over their computing times (Auto4OMP's measure; 0 with one worker).
    double imbalance = 0.0;
    /// The coefficient of variation of the chunks' time per iteration (their
    /// standard deviation over their mean, weighted by chunk size).
    double cost_variation = 0.0;
};

/// The executions an automatic loop remembers (the most recent
/// automatic_options::history of them), and the candidates they chose from.
struct selection_history {
    std::vector<std::string> candidates;   ///< the candidates' specs, in order
    std::vector<selection_record> records; ///< oldest first
    std::uint64_t executions = 0;          ///< every execution so far, forgotten ones included

    /// How many of the remembered executions ran each candidate, by index.
    [[nodiscard]] std::vector<std::uint64_t> runs() const {
        std::vector<std::uint64_t> n(candidates.size());
        for (auto const& r : records) ++n.at(r.candidate);
        return n;
    }
    /// The remembered executions' parallel times summed.
    [[nodiscard]] double seconds() const {
        double s = 0.0;
        for (auto const& r : records) s += r.seconds;
        return s;
    }
    /// One paragraph: how often each candidate ran, its mean time, and which
    /// one the last execution ran and why.
    [[nodiscard]] std::string explain() const {
        std::ostringstream out;
        out << executions << " executions";
        if (records.size() < executions) out << " (the last " << records.size() << " remembered)";
        if (records.empty()) return out.str() + "; none measured yet";
        out << "; by candidate (runs, mean T_p):";
        auto const n = runs();
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            double sum = 0.0;
            for (auto const& r : records)
                if (r.candidate == i) sum += r.seconds;
            out << (i ? "," : "") << ' ' << candidates[i] << ' ' << n[i];
            if (n[i]) out << " x " << sum / static_cast<double>(n[i]) << " s";
        }
        auto const& last = records.back();
        out << "; the last ran " << last.scheme << " (" << to_string(last.reason) << ") in " << last.seconds << " s";
        return out.str();
    }
    /// One line per remembered execution: execution, scheme, reason, T_p,
    /// imbalance, cost variation (tab-separated, with a header).
    friend std::ostream& operator<<(std::ostream& out, selection_history const& h) {
        out << "execution\tscheme\treason\tseconds\timbalance_pct\tcost_variation\n";
        for (auto const& r : h.records)
            out << r.execution << '\t' << r.scheme << '\t' << to_string(r.reason) << '\t' << r.seconds << '\t'
                << r.imbalance << '\t' << r.cost_variation << '\n';
        return out;
    }
};

/// What `automatic` chooses from and how.
struct automatic_options {
    /// The schemes to choose from; empty: automatic::default_candidates(),
    /// ordered from the least to the most adaptive (the expert method moves
    /// along this order).
    std::vector<any_policy> candidates{};
    /// How the next execution's scheme is picked.
    selection_method method = selection_method::exhaustive;
    /// The loop's identity: executions with the same key share one history.
    /// Empty: the source line where the automatic policy is made.
    std::string key{};
    /// Exhaustive: the relative change of the chosen scheme's time, twice in a
    /// row, that starts a new round of trials.
    double drift = 0.25;
    /// Bandit: the weight of a time one execution later (older times fade).
    double discount = 0.97;
    /// Bandit: how far the index reaches beyond a candidate's mean time
    /// relative to the best one's; larger explores more.
    double exploration = 0.3;
    /// How many executions the history remembers.
    std::size_t history = 4096;
    /// Also tries each candidate that a loop without a master takes
    /// (parallel_for_options::masterless) without one: it enters the list a
    /// second time, right after itself, as "masterless NAME". A DOALL loop
    /// then opens with every rank waiting for the root's choice; the root
    /// must be rank 0.
    bool masterless = false;

    friend bool operator==(automatic_options const&, automatic_options const&) = default;
};

/// Where a policy was made in the user's code: the default identity of an
/// automatic loop.
struct call_site {
    std::string file{};
    unsigned line = 0;

#if defined(__cpp_lib_source_location)
    /// The caller's file and line (as a default argument: the call's).
    static call_site current(std::source_location where = std::source_location::current()) {
        return {where.file_name(), static_cast<unsigned>(where.line())};
    }
#else
    /// The caller's file and line (as a default argument: the call's).
    static call_site current(char const* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
        return {file, line};
    }
#endif
    /// "file:line".
    [[nodiscard]] std::string text() const { return file + ":" + std::to_string(line); }
};

namespace detail {

/// The percent imbalance of the workers' computing times (Auto4OMP's measure).
inline double percent_imbalance(loop_statistics const& t) {
    std::size_t const p = t.workers.size();
    if (p < 2) return 0.0;
    double most = 0.0, sum = 0.0;
    for (auto const& w : t.workers) {
        most = std::max(most, w.compute_seconds);
        sum += w.compute_seconds;
    }
    if (most <= 0.0) return 0.0;
    double const mean = sum / static_cast<double>(p);
    return (most - mean) / most * static_cast<double>(p) / static_cast<double>(p - 1) * 100.0;
}

/// Auto4OMP's ExpertSel, on a portfolio of `size` schemes ordered from the
/// least to the most adaptive: fuzzy memberships of the loop's time T (s), its
/// percent imbalance LB, and their changes since the previous execution, give
/// the first scheme, then a step of at most 4 along the order.
class expert_rules {
public:
    /// The index of the next execution's scheme after `current` ran in `seconds` with `imbalance`.
    std::size_t next(std::size_t current, std::size_t size, double seconds, double imbalance) {
        double const last = static_cast<double>(size - 1);
        double chosen;
        if (previous_seconds_ < 0.0) {
            double const simple = std::max(short_time(seconds), low_imbalance(imbalance));
            double const moderate =
                    std::max({std::min(medium_time(seconds), high_imbalance(imbalance)),
                              std::min(medium_time(seconds), moderate_imbalance(imbalance)),
                              std::min(long_time(seconds), moderate_imbalance(imbalance))});
            double const aggressive = std::min(high_imbalance(imbalance), long_time(seconds));
            // The output sets' areas as the rules' authors weigh them (the first in integer arithmetic).
            double const a = 8.0 * aggressive, m = 3.75 * moderate, s = 0.75 * simple;
            double const sum = a + m + s;
            chosen = sum > 0.0 ? std::trunc(a / sum * 14.0 + m / sum * 3.0 + (1.0 - s / sum) * 1.0) : 0.0;
        } else {
            double const time_change = (seconds - previous_seconds_) / seconds * 100.0;
            double const imbalance_change = imbalance - previous_imbalance_;
            double same = std::max({std::min(time_unchanged(time_change), imbalance_unchanged(imbalance_change)),
                                    low_imbalance(imbalance), time_improved(time_change)});
            double more = std::max({std::min(high_imbalance(imbalance), long_time(seconds)),
                                    std::min(time_degraded(time_change), imbalance_degraded(imbalance_change)),
                                    std::min(time_unchanged(time_change), imbalance_degraded(imbalance_change))});
            double less = std::max({std::min(time_degraded(time_change), imbalance_improved(imbalance_change)),
                                    std::min(time_degraded(time_change), imbalance_unchanged(imbalance_change)),
                                    std::min(time_unchanged(time_change), imbalance_improved(imbalance_change)),
                                    short_time(seconds), std::min(time_degraded(time_change), low_imbalance(imbalance))});
            double const l = 2.75 * less, m = 1.5 * same, r = 2.75 * more;
            double const sum = l + m + r;
            double const step = sum > 0.0 ? (r / sum) * 4.0 - (l / sum) * 4.0 : 0.0;
            chosen = std::round(static_cast<double>(current) + step);
        }
        previous_seconds_ = seconds;
        previous_imbalance_ = imbalance;
        return static_cast<std::size_t>(std::clamp(chosen, 0.0, last));
    }

private:
    // Memberships: times in seconds, imbalances and changes in percent.
    static double ramp(double x, double zero, double one) { // 0 at `zero`, 1 at `one`, linear between
        double const f = (x - zero) / (one - zero);
        return std::clamp(f, 0.0, 1.0);
    }
    static double short_time(double t) { return ramp(t, 0.03, 0.01); }
    static double medium_time(double t) { return std::min(ramp(t, 0.0, 0.1), ramp(t, 10.0, 1.0)); }
    static double long_time(double t) { return ramp(t, 1.0, 10.0); }
    static double low_imbalance(double lb) { return ramp(lb, 2.0, 1.0); }
    static double moderate_imbalance(double lb) { return std::min(ramp(lb, 1.0, 2.0), ramp(lb, 5.0, 4.0)); }
    static double high_imbalance(double lb) { return ramp(lb, 4.0, 10.0); }
    static double time_improved(double d) { return ramp(d, -0.5, -3.0); }
    static double time_unchanged(double d) { return std::min(ramp(d, -1.0, -0.5), ramp(d, 1.0, 0.5)); }
    static double time_degraded(double d) { return ramp(d, 0.5, 3.0); }
    static double imbalance_improved(double d) { return ramp(d, 0.0, -3.0); }
    static double imbalance_unchanged(double d) { return std::min(ramp(d, -3.0, -1.5), ramp(d, 3.0, 1.5)); }
    static double imbalance_degraded(double d) { return ramp(d, 0.0, 3.0); }

    double previous_seconds_ = -1.0;
    double previous_imbalance_ = -1.0;
};

/// The overhead a chunk costs its worker: the median over the workers of
/// their waiting and communicating time per chunk (the median leaves out a
/// computing root, which waits for nothing, and a worker that waited long at
/// the end).
inline double overhead_per_chunk(loop_statistics const& table) {
    std::vector<double> each;
    for (auto const& w : table.workers)
        if (w.chunks > 0) each.push_back((w.wait_seconds + w.comm_seconds) / static_cast<double>(w.chunks));
    if (each.empty()) return 0.0;
    auto const middle = each.begin() + static_cast<std::ptrdiff_t>((each.size() - 1) / 2);
    std::ranges::nth_element(each, middle);
    return *middle;
}

/// How a candidate's schedule looks on a loop (a dry run on equal timings):
/// its chunks, and each worker's first chunk.
struct schedule_shape {
    index_t iterations = -1; ///< the loop it was made for (-1: none yet)
    std::size_t workers = 0;
    bool known = false;      ///< false when the dry run failed (a policy that needs real timings)
    std::uint64_t chunks = 0;
    std::vector<index_t> first_chunk{};
};

/// `policy`'s chunks on `info`, each worker reporting the same time per
/// iteration; unknown beyond a million chunks (the bound then uses that many).
inline schedule_shape shape_of(any_policy const& policy, loop_info const& info) {
    constexpr std::uint64_t most = std::uint64_t{1} << 20;
    schedule_shape out{info.iterations, info.workers, false, 0, std::vector<index_t>(info.workers, 0)};
    struct enough {};
    try {
        for_each_round_robin(
                policy, info,
                [&](assignment const& a) {
                    if (out.first_chunk[a.worker] == 0) out.first_chunk[a.worker] = a.range.size;
                    if (++out.chunks >= most) throw enough{};
                },
                [](std::size_t, chunk const& c) {
                    double const t = 1e-3 * static_cast<double>(c.size);
                    return chunk_timing{c.size, t, t};
                });
        out.known = true;
    } catch (enough const&) {
        out.known = true; // at least `most` chunks: enough for the overhead's bound
    } catch (std::exception const&) {
        out.chunks = 0; // a policy that needs real timings: no bound
    }
    return out;
}

/// A lower bound on a candidate's time on a loop of `iterations`, estimated
/// from the last execution's measurements (`shape` made for a loop of about
/// that size, scaled to it): no worker finishes its first chunk sooner than
/// that chunk's iterations at its measured time per iteration, and the loop
/// takes at least its work spread over the workers' measured rates plus each
/// chunk's overhead shared among them. 0 when unknown.
inline double lower_bound(schedule_shape const& shape, index_t iterations, loop_statistics const& table,
                          double overhead) {
    if (!shape.known || shape.iterations <= 0 || table.workers.size() != shape.workers) return 0.0;
    double const scale = static_cast<double>(iterations) / static_cast<double>(shape.iterations);
    double rate = 0.0, bound = 0.0, mean_time = 0.0;
    std::size_t measured = 0;
    for (auto const& w : table.workers)
        if (w.iterations > 0 && w.compute_seconds > 0.0) {
            mean_time += w.compute_seconds / static_cast<double>(w.iterations);
            ++measured;
        }
    if (measured == 0) return 0.0;
    mean_time /= static_cast<double>(measured);
    for (std::size_t k = 0; k < shape.workers; ++k) {
        auto const& w = table.workers[k];
        double const per_iteration = w.iterations > 0 && w.compute_seconds > 0.0
                                             ? w.compute_seconds / static_cast<double>(w.iterations)
                                             : mean_time;
        rate += 1.0 / per_iteration;
        bound = std::max(bound, scale * static_cast<double>(shape.first_chunk[k]) * per_iteration);
    }
    double const spread = static_cast<double>(iterations) / rate +
                          scale * static_cast<double>(shape.chunks) * overhead / static_cast<double>(shape.workers);
    return std::max(bound, spread);
}

/// The learning of one automatic loop, shared by the copies of its policy
/// (and by every policy made with its key). Only the root's master tells it
/// how an execution went (record()); every rank may ask which candidate runs
/// next (current()), which only record() changes, so the ranks of one process
/// agree without a message.
class selector {
public:
    selector(std::vector<any_policy> candidates, automatic_options const& o)
            : given_(std::move(candidates)), candidates_(with_masterless(given_, o.masterless, without_master_)),
              options_(o), learnt_(fresh()) {
        for (std::size_t i = 0; i < candidates_.size(); ++i)
            specs_.push_back((without_master_[i] ? "masterless " : "") + candidates_[i].spec());
    }

    [[nodiscard]] any_policy const& candidate(std::size_t i) const { return candidates_.at(i); }
    /// Whether candidate i runs without a master.
    [[nodiscard]] bool without_master(std::size_t i) const { return without_master_.at(i); }
    [[nodiscard]] std::size_t size() const noexcept { return candidates_.size(); }
    /// Candidate i's spec.
    [[nodiscard]] std::string const& spec(std::size_t i) const { return specs_.at(i); }

    /// The candidate the next execution runs, and why.
    [[nodiscard]] std::pair<std::size_t, selection_reason> current() const {
        std::scoped_lock lock(mutex_);
        return {learnt_.current, learnt_.reason};
    }

    /// An execution of candidate `i` ended with `table`; picks the next one.
    void record(std::size_t i, selection_reason why, loop_statistics const& table, double cost_variation,
                loop_info const& loop) {
        std::scoped_lock lock(mutex_);
        double const seconds = table.parallel_seconds;
        double const imbalance = percent_imbalance(table);
        update_bounds(table, loop);
        records_.push_back({executions_++, i, specs_.at(i), why, seconds, imbalance, cost_variation});
        while (records_.size() > std::max<std::size_t>(options_.history, 1)) records_.pop_front();
        switch (options_.method) {
        case selection_method::exhaustive: exhaustive(i, seconds); break;
        case selection_method::bandit: bandit(i, seconds); break;
        case selection_method::expert:
            learnt_.current = learnt_.rules.next(i, candidates_.size(), seconds, imbalance);
            learnt_.reason = selection_reason::rules;
            break;
        }
    }

    [[nodiscard]] selection_history history() const {
        std::scoped_lock lock(mutex_);
        selection_history h;
        h.candidates = specs_;
        h.records.assign(records_.begin(), records_.end());
        h.executions = executions_;
        return h;
    }

    /// Forgets everything measured: the next execution starts over.
    void reset() {
        std::scoped_lock lock(mutex_);
        learnt_ = fresh();
        bounds_.clear();
        records_.clear();
        executions_ = 0;
    }

    /// Whether `candidates` and `o` choose as this selector does (the key aside).
    [[nodiscard]] bool same_choice(std::vector<any_policy> const& candidates, automatic_options const& o) const {
        return candidates == given_ && o.method == options_.method && o.drift == options_.drift &&
               o.discount == options_.discount && o.exploration == options_.exploration &&
               o.history == options_.history && o.masterless == options_.masterless;
    }

private:
    /// The candidates, each one a loop without a master takes followed by
    /// itself again when `masterless` (`without` marks the copies).
    static std::vector<any_policy> with_masterless(std::vector<any_policy> const& given, bool masterless,
                                                   std::vector<bool>& without) {
        std::vector<any_policy> out;
        for (auto const& c : given) {
            out.push_back(c);
            without.push_back(false);
            if (masterless && masterless_claim_of(c.spec()) != masterless_claim::refused) {
                out.push_back(c);
                without.push_back(true);
            }
        }
        return out;
    }

    static constexpr double infinity = std::numeric_limits<double>::infinity();
    /// A candidate whose lower bound exceeds the best time by this much is not tried.
    static constexpr double hopeless = 1.1;

    /// Each candidate's lower bound on the loop the last execution ran.
    void update_bounds(loop_statistics const& table, loop_info const& loop) {
        shapes_.resize(candidates_.size());
        bounds_.assign(candidates_.size(), 0.0);
        double const overhead = overhead_per_chunk(table);
        for (std::size_t j = 0; j < candidates_.size(); ++j) {
            auto& shape = shapes_[j];
            // A dry run per candidate and loop size: a loop whose size changes by
            // less than a quarter reuses it, scaled (one of a million chunks takes milliseconds).
            bool const near = shape.workers == loop.workers && 4 * std::abs(loop.iterations - shape.iterations) <=
                                                                       shape.iterations;
            if (!near) shape = shape_of(candidates_[j], loop);
            // Without a master a chunk may cost less than the master's overhead: none is a lower bound.
            bounds_[j] = lower_bound(shape, loop.iterations, table, without_master_[j] ? 0.0 : overhead);
        }
    }
    /// Whether candidate j cannot come within `hopeless` of `best` seconds.
    [[nodiscard]] bool hopeless_against(std::size_t j, double best) const {
        return j < bounds_.size() && bounds_[j] > hopeless * best;
    }

    /// What the methods learnt.
    struct learning {
        // Trials start with the most adaptive candidate (the last), a safe first
        // guess that also measures the workers for the bounds, then go in order.
        explicit learning(std::size_t n)
                : trial_seconds(n, infinity), weights(n, 0.0), sums(n, 0.0), current(n - 1) {
            order.push_back(n - 1);
            for (std::size_t i = 0; i + 1 < n; ++i) order.push_back(i);
        }
        selection_reason reason = selection_reason::trial;
        // exhaustive: the round's order and times, the chosen scheme's reference time
        std::vector<double> trial_seconds;
        std::vector<std::size_t> order;
        std::size_t position = 0;
        bool exploring = true;
        double reference = 0.0;
        int strikes = 0;
        // bandit: discounted runs and summed times per candidate
        std::vector<double> weights, sums;
        // expert
        expert_rules rules;
        std::size_t current = 0;
    };

    /// Learning from nothing: the expert rules start at the first candidate, the others at the last.
    [[nodiscard]] learning fresh() const {
        learning l(candidates_.size());
        if (options_.method == selection_method::expert) l.current = 0;
        return l;
    }


    /// A round of trials in `order`, then the fastest until its time drifts.
    void exhaustive(std::size_t i, double seconds) {
        auto& l = learnt_;
        if (l.exploring) {
            l.trial_seconds[i] = seconds;
            double const best = std::ranges::min(l.trial_seconds);
            while (++l.position < l.order.size()) // the next candidate that may come close to the best
                if (!hopeless_against(l.order[l.position], best)) {
                    l.current = l.order[l.position];
                    l.reason = selection_reason::trial;
                    return;
                }
            l.current = static_cast<std::size_t>(std::ranges::min_element(l.trial_seconds) - l.trial_seconds.begin());
            l.reason = selection_reason::best;
            l.reference = l.trial_seconds[l.current];
            l.exploring = false;
            l.strikes = 0;
            return;
        }
        bool const drifted = std::abs(seconds - l.reference) > options_.drift * l.reference;
        l.strikes = drifted ? l.strikes + 1 : 0;
        if (!drifted) l.reference = 0.8 * l.reference + 0.2 * seconds; // follows a slow change
        if (l.strikes < 2) return;
        // A new round: the chosen scheme's latest time is its trial; the others
        // follow by their last round's times.
        std::vector<std::size_t> others;
        for (std::size_t j = 0; j < candidates_.size(); ++j)
            if (j != i) others.push_back(j);
        std::ranges::stable_sort(others, {}, [&](std::size_t j) { return l.trial_seconds[j]; });
        std::ranges::fill(l.trial_seconds, infinity);
        l.order = {i};
        l.order.insert(l.order.end(), others.begin(), others.end());
        l.position = 0;
        l.exploring = true;
        exhaustive(i, seconds);
    }

    /// Discounted UCB on times relative to the best mean: the lowest
    /// mean / best - exploration * sqrt(ln(n) / n_i) runs next.
    void bandit(std::size_t i, double seconds) {
        auto& l = learnt_;
        for (std::size_t j = 0; j < candidates_.size(); ++j) {
            l.weights[j] *= options_.discount;
            l.sums[j] *= options_.discount;
        }
        l.weights[i] += 1.0;
        l.sums[i] += seconds;
        l.reason = selection_reason::bandit;
        double total = 0.0, best = infinity;
        for (std::size_t j = 0; j < candidates_.size(); ++j)
            if (l.weights[j] > 0.0) {
                total += l.weights[j];
                best = std::min(best, l.sums[j] / l.weights[j]);
            }
        for (std::size_t j : l.order) // never tried and not hopeless: next, in the trials' order
            if (l.weights[j] == 0.0 && !hopeless_against(j, best)) {
                l.current = j;
                return;
            }
        best = std::max(best, 1e-12); // empty loops take no time
        double lowest = infinity;
        for (std::size_t j = 0; j < candidates_.size(); ++j) {
            if (l.weights[j] == 0.0 || hopeless_against(j, best)) continue;
            double const index = l.sums[j] / l.weights[j] / best -
                                 options_.exploration * std::sqrt(std::log(std::max(total, 1.0)) / l.weights[j]);
            if (index < lowest) {
                lowest = index;
                l.current = j;
            }
        }
    }

    mutable std::mutex mutex_;
    std::vector<any_policy> const given_;
    std::vector<bool> without_master_; // before candidates_, which fills it
    std::vector<any_policy> const candidates_;
    std::vector<std::string> specs_; // the candidates' specs, made once
    automatic_options const options_;
    std::deque<selection_record> records_;
    std::uint64_t executions_ = 0;
    learning learnt_;
    std::vector<schedule_shape> shapes_; // each candidate's dry run, for the loop it was made for
    std::vector<double> bounds_;         // each candidate's lower bound after the last execution
};

/// The process's selectors by key: executions of a loop find their history
/// again however often its policy is made anew.
inline std::shared_ptr<selector> selector_for(std::string const& key, std::vector<any_policy> candidates,
                                              automatic_options const& o) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<selector>, std::less<>> selectors;
    std::scoped_lock lock(mutex);
    auto& found = selectors[key];
    if (!found) {
        found = std::make_shared<selector>(std::move(candidates), o);
    } else if (!found->same_choice(candidates, o)) {
        throw invalid_parameter("automatic key", key,
                                "is already the key of an automatic loop with other candidates or options");
    }
    return found;
}

} // namespace detail

/// A chunk policy that picks, for each execution of a loop, one of its
/// candidate schemes from the times of the earlier executions with the same
/// key. The choice is made on the root, when an execution ends: the workers
/// never learn it, and a chunk costs one indirect call more than the chosen
/// scheme's. It learns in self-scheduled DOALL loops (parallel_for with a
/// dynamic mapping) and as a task farm's chunk scheme (one choice per farm);
/// elsewhere each execution runs the current choice.
///
///     for (int step = 0; step < steps; ++step)
///         loopsched::parallel_for(comm, space, loopsched::automatic{}, body);
///
/// Spec: `auto[:method=exhaustive|bandit|expert][,candidates=static+gss+...][,key=NAME][,masterless=true]`.
class automatic {
public:
    static constexpr std::string_view name = "auto";
    static constexpr std::array<std::string_view, 7> keys{"method",   "candidates",  "key",       "drift",
                                                          "discount", "exploration", "masterless"};

    /// `where`: the loop's identity when options.key is empty (the caller's line).
    explicit automatic(automatic_options options = {}, call_site where = call_site::current())
            : options_(std::move(options)) {
        if (options_.candidates.empty()) options_.candidates = default_candidates();
        detail::require(options_.drift > 0.0, "automatic drift", options_.drift, "must be > 0");
        detail::require(options_.discount > 0.0 && options_.discount <= 1.0, "automatic discount", options_.discount,
                        "must be in (0, 1]");
        detail::require(options_.exploration >= 0.0, "automatic exploration", options_.exploration, "must be >= 0");
        for (auto const& c : options_.candidates)
            detail::require(!c.target<automatic>(), "automatic candidates", c.spec(),
                            "must not hold another automatic policy");
        bool const named = !options_.key.empty();
        selector_ = detail::selector_for(named ? options_.key : where.text(), options_.candidates, options_);
        if (!named) options_.key.clear();
    }

    /// static, ss, gss, fss, dtss, af: from the least to the most adaptive, a
    /// scheme that comes within a few percent of the catalogue's best in each
    /// setting of the library's studies (static: tiny iterations; ss: costly,
    /// irregular ones; dtss: known speeds and loads; af: changing ones).
    static std::vector<any_policy> default_candidates() {
        return {static_schedule{}, ss{}, gss{}, fss{}, dtss{}, af{}};
    }

    /// The state of one execution: the chosen candidate's, and what the root
    /// tells the selector when the execution ends.
    class state {
    public:
        static constexpr hook_set hooks{.finish = true};

        state(any_state inner, std::shared_ptr<detail::selector> selector, std::size_t chosen,
              selection_reason why, loop_info info)
                : inner_(std::move(inner)), selector_(std::move(selector)), chosen_(chosen), why_(why),
                  loop_(std::move(info)) {}

        index_t propose(request const& r) {
            if (r.last.size > 0 && r.last.compute_seconds > 0.0) { // a chunk's time per iteration, weighted by its size
                double const x = r.last.compute_seconds / static_cast<double>(r.last.size);
                double const w = static_cast<double>(r.last.size);
                weight_ += w;
                double const delta = x - mean_;
                mean_ += delta * w / weight_;
                spread_ += w * delta * (x - mean_);
            }
            return inner_.propose(r);
        }
        void commit(request const& r, index_t granted) { inner_.commit(r, granted); }
        /// The execution ended (on the root): the table names the scheme, the selector learns.
        void finish(loop_statistics& table) {
            table.scheme = selector_->spec(chosen_);
            double const variation = weight_ > 0.0 && mean_ > 0.0 ? std::sqrt(spread_ / weight_) / mean_ : 0.0;
            selector_->record(chosen_, why_, table, variation, loop_);
        }
        /// The candidate this execution runs.
        [[nodiscard]] std::size_t chosen() const noexcept { return chosen_; }

    private:
        any_state inner_;
        std::shared_ptr<detail::selector> selector_;
        std::size_t chosen_;
        selection_reason why_;
        loop_info loop_; // the loop it runs, for the bounds on the other candidates
        double weight_ = 0.0, mean_ = 0.0, spread_ = 0.0; // chunks' time per iteration
    };

    [[nodiscard]] state start(loop_info const& info) const {
        auto const [chosen, why] = selector_->current();
        return state(selector_->candidate(chosen).start(info), selector_, chosen, why, info);
    }

    /// The spec of the scheme the next execution runs.
    [[nodiscard]] std::string next_scheme() const { return selector_->spec(selector_->current().first); }
    /// The next execution's choice: its index among the candidates the
    /// selector chooses from (with options().masterless, the given ones and
    /// their copies without a master).
    [[nodiscard]] std::size_t next_candidate() const { return selector_->current().first; }
    /// Choice i's scheme, for a loop that runs it.
    [[nodiscard]] any_policy const& candidate(std::size_t i) const { return selector_->candidate(i); }
    /// Whether choice i runs without a master.
    [[nodiscard]] bool runs_without_master(std::size_t i) const { return selector_->without_master(i); }
    /// How many choices there are.
    [[nodiscard]] std::size_t choices() const { return selector_->size(); }
    /// What the executions with this policy's key measured and chose.
    [[nodiscard]] selection_history history() const { return selector_->history(); }
    /// Forgets what the executions with this key learnt.
    void reset() const { selector_->reset(); }
    [[nodiscard]] automatic_options const& options() const noexcept { return options_; }

    /// `auto:method=...,candidates=a+b+...` (what differs from the defaults; the
    /// key only when one was given).
    [[nodiscard]] std::string spec() const {
        std::string candidates;
        for (auto const& c : options_.candidates) {
            std::string one = c.spec();
            std::ranges::replace(one, ',', ';'); // a candidate's own keys, inside this spec's list
            candidates += (candidates.empty() ? "" : "+") + one;
        }
        automatic_options const defaults{};
        return detail::spec_writer(name)
                .add("method", std::string(to_string(options_.method)), std::string(to_string(defaults.method)))
                .add("candidates", candidates, default_spec())
                .add("key", options_.key, std::string())
                .add("drift", options_.drift, defaults.drift)
                .add("discount", options_.discount, defaults.discount)
                .add("exploration", options_.exploration, defaults.exploration)
                .add("masterless", std::string(options_.masterless ? "true" : "false"), std::string("false"))
                .str();
    }

    /// Two automatic policies are equal when they share their learning.
    friend bool operator==(automatic const& a, automatic const& b) { return a.selector_ == b.selector_; }

private:
    static std::string default_spec() {
        std::string out;
        for (auto const& c : default_candidates()) out += (out.empty() ? "" : "+") + c.spec();
        return out;
    }

    automatic_options options_;
    std::shared_ptr<detail::selector> selector_;
};

} // namespace loopsched
