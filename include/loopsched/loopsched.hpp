// loopsched: the umbrella header. Include this, link loopsched::loopsched.
// (Without MPI: include the algorithm headers and link loopsched::core.)
#pragma once

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/adaptor/widened.hpp>
#include <loopsched/algorithm/by_spec.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/dependence/bsda.hpp>
#include <loopsched/dependence/chains.hpp>
#include <loopsched/dependence/hyperplane.hpp>
#include <loopsched/dependence/layout.hpp>
#include <loopsched/dependence/time_steps.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/mpi.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/runtime/calibration.hpp>
#include <loopsched/runtime/payload.hpp>
#include <loopsched/runtime/trace.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/in_process.hpp>
