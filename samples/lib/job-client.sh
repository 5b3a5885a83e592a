# Client guest, appended to job.sh by rxe-vm.sh after the common setup.
ctl_wait READY 120 HELLO || { say "no READY from the server"; finish 97; }
counters before > /dev/null
netem_up || { say "tc qdisc add netem $NETEM failed"; finish 94; }
say "client runs: rocegen --client $S_ADDR $GEN_ARGS"
# shellcheck disable=SC2086
rocegen --client "$S_ADDR" --truth /tmp/truth.json $GEN_ARGS
STATUS=$?
say "client rocegen exit status $STATUS"
ctl_send DONE
[ -e /tmp/truth.json ] && cp /tmp/truth.json /host/truth.json
say "after the scenario: counters"
counters after
dmesg | grep -iE 'rxe|infiniband' | tail -n 20
finish $STATUS
