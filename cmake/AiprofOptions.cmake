option(AIPROF_WERROR "Treat warnings as errors" OFF)
set(AIPROF_SANITIZE "" CACHE STRING "Sanitizer build: '', 'address' (ASan+UBSan) or 'thread' (TSan)")
option(AIPROF_FUZZ "Build libFuzzer targets (needs clang)" OFF)
option(AIPROF_BUILD_BENCH "Build benchmarks" ON)

set(AIPROF_WARNINGS -Wall -Wextra)
if(AIPROF_WERROR)
  list(APPEND AIPROF_WARNINGS -Werror)
endif()

# Applied to every target of this project (not to vendored or system code).
function(aiprof_target_defaults target)
  target_compile_options(${target} PRIVATE ${AIPROF_WARNINGS})
endfunction()

if(AIPROF_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(AIPROF_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT AIPROF_SANITIZE STREQUAL "")
  message(FATAL_ERROR "AIPROF_SANITIZE must be '', 'address' or 'thread', got '${AIPROF_SANITIZE}'")
endif()

# Coverage feedback for the fuzzers from the libraries they exercise (the reader, the parser's
# decoders and importers), not only from the fuzzer's own file. Other executables linking
# these libraries get the sanitizer runtime's default coverage callbacks.
function(aiprof_fuzz_coverage target)
  if(AIPROF_FUZZ)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()
