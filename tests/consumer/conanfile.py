# Conan test package: builds tests/consumer against the loopsched package
# through the files Conan generates (CMakeDeps, CMakeToolchain) and runs both
# programs, the MPI one on two ranks.
import os

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, cmake_layout


class LoopschedTestConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeDeps", "CMakeToolchain"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def test(self):
        if can_run(self):
            self.run(os.path.join(self.cpp.build.bindir, "consumer"), env="conanrun")
            # The loop over MPI, on two ranks (Open MPI refuses root unless told).
            as_root = " --allow-run-as-root" if os.geteuid() == 0 else ""
            self.run(f"mpiexec{as_root} -n 2 " + os.path.join(self.cpp.build.bindir, "consumer_mpi"), env="conanrun")
            # The same loop on the package's compiled engines (header_only=False).
            compiled = os.path.join(self.cpp.build.bindir, "consumer_mpi_compiled")
            if os.path.exists(compiled):
                self.run(f"mpiexec{as_root} -n 2 " + compiled, env="conanrun")
            elif not self.dependencies[self.tested_reference_str.split("/")[0]].options.header_only:
                raise Exception("the package is not header-only, but loopsched::compiled was not found")
