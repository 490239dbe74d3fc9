# Conan 2 recipe for loopsched: a header-only package wrapping the CMake
# package that `cmake --install` produces. Consumers get two targets, as from
# find_package(loopsched): loopsched::core (no MPI) and loopsched::loopsched
# (with Boost.MPI and MPI, the component loopsched::mpi).
from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy
import os


class LoopschedConan(ConanFile):
    name = "loopsched"
    version = "0.1.0"
    description = ("Header-only C++20 scheduling of parallel loops and tasks (self-scheduling, "
                   "DOACROSS with synchronization and weighting, task farms, divide and conquer) over MPI")
    license = "MIT"
    topics = ("mpi", "scheduling", "load-balancing", "self-scheduling", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = "include/*", "cmake/*", "CMakeLists.txt", "LICENSE"
    no_copy_source = True
    # The consumer project under tests/ doubles as Conan's test package.
    test_package_folder = "tests/consumer"

    def requirements(self):
        # Boost (headers, Hana, Serialization, MPI), range-v3 and an MPI
        # implementation; on a machine without ConanCenter, a profile's
        # [platform_requires] takes them from the system (conan/debian12).
        self.requires("boost/[>=1.74]", transitive_headers=True, transitive_libs=True)
        self.requires("range-v3/[>=0.12]", transitive_headers=True)
        self.requires("openmpi/[>=4.1]", transitive_headers=True, transitive_libs=True)

    def validate(self):
        check_min_cppstd(self, "20")

    def layout(self):
        cmake_layout(self)

    def generate(self):
        CMakeDeps(self).generate()
        tc = CMakeToolchain(self)
        tc.cache_variables["LOOPSCHED_BUILD_TESTS"] = False
        tc.cache_variables["LOOPSCHED_BUILD_EXAMPLES"] = False
        tc.cache_variables["LOOPSCHED_BUILD_BENCHMARKS"] = False
        tc.cache_variables["LOOPSCHED_SIMGRID"] = False
        tc.cache_variables["LOOPSCHED_INSTALL"] = True
        # A header-only package: loopsched::compiled's library is left to CMake builds.
        tc.cache_variables["LOOPSCHED_COMPILED_LIBRARY"] = False
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
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        # Dependencies a profile takes from the system ([platform_requires])
        # have no Conan targets: the package's own CMake module finds them,
        # as the installed CMake package does, and links them to its targets.
        from_system = {str(r.ref.name) for r, _ in self.dependencies.items()
                       if str(r.ref.revision) == "platform"}
        def requires(*targets):
            return [t for t in targets if t.split("::")[0] not in from_system]
        core = self.cpp_info.components["core"]
        core.set_property("cmake_target_name", "loopsched::core")
        core.bindirs = []
        core.libdirs = []
        core.requires = requires("boost::headers", "boost::serialization", "range-v3::range-v3")
        # The package's own target, loopsched::loopsched, joins both components.
        self.cpp_info.set_property("cmake_target_name", "loopsched::loopsched")
        mpi = self.cpp_info.components["mpi"]
        mpi.set_property("cmake_target_name", "loopsched::mpi")
        mpi.bindirs = []
        mpi.libdirs = []
        mpi.requires = ["core"] + requires("boost::mpi", "openmpi::openmpi")
        if from_system:
            self.cpp_info.set_property("cmake_build_modules", [os.path.join("share", "cmake", "loopsched",
                                                                            "loopsched-conan-system.cmake")])
