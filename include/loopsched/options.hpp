// The options of the algorithms: loop_options holds what every algorithm shares
// (who is the master, whether it computes, the workers' powers and loads, the
// run modes); resilience_options what loops and farms do when workers leave or
// are lost; each algorithm's options derive from them and add their own, each
// declared once with its rule and the rules between them (detail/described.hpp).
#pragma once

#include <loopsched/departure.hpp>
#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/detail/described.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace loopsched {

/// Checked against the communicator (run_loop's validate) and compared field
/// by field across ranks, so that a mismatch names its option.
struct loop_options {
    int root = 0; ///< the master's rank
    /// The master also works, between serving requests. Unset: the algorithm's
    /// default, true except for a hierarchy's root, which only serves its
    /// groups (see hierarchical::sub_masters_compute); true there is an error.
    std::optional<bool> master_computes{};
    double poll_interval = 2e-5;  ///< seconds a computing master works before it looks for requests
    std::vector<double> powers{}; ///< virtual power V of each rank, in [1e-9, 1e9] (empty: all 1; see measure_powers)
    std::vector<double> run_queues{}; ///< run-queue length Q of each rank, in [1, 1e9] (empty: read from the OS)
    bool read_os_load = true;         ///< with run_queues empty: Q from /proc/stat, else Q = 1
    bool emulate_powers = false;      ///< rank k sleeps (V_max/V_k - 1) x its compute time after each piece of work
    bool trace = false;               ///< record every piece of work in the statistics' trace on the root
};

/// What the master does when workers leave, stall or are lost: one block,
/// shared by parallel_for and task_farm, each option declared once with its
/// rule and the rules that tie it to the others (check_rules below). Neither
/// applies to loops computed ahead of time (static mappings); in
/// hierarchies only reissue does, and only for ranks that fail (a failed
/// group worker's piece goes to the next of its group to ask); each
/// algorithm says which of its schemes take work back.
struct resilience_options {
    /// Once all work is handed out, an idle worker gets a copy of unfinished
    /// work, as in Mohammed and Ciorba's rDLB: a loop's oldest chunk with the
    /// fewest copies, a farm's oldest running task with the fewest holders
    /// (never the root's, never one the worker holds). The first copy to
    /// finish counts; the others are cancelled and their results dropped, so
    /// a body may run twice on the same work. A loop needs a self-scheduled
    /// mapping, request_ahead = 0 and deterministic = false.
    bool reissue = false;
    /// Workers may leave (each through its own `leaving`): a loop's master
    /// keeps every chunk until its worker asks again and stops no one while a
    /// chunk is out; a farm's leaving worker gives its unstarted tasks back.
    /// Set on every rank; a loop needs what reissue needs.
    bool departures = false;
    /// This rank's way out (see departure), with departures: once its leave()
    /// is called the rank gives back the work it has not started and takes no
    /// more. Per rank, not compared across ranks; never the root's in a farm.
    departure* leaving = nullptr;
    /// The master's failure detector: a worker it expects to hear from (one
    /// holding work, or stopped and owing its report) that has been silent
    /// this many seconds is presumed lost. Loop workers then run in steps and
    /// say they are alive after a quarter of it without a message, so it must
    /// exceed the longest step (about a millisecond of the body) several times
    /// over; a farm worker speaks only between tasks, so it must exceed the
    /// longest task. With reissue a lost worker's work goes to the next to ask
    /// and the run completes (loop_statistics::lost names it); without, every
    /// other rank throws the same error. A rank that misses the start is
    /// reported the same way. Infinity (the default): nobody is presumed lost.
    /// Its messages, should it come back, are dropped. (MPI ends the job when
    /// a rank dies; this is for simulated failures and for ranks that stall.)
    double presumed_lost_after = std::numeric_limits<double>::infinity();

    /// Calls f(name, value, rule) for every option, in declaration order: the
    /// checks on every rank and the error messages name options through it.
    template <class F>
    friend void describe(resilience_options const& o, F&& f) {
        f("reissue", o.reissue, detail::any_value);
        f("departures", o.departures, detail::any_value);
        f("presumed_lost_after", o.presumed_lost_after,
          detail::option_rule{0.0, std::numeric_limits<double>::infinity(), false,
                              "must be > 0 seconds (infinity: never)", true, false});
    }
    /// A rank that may leave needs departures.
    friend void check_rules(resilience_options const& o) {
        detail::require(!o.leaving || o.departures, "options.departures", o.departures,
                        "must be true (on every rank) where a rank may leave (options.leaving set)");
    }
};

/// parallel_for's options.
struct parallel_for_options : loop_options, resilience_options {
    /// Same assignment of work to workers on every run (see docs); loops of
    /// one level with a chunk policy only, as tasks finish in no fixed order.
    /// Not with reissue, departures or a finite presumed_lost_after.
    bool deterministic = false;
    std::size_t dimension = 0;  ///< the dimension the space is cut along (< the space's rank)
    /// Ask for the next chunk when this fraction of the current one remains
    /// (0: off); must be 0 with reissue or departures.
    double request_ahead = 0.0;
    /// No master: every rank computes, and claims the policy's next
    /// scheduling step with one atomic fetch-and-add on a counter the
    /// transport shares (an MPI window on rank 0; after Eleliemy and Ciorba's
    /// distributed chunk calculation), deriving the step's chunk itself.
    /// For policies whose chunks are fixed by the step (static, ss, css,
    /// mfsc, gss, tss, fss, fac2, fiss, tfss, fsc, rnd), one level, a
    /// self-scheduled mapping; not with reissue, departures, request_ahead,
    /// deterministic or a finite presumed_lost_after. With master_computes =
    /// false the root claims nothing: it only gathers the results and the
    /// table (a slow or busy root host then slows nobody).
    bool masterless = false;

    /// Calls f(name, value, rule) for every option, in declaration order: the
    /// checks on every rank and the error messages name options through it.
    template <class F>
    friend void describe(parallel_for_options const& o, F&& f) {
        describe(static_cast<resilience_options const&>(o), f);
        f("request_ahead", o.request_ahead, detail::option_rule{0.0, 1.0, true, "must be in [0, 1)", false, true});
        f("masterless", o.masterless, detail::any_value);
    }
    /// The options a loop without a master refuses, each by name: nobody to
    /// re-issue, take work back, watch, answer ahead or in turn. `with` ends each
    /// message ("with masterless").
    friend void check_masterless_rules(parallel_for_options const& o, std::string const& with) {
        detail::require(!o.reissue, "options.reissue", o.reissue, "must be false " + with + " (no master keeps the chunks)");
        detail::require(!o.departures, "options.departures", o.departures,
                        "must be false " + with + " (no master takes work back)");
        detail::require(std::isinf(o.presumed_lost_after), "options.presumed_lost_after", o.presumed_lost_after,
                        "must be infinity " + with + " (no master watches the workers)");
        detail::require(o.request_ahead == 0.0, "options.request_ahead", o.request_ahead,
                        "must be 0 " + with + " (a rank claims its next step when it needs it)");
        detail::require(!o.deterministic, "options.deterministic", o.deterministic,
                        "must be false " + with + " (steps go to whichever rank claims first)");
    }
    /// With reissue or departures a request must mean "my chunk is done", and
    /// work moves: no request ahead, no fixed assignment; a worker served in
    /// turn would wait for a lost one.
    friend void check_rules(parallel_for_options const& o) {
        check_rules(static_cast<resilience_options const&>(o));
        if (o.reissue || o.departures) {
            detail::require(o.request_ahead == 0.0, "options.request_ahead", o.request_ahead,
                            o.reissue ? "must be 0 with reissue" : "must be 0 with departures");
            detail::require(!o.deterministic, "options.deterministic", o.deterministic,
                            o.reissue ? "must be false with reissue" : "must be false with departures");
        }
        detail::require(!o.deterministic || std::isinf(o.presumed_lost_after), "options.deterministic",
                        o.deterministic, "must be false with a finite presumed_lost_after");
        if (o.masterless) check_masterless_rules(o, "with masterless");
    }
};

/// parallel_for_doacross's options.
struct doacross_options : loop_options {
    bool deterministic = false; ///< as parallel_for's; dynamic mappings only
    /// u_c, the dimension chunks are cut along, with sync_dimension, or neither
    /// (then the library chooses a legal pair).
    std::optional<std::size_t> dimension;
    std::optional<std::size_t> sync_dimension; ///< u_s, the dimension synchronization points go along
    /// How far past the point it computes, along u_c and along u_s, the body
    /// reads values from before the loop (anti-dependences, e.g. Heat's
    /// A[i+1][j] and A[i][j+1]: 1). Other reads must follow the dependences.
    index_t input_halo = 0;
    /// A rank stalled on a slower predecessor while it holds the newest chunk
    /// takes the next chunk too, joined to its own (work while waiting). The
    /// S mechanism alone hands chunks out in turn, so with two ranks the fast
    /// one gets no more work than the slow one; this lets it. False: the
    /// documents' protocol exactly (one chunk at a time).
    bool extend_when_waiting = true;

    /// Calls f(name, value, rule) for every option, in declaration order: the
    /// checks on every rank and the error messages name options through it.
    template <class F>
    friend void describe(doacross_options const& o, F&& f) {
        f("input_halo", o.input_halo, detail::not_negative);
        f("extend_when_waiting", o.extend_when_waiting, detail::any_value);
    }
};

} // namespace loopsched
