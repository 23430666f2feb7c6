# inkkiosk — build, demo, test and benchmark. `make help` lists the targets.

SWIFT ?= swift
RELEASE_BIN := .build/release/inkkiosk
ARM64_BIN := out/arm64/inkkiosk
ARCH ?= amd64
RECORDINGS := $(wildcard Tests/Recordings/*.inklog)
DEMO_DIR := out/demo

.DEFAULT_GOAL := help
.PHONY: help deps build release arm64 arm64-toolchain-early demo test e2e bench soak clean appliance powercut deb fuzz image bundle

help: ## List the targets
	@grep -E '^[a-z0-9]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z0-9]+):.*## (.*)/  \1\t\2/' | expand -t 12

deps: ## Install missing Debian packages; check that swift is on PATH
	@scripts/install-deps.sh

build: deps ## Debug build (swift build)
	$(SWIFT) build

# The Swift runtime and FoundationEssentials linked into the binary: no lib/swift/linux/*.so to
# ship or load (a board needs no toolchain), and no dynamic symbol binding of the runtime at start.
# --no-export-dynamic: the Swift runtime's link options export every symbol (2.4 MB of symbol
# tables nothing looks up); lld's packed relative relocations (DT_RELR, glibc 2.36) take 12 KB
# where the usual ones took 1.5 MB, and are applied faster at start.
RELEASE_FLAGS ?= --static-swift-stdlib -Xlinker --no-export-dynamic -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

release: deps ## Release build of inkkiosk and inkkiosk-bench, the benchmarks (swift build -c release --static-swift-stdlib, linked with lld)
	$(SWIFT) build -c release $(RELEASE_FLAGS)

arm64: deps ## Cross build for aarch64 from Debian's packages: out/arm64/inkkiosk and out/arm64/root, the Debian 13 root it links (toolchain cached in ~/.cache/inkkiosk/arm64)
	scripts/arm64/build.sh

demo: release ## The kiosk on a real kernel in QEMU (screendumps in out/demo/vm/), and every recording replayed to PNG, SVG, PDF
	@mkdir -p $(DEMO_DIR)
	@for rec in $(RECORDINGS); do \
	    name=$$(basename $$rec .inklog); \
	    tool=pen; [ "$$name" = tilt ] && tool=calligraphy; \
	    err=$$($(RELEASE_BIN) replay $$rec --tool $$tool \
	        --png $(DEMO_DIR)/$$name.png --svg $(DEMO_DIR)/$$name.svg --pdf $(DEMO_DIR)/$$name.pdf 2>&1 >/dev/null) \
	        || { echo "$$err" >&2; echo "demo: replay of $$rec failed" >&2; exit 1; }; \
	    echo "$$rec -> $(DEMO_DIR)/$$name.{png,svg,pdf} ($$tool)"; \
	done
	@E2E_OUT=$(DEMO_DIR)/vm scripts/e2e.sh $(RELEASE_BIN)
	@echo "demo output in $(DEMO_DIR)/ (the VM's screen: $(DEMO_DIR)/vm/; the signature it captured, encrypted, then decrypted with the session's key: $(DEMO_DIR)/vm/signature/)"

# Each part's time goes to out/test/times.txt (scripts/timed.sh).
test: deps arm64-toolchain-early release ## Every test: swift test (with every fuzz target's seeds); the arm64 build, replays and unit tests; the packages; the VM proofs (x86, the disk image and its updates, arm64 and its disk image), in two lanes at once (scripts/test.sh)
	scripts/test.sh $(RELEASE_BIN) $(ARM64_BIN)

# The arm64 toolchain (made once, cached) is mostly downloads (its arm64 root is unpacked, its packages'
# scripts not run under qemu-user: scripts/arm64/root-setup.sh):
# on a machine without it, it is made while the release build and swift test run. The arm64
# step's own call then waits for it (a lock) and finds it done, or says what went wrong.
arm64-toolchain-early:
	@mkdir -p out/test
	@scripts/arm64/toolchain.sh >out/test/arm64-toolchain.log 2>&1 </dev/null & \
	    echo "arm64 toolchain: made or checked in the background meanwhile (out/test/arm64-toolchain.log)"

e2e: release ## The real path in QEMU: inkkiosk on bochs DRM with uinput pen, touch, pad and keyboard; checks the screendumps; boots the appliance
	scripts/e2e.sh $(RELEASE_BIN)

bench: release ## Release build, then the benchmark (scripts/bench.sh: inkkiosk-bench), and side by side with Xournal++ (scripts/peer-bench.sh)
	scripts/bench.sh

soak: release ## A classroom day (20,000 strokes, 60 pages) and a shop day (500 signatures) through the real pipeline, journal and files: memory, journal size, start-up, page turns (about 3 min)
	scripts/soak.sh

deb: release arm64 ## Debian packages out/deb/inkkiosk_VERSION_{amd64,arm64}.deb (docs/PACKAGING.md)
	scripts/deb/build.sh amd64 $(RELEASE_BIN)
	scripts/deb/build.sh arm64 $(ARM64_BIN)

# libFuzzer through swiftc -sanitize=fuzzer (with AddressSanitizer), in its own build directory
# (.build-fuzz): the product build never sees the fuzz targets. docs/FUZZING.md.
FUZZ_SECONDS ?= 60

fuzz: ## Coverage-guided fuzzing of the parsers (HTTP head, JSON body, .inklog, journal, config, PDF), FUZZ_SECONDS (60) each; a crash's input goes to out/fuzz/
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

clean: ## Remove .build, .build-arm64, .build-fuzz and out (the toolchain cache in ~/.cache/inkkiosk stays)
	rm -rf .build .build-arm64 .build-fuzz out

appliance: $(if $(filter arm64,$(ARCH)),arm64,release) ## Boot-to-kiosk image: out/appliance/ (then: python3 scripts/appliance/boot-test.py); ARCH=arm64: out/appliance-arm64/ (boot-test-arm64.py)
	scripts/appliance/build.sh --arch $(ARCH) $(if $(filter arm64,$(ARCH)),$(ARM64_BIN),$(RELEASE_BIN))

image: appliance ## UEFI disk image with A/B root slots and the data partition: out/image/inkkiosk-amd64.img (then: python3 scripts/image/boot-test.py); ARCH=arm64: out/image-arm64/ (AAVMF: --arch arm64)
	scripts/image/build.sh --arch $(ARCH)

bundle: image ## Signed RAUC update bundle of the image's slot: out/bundle/inkkiosk-VERSION-ARCH-qemu.raucb (development key unless BUNDLE_CERT/BUNDLE_KEY/BUNDLE_KEYRING)
	scripts/image/bundle.sh --arch $(ARCH)

powercut: appliance ## Power cuts (SIGKILL of QEMU) at random moments of signing on the appliance's data disk: nothing finished lost (about 5 min)
	python3 scripts/appliance/powercut-test.py --cuts $(or $(CUTS),12)
