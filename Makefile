# kgen: make generate (regenerate generated/), make test (the CI gate).
# Both install the pinned toolchain first (Debian 12; apt-get as root).

GO ?= go
export PATH := $(PATH):/usr/local/go/bin
# Vulkan on the CPU (Mesa lavapipe) unless the caller picked a driver.
export VK_DRIVER_FILES ?= /usr/share/vulkan/icd.d/lvp_icd.x86_64.json

# Pinned: these versions' outputs are recorded in generated/manifest.json.
PINNED = glslang-tools=12.0.0-2 spirv-tools=2023.1-2 \
         clang-19=1:19.1.7-3~deb12u1 lld-19=1:19.1.7-3~deb12u1 llvm-19=1:19.1.7-3~deb12u1
# Needed, version free: HIP headers for the syntax check, Vulkan loader and
# lavapipe for running SPIR-V, gcc/g++ for the C header tests and the C++
# examples (with libvulkan-dev; examples/cpp-hip links libamdhip64).
OTHERS = libamdhip64-dev mesa-vulkan-drivers libvulkan1 libvulkan-dev vulkan-tools gcc g++
TOOLS  = glslangValidator spirv-val clang++-19 llvm-objdump-19 gcc g++
SUDO   = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps generate check test verify help

help: ## list targets
	@grep -E '^[a-z]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

deps: ## install the pinned toolchain (skipped when already present)
	@if [ -n "$$(for t in $(TOOLS); do command -v $$t >/dev/null || echo $$t; done)" ] || \
	    [ ! -f /usr/include/hip/hip_runtime.h ] || [ ! -f /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ]; then \
	  echo "deps: installing toolchain"; \
	  $(SUDO) apt-get update -q && \
	  { DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $(PINNED) $(OTHERS) || \
	    { echo "deps: pinned versions unavailable; installing current ones (gen --check exits 3 if they differ)"; \
	      DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $(foreach p,$(PINNED),$(firstword $(subst =, ,$(p)))) $(OTHERS); }; }; \
	else echo "deps: toolchain present"; fi
	@glslangValidator --version | head -1; clang++-19 --version | head -1

generate: deps ## regenerate generated/ (go generate ./...)
	$(GO) generate ./...
	$(GO) run ./cmd/gen --check

check: deps ## fail if generated/ is stale
	$(GO) run ./cmd/gen --check

test: deps ## the CI gate: go mod tidy, gen --check, go vet, every test (SPIR-V on lavapipe)
	$(GO) mod tidy -diff
	$(GO) run ./cmd/gen --check
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 60m ./...

verify: deps ## run every SPIR-V variant on the local Vulkan device
	$(GO) run ./cmd/gen verify
