// function_ref: a non-owning reference to a callable (as P0792 proposes), so
// that a function taking a callback is compiled once, not once per lambda.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace loopsched::detail {

template <class Signature>
class function_ref;

/// Refers to a callable that must outlive it; calling it is one indirect call.
template <class R, class... Args>
class function_ref<R(Args...)> {
public:
    template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> && std::is_invocable_r_v<R, F&, Args...>)
    function_ref(F&& f) noexcept // implicit: it stands for the callable
            : object_(const_cast<void*>(static_cast<void const*>(std::addressof(f)))),
              call_([](void* object, Args... args) -> R {
                  return std::invoke(*static_cast<std::remove_reference_t<F>*>(object), std::forward<Args>(args)...);
              }) {}

    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    void* object_;
    R (*call_)(void*, Args...);
};

} // namespace loopsched::detail
