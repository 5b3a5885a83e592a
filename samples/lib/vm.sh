# shellcheck shell=bash disable=SC2034  # variables used by the scripts sourcing this
# Host side of the two-guest Soft-RoCE lab used by samples/rxe-vm.sh and
# tests/vm_e2e.sh. Sourced, not run.
#
# Plan: a Debian kernel (which has rdma_rxe, unlike the hosts we run on) boots
# twice under TCG from one initramfs (busybox, rdma-core, rocegen, rocestat).
# The guests share one Ethernet segment made of a QEMU socket netdev on
# 127.0.0.1 and nothing else: no user-mode networking, no host tap.
# Each guest gets a 9p share (its job script in, capture and ground truth out)
# and a second serial port joined to the other guest's, used only for
# "server is listening" / "client is done" so that no control traffic
# appears on the captured wire.

VM_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SAMPLES_DIR=$(dirname "$VM_LIB_DIR")
PROJECT_DIR=$(dirname "$SAMPLES_DIR")
VM_CACHE=${ROCEGEN_CACHE:-$SAMPLES_DIR/.cache}
VM_MEM=${ROCEGEN_VM_MEM:-512}
VM_TIMEOUT=${ROCEGEN_VM_TIMEOUT:-240}

# Addressing plan shared with the reference captures in shared/captures.
SERVER_IP4=192.0.2.1  CLIENT_IP4=192.0.2.2
SERVER_IP6=2001:db8::1 CLIENT_IP6=2001:db8::2
SERVER_MAC=52:54:00:00:02:01 CLIENT_MAC=52:54:00:00:02:02

vm_log() { echo "[rxe-vm $(date +%T)] $*" >&2; }
vm_die() { echo "rxe-vm: error: $*" >&2; exit 1; }

# Install what a fresh Debian 12 lacks. Only Debian packages, only if missing.
vm_need_packages() {
    local want=(qemu-system-x86 busybox-static ibverbs-providers libibverbs-dev
                librdmacm-dev libpcap-dev libglib2.0-dev pkg-config gcc make
                iproute2 python3)
    local missing=() p
    for p in "${want[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    vm_log "installing ${missing[*]}"
    [ "$(id -u)" = 0 ] || vm_die "need root to apt-get install ${missing[*]}"
    apt-get update -qq >&2 || vm_die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 ||
        vm_die "apt-get install ${missing[*]} failed"
}

# The kernel package: ROCEGEN_KERNEL_PKG, else whatever linux-image-amd64
# currently depends on (it moves with Debian point releases).
vm_kernel_pkg() {
    if [ -n "${ROCEGEN_KERNEL_PKG:-}" ]; then echo "$ROCEGEN_KERNEL_PKG"; return; fi
    local pkg
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
          awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    if [ -z "$pkg" ]; then
        apt-get update -qq >&2
        pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
              awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    fi
    [ -n "$pkg" ] || vm_die "cannot find the linux-image-amd64 dependency (apt-get update?)"
    echo "$pkg"
}

# Sets KVER, KDIR (unpacked package) and VMLINUZ.
vm_fetch_kernel() {
    local pkg deb
    pkg=$(vm_kernel_pkg)
    KVER=${pkg#linux-image-}
    KDIR=$VM_CACHE/$pkg
    VMLINUZ=$KDIR/boot/vmlinuz-$KVER
    [ -f "$VMLINUZ" ] && [ -f "$KDIR/lib/modules/$KVER/modules.dep" ] && return 0
    mkdir -p "$VM_CACHE"
    # (|| true: under pipefail a failing ls would end the caller silently)
    deb=$(ls "$VM_CACHE"/"${pkg}"_*.deb 2>/dev/null | head -n1 || true)
    if [ -z "$deb" ]; then
        vm_log "downloading $pkg"
        # apt's sandbox user cannot write into a root-owned work tree.
        (cd "$VM_CACHE" && apt-get download -o APT::Sandbox::User=root "$pkg" >&2) ||
            vm_die "apt-get download $pkg failed"
        deb=$(ls "$VM_CACHE"/"${pkg}"_*.deb 2>/dev/null | head -n1 || true)
        [ -n "$deb" ] || vm_die "apt-get download $pkg left no .deb in $VM_CACHE"
    fi
    rm -rf "$KDIR" && mkdir -p "$KDIR"
    dpkg-deb -x "$deb" "$KDIR" || vm_die "cannot unpack $deb"
    # The package ships no modules.dep: depmod runs at install time.
    busybox depmod -b "$KDIR" "$KVER" || vm_die "depmod failed"
}

# Print the modules needed for $* (paths relative to lib/modules/KVER), each
# after everything it depends on, from modules.dep.
vm_module_order() {
    local dep=$KDIR/lib/modules/$KVER/modules.dep
    awk -v want="$*" '
        { sub(":", "", $1); deps[$1] = ""; for (i = 2; i <= NF; i++) deps[$1] = deps[$1] " " $i
          n = split($1, p, "/"); name = p[n]; sub(/\.ko.*$/, "", name); path[name] = $1 }
        function visit(m,   d, k, i) {
            if (m in done) return
            done[m] = 1
            k = split(deps[m], d, " ")
            for (i = 1; i <= k; i++) visit(d[i])
            print m
        }
        END {
            n = split(want, w, " ")
            for (i = 1; i <= n; i++) {
                if (!(w[i] in path)) { print "missing module " w[i] > "/dev/stderr"; exit 1 }
                visit(path[w[i]])
            }
        }' "$dep"
}

# Copy a program and every shared object ldd names into the staging root.
vm_copy_with_libs() {
    local root=$1 f lib
    shift
    for f in "$@"; do
        mkdir -p "$root$(dirname "$f")"
        cp -L "$f" "$root$f"
        for lib in $(ldd "$f" 2>/dev/null | awk '/=> \// {print $3} /^\t\/lib/ {print $1}'); do
            [ -e "$root$lib" ] && continue
            mkdir -p "$root$(dirname "$lib")"
            cp -L "$lib" "$root$lib"
        done
    done
}

# rdma_rxe asks the crypto API for "crc32" (the ICRC) at run time, which
# modules.dep cannot know about, so crc32_generic is named explicitly.
# veth: rxe-host.sh run inside one guest (rxe-vm.sh --host).
# sch_netem: rxe-vm.sh --netem-server/--netem-client.
VM_MODULES="virtio_pci virtio_net 9p 9pnet_virtio crc32_generic rdma_rxe rdma_ucm ib_uverbs veth sch_netem"

# Build (or reuse) the initramfs; sets INITRD. Rebuilt when a binary changes.
vm_build_initramfs() {
    local rocegen=$1 rocestat=$2 root stamp multiarch provider
    multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
    provider=/usr/lib/$multiarch/libibverbs/librxe-rdmav34.so
    [ -f "$provider" ] ||
        provider=$(ls /usr/lib/"$multiarch"/libibverbs/librxe-rdmav*.so 2>/dev/null | head -n1 || true)
    [ -f "$provider" ] || vm_die "no rxe provider for libibverbs (package ibverbs-providers)"
    stamp=$( (cat "$rocegen" "$VM_LIB_DIR/guest-init.sh" "$provider"
              [ -n "$rocestat" ] && cat "$rocestat"
              echo "$KVER $VM_MODULES ${ROCEGEN_VM_EXTRA:-}") | md5sum | cut -c1-12)
    INITRD=$VM_CACHE/initramfs-$KVER-$stamp.cpio.gz
    [ -f "$INITRD" ] && return 0
    vm_log "building initramfs $(basename "$INITRD")"
    root=$(mktemp -d "$VM_CACHE/initramfs.XXXXXX")
    mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,host,lib/modules,usr/bin}
    cp /bin/busybox "$root/bin/busybox"
    cp "$VM_LIB_DIR/guest-init.sh" "$root/init" && chmod 755 "$root/init"
    local ko order=()
    mapfile -t order < <(vm_module_order $VM_MODULES) || vm_die "module list"
    local mdir=lib/modules/$KVER
    for ko in "${order[@]}"; do
        mkdir -p "$root/$mdir/$(dirname "$ko")"
        cp "$KDIR/$mdir/$ko" "$root/$mdir/$ko"
    done
    # Keep the usual layout so the kernel's own request_module (busybox
    # modprobe) finds whatever it is asked for among the copied modules.
    cp "$KDIR/$mdir/modules.dep" "$root/$mdir/"
    printf '%s\n' "${order[@]}" > "$root/lib/modules/load.order"
    local progs=("$provider" /usr/bin/rdma /usr/bin/ip /usr/sbin/tc)
    command -v ibv_devinfo >/dev/null && progs+=("$(command -v ibv_devinfo)")
    # Extra host programs for debugging, e.g. ROCEGEN_VM_EXTRA=/usr/bin/rping
    local extra
    for extra in ${ROCEGEN_VM_EXTRA:-}; do progs+=("$extra"); done
    vm_copy_with_libs "$root" "${progs[@]}"
    install -m 755 "$rocegen" "$root/usr/bin/rocegen"
    vm_copy_with_libs "$root" "$rocegen"
    rm -f "$root$rocegen"
    if [ -n "$rocestat" ]; then
        install -m 755 "$rocestat" "$root/usr/bin/rocestat"
        vm_copy_with_libs "$root" "$rocestat"
        rm -f "$root$rocestat"
    fi
    mkdir -p "$root/etc/libibverbs.d"
    echo "driver rxe" > "$root/etc/libibverbs.d/rxe.driver"
    echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
    (cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$INITRD.tmp" ||
        vm_die "cpio failed"
    mv "$INITRD.tmp" "$INITRD"
    rm -rf "$root"
}

# A TCP port on 127.0.0.1 that nothing listens on right now.
vm_free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 30000))
        ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return 0; }
    done
    vm_die "no free port"
}

# Wait until something listens on 127.0.0.1:$1 (QEMU has set up its sockets).
vm_wait_listen() {
    local port=$1 pid=$2
    for _ in $(seq 200); do
        ss -Hltn "sport = :$port" | grep -q . && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

VM_PIDS=()
vm_kill_all() {
    local pid
    for pid in "${VM_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${VM_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
    VM_PIDS=()
}

# vm_start ROLE SHAREDIR NETPORT CTLPORT [extra qemu args...]; sets VM_LAST_PID.
# The server listens on both sockets; the client connects.
vm_start() {
    local role=$1 share=$2 netport=$3 ctlport=$4 mac net ctl
    shift 4
    if [ "$role" = server ]; then
        mac=$SERVER_MAC
        net="socket,id=n0,listen=127.0.0.1:$netport"
        ctl="socket,id=ctl,host=127.0.0.1,port=$ctlport,server=on,wait=off"
    else
        mac=$CLIENT_MAC
        net="socket,id=n0,connect=127.0.0.1:$netport"
        ctl="socket,id=ctl,host=127.0.0.1,port=$ctlport,server=off"
    fi
    qemu-system-x86_64 -accel tcg -m "$VM_MEM" -smp 1 -nodefaults -no-reboot \
        -display none -monitor none \
        -kernel "$VMLINUZ" -initrd "$INITRD" \
        -append "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init" \
        -chardev "file,id=con,path=$share/console.log" -serial chardev:con \
        -chardev "$ctl" -serial chardev:ctl \
        -netdev "$net" -device "virtio-net-pci,netdev=n0,mac=$mac" \
        -fsdev "local,id=fs0,path=$share,security_model=none" \
        -device virtio-9p-pci,fsdev=fs0,mount_tag=host \
        "$@" > "$share/qemu.out" 2>&1 &
    VM_LAST_PID=$!
    VM_PIDS+=("$VM_LAST_PID")
}
