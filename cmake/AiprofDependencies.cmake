# System packages (Debian names in scripts/install-deps.sh). Each is found once here so
# every module sees the same targets.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
# elfutils: offline DWARF unwinding of copied user stacks (src/analysis/cpu_profile).
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
find_package(GTest REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(ZLIB REQUIRED)
# Kineto / Chrome JSON traces are read with simdjson's On-Demand API (model/importers/kineto).
find_package(simdjson REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 CONFIG QUIET)
if(AIPROF_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
