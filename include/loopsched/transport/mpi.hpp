// The Boost.MPI transport: any boost::mpi::communicator (the world or a sub-communicator).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/transport.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <climits>
#include <cstring>
#include <optional>
#include <vector>

namespace loopsched {

/// Messages travel as raw bytes (MPI_BYTE), never through Boost.Serialization.
/// A small message costs one MPI_Send and one MPI_Recv into a fixed buffer, with
/// no probe: the runtime's requests and replies are all small. A message of
/// `eager_capacity` bytes or more is announced by a message of exactly that
/// size carrying its length, and follows on the same tag (MPI keeps the order).
class mpi_transport {
public:
    static constexpr int eager_capacity = 1024;

    explicit mpi_transport(boost::mpi::communicator comm) : comm_(std::move(comm)) {}

    [[nodiscard]] int rank() const { return comm_.rank(); }
    [[nodiscard]] int size() const { return comm_.size(); }
    [[nodiscard]] boost::mpi::communicator const& communicator() const noexcept { return comm_; }

    void send(int dest, int tag, bytes data) {
        detail::require(data.size() <= static_cast<std::size_t>(INT_MAX), "message size", data.size(),
                        "must fit in an MPI count (int)");
        if (data.size() >= static_cast<std::size_t>(eager_capacity)) {
            std::array<std::byte, eager_capacity> announce{};
            std::uint64_t const n = data.size();
            std::memcpy(announce.data(), &n, sizeof n);
            MPI_Send(announce.data(), eager_capacity, MPI_BYTE, dest, tag, comm_);
        }
        MPI_Send(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, comm_);
    }
    message receive(int source, int tag) {
        MPI_Status status;
        MPI_Recv(buffer_.data(), eager_capacity, MPI_BYTE, wildcard_source(source), wildcard_tag(tag), comm_, &status);
        return take(status);
    }
    std::optional<message> try_receive(int source, int tag) {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(wildcard_source(source), wildcard_tag(tag), comm_, &flag, &status);
        if (!flag) return std::nullopt;
        // Receive exactly the probed message: it may be the announcement of a large one.
        MPI_Recv(buffer_.data(), eager_capacity, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, &status);
        return take(status);
    }
    [[nodiscard]] double now() const { return MPI_Wtime(); }

private:
    static int wildcard_source(int s) { return s == any_source ? MPI_ANY_SOURCE : s; }
    static int wildcard_tag(int t) { return t == any_tag ? MPI_ANY_TAG : t; }

    /// The message in buffer_, or the large message it announces.
    message take(MPI_Status const& status) {
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        message m{status.MPI_SOURCE, status.MPI_TAG, {}};
        if (count < eager_capacity) {
            m.payload.assign(buffer_.begin(), buffer_.begin() + count);
            return m;
        }
        std::uint64_t n = 0;
        std::memcpy(&n, buffer_.data(), sizeof n);
        m.payload.resize(n);
        MPI_Recv(m.payload.data(), static_cast<int>(n), MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_,
                 MPI_STATUS_IGNORE);
        return m;
    }

    boost::mpi::communicator comm_;
    std::array<std::byte, eager_capacity> buffer_{};
};

} // namespace loopsched
