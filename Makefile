# inkkiosk — build, demo, test and benchmark. `make help` lists the targets.

SWIFT ?= swift
RELEASE_BIN := .build/release/inkkiosk
RECORDINGS := $(wildcard Tests/Recordings/*.inklog)
DEMO_DIR := out/demo

.DEFAULT_GOAL := help
.PHONY: help deps build release demo test bench clean

help: ## List the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z]+):.*## (.*)/  \1\t\2/' | expand -t 12

deps: ## Install missing Debian packages; check that swift is on PATH
	@scripts/install-deps.sh

build: deps ## Debug build (swift build)
	$(SWIFT) build

release: deps ## Release build (swift build -c release)
	$(SWIFT) build -c release

demo: release ## Replay every Tests/Recordings/*.inklog into out/demo/ as PNG, SVG and PDF
	@mkdir -p $(DEMO_DIR)
	@for rec in $(RECORDINGS); do \
	    name=$$(basename $$rec .inklog); \
	    tool=pen; [ "$$name" = tilt ] && tool=calligraphy; \
	    err=$$($(RELEASE_BIN) replay $$rec --tool $$tool \
	        --png $(DEMO_DIR)/$$name.png --svg $(DEMO_DIR)/$$name.svg --pdf $(DEMO_DIR)/$$name.pdf 2>&1 >/dev/null) \
	        || { echo "$$err" >&2; echo "demo: replay of $$rec failed" >&2; exit 1; }; \
	    echo "$$rec -> $(DEMO_DIR)/$$name.{png,svg,pdf} ($$tool)"; \
	done
	@echo "demo output in $(DEMO_DIR)/"

test: deps ## Run the unit tests (swift test)
	$(SWIFT) test

bench: release ## Release build, then the benchmark (scripts/bench.sh)
	scripts/bench.sh

clean: ## Remove .build and out
	rm -rf .build out
