#!/usr/bin/env bash
# Coverage-guided fuzzing of inkkiosk's parsers with libFuzzer (docs/FUZZING.md).
#
#   scripts/fuzz.sh [--short] [--seconds N] [--runs N] [TARGET...]
#
# Builds the fuzz targets (swiftc -sanitize=fuzzer, with AddressSanitizer) in .build-fuzz, a
# build directory of their own, then runs each for FUZZ_SECONDS (60) seconds, or --seconds N, or
# a fixed --runs N executions, or with --short for FUZZ_SHORT_SECONDS (10) seconds, from the
# seed corpus in Tests/Fuzz/corpus/TARGET (new inputs go to out/fuzz/corpus/TARGET, not into the
# repository). Prints one line per target (executions, exec/s, cov, ft, crashes) and ends with
# `fuzz: N passed, N failed`. A crash, a trap, an out-of-memory or a timeout writes its input to
# out/fuzz/TARGET/ and fails the target (exit status 1).
#
# Targets: http json inklog journal config (all by default).
set -uo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(http json inklog journal config)
seconds=${FUZZ_SECONDS:-60}
runs=""
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --short) seconds=${FUZZ_SHORT_SECONDS:-10} ;;
        --seconds) seconds=$2; shift ;;
        --runs) runs=$2; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1") ;;
    esac
    shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target '$t' (there are: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

SWIFT=${SWIFT:-swift}
SCRATCH=.build-fuzz
OUT=out/fuzz
mkdir -p "$OUT"

# libFuzzer comes with the Swift toolchain (compiler-rt's libclang_rt.fuzzer); say so plainly when not.
resource_dir=$(dirname "$(command -v swiftc)")/../lib/clang
if ! ls "$resource_dir"/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
    echo "fuzz.sh: this Swift toolchain has no libFuzzer (libclang_rt.fuzzer-*.a under $resource_dir)" >&2
    exit 2
fi

# One build for all targets: the package's modules and dependencies instrumented for coverage and
# AddressSanitizer, in release (-O keeps Swift's bounds and overflow checks), with testability so
# that the targets reach internal parsers through @testable import. The fuzz products exist only
# when INKKIOSK_FUZZ is set (Package.swift).
# SwiftPM's --sanitize instruments the C and C++ code (TOMLKit's toml++, NIO's and BoringSSL's C);
# for Swift it passes -sanitize=fuzzer and -sanitize=address as two flags, of which swiftc keeps
# only the last (no coverage at all), hence the one -sanitize=fuzzer,address after them.
build_flags=(-c release --scratch-path "$SCRATCH" --sanitize fuzzer --sanitize address
             -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -use-ld=lld)
build_start=$SECONDS
for t in "${targets[@]}"; do
    if ! INKKIOSK_FUZZ=1 "$SWIFT" build "${build_flags[@]}" --product "fuzz-$t" >"$OUT/build-$t.log" 2>&1; then
        tail -30 "$OUT/build-$t.log" >&2
        echo "fuzz.sh: cannot build fuzz-$t (log: $OUT/build-$t.log)" >&2
        echo "fuzz: 0 passed, ${#targets[@]} failed"
        exit 1
    fi
done
bin=$(INKKIOSK_FUZZ=1 "$SWIFT" build "${build_flags[@]}" --show-bin-path)
echo "fuzz: built ${#targets[@]} targets in $((SECONDS - build_start)) s ($bin)"

# The Swift runtime's backtracer would take over a trap's signal from libFuzzer; leaks are not
# crashes here (the runtime's caches live until exit).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=0:handle_sigill=1}

passed=0
failed=0
for t in "${targets[@]}"; do
    corpus=$OUT/corpus/$t
    artifacts=$OUT/$t
    mkdir -p "$corpus" "$artifacts"
    before=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
    dict=()
    [ -f "Tests/Fuzz/dict/$t.dict" ] && dict=(-dict="Tests/Fuzz/dict/$t.dict")
    limit=(-max_total_time="$seconds")
    [ -n "$runs" ] && limit=(-runs="$runs")
    log=$OUT/$t.log
    start=$SECONDS
    "$bin/fuzz-$t" "$corpus" "Tests/Fuzz/corpus/$t" "${dict[@]}" "${limit[@]}" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        >"$log" 2>&1 </dev/null
    status=$?
    took=$((SECONDS - start))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
    after=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
    crashes=$((after - before))
    if [ "$status" -eq 0 ] && [ "$crashes" -eq 0 ]; then
        passed=$((passed + 1)); verdict=ok
    else
        failed=$((failed + 1)); verdict=FAILED
        [ "$crashes" -eq 0 ] && crashes="? (exit $status)"
    fi
    printf 'fuzz-%-8s %-6s %10s execs  %6s exec/s  %-18s crashes: %s  (%d s, log %s)\n' \
        "$t" "$verdict" "${execs:-?}" "${rate:-?}" "${cov:-cov: ?}" "$crashes" "$took" "$log"
    if [ "$verdict" = FAILED ]; then
        grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*Fatal error|artifact_prefix|Test unit written)' "$log" | head -6 | sed 's/^/    /'
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
