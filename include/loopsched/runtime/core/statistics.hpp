// Forwards to loopsched/statistics.hpp, where loop_statistics now lives; kept for one release.
#pragma once
#include <loopsched/statistics.hpp>
