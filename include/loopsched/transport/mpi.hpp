// The Boost.MPI transport: any boost::mpi::communicator (the world or a sub-communicator).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/clock.hpp>
#include <loopsched/transport/transport.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <climits>
#include <cstring>
#include <exception>
#include <list>
#include <optional>
#include <utility>
#include <span>
#include <vector>

namespace loopsched {

/// Messages travel as raw bytes (MPI_BYTE), never through Boost.Serialization.
/// A small message costs one MPI_Send and one MPI_Recv into a fixed buffer, with
/// no probe: the runtime's requests and replies are all small. A message of
/// `eager_capacity` bytes or more is announced by a message of exactly that
/// size carrying its length, and follows on the same tag (MPI keeps the order).
/// Every message of `blocking_limit` bytes or more (the large part of a large
/// one included) goes out with MPI_Isend, the transport keeping its bytes until
/// it completes: send() never waits for the receiver. Measured here, a 256-byte
/// MPI_Send could stall for milliseconds while the receiver computed, which
/// stalls a DOACROSS pipeline; the runtime's requests and replies stay below
/// the limit and keep the cheaper MPI_Send.
class mpi_transport {
public:
    static constexpr int eager_capacity = 1024;
    static constexpr std::size_t blocking_limit = 128;

    /// Borrows `comm`, which must outlive the transport, as in parallel_for: a
    /// copy would cost two atomic updates of its shared count per loop.
    explicit mpi_transport(boost::mpi::communicator const& comm) : comm_(&comm), raw_(comm) { read_rank_and_size(); }
    /// Owns `comm`, e.g. a duplicate made for one loop.
    explicit mpi_transport(boost::mpi::communicator&& comm)
        : owned_(std::move(comm)), comm_(&*owned_), raw_(*owned_) {
        read_rank_and_size();
    }
    mpi_transport(mpi_transport const&) = delete;
    mpi_transport& operator=(mpi_transport const&) = delete;

    /// Completes the sends still under way. When leaving through an exception
    /// (a failed loop, whose receivers may never post their receives) it must
    /// not wait, and Open MPI cannot cancel a send: the requests are released
    /// and their bytes parked until the process ends, so MPI may still read
    /// them and no rank hangs.
    ~mpi_transport() {
        if (in_flight_.empty()) return; // the usual case, without asking the runtime about exceptions
        if (std::uncaught_exceptions() > 0) {
            for (auto& p : in_flight_) MPI_Request_free(&p.request);
            static std::list<in_flight> abandoned; // a failed loop's unsent messages
            abandoned.splice(abandoned.end(), in_flight_);
            return;
        }
        for (auto& p : in_flight_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
    }

    [[nodiscard]] int rank() const noexcept { return rank_; }
    [[nodiscard]] int size() const noexcept { return size_; }
    [[nodiscard]] boost::mpi::communicator const& communicator() const noexcept { return *comm_; }

    void send(int dest, int tag, bytes data) {
        detail::require(data.size() <= static_cast<std::size_t>(INT_MAX), "message size", data.size(),
                        "must fit in an MPI count (int)");
        if (data.size() >= static_cast<std::size_t>(eager_capacity)) {
            std::array<std::byte, eager_capacity> announce{};
            std::uint64_t const n = data.size();
            std::memcpy(announce.data(), &n, sizeof n);
            MPI_Send(announce.data(), eager_capacity, MPI_BYTE, dest, tag, raw_);
        }
        if (data.size() >= blocking_limit) {
            complete_finished_sends();
            auto& p = in_flight_.emplace_back(std::move(data));
            MPI_Isend(p.data.data(), static_cast<int>(p.data.size()), MPI_BYTE, dest, tag, raw_, &p.request);
            return;
        }
        MPI_Send(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, raw_);
    }
    /// As send(), for bytes the caller keeps: a small message leaves straight
    /// from them, a larger one is copied first (its send may outlive them).
    void send_view(int dest, int tag, std::span<std::byte const> data) {
        if (data.size() < blocking_limit) MPI_Send(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, raw_);
        else send(dest, tag, bytes(data.begin(), data.end()));
    }
    message receive(int source, int tag) { return copy(receive_view(source, tag)); }
    std::optional<message> try_receive(int source, int tag) {
        auto v = try_receive_view(source, tag);
        if (!v) return std::nullopt;
        return copy(*v);
    }
    /// receive(), the bytes left where they arrived: valid until the next receive.
    message_view receive_view(int source, int tag) {
        MPI_Status status;
        MPI_Recv(buffer_.data(), eager_capacity, MPI_BYTE, wildcard_source(source), wildcard_tag(tag), raw_, &status);
        return view(status);
    }
    std::optional<message_view> try_receive_view(int source, int tag) {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(wildcard_source(source), wildcard_tag(tag), raw_, &flag, &status);
        if (!flag) return std::nullopt;
        // Receive exactly the probed message: it may be the announcement of a large one.
        MPI_Recv(buffer_.data(), eager_capacity, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, raw_, &status);
        return view(status);
    }
    [[nodiscard]] double now() const noexcept { return detail::fast_clock::now(); }

private:
    // Straight from the handle: Boost's rank() and size() add an out-of-line call each, per loop.
    void read_rank_and_size() {
        MPI_Comm_rank(raw_, &rank_);
        MPI_Comm_size(raw_, &size_);
    }

    /// Bytes in a received message. Open MPI's status holds the count in bytes,
    /// and MPI_Get_count spends some 40 instructions checking its arguments on
    /// every message; other MPIs go through it.
    static std::size_t received_bytes(MPI_Status const& status) {
#if defined(OPEN_MPI)
        return status._ucount;
#else
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        return static_cast<std::size_t>(count);
#endif
    }

    static int wildcard_source(int s) { return s == any_source ? MPI_ANY_SOURCE : s; }
    static int wildcard_tag(int t) { return t == any_tag ? MPI_ANY_TAG : t; }

    /// The message in buffer_, or the large message it announces (received into large_).
    message_view view(MPI_Status const& status) {
        std::size_t const count = received_bytes(status);
        if (count < static_cast<std::size_t>(eager_capacity))
            return {status.MPI_SOURCE, status.MPI_TAG, {buffer_.data(), count}};
        std::uint64_t n = 0;
        std::memcpy(&n, buffer_.data(), sizeof n);
        large_.resize(n, boost::container::default_init);
        MPI_Recv(large_.data(), static_cast<int>(n), MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, raw_,
                 MPI_STATUS_IGNORE);
        return {status.MPI_SOURCE, status.MPI_TAG, {large_.data(), large_.size()}};
    }
    /// A message of its own; a large one takes large_'s bytes rather than copying them.
    message copy(message_view v) {
        if (!large_.empty() && v.payload.data() == large_.data()) return {v.source, v.tag, std::exchange(large_, {})};
        return {v.source, v.tag, bytes(v.payload.begin(), v.payload.end())};
    }

    void complete_finished_sends() {
        std::erase_if(in_flight_, [](in_flight& p) {
            int done = 0;
            MPI_Test(&p.request, &done, MPI_STATUS_IGNORE);
            return done != 0;
        });
    }

    /// A large send under way: its bytes live here until MPI is done with them.
    struct in_flight {
        explicit in_flight(bytes d) : data(std::move(d)) {}
        bytes data;
        MPI_Request request = MPI_REQUEST_NULL;
    };

    std::optional<boost::mpi::communicator> owned_;
    boost::mpi::communicator const* comm_;
    // Read once: Boost's conversion and rank() are out-of-line calls per use.
    MPI_Comm raw_;
    int rank_ = 0, size_ = 0;
    std::array<std::byte, eager_capacity> buffer_; // uninitialised on purpose: a transport is made per loop
    bytes large_;                                  // the last large message received by receive_view
    std::list<in_flight> in_flight_;
};

} // namespace loopsched
