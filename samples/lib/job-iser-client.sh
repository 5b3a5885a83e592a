# iSER initiator guest (rxe-vm.sh iser), appended to job.sh after the common
# setup: open-iscsi's iscsid and iscsiadm (copied from the host) log in to
# the target over the iser transport (ib_iser), then direct I/O of known
# sizes with dd on the LUN's disk, two SCSI commands sent with sg_raw
# (TEST UNIT READY, and a READ(10) past the end, which the target must
# answer with CHECK CONDITION, ILLEGAL REQUEST), the session's own counters
# and a logout. What it did goes to /host/truth.txt: each step, the tools'
# output, /sys/block/sdX/stat before and after.
IQN=iqn.2026-11.org.rocestat:iser-sample
INITIATOR=iqn.2026-11.org.rocestat:iser-client
T=/tmp/truth.txt
step() { echo "step $*" >> $T; say "$*"; }
run() { step "$*"; "$@" > /tmp/out.txt 2>&1; echo "status $?" >> $T; sed 's/^/  | /' /tmp/out.txt >> $T; }
mkdir -p /etc/iscsi/nodes /etc/iscsi/send_targets /etc/iscsi/ifaces /run/lock/iscsi /var/lib/iscsi /var/lock
echo "InitiatorName=$INITIATOR" > /etc/iscsi/initiatorname.iscsi
# iscsid is started here, not by iscsiadm; the timeouts are open-iscsi's
# defaults (NOP-Out every 5 s), written out so the log shows them.
cat > /etc/iscsi/iscsid.conf <<CONF
iscsid.startup = /bin/true
node.startup = manual
node.conn[0].timeo.login_timeout = 15
node.conn[0].timeo.noop_out_interval = 5
node.conn[0].timeo.noop_out_timeout = 5
node.session.iscsi.InitialR2T = No
node.session.iscsi.ImmediateData = Yes
node.session.scan = auto
CONF
iscsid -f -n > /tmp/iscsid.log 2>&1 &
ctl_wait READY 150 HELLO || { say "no READY from the server"; finish 97; }
: > $T
counters before > /tmp/counters.before
netem_up || { say "netem failed"; finish 94; }
run iscsiadm -m iface -I iser
run iscsiadm -m node -o new -T "$IQN" -p "$S_ADDR:3260" -I iser
run iscsiadm -m node -T "$IQN" -p "$S_ADDR:3260" -I iser --login
DEV=""
for _ in $(seq 100); do
    for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
        [ -e "$b" ] && DEV=${b##*/}
    done
    [ -n "$DEV" ] && [ -b "/dev/$DEV" ] && break
    sleep 0.2
done
if [ -z "$DEV" ] || [ ! -b "/dev/$DEV" ]; then
    say "no disk after the login"; cat /tmp/iscsid.log; cat $T; cp $T /host/truth.txt; ctl_send DONE; finish 90
fi
sleep 1  # the kernel's own reads (partition table) first
echo "disk /dev/$DEV $(cat /sys/block/$DEV/size) sectors of $(cat /sys/block/$DEV/queue/logical_block_size) bytes" >> $T
echo "stat-before $(cat /sys/block/$DEV/stat)" >> $T
io() { step "dd $*"; dd "$@" 2>> $T; echo "status $?" >> $T; }
io if=/dev/urandom of=/dev/$DEV bs=4096 count=4 seek=16 oflag=direct
io if=/dev/urandom of=/dev/$DEV bs=16384 count=2 seek=8 oflag=direct
io if=/dev/urandom of=/dev/$DEV bs=131072 count=1 seek=2 oflag=direct
io if=/dev/$DEV of=/dev/null bs=8192 count=2 skip=32 iflag=direct
io if=/dev/$DEV of=/dev/null bs=65536 count=1 skip=4 iflag=direct
echo "stat-after $(cat /sys/block/$DEV/stat)" >> $T
echo "# stat fields (Documentation/block/stat.rst): read I/Os, read merges, read sectors, read ticks, write I/Os, write merges, write sectors, ..." >> $T
# SG_IO bypasses the block layer's counts: these two are not in stat-after.
run sg_raw -v /dev/$DEV 00 00 00 00 00 00
run sg_raw -v -r 512 /dev/$DEV 28 00 7f ff ff 00 00 00 01 00
run iscsiadm -m session -P 3
run iscsiadm -m session -s
run iscsiadm -m node -T "$IQN" -p "$S_ADDR:3260" -I iser --logout
sleep 0.5
counters after > /tmp/counters.after
{
    echo "client rxe0 counters before the workload:"
    sed 's/^/  | /' /tmp/counters.before
    echo "client rxe0 counters after it:"
    sed 's/^/  | /' /tmp/counters.after
} >> $T
ctl_send DONE
cat $T
cp $T /host/truth.txt
echo "iscsid said:"; cat /tmp/iscsid.log
dmesg | grep -iE 'iser|iscsi|scsi|sd |rxe' | tail -n 30
finish 0
