#!/usr/bin/env bash
# The main job on the bundled TestMedia: set up dependencies if missing, build, then probe and
# validate every fixture against the ios profile, printing a readable table.
# Exit status 0 when the tool ran (some fixtures are meant to fail validation), non-zero otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || exit 1
# SwiftPM warns that pkg-config's -pthread is a "prohibited flag" (harmless: Swift links pthreads anyway).
swift build -c release --product attachkit 2>&1 | sed -u '/prohibited flag/d'
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "run: build failed" >&2; exit 1; }
bin=.build/release/attachkit

folders=(TestMedia/images TestMedia/audio TestMedia/video TestMedia/malformed)
"$bin" validate --profile "${PROFILE:-ios}" "${folders[@]}"
status=$?
# 0: all pass, 1: some fixtures fail validation (expected: TestMedia holds bad files on purpose).
if [ $status -gt 1 ]; then
  echo "run: attachkit exited with status $status" >&2
  exit $status
fi
exit 0
