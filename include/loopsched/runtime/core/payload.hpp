// Forwards to loopsched/payload.hpp, where payloads now live; kept for one release.
#pragma once
#include <loopsched/payload.hpp>
