# NVMe-oF host guest (rxe-vm.sh nvme), appended to job.sh after the common
# setup: nvme discover, nvme connect, direct I/O of known sizes with dd on
# the namespace, nvme disconnect. What it did goes to /host/truth.txt:
# each step, nvme-cli's output, and the block layer's own counts of the
# namespace (/sys/block/nvme0n1/stat: read and write requests completed
# and sectors, the commands the kernel sent, its own reads included).
NQN=nqn.2026-11.org.rocestat:nvme-sample
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000002
T=/tmp/truth.txt
step() { echo "step $*" >> $T; say "$*"; }
ctl_wait READY 150 HELLO || { say "no READY from the server"; finish 97; }
: > $T
step "nvme discover -t rdma -a $S_ADDR -s 4420"
nvme discover -t rdma -a "$S_ADDR" -s 4420 -q "$HOSTNQN" > /tmp/out.txt 2>&1; echo "status $?" >> $T
sed 's/^/  | /' /tmp/out.txt >> $T
step "nvme connect -t rdma -a $S_ADDR -s 4420 -n $NQN -i 1"
nvme connect -t rdma -a "$S_ADDR" -s 4420 -n "$NQN" -q "$HOSTNQN" -i 1 > /tmp/out.txt 2>&1; echo "status $?" >> $T
sed 's/^/  | /' /tmp/out.txt >> $T
for _ in $(seq 50); do [ -b /dev/nvme0n1 ] && break; sleep 0.2; done
[ -b /dev/nvme0n1 ] || { say "no /dev/nvme0n1"; cat $T; cp $T /host/truth.txt; ctl_send DONE; finish 90; }
sleep 1  # the kernel's own reads (partition table) first
# The multipath head (nvme0n1) counts nothing by default; the path device
# under the controller (nvme0c0n1) counts every request from the start.
echo 1 > /sys/block/nvme0n1/queue/iostats
pathstat() { cat /sys/class/nvme/nvme0/nvme0c*n1/stat 2>/dev/null || echo none; }
echo "path-stat-before $(pathstat)" >> $T
echo "stat-before $(cat /sys/block/nvme0n1/stat)" >> $T
io() { step "dd $*"; dd "$@" 2>> $T; echo "status $?" >> $T; }
io if=/dev/urandom of=/dev/nvme0n1 bs=4096 count=4 seek=16 oflag=direct
io if=/dev/urandom of=/dev/nvme0n1 bs=16384 count=2 seek=8 oflag=direct
io if=/dev/nvme0n1 of=/dev/null bs=8192 count=2 skip=32 iflag=direct
io if=/dev/nvme0n1 of=/dev/null bs=65536 count=1 skip=4 iflag=direct
echo "stat-after $(cat /sys/block/nvme0n1/stat)" >> $T
echo "path-stat-after $(pathstat)" >> $T
echo "# stat fields (Documentation/block/stat.rst): read I/Os, read merges, read sectors, read ticks, write I/Os, write merges, write sectors, ..." >> $T
step "nvme list"
nvme list > /tmp/out.txt 2>&1; sed 's/^/  | /' /tmp/out.txt >> $T
step "nvme disconnect -n $NQN"
nvme disconnect -n "$NQN" > /tmp/out.txt 2>&1; echo "status $?" >> $T
sed 's/^/  | /' /tmp/out.txt >> $T
sleep 0.5
ctl_send DONE
cat $T
cp $T /host/truth.txt
dmesg | grep -iE 'nvme|rxe' | tail -n 20
finish 0
