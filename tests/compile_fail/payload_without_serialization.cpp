// A result that is not trivially copyable travels through Boost.Serialization,
// which a program opts into: without <loopsched/serialization.hpp> the error says so.
// expect: include <loopsched/serialization.hpp>
#include <loopsched/payload.hpp>

#include <string>

int main() {
    auto bytes = loopsched::to_bytes(std::string("not trivially copyable"));
    return static_cast<int>(bytes.size());
}
