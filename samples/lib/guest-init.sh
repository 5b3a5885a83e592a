#!/bin/busybox sh
# /init of the rocegen test guests (see samples/lib/vm.sh).
#
# The same initramfs boots both guests. Everything that differs between them
# (role, addresses, the commands to run) comes from /host/job.sh on the 9p
# share that the host prepared, so the initramfs only changes when a binary does.
/bin/busybox mkdir -p /proc /sys /dev /tmp /host /run /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
# Real iproute2 ip/rdma in /usr/bin win over busybox applets.
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp

# Timestamped progress lines; the host greps for "### RESULT".
say() { echo "### [$ROLE t=$(cut -d' ' -f1 /proc/uptime)s] $*"; }
ROLE=guest

# Modules in dependency order, computed on the host from modules.dep.
while read -r ko; do
    insmod "/lib/modules/$(uname -r)/$ko" || echo "insmod $ko failed"
done < /lib/modules/load.order

if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /host; then
    echo "### RESULT status=99 cannot mount the 9p share"
    poweroff -f
fi
# shellcheck disable=SC1091
. /host/job.sh
