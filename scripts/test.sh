#!/bin/sh
# The whole test suite, as CI runs it: install what is missing, then build
# and run every test, plain and under ASan+UBSan; the tests of the
# two-thread pipeline under ThreadSanitizer; each libFuzzer target for
# 60 s, the suite under valgrind memcheck, 10M QPNs through --max-flows
# (make check-big); the Debian package, installed and purged (make
# deb-test); then the live-capture tests on network namespaces of our own
# (and again under ThreadSanitizer: the live capture's two threads) and the
# end-to-end test on two QEMU guests with rdma_rxe.
# Each stage says how long it took: CI has an hour (and stops at 90 minutes).
set -eu
cd "$(dirname "$0")/.."
START=$(date +%s)
stage() {
	t=$(date +%s)
	if ! make -s "$@"; then
		echo "test.sh: make $*: FAILED after $(($(date +%s) - t)) s (all so far: $(($(date +%s) - START)) s)"
		exit 1
	fi
	echo "test.sh: make $*: $(($(date +%s) - t)) s (all so far: $(($(date +%s) - START)) s)"
}
sh scripts/deps.sh test
stage check
stage sanitize
stage tsan
stage fuzz FUZZ_SECONDS=60
stage valgrind
stage check-big
stage deb-test        # root: the Debian package built, installed with apt-get, purged
stage check-live      # root: network namespaces, veth, tcpreplay
stage tsan-live       # root: the same against the ThreadSanitizer build
stage check-vm        # root: two QEMU guests with real rdma_rxe, end to end
