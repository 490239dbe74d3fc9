# ctest driver: install loopsched into a fresh prefix, then configure, build and
# run tests/consumer (without MPI, and on two ranks) against it with
# find_package(loopsched) (-DCORE_ONLY=ON: as if MPI were missing, the core
# component alone); or, with
# -DLOOPSCHED_SOURCE_DIR=..., add loopsched's sources as a subdirectory on a
# machine where pkg-config (so SimGrid) cannot be found; with
# -DLOOPSCHED_FETCH_DIR=..., fetch them with FetchContent from that repository.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
if(LOOPSCHED_FETCH_DIR)
  # FetchContent clones the repository (its committed state). loopsched::compiled
  # is the same CMake code as in the installed-prefix test, and the build
  # without CMake compiles its sources too: here it would only cost CI a minute.
  set(how -DLOOPSCHED_FETCH_DIR=${LOOPSCHED_FETCH_DIR} -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
          -DLOOPSCHED_COMPILED_LIBRARY=OFF)
elseif(LOOPSCHED_SOURCE_DIR)
  # loopsched::compiled is built and consumed by the installed-prefix test;
  # here it would only compile impl/compiled_mpi.ipp again (about 30 s).
  set(how -DLOOPSCHED_SOURCE_DIR=${LOOPSCHED_SOURCE_DIR} -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
          -DLOOPSCHED_COMPILED_LIBRARY=OFF)
else()
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "install failed")
  endif()
  set(how -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
  if(CORE_ONLY) # as on a machine without MPI
    list(APPEND how -DCONSUMER_CORE_ONLY=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON)
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
                        ${how} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed")
endif()
# Both programs, the MPI one on two ranks, under the consumer's own ctest.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --output-on-failure WORKING_DIRECTORY ${WORK_DIR}/build
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the consumer failed")
endif()
