# Two entry points that do all the set-up on a fresh Debian machine (as root):
#   make run   - install packages, build the simulator alone (Release), run the default workload
#   make test  - install packages, build, run the whole test suite
#   make test-sanitize - the suite built with ASan and UBSan (`make test SANITIZE=1`, what CI runs)
# SANITIZE=1: build and test in the sanitizer build (CMakePresets.json "asan": clang, ASan + UBSan,
# into build-asan/) instead of the Release one.
SANITIZE ?=
ifeq ($(SANITIZE),)
BUILD ?= build
else
BUILD := build-asan
endif
JOBS ?= 2
DEBS := cmake ninja-build g++ pkg-config libsystemc-dev libyaml-cpp-dev nlohmann-json3-dev \
        libspdlog-dev libfmt-dev libboost-dev libboost-program-options-dev libgtest-dev \
        libbenchmark-dev gtkwave python3-matplotlib python3-pandas python3-venv python3-yaml python3-torch python3-torchvision python3-onnx libonnx-dev libprotobuf-dev protobuf-compiler man-db groff-base clang zlib1g-dev
DEFAULT_ARCH ?= configs/arch/npu-128.yaml
DEFAULT_WORKLOAD ?= configs/workloads/resnet18.csv

.PHONY: deps configure build run test test-long test-sanitize bench fuzz clean

deps:
	@missing=$$(for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

ifeq ($(SANITIZE),)
$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
else
$(BUILD)/build.ninja: CMakeLists.txt CMakePresets.json
	cmake --preset asan >/dev/null
endif

configure: deps $(BUILD)/build.ninja

# TARGETS: only these targets.
TARGETS ?=
build: configure
	cmake --build $(BUILD) -j $(JOBS) $(if $(TARGETS),--target $(TARGETS))

# The simulator and its man page only: the tests and benchmarks are `make build` / `make test`'s.
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target cstsim manpage
	rm -rf out/default
	$(BUILD)/cstsim run --arch $(DEFAULT_ARCH) --workload $(DEFAULT_WORKLOAD) --out out/default

ifeq ($(SANITIZE),)
test: build
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure
else
test: test-sanitize
endif

test-long: build
	cd $(BUILD) && ctest -j $(JOBS) -L long --output-on-failure

# The suite under AddressSanitizer + UndefinedBehaviorSanitizer (CMakePresets.json "asan": clang,
# into build-asan/), then the CLI smoke set; a test failure or any sanitizer report fails it.
test-sanitize:
	$(MAKE) build SANITIZE=1
	tools/test_sanitize.sh build-asan

# libFuzzer targets for every parser (clang, ASan, UBSan), FUZZ_SECONDS each; the trace target's
# seed is a run of build/cstsim or build-asan/cstsim when there is one (`make build` first).
FUZZ_SECONDS ?= 60
fuzz: deps
	tests/fuzz/run.sh $(FUZZ_SECONDS)

bench: build
	$(BUILD)/bench/cstsim_bench

clean:
	rm -rf $(BUILD) out build-asan build-fuzz
