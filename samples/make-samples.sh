#!/usr/bin/env bash
# Regenerate the committed samples listed in samples/samples.list, each with
# samples/rxe-vm.sh (two QEMU/TCG guests, rdma_rxe, capture by rocestat).
# ONLY="name ..." limits the run (a name with or without its directory,
# e.g. "rxe_send impair/dup_write" or "dup_write"); ROCEGEN_CAPTURE=qemu
# records with QEMU's filter-dump instead of rocestat. Stops at the first
# failure. A NAME with a directory (impair/dup_write) is written there;
# options may be quoted as in the shell ("delay 5ms reorder 25%"). A
# SCENARIO lib/SCRIPT.py derives the sample from a committed one instead.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T0=$(date +%s)
n=0
while read -r name scenario rest; do
    case "$name" in ''|'#'*) continue ;; esac
    base=${name##*/}
    dir=$HERE
    [ "$base" = "$name" ] || dir=$HERE/${name%/*}
    if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* || " $ONLY " == *" $base "* ]]; then continue; fi
    # The list is ours: eval only splits the quoted words of its own lines.
    eval "opts=($rest)"
    case "$scenario" in
    lib/*.py)
        # Derived from a committed sample: lib/SCRIPT SOURCE [ARGS], run as
        # SCRIPT samples/SOURCE.pcap samples/SOURCE.truth.json samples/NAME ARGS
        (cd "$HERE/.." && python3 "samples/$scenario" "samples/${opts[0]}.pcap" \
            "samples/${opts[0]}.truth.json" "samples/$name" "${opts[@]:1}") ;;
    *)
        "$HERE/rxe-vm.sh" "$scenario" --name "$base" --out "$dir" "${opts[@]}" ;;
    esac
    n=$((n + 1))
done < "$HERE/samples.list"
[ "$n" -gt 0 ] || { echo "make-samples: nothing matched ONLY=$ONLY" >&2; exit 1; }
echo "make-samples: $n samples in $(( $(date +%s) - T0 ))s" >&2
