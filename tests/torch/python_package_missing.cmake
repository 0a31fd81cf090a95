# Run as a test when libtorch is present but the aiprof Python extension was not built, so
# that the Python tests fail rather than disappear.
message(FATAL_ERROR
  "the aiprof Python package (_aiprof extension) was not built for ${AIPROF_PYTHON}: "
  "pybind11 or the Python headers were not found at configure time. Install them "
  "(scripts/install-deps.sh: pybind11-dev, python3-dev) and re-run cmake.")
