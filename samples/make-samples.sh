#!/usr/bin/env bash
# Regenerate the committed samples listed in samples/samples.list, each with
# samples/rxe-vm.sh (two QEMU/TCG guests, rdma_rxe, capture by rocestat).
# ONLY="name ..." limits the run; ROCEGEN_CAPTURE=qemu records with QEMU's
# filter-dump instead of rocestat. Stops at the first failure.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T0=$(date +%s)
n=0
while read -r name scenario rest; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]]; then continue; fi
    # shellcheck disable=SC2086
    "$HERE/rxe-vm.sh" "$scenario" --name "$name" --out "$HERE" $rest
    n=$((n + 1))
done < "$HERE/samples.list"
[ "$n" -gt 0 ] || { echo "make-samples: nothing matched ONLY=$ONLY" >&2; exit 1; }
echo "make-samples: $n samples in $(( $(date +%s) - T0 ))s" >&2
