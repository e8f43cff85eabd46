#!/usr/bin/env bash
# The main job on the bundled TestMedia: set up dependencies if missing, build, then
#   1. validate every fixture against the profile (a table of what is wrong and what would fix it),
#   2. prepare all of them with `attachkit batch` into out/prepared (progress, a summary table and
#      out/prepared/manifest.jsonl), then validate the outputs again.
# PROFILE=apple|ios|path.json picks the profile (default ios). Exit status 0 when the tool ran
# (some fixtures are broken on purpose and are reported as failures), non-zero otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
profile="${PROFILE:-ios}"

scripts/setup.sh || exit 1
# SwiftPM warns that pkg-config's -pthread is a "prohibited flag" (harmless: Swift links pthreads anyway).
swift build -c release --product attachkit 2>&1 | sed -u '/prohibited flag/d'
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "run: build failed" >&2; exit 1; }
bin=.build/release/attachkit

check() { local status=$1; if [ "$status" -gt 1 ]; then echo "run: attachkit exited with status $status" >&2; exit "$status"; fi; }

echo "== 1. validate TestMedia against profile $profile"
"$bin" validate --profile "$profile" TestMedia/images TestMedia/audio TestMedia/video TestMedia/malformed
check $?

echo
echo "== 2. prepare everything (batch) into out/prepared"
rm -rf out/input out/prepared
mkdir -p out/input
# The media folders only (TestMedia also holds its generator scripts and docs), as hard links.
cp -al TestMedia/images TestMedia/audio TestMedia/video TestMedia/malformed out/input/ 2>/dev/null \
  || cp -a TestMedia/images TestMedia/audio TestMedia/video TestMedia/malformed out/input/
"$bin" batch out/input --out out/prepared --profile "$profile" --thumbnails
check $?

echo
echo "== 3. the prepared attachments, validated again"
find out/prepared -type f ! -name '*.jsonl' ! -name '*.lock' ! -name '*.guard' -print0 | xargs -0 "$bin" validate --profile "$profile" | tail -1
exit 0
