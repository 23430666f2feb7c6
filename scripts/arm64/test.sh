#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 build's part of `make test`, on this x86 machine:
#   1. the cross build (scripts/arm64/build.sh --tests): out/arm64/inkkiosk and the unit tests;
#   2. every bundled recording replayed by both builds, their files compared
#      (scripts/arm64/compare-replays.py: PNG and InkML byte for byte, SVG by drawing);
#   3. the unit tests of the modules whose code could read differently on another machine, cross-built,
#      run under qemu-aarch64-static against the arm64 root (ARM64_UNIT_TEST_MODULES).
# Each step's time is printed; the last line is `arm64: N passed, N failed` (the three steps).
#
#   scripts/arm64/test.sh [X86_BINARY]      (default .build/release/inkkiosk)
set -uo pipefail
cd "$(dirname "$0")/../.."

X86=${1:-.build/release/inkkiosk}
# The test targets run under emulation: the modules that parse bytes, lay out C structures, call
# ioctls, draw with cairo or keep time (where char signedness, struct layout, Int width or
# floating point could differ), and every fuzz target's seeds through the parsers. Left to the
# x86 run: the tests that start servers, other programs or the kiosk itself (InkAPITests,
# InkKioskTests, InkWorksheetTests, InkDocumentTests with its qpdf, poppler and pyHanko
# comparisons): under qemu-user each spawn forks the whole emulator, they took most of the 24
# minutes the whole set took on a busy machine, and what they check on arm64 the arm64 VM proof
# checks with the real binary on a real arm64 kernel.
# A module's tests, or one suite of a module (MODULE.SUITE): InkClassroomTests' own rules and the
# WebDAV answers' parser run here; its SchoolCloudTests start the WebDAV server (Python) and stay on x86.
UNIT_TEST_MODULES=${ARM64_UNIT_TEST_MODULES:-InkCoreTests InkLogTests InkRenderTests InkInputTests InkDisplayTests InkStorageTests InkConfigTests InkLoopTests InkPipelineTests FuzzSeedTests InkClassroomTests.DAVAnswerTests InkClassroomTests.ClassroomRulesTests InkClassroomTests.HandInRulesTests}
# Seconds the unit tests may take under emulation (about 5 min on 2 busy cores).
UNIT_TEST_LIMIT=${ARM64_UNIT_TEST_LIMIT:-1200}
[[ -x $X86 ]] || { echo "arm64: $X86 is missing; run 'make release' first" >&2; exit 1; }
# The replay comparison reads PNGs with Pillow (python3-pil), which only the VM proof's set has.
scripts/install-deps.sh --e2e || exit 1
passed=0 failed=0
step() {  # step NAME CMD…: runs it, prints its time and verdict
    local name=$1 start=$SECONDS
    shift
    if "$@"; then
        passed=$((passed + 1)); echo "arm64: ok   $name ($((SECONDS - start)) s)"
    else
        failed=$((failed + 1)); echo "arm64: FAIL $name ($((SECONDS - start)) s)"
    fi
}

unit_tests() {
    local cache runtime
    cache=$(scripts/arm64/toolchain.sh) || return 1
    runtime=$cache/swift/usr/libexec/swift/lib/swift/linux:$cache/swift/usr/lib/aarch64-linux-gnu
    # QEMU_LD_PREFIX, not -L: the tests start `inkkiosk` as a child, which binfmt hands to qemu
    # too, and the variable reaches it. The runtime's libraries: the test bundle links them.
    # INKKIOSK_TESTS_EMULATED: the tests that make thousands of cases make an eighth of them
    # (Tests/InkTestSupport/Emulation.swift). A bound on the whole run: a test that hangs under
    # emulation fails this step with its name, instead of holding `make test` until CI's limit.
    # INKKIOSK_TESTS_LAUNCHER: the programs the tests run are started by a native launcher
    # (scripts/arm64/launcher.py), since a spawn under qemu-user forks the whole emulator and the
    # copy can deadlock before its exec.
    local launcher_dir launcher_pid
    launcher_dir=$(mktemp -d)
    QEMU_LD_PREFIX=$cache/root LD_LIBRARY_PATH=$runtime INKKIOSK_TESTS_EMULATED=1 \
        /usr/bin/python3 scripts/arm64/launcher.py "$launcher_dir/launcher.sock" &
    launcher_pid=$!
    for _ in $(seq 100); do [[ -S $launcher_dir/launcher.sock ]] && break; sleep 0.1; done
    # The PDF helper the product spawns still forks the emulator: a copy stuck before its exec
    # (scripts/arm64/stuck-fork-watch.py) ends the run, which is made once more, saying so.
    local status attempt marker=$launcher_dir/stuck-fork
    for attempt in 1 2; do
        rm -f "$marker"
        QEMU_LD_PREFIX=$cache/root LD_LIBRARY_PATH=$runtime INKKIOSK_TESTS_EMULATED=1 \
            INKKIOSK_TESTS_LAUNCHER=$launcher_dir/launcher.sock \
            timeout --kill-after=20 "$UNIT_TEST_LIMIT" \
            .build-arm64/aarch64-unknown-linux-gnu/debug/inkkioskPackageTests.xctest --testing-library swift-testing \
            --filter "^($(tr ' ' '|' <<<"$UNIT_TEST_MODULES"))[./]" \
            >out/arm64/unit-tests.log 2>&1 &
        local tests_pid=$!
        /usr/bin/python3 scripts/arm64/stuck-fork-watch.py "$tests_pid" "$marker" &
        local watch_pid=$!
        wait "$tests_pid"
        status=$?
        kill "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null
        [[ -e $marker ]] || break
        echo "arm64: qemu-user's fork of the test process stuck before its exec: $(cat "$marker")"
        echo "arm64: tests still running then:"; unfinished_tests out/arm64/unit-tests.log | sed 's/^/  /'
        ((attempt == 1)) && echo "arm64: the unit tests run once more"
    done
    kill "$launcher_pid" 2>/dev/null; wait "$launcher_pid" 2>/dev/null
    rm -rf "$launcher_dir"
    grep -E '^(✘|✔ Test run)' out/arm64/unit-tests.log | tail -n 20
    # A filter that matches nothing would pass with no test run; a suite named alone must have run.
    if ((status == 0)) && ! grep -qE '^✔ Test run with [1-9][0-9]* tests' out/arm64/unit-tests.log; then
        echo "arm64: no unit test ran (ARM64_UNIT_TEST_MODULES: $UNIT_TEST_MODULES)"
        status=1
    fi
    local entry
    for entry in $UNIT_TEST_MODULES; do
        [[ $entry == *.* ]] || continue
        if ! grep -q "Suite ${entry#*.} passed" out/arm64/unit-tests.log; then
            echo "arm64: the suite $entry did not run"
            status=1
        fi
    done
    if ((status == 124 || status == 137)); then
        echo "arm64: the unit tests did not end within $UNIT_TEST_LIMIT s; still running then:"
        unfinished_tests out/arm64/unit-tests.log | sed 's/^/  /'
    fi
    slowest_tests out/arm64/unit-tests.log
    return $status
}

# The tests a swift-testing log says started and never said they ended.
unfinished_tests() {
    awk '/^◇ Test .* started\.$/ { name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); open[name] = 1 }
         /^(✔|✘|➜) Test / { name = $0; sub(/^(✔|✘|➜) Test /, "", name); sub(/ (with [0-9]+ test cases? )?(passed|failed|skipped|recorded).*$/, "", name); delete open[name] }
         END { for (n in open) print n }' "$1" | sort | head -n 40
}

# The five tests that took longest (a test's time includes its wait for a free thread).
slowest_tests() {
    grep -E '^✔ Test .* passed after [0-9.]+ seconds' "$1" | grep -v 'Test run with' |
        sed -E 's/^✔ Test (.*) passed after ([0-9.]+) seconds.*/\2 s  \1/' | sort -rn | head -n 5 |
        sed 's/^/arm64: slowest: /'
}

# Only the test targets run here are built (Package.swift's INKKIOSK_TEST_TARGETS).
# (a MODULE.SUITE entry needs its module's target).
test_targets=$(tr ' ' '\n' <<<"$UNIT_TEST_MODULES" | cut -d. -f1 | sort -u | tr '\n' ' ')
step "cross build (binary and unit tests)" env INKKIOSK_TEST_TARGETS="$test_targets" scripts/arm64/build.sh --tests
if [[ -x out/arm64/inkkiosk ]]; then
    step "replays identical to x86" /usr/bin/python3 scripts/arm64/compare-replays.py "$X86" out/arm64/inkkiosk out/arm64/root --out out/arm64/replays
    step "unit tests under qemu-aarch64 (log: out/arm64/unit-tests.log)" unit_tests
fi
echo "arm64: $passed passed, $failed failed"
((failed == 0))
