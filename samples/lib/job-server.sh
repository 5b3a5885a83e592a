# Server guest, appended to job.sh by rxe-vm.sh after the common setup.
ctl_wait HELLO 120 || { say "no HELLO from the client"; finish 97; }
say "the client is up"
if [ "$CAPTURE" = rocestat ]; then
    rocestat -i eth0 -w /tmp/capture.pcap >/tmp/rocestat.out 2>/tmp/rocestat.err &
    CAP_PID=$!
    # rocestat says "capturing on eth0" once the interface is open: no frame
    # is sent before that.
    for _ in $(seq 100); do
        grep -q capturing /tmp/rocestat.err 2>/dev/null && break
        kill -0 $CAP_PID 2>/dev/null || break
        sleep 0.1
    done
    kill -0 $CAP_PID 2>/dev/null || { say "rocestat capture died: $(cat /tmp/rocestat.err)"; finish 96; }
fi
counters before > /dev/null
netem_up || { say "tc qdisc add netem $NETEM failed"; finish 94; }
say "server runs: rocegen --server $S_ADDR $GEN_ARGS"
# shellcheck disable=SC2086
rocegen --server "$S_ADDR" --truth /tmp/truth.json --ready-file /tmp/ready $GEN_ARGS &
GEN_PID=$!
while [ ! -e /tmp/ready ] && kill -0 $GEN_PID 2>/dev/null; do sleep 0.1; done
ctl_send READY
say "server sent READY"
wait $GEN_PID
STATUS=$?
say "server rocegen exit status $STATUS"
ctl_wait DONE 120 || say "no DONE from the client"
# The client's last frames (DREP, ACKs) are on the wire before it says DONE.
sleep 0.5
if [ "$CAPTURE" = rocestat ]; then
    # TERM, not INT: a background job of a script ignores SIGINT
    kill -TERM $CAP_PID
    # rocestat: 0 = nothing to report, 1 = anomalies found (a REJ, NAKs...),
    # both a complete capture; 2 and up = it failed.
    wait $CAP_PID
    CAP_STATUS=$?
    [ $CAP_STATUS -le 1 ] || { say "rocestat failed with status $CAP_STATUS"; STATUS=95; }
    say "rocestat said (its summary of the live capture, then its capture report):"
    cat /tmp/rocestat.out
    grep -v '^time=' /tmp/rocestat.err
    cp /tmp/capture.pcap /host/capture.pcap
fi
[ -e /tmp/truth.json ] && cp /tmp/truth.json /host/truth.json
say "after the scenario: counters"
counters after
dmesg | grep -iE 'rxe|infiniband' | tail -n 20
finish $STATUS
