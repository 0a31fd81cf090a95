"""pip install for the aiprof Python package (offline: everything comes from this source
tree and Debian packages).

    cd python && /usr/bin/python3 -m pip install --no-build-isolation .

Builds the native parts with CMake (the _aiprof extension for this interpreter, the
runtime libaiprof.so, the torch plugin and the aiprof CLI when their dependencies are
present) and installs them inside the package: aiprof/_aiprof*.so, aiprof/lib/*.so,
aiprof/bin/aiprof and aiprof/python/aiprof_launch_hook/. Set AIPROF_BUILD_DIR to reuse an
existing build directory instead of configuring a new one.
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGETS = ["aiprof_python", "aiprof", "aiprof_torch", "aiprof_cli"]


def cmake_build():
    build_dir = os.environ.get("AIPROF_BUILD_DIR") or os.path.join(HERE, "build-pip")
    if not os.path.exists(os.path.join(build_dir, "build.ninja")):
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                               "-DCMAKE_BUILD_TYPE=Release", "-DAIPROF_BUILD_BENCH=OFF",
                               "-DAIPROF_PYTHON=" + sys.executable])
    for target in TARGETS:
        # Optional parts (torch plugin without libtorch, CLI without CLI11) may not exist.
        subprocess.call(["cmake", "--build", build_dir, "--target", target, "-j",
                         str(os.cpu_count() or 2)])
    return build_dir


class BuildWithNative(build_py):
    def run(self):
        super().run()
        build_dir = cmake_build()
        package = os.path.join(self.build_lib, "aiprof")
        extensions = glob.glob(os.path.join(build_dir, "python", "aiprof", "_aiprof*.so"))
        if not extensions:
            raise SystemExit("the _aiprof extension was not built (pybind11 and the Python "
                             "headers of %s are needed)" % sys.executable)
        for extension in extensions:
            shutil.copy2(extension, package)
        os.makedirs(os.path.join(package, "lib"), exist_ok=True)
        for library in ("libaiprof.so", "libaiprof_torch.so", "libaiprof_cluster_mpi.so"):
            path = os.path.join(build_dir, "lib", library)
            if os.path.exists(path):
                shutil.copy2(path, os.path.join(package, "lib"))
        cli = os.path.join(build_dir, "bin", "aiprof")
        if os.path.exists(cli):
            os.makedirs(os.path.join(package, "bin"), exist_ok=True)
            shutil.copy2(cli, os.path.join(package, "bin"))
        hook = os.path.join(package, "python", "aiprof_launch_hook")
        os.makedirs(hook, exist_ok=True)
        shutil.copy2(os.path.join(HERE, "aiprof_launch_hook", "sitecustomize.py"), hook)


setup(
    name="aiprof",
    version="0.1.0",
    description="Native profiler for AI training and inference jobs (torch_npu.profiler-shaped API)",
    packages=["aiprof", "aiprof.profiler"],
    package_dir={"": "."},
    python_requires=">=3.8",
    cmdclass={"build_py": BuildWithNative},
    zip_safe=False,
)
