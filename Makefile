# aiprof — top-level entry points. `make demo` and `make test` work on a fresh Debian machine.
BUILD_DIR      ?= build
TSAN_DIR       ?= build-tsan
ASAN_DIR       ?= build-asan
JOBS           ?= $(shell nproc)
CMAKE_FLAGS    ?=
FUZZ_SECONDS   ?= 30

.PHONY: all deps build test test-unit test-sanitizers demo bench format clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DAIPROF_WERROR=ON $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

test-unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

# The runtime under ThreadSanitizer, the format reader under ASan/UBSan and libFuzzer.
test-sanitizers: deps
	bash scripts/test-sanitizers.sh "$(TSAN_DIR)" "$(ASAN_DIR)" "$(FUZZ_SECONDS)" "$(JOBS)"

test: test-unit test-sanitizers

demo: build
	bash scripts/demo.sh "$(BUILD_DIR)"

bench: build
	bash scripts/bench.sh "$(BUILD_DIR)"

format:
	git ls-files '*.h' '*.cc' '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(TSAN_DIR) $(ASAN_DIR)
