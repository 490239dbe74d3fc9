# Checks of the headers as a compiler sees them, run by the optimised (GCC)
# configuration and by the ThreadSanitizer one, which CI builds with Clang:
# every public header compiles on its own (range-v3's TestHeaders idea), and
# each compile-fail test fails with its diagnostic.
if(LOOPSCHED_HEADER_CHECK)
  file(GLOB_RECURSE public_headers RELATIVE ${PROJECT_SOURCE_DIR}/include CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/include/loopsched/*.hpp)
  if(NOT LOOPSCHED_SIMGRID)
    list(REMOVE_ITEM public_headers loopsched/transport/simgrid.hpp loopsched/transport/simgrid/network.hpp)
  endif()
  set(header_sources)
  foreach(header IN LISTS public_headers)
    string(MAKE_C_IDENTIFIER ${header} id)
    set(source ${CMAKE_CURRENT_BINARY_DIR}/headers/${id}.cpp)
    file(CONFIGURE OUTPUT ${source} CONTENT "#include <${header}>\n")
    list(APPEND header_sources ${source})
  endforeach()
  add_library(loopsched_header_check OBJECT ${header_sources})
  # Compiling is the check: no optimiser, no debug info (they only cost time).
  target_compile_options(loopsched_header_check PRIVATE -O0 -g0)
  target_link_libraries(loopsched_header_check PRIVATE loopsched::loopsched loopsched_warnings
                        $<$<BOOL:${LOOPSCHED_SIMGRID}>:loopsched::simgrid>)
  add_test(NAME "headers: each compiles on its own"
           COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target loopsched_header_check)
  set_tests_properties("headers: each compiles on its own" PROPERTIES TIMEOUT 600 RESOURCE_LOCK build_tree)
endif()

# Compile-failure tests: each file must fail to compile, with the diagnostic
# matching its "// expect:" line (a regular expression both compilers match).
file(GLOB fail_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/compile_fail/*.cpp)
foreach(source IN LISTS fail_sources)
  get_filename_component(name ${source} NAME_WE)
  file(STRINGS ${source} expect REGEX "^// expect: ")
  string(REGEX REPLACE "^// expect: " "" expect "${expect}")
  add_library(compile_fail_${name} OBJECT EXCLUDE_FROM_ALL ${source})
  target_link_libraries(compile_fail_${name} PRIVATE loopsched::loopsched)
  add_test(NAME "compile-fail: ${name}"
           COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target compile_fail_${name})
  set_tests_properties("compile-fail: ${name}" PROPERTIES PASS_REGULAR_EXPRESSION "${expect}" TIMEOUT 300
                                                                 RESOURCE_LOCK build_tree)
endforeach()

