#!/bin/sh
# The whole test suite, as CI runs it: install what is missing, then build
# and run every test, plain and under ASan+UBSan.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
make -s check
make -s sanitize
