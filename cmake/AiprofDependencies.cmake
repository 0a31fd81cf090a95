# System packages (Debian names in scripts/install-deps.sh). Each is found once here so
# every module sees the same targets.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
find_package(GTest REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 CONFIG QUIET)
if(AIPROF_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
