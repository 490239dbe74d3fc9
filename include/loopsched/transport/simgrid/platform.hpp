// A simulated cluster as data: its hosts, the changes of their speed while a
// run goes on, hosts that fail, the network between them (platform), and how
// the runtime's own work is charged (simulation_options). Needs no SimGrid.
#pragma once

#include <loopsched/error.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::sim {

/// One simulated machine: a rank of the simulated cluster.
struct host {
    std::string name;
    double speed = 1e9;        ///< flop/s
    double bandwidth = 12.5e6; ///< bytes/s of its private link to the switch
    double latency = 50e-6;    ///< seconds, one way through its link
    int background = 0;        ///< competing CPU-bound processes: Q = 1 + background, speed shared among them
};

/// A change of one host's speed while a run goes on (a workstation's owner
/// comes back): from `from` to `until` seconds after the run starts, the rank
/// on host `rank` computes `slowdown` times slower than its load alone leaves
/// it (infinity: it stops computing; its messages still travel). With
/// `period` > 0 the change comes and goes: on for the first `on` seconds of
/// every `period` from `from`. Changes on one host multiply.
struct perturbation {
    int rank = 0;
    double from = 0.0;
    double until = std::numeric_limits<double>::infinity();
    double slowdown = 10.0;
    double period = 0.0;
    double on = 0.0;

    [[nodiscard]] bool active(double t) const noexcept {
        if (t < from || t >= until) return false;
        return period <= 0.0 || std::fmod(t - from, period) < on;
    }
    /// The first time after `t` at which active() may change.
    [[nodiscard]] double next_change(double t) const noexcept {
        if (t < from) return from;
        if (t >= until) return std::numeric_limits<double>::infinity();
        if (period <= 0.0) return until;
        // The first window edge after t; floor() may land one period early when t is on an edge.
        double const start = from + std::floor((t - from) / period) * period;
        for (double edge : {start + on, start + period, start + period + on})
            if (edge > t) return std::min(until, edge);
        return std::min(until, start + 2.0 * period);
    }
};

/// A host that fails `at` seconds after the run starts: its rank is killed
/// mid-whatever (SimGrid unwinds its stack), anything it had not sent is lost
/// and so is every message sent to it from then on; what it had already sent
/// still arrives. (Not SimGrid's Host::turn_off: a message cut off by it stays
/// at the head of a receiver's mailbox and holds back everything behind it.)
/// A loop or farm survives it only with reissue and a finite
/// presumed_lost_after (the master's failure detector).
struct host_failure {
    int rank = 0;
    double at = 0.0;
};

/// A star of hosts, each on its own link to one switch (switched Ethernet):
/// a message crosses the sender's link and the receiver's link. Rank k is
/// the k-th host added. With a shared medium (a hub, or one Ethernet
/// segment as the documents' networks of workstations had), every message
/// also crosses one link that all transfers at the same moment share.
class platform {
public:
    /// Every message also crosses one medium of `bytes_per_second`, shared by all.
    platform& share_medium(double bytes_per_second) {
        loopsched::detail::require(bytes_per_second > 0.0, "shared medium bandwidth", bytes_per_second,
                                   "must be > 0 bytes/s");
        medium_ = bytes_per_second;
        return *this;
    }
    [[nodiscard]] std::optional<double> shared_medium() const noexcept { return medium_; }

    platform& add(host h) {
        loopsched::detail::require(h.speed > 0.0, "host " + h.name + " speed", h.speed, "must be > 0 flop/s");
        loopsched::detail::require(h.bandwidth > 0.0, "host " + h.name + " bandwidth", h.bandwidth,
                                   "must be > 0 bytes/s");
        loopsched::detail::require(h.latency >= 0.0, "host " + h.name + " latency", h.latency, "must be >= 0 s");
        loopsched::detail::require(h.background >= 0, "host " + h.name + " background", h.background, "must be >= 0");
        if (h.name.empty()) h.name = "host-" + std::to_string(hosts_.size());
        for (auto const& other : hosts_)
            if (other.name == h.name) throw invalid_parameter("host name", h.name, "is used twice");
        hosts_.push_back(std::move(h));
        return *this;
    }
    /// `count` copies of `h`, named name-1 .. name-count.
    platform& add(host const& h, int count) {
        for (int i = 1; i <= count; ++i) {
            host copy = h;
            copy.name = h.name + "-" + std::to_string(i);
            add(std::move(copy));
        }
        return *this;
    }

    [[nodiscard]] std::vector<host> const& hosts() const noexcept { return hosts_; }
    [[nodiscard]] std::vector<host>& hosts() noexcept { return hosts_; }
    [[nodiscard]] int size() const noexcept { return static_cast<int>(hosts_.size()); }

    /// V_k = speed_k / slowest speed (Chronopoulos et al.'s virtual power; the slowest has V = 1).
    [[nodiscard]] std::vector<double> powers() const {
        double slowest = 1e300;
        for (auto const& h : hosts_) slowest = std::min(slowest, h.speed);
        std::vector<double> v;
        for (auto const& h : hosts_) v.push_back(h.speed / slowest);
        return v;
    }
    /// Q_k = 1 + competing processes.
    [[nodiscard]] std::vector<double> run_queues() const {
        std::vector<double> q;
        for (auto const& h : hosts_) q.push_back(1.0 + h.background);
        return q;
    }

    /// Adds a change of speed that every run of this platform goes through.
    platform& perturb(perturbation p) {
        using loopsched::detail::require;
        require(p.rank >= 0 && p.rank < size(), "perturbation rank", p.rank,
                "must name a host added before (0.." + std::to_string(size() - 1) + ")");
        require(p.from >= 0.0, "perturbation from", p.from, "must be >= 0 s");
        require(p.until > p.from, "perturbation until", p.until, "must be after from");
        require(p.slowdown >= 1.0, "perturbation slowdown", p.slowdown, "must be >= 1 (infinity: stopped)");
        require(p.period >= 0.0, "perturbation period", p.period, "must be >= 0 s");
        require(p.period == 0.0 || (p.on > 0.0 && p.on < p.period), "perturbation on", p.on,
                "must be in (0, period)");
        perturbations_.push_back(p);
        return *this;
    }
    [[nodiscard]] std::vector<perturbation> const& perturbations() const noexcept { return perturbations_; }

    /// Turns a host off during every run of this platform (see host_failure).
    /// At least one host never fails: the one its failures are run from.
    platform& fail(host_failure f) {
        using loopsched::detail::require;
        require(f.rank >= 0 && f.rank < size(), "failure rank", f.rank,
                "must name a host added before (0.." + std::to_string(size() - 1) + ")");
        require(f.at >= 0.0 && f.at < std::numeric_limits<double>::infinity(), "failure at", f.at,
                "must be finite and >= 0 s");
        for (auto const& g : failures_) require(g.rank != f.rank, "failure rank", f.rank, "fails twice");
        require(static_cast<int>(failures_.size()) + 1 < size(), "failures", failures_.size() + 1,
                "must leave at least one host that never fails");
        failures_.push_back(f);
        return *this;
    }
    [[nodiscard]] std::vector<host_failure> const& failures() const noexcept { return failures_; }

    /// The host's speed at time t of a run, with its background load and its perturbations.
    [[nodiscard]] double speed_at(int rank, double t) const {
        auto const& h = hosts_[static_cast<std::size_t>(rank)];
        double speed = h.speed / (1.0 + h.background);
        for (auto const& p : perturbations_)
            if (p.rank == rank && p.active(t)) speed /= p.slowdown;
        return speed;
    }

    /// The ideal time of `flops` spread over ranks first_rank..size()-1 as
    /// their speeds change: no waiting, no messages, any split (the bound a
    /// perturbed run's makespan is measured against).
    [[nodiscard]] double ideal_seconds(double flops, int first_rank = 1) const {
        double t = 0.0, left = flops;
        while (left > 0.0) {
            double rate = 0.0, next = std::numeric_limits<double>::infinity();
            for (int r = first_rank; r < size(); ++r) rate += speed_at(r, t);
            for (auto const& p : perturbations_)
                if (p.rank >= first_rank) next = std::min(next, p.next_change(t));
            if (rate * (next - t) >= left) return t + left / rate;
            left -= rate * (next - t);
            t = next;
        }
        return t;
    }

private:
    std::vector<host> hosts_;
    std::optional<double> medium_;
    std::vector<perturbation> perturbations_;
    std::vector<host_failure> failures_;
};

/// How the simulated runtime's own work is charged. Bodies charge their work
/// through transport::compute; the engines' own code (policy, encoding,
/// bookkeeping) is free unless one of these is set.
struct simulation_options {
    double message_overhead = 0.0;   ///< CPU seconds per message sent and per message received (MPI's o)
    bool charge_engine_time = false; ///< charge the real time the engines run between transport calls
    double engine_time_scale = 1.0;  ///< simulated seconds per real second of engine time
    std::size_t envelope_bytes = 64; ///< bytes a message carries besides its payload
    /// Messages of at least this many payload bytes follow MPI's rendezvous
    /// protocol: the receiver's clear-to-send takes `rendezvous_round_trip`
    /// seconds, and the data move only at the sender's first transport call
    /// after that (a blocking receive moves them at once: MPI progresses while
    /// it waits). A halo sent before a tile thus arrives after it. 0: every
    /// message is eager. Open MPI's shared-memory eager limit is 4 KiB.
    std::size_t rendezvous_bytes = 0;
    double rendezvous_round_trip = 0.0;
    /// The shared counter's remote atomic (loops without a master): its round
    /// trip, in seconds, the calling rank waiting without computing; and the
    /// seconds one atomic occupies the network interface of the counter's
    /// host (rank 0), where atomics queue one behind another. Neither is
    /// charged to rank 0's CPU (a NIC or the MPI library's progress does the work).
    double atomic_latency = 1.5e-6;
    double atomic_service = 5e-8;
};

} // namespace loopsched::sim
