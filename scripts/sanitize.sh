#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer (whole suite) and ThreadSanitizer (the concurrent
# paths: access ledger, batch planning and whole batch runs killed and resumed, service), each in
# its own build folder.
#   scripts/sanitize.sh [address|thread|both]    (default both)
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-both}"
scripts/setup.sh >/dev/null
quiet() { sed -u '/prohibited flag/d'; }
status=0
if [ "$which" = address ] || [ "$which" = both ]; then
  echo "== AddressSanitizer: whole suite"
  # Leak checking inside the test process would report libvips/GLib/FFmpeg one-time globals;
  # leaks of ours are checked per operation by scripts/leaks.sh (valgrind) and the fuzzers.
  ATTACHKIT_SANITIZER=address ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
    swift test --sanitize=address --scratch-path .build/asan 2>&1 | quiet | grep -E "ERROR: AddressSanitizer|SUMMARY|Test run|✘" || status=1
fi
if [ "$which" = thread ] || [ "$which" = both ]; then
  echo "== ThreadSanitizer: concurrent paths"
  ATTACHKIT_SANITIZER=thread TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0 \
    swift test --sanitize=thread --scratch-path .build/tsan \
      --filter "AccessLedgerTests|ServeProcessTests|BatchPlanningTests|BatchProcessTests|ServiceProtocolTests" 2>&1 | quiet \
      | grep -E "WARNING: ThreadSanitizer|SUMMARY|Test run|✘" || status=1
fi
exit $status
