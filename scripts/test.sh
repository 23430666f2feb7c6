#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make test` after the release build: every part, in two lanes that run at the same time.
#
#   vm     the VM proofs, at normal priority: QEMU emulating a machine in software keeps about one
#          core busy and waits for its guest the rest of the time
#            the classroom's load check → x86 VM proof and appliance → x86 disk image → (the arm64 binary) → arm64 appliance →
#            arm64 disk image → Debian packages
#   build  the compiles and the unit tests, at a lower priority (nice 10), so that they take what
#          the emulators leave and never starve a guest (a starved guest's udev and evdev fall
#          behind the harness's devices: the flakes of loaded runs)
#            swift test → arm64 cross build → (the arm64 binary handed to the vm lane) → arm64
#            replays and unit tests
#
# One after the other they took 71 min; the VM proofs are about half of that and use one of the
# two cores. Each part's time goes to out/test/times.txt (scripts/timed.sh), each lane's output to
# out/test/<lane>.log and, prefixed with the lane's name, to stdout. A part that fails does not
# stop the others (except what needs its output); the exit status is non-zero if any failed.
#
#   scripts/test.sh RELEASE_BINARY ARM64_BINARY               both lanes
#   scripts/test.sh --lane build|vm RELEASE_BINARY ARM64_BINARY   one of them (the vm lane alone
#                                                             takes the arm64 binary as it is)
set -uo pipefail
cd "$(dirname "$0")/.."

lane=
if [[ ${1:-} == --lane ]]; then lane=${2:?--lane build|vm}; shift 2; fi
RELEASE_BIN=${1:?usage: scripts/test.sh [--lane build|vm] RELEASE_BINARY ARM64_BINARY}
ARM64_BIN=${2:?usage: scripts/test.sh [--lane build|vm] RELEASE_BINARY ARM64_BINARY}
SWIFT=${SWIFT:-swift}
# The build lane leaves one of these when its arm64 cross build ends; the vm lane's arm64 parts wait
# for it while BUILD_LANE_PID runs.
ARM64_READY=out/test/arm64-binary.ready
ARM64_FAILED=out/test/arm64-binary.failed

lane_build() {
    local status=0
    # swift test first: with the arm64 cross build first instead, the x86 VM session's heaviest
    # part ran beside a release build, and one run's guest got too slow for its PDF helper
    # (a scanned page over the 10 s limit the session sets); beside swift test it had not, in the runs so far.
    scripts/timed.sh "swift test (x86; every fuzz seed too)" "$SWIFT" test || status=1
    if scripts/timed.sh "arm64: cross build of inkkiosk" scripts/arm64/build.sh; then
        touch "$ARM64_READY"
    else
        touch "$ARM64_FAILED"; return 1
    fi
    scripts/timed.sh "arm64: the unit tests' build, replays, unit tests under qemu" scripts/arm64/test.sh "$RELEASE_BIN" || status=1
    return $status
}

lane_vm() {
    local status=0
    # The benchmark binary is built beside the kiosk (make release).
    scripts/timed.sh "classroom: 30 tablets hand in at once (load check)" \
        python3 scripts/classroom/load-check.py "$(dirname "$RELEASE_BIN")/inkkiosk-bench" --clients 30 || status=1
    scripts/timed.sh "VM proof (x86, bochs) and x86 appliance" scripts/e2e.sh "$RELEASE_BIN" || status=1
    scripts/timed.sh "VM proof (x86 disk image: UEFI boot and fallback, watchdog, updates)" scripts/image/test.sh "$RELEASE_BIN" || status=1
    if [[ -n ${BUILD_LANE_PID:-} ]]; then
        # The condition, not a time: the build lane says whether the arm64 binary is there.
        local waited=$SECONDS
        while [[ ! -e $ARM64_READY && ! -e $ARM64_FAILED ]] && kill -0 "$BUILD_LANE_PID" 2>/dev/null; do
            sleep 1
        done
        echo "waited $((SECONDS - waited)) s for the build lane's arm64 binary"
        [[ -e $ARM64_READY ]] || { echo "FAIL: the build lane made no arm64 binary: the arm64 VM proofs did not run"; return 1; }
    fi
    scripts/timed.sh "VM proof (arm64 appliance, virtio-gpu)" scripts/appliance/e2e-arm64.sh "$ARM64_BIN" out/test/arm64-vm || status=1
    scripts/timed.sh "VM proof (arm64 disk image: AAVMF, an update installed and switched to)" scripts/image/test.sh --arch arm64 || status=1
    # Here rather than in the build lane, which is the longer one.
    scripts/timed.sh "Debian packages" scripts/deb/test.sh "$RELEASE_BIN" "$ARM64_BIN" || status=1
    return $status
}

if [[ -n $lane ]]; then
    case $lane in
        build) lane_build ;;
        vm) lane_vm ;;
        *) echo "test: --lane wants build or vm, not '$lane'" >&2; exit 2 ;;
    esac
    exit
fi

mkdir -p out/test
: >out/test/times.txt
rm -f "$ARM64_READY" "$ARM64_FAILED" out/test/build.status
# Both lanes' scripts ask for the VM proof's packages: asked once here, so apt never runs twice at once.
scripts/install-deps.sh --e2e || exit 1

start=$SECONDS
# The build lane at nice 10: where both want a core, an emulator gets about nine tenths of it.
( nice -n "${TEST_BUILD_NICE:-10}" "$0" --lane build "$RELEASE_BIN" "$ARM64_BIN" </dev/null 2>&1; echo $? >out/test/build.status ) |
    tee out/test/build.log | sed -u 's/^/build| /' &
build_lane=$!
BUILD_LANE_PID=$build_lane "$0" --lane vm "$RELEASE_BIN" "$ARM64_BIN" </dev/null 2>&1 | tee out/test/vm.log | sed -u 's/^/vm   | /'
vm_status=${PIPESTATUS[0]}
wait "$build_lane"
build_status=$(cat out/test/build.status 2>/dev/null || echo "no status")

echo
echo "make test: $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s after the release build; its parts (two at a time):"
cat out/test/times.txt
if [[ $vm_status != 0 || $build_status != 0 ]]; then
    echo "make test: FAIL (vm lane: exit $vm_status, build lane: exit $build_status; their output: out/test/vm.log, out/test/build.log)"
    exit 1
fi
echo "make test: ok"
