# NFS-over-RDMA client guest (rxe-vm.sh nfs), appended to job.sh after the
# common setup: nfs-utils' mount.nfs (copied from the host) mounts the
# server's /export with -o rdma,port=20049, first NFSv3 (nolock: no statd
# in the guest; mountd's port given, so no rpcbind query: the MOUNT call
# itself goes over TCP, outside the RoCE capture) and then NFSv4.1; in each a known workload: dd with
# O_DIRECT of known sizes (writes and reads), a file created with touch, a
# directory with mkdir, a file removed, ls -l. What it did goes to
# /host/truth.txt: each step, the tools' output, and the mount's own RPC
# counts per operation and transport counters (/proc/self/mountstats)
# right before each umount.
T=/tmp/truth.txt
step() { echo "step $*" >> $T; say "$*"; }
run() { step "$*"; "$@" > /tmp/out.txt 2>&1; echo "status $?" >> $T; sed 's/^/  | /' /tmp/out.txt >> $T; }
io() { step "dd $*"; dd "$@" 2>> $T; echo "status $?" >> $T; }
mkdir -p /mnt /var/lib/nfs /run/rpcbind
ln -sf /proc/mounts /etc/mtab
ctl_wait READY 150 HELLO || { say "no READY from the server"; finish 97; }
: > $T
counters before > /tmp/counters.before
netem_up || { say "netem failed"; finish 94; }
workload() {
    p=$1
    io if=/dev/urandom of=/mnt/$p-a bs=4096 count=4 oflag=direct
    io if=/dev/urandom of=/mnt/$p-b bs=65536 count=1 oflag=direct
    io if=/dev/urandom of=/mnt/$p-c bs=1000 count=1
    io if=/mnt/$p-a of=/dev/null bs=8192 count=2 iflag=direct
    io if=/mnt/$p-b of=/dev/null bs=65536 count=1 iflag=direct
    run touch /mnt/$p-new
    run mkdir /mnt/$p-dir
    run rm /mnt/$p-c
    run ls -l /mnt
    step "mountstats"
    # the entry of the NFS mount only
    awk '/^device /{on = ($8 == "nfs" || $8 == "nfs4")} on' /proc/self/mountstats | sed 's/^/  | /' >> $T
}
OK=0
run mount.nfs "$S_ADDR:/export" /mnt -v -o rdma,port=20049,vers=3,nolock,mountport=20048,mountproto=tcp,retry=1
if grep -q ' /mnt nfs' /proc/mounts; then
    OK=$((OK + 1)); workload v3; run umount /mnt
else
    run rpcinfo -p "$S_ADDR"
fi
run mount.nfs "$S_ADDR:/export" /mnt -v -o rdma,port=20049,vers=4.1,retry=1
if grep -q ' /mnt nfs4' /proc/mounts; then
    OK=$((OK + 1)); workload v41; run umount /mnt
fi
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
dmesg | grep -iE 'nfs|rpcrdma|rxe' | tail -n 30
[ $OK = 2 ] || { say "$OK of the 2 mounts worked"; finish 89; }
finish 0
