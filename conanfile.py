# Conan 2 recipe for loopsched, wrapping the CMake package that `cmake
# --install` produces. Consumers get the targets find_package(loopsched) gives:
# loopsched::core (no MPI), loopsched::loopsched (with Boost.MPI and MPI, the
# component loopsched::mpi) and, unless header_only=True, loopsched::compiled
# (the engines, the entry points over MPI and the spec parser compiled once,
# in a static library, with LOOPSCHED_COMPILED for its users).
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
    settings = "os", "arch", "compiler", "build_type"
    # As fmt's and spdlog's recipes: the compiled library by default, the
    # headers alone on request.
    options = {"header_only": [True, False], "fPIC": [True, False]}
    default_options = {"header_only": False, "fPIC": True}
    exports_sources = "include/*", "src/*", "cmake/*", "CMakeLists.txt", "LICENSE"
    # The consumer project under tests/ doubles as Conan's test package.
    test_package_folder = "tests/consumer"

    def requirements(self):
        # Boost (headers, Hana, Serialization, MPI), range-v3 and an MPI
        # implementation; on a machine without ConanCenter, a profile's
        # [platform_requires] takes them from the system (conan/debian12).
        self.requires("boost/[>=1.74]", transitive_headers=True, transitive_libs=True)
        self.requires("range-v3/[>=0.12]", transitive_headers=True)
        self.requires("openmpi/[>=4.1]", transitive_headers=True, transitive_libs=True)

    # No package_type: Conan infers it from the options (header-library with
    # header_only=True, static-library otherwise).
    def configure(self):
        if self.options.header_only:
            self.options.rm_safe("fPIC")

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
        tc.cache_variables["LOOPSCHED_COMPILED_LIBRARY"] = not self.options.header_only
        tc.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        if not self.options.header_only:
            cmake.build()

    def package(self):
        # Install through CMake so the Conan package and the plain CMake package
        # are the same files.
        CMake(self).install()
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))

    def package_id(self):
        if self.info.options.header_only:
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
        if not self.options.header_only:
            compiled = self.cpp_info.components["compiled"]
            compiled.set_property("cmake_target_name", "loopsched::compiled")
            compiled.libs = ["loopsched_compiled"]
            compiled.defines = ["LOOPSCHED_COMPILED"]
            compiled.requires = ["mpi"]
        if from_system:
            self.cpp_info.set_property("cmake_build_modules", [os.path.join("share", "cmake", "loopsched",
                                                                            "loopsched-conan-system.cmake")])
