// Forwards to loopsched/request.hpp, where the request vocabulary now lives; kept for one release.
#pragma once
#include <loopsched/request.hpp>
