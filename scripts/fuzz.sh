#!/usr/bin/env bash
# Builds the libFuzzer targets (AddressSanitizer + coverage) and runs each for a while.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 20 s each; sniffer probe request prepare)
# Seeds: TestMedia files under 300 KB for the byte targets, Fuzz/seeds/request for the parsers.
# Crashes are written to Fuzz/findings/TARGET/ (crash-*, timeout-*, oom-*); the script exits 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift || true
targets=("${@:-sniffer probe request prepare}")
targets=(${targets[@]})

scripts/setup.sh >/dev/null
(cd Fuzz && swift build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 | sed -u '/prohibited flag/d' | tail -2)
bin=Fuzz/.build/debug/attachkit-fuzz

found=0
for target in "${targets[@]}"; do
  corpus="Fuzz/.corpus/$target"
  findings="Fuzz/findings/$target"
  mkdir -p "$corpus" "$findings"
  if [ "$target" = request ]; then
    seeds=(Fuzz/seeds/request)
  else
    seeds=(Fuzz/.seeds-media)
    mkdir -p Fuzz/.seeds-media
    find TestMedia/images TestMedia/audio TestMedia/video TestMedia/malformed -type f -size -300k -exec cp -n {} Fuzz/.seeds-media/ \; 2>/dev/null || true
  fi
  echo "fuzz: $target for ${seconds}s"
  set +e
  # SWIFT_BACKTRACE=enable=no: on a Swift trap the runtime's backtracer runs under ASan, which then
  # reports the backtracer itself (memserver_read) instead of the trap, and its helper process is
  # left behind; without it libFuzzer prints the trap's stack and writes the crash-* file as usual.
  SWIFT_BACKTRACE=enable=no ATTACHKIT_FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
    "$bin" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=262144 \
    -artifact_prefix="$findings/" -print_final_stats=1 2>"Fuzz/.last-$target.log"
  status=$?
  set -e
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "Fuzz/.last-$target.log" | tail -3 | sed "s/^/  /"
  if [ $status -ne 0 ]; then
    echo "fuzz: $target FOUND A PROBLEM (see $findings and Fuzz/.last-$target.log)"
    found=1
  fi
done
exit $found
