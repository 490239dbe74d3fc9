# Conan 2 recipe for loopsched: a header-only package wrapping the CMake
# package that `cmake --install` produces (find_package(loopsched) and the
# target loopsched::loopsched).
from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeToolchain, cmake_layout
from conan.tools.files import copy
import os


class LoopschedConan(ConanFile):
    name = "loopsched"
    version = "0.1.0"
    description = ("Header-only C++20 scheduling of parallel loops (self-scheduling, "
                   "DOACROSS with synchronization and weighting) over MPI")
    license = "MIT"
    topics = ("mpi", "scheduling", "load-balancing", "self-scheduling", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = "include/*", "cmake/*", "CMakeLists.txt", "LICENSE"
    no_copy_source = True
    # The consumer project under tests/ doubles as Conan's test package.
    test_package_folder = "tests/consumer"

    def requirements(self):
        # Boost.Hana (headers) and Boost.MPI; range-v3; an MPI implementation.
        self.requires("boost/[>=1.74]", options={"without_mpi": False}, transitive_headers=True)
        self.requires("range-v3/[>=0.12]", transitive_headers=True)
        self.requires("openmpi/[>=4.1]", transitive_headers=True)

    def validate(self):
        check_min_cppstd(self, "20")

    def layout(self):
        cmake_layout(self)

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["LOOPSCHED_BUILD_TESTS"] = False
        tc.cache_variables["LOOPSCHED_BUILD_EXAMPLES"] = False
        tc.cache_variables["LOOPSCHED_BUILD_BENCHMARKS"] = False
        tc.cache_variables["LOOPSCHED_INSTALL"] = True
        tc.generate()

    def package(self):
        # Install through CMake so the Conan package and the plain CMake package
        # are the same files.
        cmake = CMake(self)
        cmake.configure()
        cmake.install()
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "loopsched")
        self.cpp_info.set_property("cmake_target_name", "loopsched::loopsched")
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.requires = ["boost::headers", "boost::mpi", "range-v3::range-v3", "openmpi::openmpi"]
