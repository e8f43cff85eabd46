#!/usr/bin/env bash
# Sets up dependencies if missing, then runs the whole test suite.
# The shared media corpus is used when found at ../shared/corpus (or $ATTACHKIT_CORPUS).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# SwiftPM warns that pkg-config's -pthread is a "prohibited flag" (harmless: Swift links pthreads anyway).
quiet() { sed -u '/prohibited flag/d'; }
swift build --build-tests 2>&1 | quiet
swift test --skip-build "$@" 2>&1 | quiet
