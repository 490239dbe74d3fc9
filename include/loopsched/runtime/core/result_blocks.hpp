// The results of finished units on their way to the root, as blocks on the
// wire; a header of its own, since every algorithm's body fills them and
// needs nothing else of the protocol's messages.
#pragma once

#include <loopsched/detail/arithmetic.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace loopsched::detail {

/// One block of results on the wire: iterations [first, first + size) and their bytes.
struct result_block_header {
    index_t first = 0, size = 0;
    std::uint64_t bytes = 0;
};

/// Results of finished units waiting to travel to the root, as blocks of
/// {first, size, byte count, bytes}. Each algorithm fills the bytes its way
/// (trivially copyable values as they lie, others serialized, DOACROSS fields packed).
class result_blocks {
public:
    /// Room for `n` bytes of iterations [first, first + size); valid until the next add() or clear().
    std::span<std::byte> add(index_t first, index_t size, std::size_t n) {
        result_block_header const h{first, size, n};
        std::size_t const at = bytes_.size() + sizeof h;
        bytes_.resize(at + n);
        std::memcpy(bytes_.data() + at - sizeof h, &h, sizeof h);
        ++count_;
        return std::span(bytes_).subspan(at);
    }
    /// A block whose bytes `write(std::vector<std::byte>&)` appends (serialized values).
    template <class Write>
    void add_written(index_t first, index_t size, Write&& write) {
        std::size_t const head = bytes_.size();
        bytes_.resize(head + sizeof(result_block_header));
        write(bytes_);
        result_block_header const h{first, size, bytes_.size() - head - sizeof(result_block_header)};
        std::memcpy(bytes_.data() + head, &h, sizeof h);
        ++count_;
    }
    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    /// The blocks without their count (a request carries the count in its header).
    [[nodiscard]] std::span<std::byte const> blocks() const noexcept { return bytes_; }
    void clear() {
        bytes_.clear();
        count_ = 0;
    }

private:
    std::vector<std::byte> bytes_;
    std::uint64_t count_ = 0;
};

} // namespace loopsched::detail
