# For Conan consumers whose profile takes Boost, range-v3 and MPI from the
# system ([platform_requires], conan/debian12): CMakeDeps made loopsched's
# targets without them, so this finds them as the CMake package does and links
# them in.
include("${CMAKE_CURRENT_LIST_DIR}/loopsched-dependencies.cmake")
target_link_libraries(loopsched::core INTERFACE Boost::headers Boost::serialization range-v3::range-v3)
if(TARGET MPI::MPI_CXX AND TARGET Boost::mpi)
  target_link_libraries(loopsched::mpi INTERFACE Boost::mpi MPI::MPI_CXX)
endif()
