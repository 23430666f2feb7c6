#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Coverage-guided fuzzing of inkkiosk's parsers with libFuzzer (docs/FUZZING.md).
#
#   scripts/fuzz.sh [--short] [--seconds N] [--runs N] [TARGET...]
#
# Installs the Debian packages that are missing (scripts/install-deps.sh), builds the fuzz
# targets (swiftc -sanitize=fuzzer, with AddressSanitizer) in .build-fuzz, a build directory of
# their own, then runs each for FUZZ_SECONDS (60) seconds, or --seconds N, or a fixed --runs N
# executions. --short is the run `make test` does: FUZZ_SHORT_SECONDS (10) seconds each, from a
# copy of the seeds in a temporary directory that is removed afterwards. Otherwise new inputs
# go to out/fuzz/corpus/TARGET. libFuzzer is only given copies of Tests/Fuzz/corpus/TARGET:
# a run never writes into the repository. Prints one line per target (executions, exec/s, cov,
# ft, crashes) and ends with `fuzz: N passed, N failed`. A crash, a trap, an out-of-memory or a
# timeout writes its input to out/fuzz/TARGET/, prints the target and that reproducer, and fails
# the run (exit status 1).
#
# Targets: http json inklog journal config pdf pdf-reading (all by default).
set -uo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(http json inklog journal config pdf pdf-reading)
seconds=${FUZZ_SECONDS:-60}
runs=""
short=false
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --short) short=true; seconds=${FUZZ_SHORT_SECONDS:-10} ;;
        --seconds) seconds=$2; shift ;;
        --runs) runs=$2; shift ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1") ;;
    esac
    shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target '$t' (there are: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

# The build needs what the product build needs (cairo, zlib, pkg-config); nothing more.
scripts/install-deps.sh || exit 2

SWIFT=${SWIFT:-swift}
SCRATCH=.build-fuzz
OUT=out/fuzz
mkdir -p "$OUT"

# libFuzzer and AddressSanitizer come with the Swift toolchain (compiler-rt, in swiftc's clang
# resource directory); Debian has no package that puts them there, so say so plainly when not.
resource=$("$(dirname "$(command -v "$SWIFT")")/swiftc" -print-target-info 2>/dev/null | sed -n 's/.*"runtimeResourcePath": *"\(.*\)".*/\1/p' | head -1)
rt_dir=$resource/clang/lib/linux
for lib in fuzzer asan; do
    if ! ls "$rt_dir"/libclang_rt.$lib-*.a >/dev/null 2>&1; then
        echo "fuzz.sh: this Swift toolchain has no lib$lib runtime (libclang_rt.$lib-*.a in $rt_dir);" >&2
        echo "fuzz.sh: the swift.org toolchains for Linux have it (https://www.swift.org/install/linux/)" >&2
        exit 2
    fi
done

# One build for all targets: the package's modules and dependencies instrumented for coverage and
# AddressSanitizer, in release (-O keeps Swift's bounds and overflow checks), with testability so
# that the targets reach internal parsers through @testable import. With INKKIOSK_FUZZ set the
# package is the seven fuzz targets and the modules they reach (Package.swift): one `swift build`
# builds them all, modules in parallel and each once (one at a time with --product rebuilt the
# modules they share), also when fewer targets are run.
# SwiftPM's --sanitize instruments the C and C++ code (TOMLKit's toml++, NIO's and BoringSSL's C);
# for Swift it passes -sanitize=fuzzer and -sanitize=address as two flags, of which swiftc keeps
# only the last (no coverage at all), hence the one -sanitize=fuzzer,address after them.
# SwiftPM keeps the --sanitize values in a Set: their order on the command lines followed each
# run's random hash seed, and about one build in two saw new command lines and compiled
# everything again (2 to 3 minutes). SWIFT_DETERMINISTIC_HASHING fixes the order, so a build
# after a build compiles only what changed.
build_flags=(-c release --scratch-path "$SCRATCH" --sanitize fuzzer --sanitize address
             -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -use-ld=lld)
build_start=$SECONDS
export SWIFT_DETERMINISTIC_HASHING=1
if ! INKKIOSK_FUZZ=1 "$SWIFT" build "${build_flags[@]}" >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log" >&2
    echo "fuzz.sh: cannot build the fuzz targets (log: $OUT/build.log)" >&2
    echo "fuzz: 0 passed, ${#targets[@]} failed"
    exit 1
fi
bin=$(INKKIOSK_FUZZ=1 "$SWIFT" build "${build_flags[@]}" --show-bin-path)
unset SWIFT_DETERMINISTIC_HASHING
echo "fuzz: built the ${#ALL_TARGETS[@]} targets in $((SECONDS - build_start)) s ($bin)"

# Where the inputs libFuzzer finds go: for --short a temporary directory, else out/fuzz/corpus.
if $short; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/inkkiosk-fuzz.XXXXXX") || exit 2
    trap 'rm -rf "$work"' EXIT
else
    work=$OUT
fi

# The Swift runtime's backtracer would take over a trap's signal from libFuzzer; leaks are not
# crashes here (the runtime's caches live until exit).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=0:handle_sigill=1}

passed=0
failed=0
for t in "${targets[@]}"; do
    # libFuzzer writes new inputs into the first directory; the seeds it reads are a copy.
    corpus=$work/corpus/$t
    seeds=$work/seeds/$t
    artifacts=$OUT/$t
    rm -rf "$seeds"
    mkdir -p "$corpus" "$seeds" "$artifacts"
    cp -R "Tests/Fuzz/corpus/$t/." "$seeds/"
    dict=()
    [ -f "Tests/Fuzz/dict/$t.dict" ] && dict=(-dict="Tests/Fuzz/dict/$t.dict")
    limit=(-max_total_time="$seconds")
    [ -n "$runs" ] && limit=(-runs="$runs")
    log=$OUT/$t.log
    start=$SECONDS
    "$bin/fuzz-$t" "$corpus" "$seeds" "${dict[@]}" "${limit[@]}" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        >"$log" 2>&1 </dev/null
    status=$?
    took=$((SECONDS - start))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
    # What libFuzzer wrote for a crash, a timeout, an out-of-memory (`Test unit written to PATH`).
    mapfile -t found < <(sed -n 's/^.*Test unit written to \(.*\)$/\1/p' "$log")
    if [ "$status" -eq 0 ] && [ ${#found[@]} -eq 0 ]; then
        passed=$((passed + 1)); verdict=ok
    else
        failed=$((failed + 1)); verdict=FAILED
    fi
    printf 'fuzz-%-11s %-6s %10s execs  %6s exec/s  %-18s crashes: %s  (%d s, log %s)\n' \
        "$t" "$verdict" "${execs:-?}" "${rate:-?}" "${cov:-cov: ?}" "${#found[@]}" "$took" "$log"
    if [ "$verdict" = FAILED ]; then
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*Fatal error|.*fatal error)' "$log" | head -4 | sed 's/^/    /'
        for input in "${found[@]}"; do
            echo "    fuzz-$t: reproducer $PWD/$input"
            echo "    run it again: SWIFT_BACKTRACE=enable=no $bin/fuzz-$t $input"
        done
        [ ${#found[@]} -gt 0 ] || echo "    fuzz-$t: libFuzzer exited with status $status and wrote no input; see $log"
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
