#!/bin/sh
# The whole test suite, as CI runs it: install what is missing, then build
# and run every test, plain and under ASan+UBSan; the tests of the
# two-thread pipeline under ThreadSanitizer; each libFuzzer target for
# 60 s, the suite under valgrind memcheck, 10M QPNs through --max-flows
# (make check-big); the Debian package, installed and purged (make
# deb-test); then the live-capture tests on network namespaces of our own
# (and again under ThreadSanitizer: the live capture's two threads) and the
# end-to-end test on two QEMU guests with rdma_rxe.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
make -s check
make -s sanitize
make -s tsan
make -s fuzz FUZZ_SECONDS=60
make -s valgrind
make -s check-big
make -s deb-test        # root: the Debian package built, installed with apt-get, purged
make -s check-live      # root: network namespaces, veth, tcpreplay
make -s tsan-live       # root: the same against the ThreadSanitizer build
make -s check-vm        # root: two QEMU guests with real rdma_rxe, end to end
