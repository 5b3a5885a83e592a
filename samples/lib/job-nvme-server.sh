# NVMe-oF target guest (rxe-vm.sh nvme), appended to job.sh after the common
# setup: nvmet-rdma exports null_blk's /dev/nullb0 as namespace 1 of one
# subsystem on 4420 (configfs, as nvmetcli would), rocestat records eth0.
NQN=nqn.2026-11.org.rocestat:nvme-sample
ctl_wait HELLO 120 || { say "no HELLO from the client"; finish 97; }
mount -t configfs none /sys/kernel/config || { say "cannot mount configfs"; finish 93; }
N=/sys/kernel/config/nvmet
S=$N/subsystems/$NQN
mkdir "$S" && echo 1 > "$S/attr_allow_any_host" &&
mkdir "$S/namespaces/1" && echo -n /dev/nullb0 > "$S/namespaces/1/device_path" &&
echo 1 > "$S/namespaces/1/enable" &&
mkdir "$N/ports/1" && echo rdma > "$N/ports/1/addr_trtype" && echo ipv4 > "$N/ports/1/addr_adrfam" &&
echo "$S_ADDR" > "$N/ports/1/addr_traddr" && echo 4420 > "$N/ports/1/addr_trsvcid" &&
ln -s "$S" "$N/ports/1/subsystems/$NQN" || { say "nvmet configuration failed"; finish 92; }
say "nvmet: $NQN namespace 1 = /dev/nullb0 ($(cat /sys/block/nullb0/size) sectors) on rdma $S_ADDR:4420"
rocestat -i eth0 -w /tmp/capture.pcap >/tmp/rocestat.out 2>/tmp/rocestat.err &
CAP_PID=$!
for _ in $(seq 100); do
    grep -q capturing /tmp/rocestat.err 2>/dev/null && break
    kill -0 $CAP_PID 2>/dev/null || break
    sleep 0.1
done
kill -0 $CAP_PID 2>/dev/null || { say "rocestat capture died: $(cat /tmp/rocestat.err)"; finish 96; }
ctl_send READY
say "server sent READY"
STATUS=0
ctl_wait DONE 200 || { say "no DONE from the client"; STATUS=91; }
sleep 0.5
kill -TERM $CAP_PID
wait $CAP_PID
CAP_STATUS=$?
[ $CAP_STATUS -le 1 ] || { say "rocestat failed with status $CAP_STATUS"; STATUS=95; }
say "rocestat said:"
cat /tmp/rocestat.out
grep -v '^time=' /tmp/rocestat.err
cp /tmp/capture.pcap /host/capture.pcap
dmesg | grep -iE 'nvmet|rxe' | tail -n 20
finish $STATUS
