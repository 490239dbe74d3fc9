# loopsched_find_simgrid([REQUIRED]): defines loopsched::simgrid, loopsched
# plus the SimGrid library, for programs that include
# <loopsched/transport/simgrid.hpp>. Debian's libsimgrid-dev ships a
# pkg-config file only. Used by the build tree and the installed package.
function(loopsched_find_simgrid)
  if(TARGET loopsched::simgrid)
    return()
  endif()
  find_package(PkgConfig ${ARGV0})
  if(PkgConfig_FOUND)
    pkg_check_modules(LOOPSCHED_SIMGRID_PC ${ARGV0} IMPORTED_TARGET GLOBAL simgrid)
  endif()
  if(NOT LOOPSCHED_SIMGRID_PC_FOUND)
    return()
  endif()
  add_library(loopsched_simgrid INTERFACE IMPORTED GLOBAL)
  target_link_libraries(loopsched_simgrid INTERFACE loopsched::loopsched PkgConfig::LOOPSCHED_SIMGRID_PC)
  add_library(loopsched::simgrid ALIAS loopsched_simgrid)
endfunction()
