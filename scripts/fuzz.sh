#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a while.
#   scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]   (default 60 s, every target; CI runs a
#   short pass). JOINERY_FUZZ_NO_BUILD=1 skips the build (to run targets in parallel after one build);
#   JOINERY_FUZZ_TIMEOUT=S sets the per-input time limit (default 10 s; raise it on a busy machine,
#   where the limit is wall-clock time and a starved process can pass it on an ordinary input).
# Corpora start from the bundled scenes and their expressions and grow in build-fuzz/corpus/.
# A crash, leak or timeout leaves its input in build-fuzz/findings/ and makes the script
# fail; every finding becomes a regression test (tests/hostile). Figures: docs/fuzzing.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${JOINERY_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${JOINERY_JOBS:-$(nproc)}
shift || true
targets=${*:-fuzz_scene fuzz_expression fuzz_json}
launcher=()
if [ "${JOINERY_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1  # -g1: the build folder's path stays out of the hash
fi
if [ -z "${JOINERY_FUZZ_NO_BUILD:-}" ]; then
  CXX=clang++ CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJOINERY_FUZZ=ON \
    -DJOINERY_BUILD_TESTS=OFF -DJOINERY_BUILD_BENCH=OFF -DJOINERY_BUILD_APPS=OFF "${launcher[@]}" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" >/dev/null
  cmake --build "$build" -j "$jobs" --target fuzz_scene fuzz_expression fuzz_json
fi
[ "$seconds" -gt 0 ] || exit 0   # 0: build only (libFuzzer would take 0 as "run forever")

corpus=$build/corpus
mkdir -p "$corpus/scene" "$corpus/expression" "$corpus/json" "$build/findings"
# seeds: every bundled scene, and every string of them (most are expressions)
find "$root/examples" "$root/tests" -name '*.json' -size -200k -exec cp -n {} "$corpus/scene/" \; 2>/dev/null || true
# the strict JSON reader (fuzz_json) starts from the same files
cp -n "$corpus/scene/"* "$corpus/json/" 2>/dev/null || true
/usr/bin/env python3 - "$root" "$corpus/expression" <<'PY'
import glob, hashlib, json, os, sys
root, out = sys.argv[1], sys.argv[2]
def walk(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values(): yield from walk(v)
    elif isinstance(x, list):
        for v in x: yield from walk(v)
for f in glob.glob(os.path.join(root, "examples", "**", "*.json"), recursive=True):
    try:
        doc = json.load(open(f))
    except Exception:
        continue
    for s in walk(doc):
        if 0 < len(s) < 2000:
            open(os.path.join(out, hashlib.sha1(s.encode()).hexdigest()), "w").write(s)
PY

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
# libcln (GiNaC's numbers) keeps a 26-byte static allocation alive at exit: suppressed as in CI
export LSAN_OPTIONS=suppressions=$root/.ci/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for target in $targets; do
  dir=$corpus/${target#fuzz_}
  echo "== $target: $seconds s, corpus $(ls "$dir" | wc -l) inputs"
  if ! "$build/tests/fuzz/$target" "$dir" -max_total_time="$seconds" -timeout="${JOINERY_FUZZ_TIMEOUT:-10}" -rss_limit_mb=4096 \
       -max_len=65536 -artifact_prefix="$build/findings/$target-" -print_final_stats=1 \
       >"$build/$target.log" 2>&1; then
    status=1
    echo "$target: FINDING (see $build/findings and $build/$target.log)"
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|cov: " "$build/$target.log" | tail -3
done
exit $status
