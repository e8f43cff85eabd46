#!/usr/bin/env bash
# Sets up dependencies if missing, then runs the whole test suite.
# The shared media corpus is used when found at ../shared/corpus (or $ATTACHKIT_CORPUS).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# SwiftPM warns that pkg-config's -pthread is a "prohibited flag" (harmless: Swift links pthreads anyway).
quiet() { sed -u '/prohibited flag/d'; }
swift build --build-tests 2>&1 | quiet
# The run's output is kept so that a failure is repeated at the end, where a log's tail shows it:
# every failing test and the issues it recorded (the run interleaves them with hundreds of lines).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build "$@" 2>&1 | quiet | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "== failures (repeated from above)"
  grep -A6 '^✘' "$log" | grep -v -e '^◇' -e '^✔' -e '^--$' | head -80 || true
fi
exit "$status"
