// Calibration: every rank's virtual power V_k from timing the same short probe
// on each rank, agreed like a loop and exchanged over the library's channel.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/agreement.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/load.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/transport/channel.hpp>

#include <algorithm>
#include <optional>
#include <vector>

namespace loopsched {

/// Every rank's virtual power V_k = (slowest probe time) / (rank k's probe time):
/// the slowest rank has V = 1, as Chronopoulos et al. defines it. Collective; `root`
/// gathers the probe times and sends the powers to every rank.
template <channel_source C>
std::vector<double> measure_powers(C& source, int root = 0) {
    auto& ch = detail::channel_of(source);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    detail::loop_link<T> link(ch);
    int const n = link.size(), self = link.rank();
    std::optional<detail::failure> local;
    detail::loop_shape shape;
    shape.algorithm = static_cast<std::uint32_t>(detail::algorithm_id::calibration);
    shape.root = root;
    if (root < 0 || root >= n)
        local = detail::failure::invalid(self, "root", std::to_string(root), "must be a rank of the transport");
    // The probe time rides in the hello's status, so a rank sends nothing
    // between its hello and the powers: a second message could reach the
    // coordinator before another rank's hello, where it has no place.
    double const mine = detail::probe_seconds();
    auto const all = detail::agree(link, shape, local, worker_status{mine, 1.0});
    if (self != root) {
        message_view const m = link.receive();
        if (detail::kind_of(m.tag) == detail::kind::abort) detail::failure::read(m).raise(self);
        detail::wire_reader r(m.payload);
        std::vector<double> powers(static_cast<std::size_t>(n));
        for (auto& v : powers) v = r.get<double>();
        return powers;
    }
    std::vector<double> seconds;
    for (auto const& s : all) seconds.push_back(s.power);
    double const slowest = *std::ranges::max_element(seconds);
    std::vector<double> powers;
    for (double s : seconds) powers.push_back(slowest / s);
    detail::wire_writer w;
    for (double v : powers) w.put(v);
    for (int k = 0; k < n; ++k)
        if (k != root) link.send(k, detail::kind::calibrate, w.view());
    return powers;
}

} // namespace loopsched
