// A master client that declares a hook it spells otherwise (holds as hold) is
// refused: its hook would be ignored silently, so MasterClient names it.
// expect: MasterClient
#include <loopsched/runtime/core/core.hpp>

#include <cstddef>
#include <span>

using namespace loopsched;
using namespace loopsched::detail;

struct misspelled_client {
    static constexpr master_hooks hooks{.holds = true};
    index_t serve(std::size_t, request const&) { return 0; }
    [[nodiscard]] bool done() const { return true; }
    void take_result(index_t, index_t, std::span<std::byte const>) {}
    void on_message(std::size_t, kind, message_view) {}
    [[nodiscard]] bool hold(std::size_t) const { return false; } // meant: holds
};

static_assert(MasterClient<misspelled_client>);
