// The Boost.MPI transport: any boost::mpi::communicator (the world or a sub-communicator).
#pragma once

#include <loopsched/transport/transport.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/status.hpp>
#include <mpi.h>

#include <optional>
#include <vector>

namespace loopsched {

/// Messages are sent as raw bytes (MPI_BYTE), never through Boost.Serialization,
/// so a request costs one MPI_Send and one MPI_Recv.
class mpi_transport {
public:
    explicit mpi_transport(boost::mpi::communicator comm) : comm_(std::move(comm)) {}

    [[nodiscard]] int rank() const { return comm_.rank(); }
    [[nodiscard]] int size() const { return comm_.size(); }
    [[nodiscard]] boost::mpi::communicator const& communicator() const noexcept { return comm_; }

    void send(int dest, int tag, std::vector<std::byte> data) {
        MPI_Send(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, comm_);
    }
    message receive(int source, int tag) {
        MPI_Status status;
        MPI_Probe(wildcard_source(source), wildcard_tag(tag), comm_, &status);
        return take(status);
    }
    std::optional<message> try_receive(int source, int tag) {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(wildcard_source(source), wildcard_tag(tag), comm_, &flag, &status);
        if (!flag) return std::nullopt;
        return take(status);
    }
    [[nodiscard]] double now() const { return MPI_Wtime(); }

private:
    static int wildcard_source(int s) { return s == any_source ? MPI_ANY_SOURCE : s; }
    static int wildcard_tag(int t) { return t == any_tag ? MPI_ANY_TAG : t; }

    message take(MPI_Status const& status) {
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        message m{status.MPI_SOURCE, status.MPI_TAG, std::vector<std::byte>(static_cast<std::size_t>(count))};
        MPI_Recv(m.payload.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
        return m;
    }

    boost::mpi::communicator comm_;
};

} // namespace loopsched
