// boost::container::small_vector, included once for the whole library with the
// one warning it raises silenced.
#pragma once

// GCC 12 reports a false -Wstringop-overread inside small_vector's move.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
