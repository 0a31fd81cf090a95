#!/usr/bin/env bash
# Sanitizer test configurations: the runtime's tests under ThreadSanitizer, the format
# reader, parser, Kineto importer and exporters under ASan/UBSan, and bounded libFuzzer runs of
# the raw reader (framing), of the parser (every payload decoder), the latter seeded with the
# hostile files of tests/model/hostile_inputs.h, and of the Kineto importer.
set -euo pipefail
tsan_dir=$1 asan_dir=$2 fuzz_seconds=$3 jobs=$4

cmake -S . -B "$asan_dir" -G Ninja -DAIPROF_SANITIZE=address -DAIPROF_FUZZ=ON \
  -DAIPROF_BUILD_BENCH=OFF -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$asan_dir" -j "$jobs" --target format_test raw_reader_fuzzer
(cd "$asan_dir" && ctest --output-on-failure -R 'FormatTest|Crc32c' -j "$jobs")
# The parser and exporters on generated, corrupt and truncated data.
if [[ -d src/model ]]; then
  cmake --build "$asan_dir" -j "$jobs" --target model_test export_test aiprof-export-testcli \
    communication_test hostile_files_test raw_parser_fuzzer hostile_fuzz_corpus
  (cd "$asan_dir" && ctest --output-on-failure -j "$jobs" \
    -R 'ModelTest|ClockFit|Prefaulter|TimelineTest|SummariesTest|SqliteTest|SqliteApiTest|ExportFixture.Sqlite|PresortedIndex|RowSplitTest|ExportJobTest|GlooRankTest|NcclCommunication|HostileFiles')
fi
mkdir -p "$asan_dir/fuzz-corpus"
"$asan_dir/bin/raw_reader_fuzzer" -max_total_time="$fuzz_seconds" -max_len=65536 \
  -print_final_stats=1 "$asan_dir/fuzz-corpus" 2>&1 | tail -n 12
if [[ -x "$asan_dir/bin/raw_parser_fuzzer" ]]; then
  # A hostile input must cost time and memory in proportion to its size: 10 s and 2 GiB at
  # most for a 64 KiB input.
  mkdir -p "$asan_dir/parser-corpus" "$asan_dir/parser-seeds"
  "$asan_dir/bin/hostile_fuzz_corpus" "$asan_dir/parser-seeds"
  "$asan_dir/bin/raw_parser_fuzzer" -max_total_time="$fuzz_seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 "$asan_dir/parser-corpus" "$asan_dir/parser-seeds" \
    2>&1 | tail -n 12
fi
# The Kineto / torch.profiler importer (streamed JSON, gzip) on written, real, malformed and
# hostile traces, the round trip, input discovery, then on arbitrary bytes (seeded with the
# real traces).
if [[ -d tests/kineto ]]; then
  cmake --build "$asan_dir" -j "$jobs" --target kineto_import_test kineto_hta_figures_test \
    torch113_traces_test kineto_round_trip_test input_discovery_test kineto_import_fuzzer
  (cd "$asan_dir" && ctest --output-on-failure -j "$jobs" \
    -R 'KinetoImport|KinetoHtaFigures|Torch113Traces|KinetoRoundTrip|HandlerFolder')
  mkdir -p "$asan_dir/kineto-corpus"
  cp tests/kineto/data/*.json* "$asan_dir/kineto-corpus/"
  "$asan_dir/bin/kineto_import_fuzzer" -max_total_time="$fuzz_seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 "$asan_dir/kineto-corpus" 2>&1 | tail -n 12
fi

if [[ -d src/runtime ]]; then
  cmake -S . -B "$tsan_dir" -G Ninja -DAIPROF_SANITIZE=thread -DAIPROF_BUILD_BENCH=OFF >/dev/null
  cmake --build "$tsan_dir" -j "$jobs" --target aiprof_runtime_tests
  (cd "$tsan_dir" && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    ctest --output-on-failure -L runtime -j "$jobs")
  # The CUDA collector's buffer, flush and correlation paths (through the CUPTI test double).
  if [[ -d src/sources/cuda ]]; then
    cmake --build "$tsan_dir" -j "$jobs" --target cuda_source_test
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$tsan_dir/bin/cuda_source_test"
  fi
fi

# The dynamic control socket server, config watcher and logs (threads), and the descriptor
# registry's adoption against the program's closes, under TSan.
if [[ -d tests/dynamic && -d src/runtime ]]; then
  cmake --build "$tsan_dir" -j "$jobs" --target dynamic_unit_test owned_fd_unit_test
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$tsan_dir/bin/dynamic_unit_test"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$tsan_dir/bin/owned_fd_unit_test"
fi

# The collect-option matrix (tests/torch/test_collect_option_matrix.py) once more with the
# ASan build of the launcher, runtime, plugins and Python package, the job running with
# clang's ASan runtime preloaded first: a heap error of aiprof's inside a real torch job
# with DataLoader workers aborts it.
if [[ -d src/sources/torch ]] && [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  cmake --build "$asan_dir" -j "$jobs" --target aiprof_cli aiprof aiprof_torch aiprof_cpusampling \
    aiprof_osrt aiprof_python
  asan_runtime=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
  asan_build=$(cd "$asan_dir" && pwd)
  (cd tests/torch && AIPROF_BUILD_DIR="$asan_build" AIPROF_MATRIX_ASAN_RUNTIME="$asan_runtime" \
    OMP_NUM_THREADS=1 /usr/bin/python3 -m unittest -v test_collect_option_matrix)
fi
