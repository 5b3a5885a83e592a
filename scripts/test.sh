#!/bin/sh
# The whole test suite, as CI runs it: install what is missing, then build
# and run every test, plain and under ASan+UBSan; then each libFuzzer target
# for 60 s, the suite under valgrind memcheck, and 10M QPNs through
# --max-flows (make check-big, a few minutes).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
make -s check
make -s sanitize
make -s fuzz FUZZ_SECONDS=60
make -s valgrind
make -s check-big
