#!/bin/sh
# The whole test suite, as CI runs it: install what is missing, then build
# and run every test, plain and under ASan+UBSan, then the live-capture
# tests on network namespaces of our own.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
make -s check
make -s sanitize
make -s check-live      # root: network namespaces, veth, tcpreplay
make -s check-vm        # root: two QEMU guests with real rdma_rxe, end to end
