// Two questions asked of any Transport through its optional members: the
// largest tag it allows, and a receive that gives up at a deadline (the
// failure detector's wait). Apart from transport.hpp, whose users need
// neither, so that they do not parse <thread>.
#pragma once

#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <concepts>
#include <optional>
#include <thread>

namespace loopsched::detail {

/// The largest tag the transport allows: MPI's MPI_TAG_UB where it says.
template <Transport T>
int tag_bound_of(T const& t) {
    if constexpr (requires {
                      { t.tag_bound() } -> std::convertible_to<int>;
                  })
        return t.tag_bound();
    else
        return INT_MAX;
}

/// A receive that gives up at `deadline` (on the transport's clock): the
/// transport's receive_within(source, tag, seconds) where it has one (a
/// simulator, whose clock moves only while its ranks wait), else
/// try_receive() polled, sleeping a little between looks. The failure
/// detector's wait (runtime_settings::silence); nothing else polls.
template <Transport T>
std::optional<message_view> receive_view_until(T& t, int source, int tag, double deadline, message& held) {
    if constexpr (requires {
                      { t.receive_view_until(source, tag, deadline) } -> std::same_as<std::optional<message_view>>;
                  }) {
        return t.receive_view_until(source, tag, deadline); // erased_transport: its transport's own wait
    } else if constexpr (requires {
                      { t.receive_within(source, tag, 1.0) } -> std::same_as<std::optional<message>>;
                  }) {
        auto m = t.receive_within(source, tag, std::max(0.0, deadline - t.now()));
        if (!m) return std::nullopt;
        held = std::move(*m);
        return message_view(held);
    } else {
        while (true) {
            if (auto v = try_receive_view(t, source, tag, held)) return v;
            double const left = deadline - t.now();
            if (left <= 0.0) return std::nullopt;
            std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 1e-4)));
        }
    }
}

} // namespace loopsched::detail
