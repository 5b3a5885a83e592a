# NFS-over-RDMA server guest (rxe-vm.sh nfs), appended to job.sh after the
# common setup: nfsd with one listener, RPC-over-RDMA on 20049 (no TCP or
# UDP listener, so every NFS call is on the captured wire); rpcbind and
# rpc.mountd (copied from the host) for the NFSv3 MOUNT protocol, which
# runs over TCP and is not in the RoCE capture; /export is a 16 MiB tmpfs
# (fsid=1: tmpfs has no UUID). The v4 lease and grace times are cut to
# nfsd's minimum (10 s) so that the v4.1 OPENs are not refused for 90 s.
# nfsd's own counts (/proc/net/rpc/nfsd) go to /host/truth-server.txt.
TS=/tmp/truth-server.txt
ctl_wait HELLO 120 || { say "no HELLO from the client"; finish 97; }
echo "_rpc:x:100:65534::/run/rpcbind:/bin/false" >> /etc/passwd
echo "root:x:0:" > /etc/group; echo "nogroup:x:65534:" >> /etc/group
mkdir -p /export /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs /run/rpcbind /etc/exports.d
# The kernel's rpcbind client looks for /var/run/rpcbind.sock.
[ -e /var/run ] || ln -s /run /var/run
mount -t tmpfs -o size=16m tmpfs /export
: > /var/lib/nfs/etab; : > /var/lib/nfs/rmtab
echo "/export 192.0.2.2(rw,no_root_squash,insecure,no_subtree_check,sync,fsid=1)" > /etc/exports
rpcbind -f > /tmp/rpcbind.log 2>&1 &
RPCBIND_PID=$!
sleep 0.5
kill -0 $RPCBIND_PID 2>/dev/null || { say "rpcbind died: $(cat /tmp/rpcbind.log)"; finish 92; }
mount -t nfsd nfsd /proc/fs/nfsd || { say "cannot mount the nfsd filesystem"; finish 93; }
{ echo 10 > /proc/fs/nfsd/nfsv4leasetime && echo 10 > /proc/fs/nfsd/nfsv4gracetime &&
  echo "+3 +4 +4.1 +4.2" > /proc/fs/nfsd/versions; } || { say "nfsd settings refused"; finish 92; }
exportfs -ra > /tmp/out.txt 2>&1 || { say "exportfs failed: $(cat /tmp/out.txt)"; finish 92; }
rpc.mountd -F -N 2 -p 20048 > /tmp/mountd.log 2>&1 &
echo "rdma 20049" > /proc/fs/nfsd/portlist || { say "nfsd refused the rdma listener"; dmesg | tail; finish 92; }
echo 4 > /proc/fs/nfsd/threads || { say "nfsd did not start"; cat /tmp/rpcbind.log /tmp/mountd.log; dmesg | tail; finish 92; }
say "nfsd: versions $(cat /proc/fs/nfsd/versions), listeners [$(tr '\n' ' ' < /proc/fs/nfsd/portlist)], threads $(cat /proc/fs/nfsd/threads); exports: $(exportfs -v | tr '\n\t' '  ')"
rocestat -i eth0 -w /tmp/capture.pcap >/tmp/rocestat.out 2>/tmp/rocestat.err &
CAP_PID=$!
for _ in $(seq 100); do
    grep -q capturing /tmp/rocestat.err 2>/dev/null && break
    kill -0 $CAP_PID 2>/dev/null || break
    sleep 0.1
done
kill -0 $CAP_PID 2>/dev/null || { say "rocestat capture died: $(cat /tmp/rocestat.err)"; finish 96; }
cp /proc/net/rpc/nfsd /tmp/nfsd.before
counters before > /tmp/counters.before
netem_up || { say "netem failed"; finish 94; }
ctl_send READY
say "server sent READY"
STATUS=0
ctl_wait DONE 400 || { say "no DONE from the client"; STATUS=91; }
sleep 0.5
kill -TERM $CAP_PID
wait $CAP_PID
CAP_STATUS=$?
[ $CAP_STATUS -le 1 ] || { say "rocestat failed with status $CAP_STATUS"; STATUS=95; }
counters after > /tmp/counters.after
{
    echo "server nfsd counts (/proc/net/rpc/nfsd; proc3: count then one number per NFSv3 procedure 0..21; proc4ops: count then one per NFSv4 operation 0..N):"
    echo "  before:"; sed 's/^/  | /' /tmp/nfsd.before
    echo "  after:"; sed 's/^/  | /' /proc/net/rpc/nfsd
    echo "server rxe0 counters before the workload:"
    sed 's/^/  | /' /tmp/counters.before
    echo "server rxe0 counters after it:"
    sed 's/^/  | /' /tmp/counters.after
} > $TS
say "rocestat said:"
cat /tmp/rocestat.out
grep -v '^time=' /tmp/rocestat.err
cp /tmp/capture.pcap /host/capture.pcap
cp $TS /host/truth-server.txt
echo "rpc.mountd said:"; cat /tmp/mountd.log
dmesg | grep -iE 'nfsd|svcrdma|rpcrdma|nfs|rxe' | tail -n 30
finish $STATUS
