#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/<name>: Swift through the Fuzz package, whose manifest and
# the repository's build our own modules with -sanitize=fuzzer,address and our C with
# -fsanitize=fuzzer-no-link,address, and the dependencies plain; the C differential target
# jpeg-dc through clang with -fsanitize=fuzzer,address,undefined) and runs each one. A target
# that reports no coverage fails the run (it would be fuzzing blind).
#
#   scripts/fuzz.sh [-runs N] [-time SECONDS] [TARGET...]
#
# Default: every target for 500 executions (the CI pass). Given both, a target stops at whichever
# comes first (the long run: -runs 10000000 -time 3600). Corpora live in .build-fuzz/corpus/TARGET (kept
# between runs, seeded from Tests/Images); the regression inputs in Tests/Images/fuzz-regressions
# are run first. A crash, leak, timeout (10 s) or out-of-memory (2 GB resident, or 1 GB in one
# allocation) stops the script with status 1; the input is kept in .build-fuzz/crashes/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=()
while [ $# -gt 0 ]; do
    case "$1" in
        -runs) limit+=(-runs="$2"); shift 2 ;;
        -time) limit+=(-max_total_time="$2"); shift 2 ;;
        *) break ;;
    esac
done
[ ${#limit[@]} -gt 0 ] || limit=(-runs=500)
all=(sniff header jpeg-segments jpeg-dc apng gif svg png decode loading path signature canonical accept settings request-headers placeholders info store-replies)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
out=.build-fuzz
mkdir -p "$out"

# Seeds: which test images each target starts from.
seeds_of() {
    case "$1" in
        jpeg-segments | jpeg-dc) find Tests/Images Tests/WebImageTests/Fixtures -name '*.jpg' -o -name '*.jpeg' ;;
        apng | png) find Tests/Images -name '*.png' -o -name '*.apng' ;;
        gif) find Tests/Images -name '*.gif' ;;
        svg) find Tests/Images -name '*.svg' ;;
        loading) find Fuzz/loading/seeds -type f ;;
        # The request targets: paths from the server's tests, Accept headers, signing inputs.
        path | canonical) find Fuzz/path/seeds -type f ;;
        signature) find Fuzz/signature/seeds -type f ;;
        accept) find Fuzz/accept/seeds -type f ;;
        settings) find Fuzz/settings/seeds -type f ;;
        request-headers) find Fuzz/request-headers/seeds -type f ;;
        placeholders) find Fuzz/placeholders/seeds -type f ;;
        store-replies) find Fuzz/store-replies/seeds -type f ;;
        *) find Tests/Images Tests/WebImageTests/Fixtures -type f \( -name '*.*' ! -name '*.txt' ! -name '*.md' \) ;;
    esac
}
dictionary_of() {
    case "$1" in
        jpeg-segments | jpeg-dc) echo Fuzz/jpeg-segments/jpeg.dict ;;
        apng | png) echo Fuzz/png/png.dict ;;
        gif) echo Fuzz/gif/gif.dict ;;
        svg) echo Fuzz/svg/svg.dict ;;
        path | canonical) echo Fuzz/path/path.dict ;;
        accept) echo Fuzz/accept/accept.dict ;;
    esac
}

swift_targets=()
for target in "${targets[@]}"; do
    [ "$target" = jpeg-dc ] || swift_targets+=("$target")
done
# Only our modules instrumented (SWIFT_WEBIMAGE_FUZZ_BUILD, read by both manifests): SwiftPM's
# --sanitize=fuzzer and -Xswiftc/-Xcc sanitizer flags would instrument every dependency too
# (NIO, Hummingbird, swift-crypto's BoringSSL...), a third more compile time for code no target
# fuzzes. Release (-O, debug info kept): a debug build ran about 500 inputs a second. Every
# target at once when all are asked for (one build plan, both cores busy), else one by one.
build() {
    SWIFT_WEBIMAGE_FUZZ_BUILD=1 swift build -c release --package-path Fuzz --scratch-path "$out/swift" "$@" > "$out/build.log" 2>&1 ||
        { tail -20 "$out/build.log" >&2; echo "fuzz: $* did not build" >&2; exit 1; }
}
if [ ${#swift_targets[@]} -eq $((${#all[@]} - 1)) ]; then
    build
else
    for target in "${swift_targets[@]}"; do build --product "fuzz-$target"; done
fi
for target in "${targets[@]}"; do
    if [ "$target" = jpeg-dc ]; then
        # shellcheck disable=SC2046
        clang -g -O1 -fuse-ld=lld -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
            -ISources/CJPEGCodec/include -ISources/CBitmapKernels/include $(pkg-config --cflags vips) \
            Fuzz/jpeg-dc/fuzz_jpeg_dc.c Sources/CJPEGCodec/*.c Sources/CBitmapKernels/*.c \
            -llcms2 \
            -ljpeg -lturbojpeg $(pkg-config --libs vips) -lm -o "$out/fuzz-jpeg-dc"
    fi
done

status=0
for target in "${targets[@]}"; do
    binary="$out/swift/release/fuzz-$target"
    [ "$target" = jpeg-dc ] && binary="$out/fuzz-jpeg-dc"
    corpus="$out/corpus/$target"
    seeds="$out/seeds/$target"
    crashes="$out/crashes/$target"
    mkdir -p "$corpus" "$seeds" "$crashes"
    seeds_of "$target" | while read -r file; do cp "$file" "$seeds/"; done
    regressions=()
    [ -d Tests/Images/fuzz-regressions ] && regressions=(Tests/Images/fuzz-regressions)
    dictionary=$(dictionary_of "$target")
    # Sniffing reads at most the first 4 KB, and a request line or header is short (8 KB is more
    # than a URL a CDN passes), as settings are: longer inputs would only slow those targets down.
    max_len=262144
    case "$target" in sniff | path | signature | canonical | accept | settings | request-headers) max_len=8192 ;; esac
    # One allocation over 1 GB is an out-of-memory too (no target decodes more than 16 megapixels):
    # by default libFuzzer allows one up to the 2 GB resident limit, and a 1.77 GB one went unseen.
    options=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=$max_len -print_final_stats=1 -artifact_prefix="$crashes/")
    [ -n "$dictionary" ] && options+=(-dict="$dictionary")
    echo "== $target"
    # ASan's leak check at exit, with the process-lifetime objects the leak check script lists.
    if ! ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0" \
        "$binary" "${options[@]}" "${limit[@]}" "$corpus" "$seeds" "${regressions[@]}" > "$out/$target.log" 2>&1; then
        status=1
        echo "fuzz: $target FAILED (log $out/$target.log, input in $crashes)" >&2
        # The first frames of the report too: CI keeps this output, not the log.
        grep -E "ERROR|SUMMARY|abort|precondition|Fatal|^    #[0-5] " "$out/$target.log" | head -12 >&2
    fi
    if ! grep -q "INITED cov:" "$out/$target.log"; then
        status=1
        echo "fuzz: $target found no coverage: not instrumented (log $out/$target.log)" >&2
    fi
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+.*DONE" "$out/$target.log" | tr '\n' ' '
    echo "corpus $(find "$corpus" -type f | wc -l) files"
done
exit $status
