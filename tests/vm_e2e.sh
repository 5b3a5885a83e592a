#!/usr/bin/env bash
# End to end through real rdma_rxe: boot two QEMU/TCG guests, run ONE small
# rocegen scenario between them, record the wire with rocestat inside the
# server guest, and check the capture against the ground truth with
# tests/samples_truth.py. About 20-30 s; needs root (apt-get, QEMU).
#
# It fails, with the reason, when anything on the way fails: packages that
# cannot be installed, a QEMU that does not start, a guest that does not
# finish, a capture that does not match. It never skips.
# ROCEGEN_CAPTURE=qemu records with QEMU's filter-dump instead (development).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d /tmp/vm_e2e.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

fail() {
    echo "vm_e2e: FAIL: $*"
    echo "0 passed, 1 failed"
    exit 1
}

T0=$(date +%s)
# mixed: WRITE, WRITE_WITH_IMM and READ, 1500 bytes so that FIRST/LAST appear.
"$ROOT/samples/rxe-vm.sh" mixed --name vm_e2e --out "$OUT" -- --count 2 --size 1500 ||
    fail "samples/rxe-vm.sh did not produce a capture (reason above)"
for f in vm_e2e.pcap vm_e2e.truth.json vm_e2e.log; do
    [ -s "$OUT/$f" ] || fail "$f missing"
done
make -s -C "$ROOT" rocestat || fail "cannot build rocestat for the analysis"
# Both views: every frame's fields, and the analyzer's report.
for mode in fields json; do
    # shellcheck disable=SC2086
    python3 "$ROOT/tests/samples_truth.py" --mode $mode ${SAMPLES_TRUTH_ARGS:-} "$OUT/vm_e2e.truth.json" ||
        fail "the capture does not match the ground truth (--mode $mode)"
done
echo "vm_e2e: generate, capture, analyse, compare: ok in $(( $(date +%s) - T0 ))s"
echo "1 passed, 0 failed"
