# iSER target guest (rxe-vm.sh iser), appended to job.sh after the common
# setup: LIO (target_core_mod, iscsi_target_mod, ib_isert) configured
# through configfs as targetcli would: a 16 MiB rd_mcp ramdisk as LUN 0 of
# one target, a portal on 192.0.2.1:3260 switched to iSER, demo mode (any
# initiator, no CHAP). rocestat records eth0. The target's own counts go to
# /host/truth-server.txt.
IQN=iqn.2026-11.org.rocestat:iser-sample
TS=/tmp/truth-server.txt
ctl_wait HELLO 120 || { say "no HELLO from the client"; finish 97; }
mount -t configfs none /sys/kernel/config || { say "cannot mount configfs"; finish 93; }
C=/sys/kernel/config/target
RD=$C/core/rd_mcp_0/ramdisk
T=$C/iscsi/$IQN/tpgt_1
NP=$T/np/$S_ADDR:3260
mkdir -p "$RD" && echo rd_pages=4096 > "$RD/control" && echo 1 > "$RD/enable" &&
mkdir -p "$T/lun/lun_0" && ln -s "$RD" "$T/lun/lun_0/rd0" &&
mkdir "$NP" && echo 1 > "$NP/iser" &&
echo 0 > "$T/attrib/authentication" && echo 1 > "$T/attrib/generate_node_acls" &&
echo 0 > "$T/attrib/demo_mode_write_protect" && echo 1 > "$T/attrib/cache_dynamic_acls" &&
echo 1 > "$T/enable" || { say "LIO configuration failed"; dmesg | tail -n 20; finish 92; }
say "LIO: $IQN lun 0 = rd_mcp ramdisk ($(cat "$RD/info" | tr '\n' ' ')) portal $S_ADDR:3260 iser=$(cat "$NP/iser")"
rocestat -i eth0 -w /tmp/capture.pcap >/tmp/rocestat.out 2>/tmp/rocestat.err &
CAP_PID=$!
for _ in $(seq 100); do
    grep -q capturing /tmp/rocestat.err 2>/dev/null && break
    kill -0 $CAP_PID 2>/dev/null || break
    sleep 0.1
done
kill -0 $CAP_PID 2>/dev/null || { say "rocestat capture died: $(cat /tmp/rocestat.err)"; finish 96; }
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
    echo "server LIO counts (configfs statistics, since the target was set up):"
    for f in "$RD"/statistics/scsi_lu/num_cmds "$RD"/statistics/scsi_lu/read_mbytes \
             "$RD"/statistics/scsi_lu/write_mbytes "$RD"/statistics/scsi_lu/resets \
             "$T"/lun/lun_0/statistics/scsi_tgt_port/in_cmds \
             "$T"/lun/lun_0/statistics/scsi_tgt_port/read_mbytes \
             "$T"/lun/lun_0/statistics/scsi_tgt_port/write_mbytes; do
        echo "  ${f#"$C"/}: $(cat "$f" 2>/dev/null)"
    done
    for f in "$C"/iscsi/"$IQN"/fabric_statistics/iscsi_instance/* "$C"/iscsi/"$IQN"/fabric_statistics/iscsi_tgt_attr/* \
             "$C"/iscsi/"$IQN"/fabric_statistics/iscsi_login_stats/* "$C"/iscsi/"$IQN"/fabric_statistics/iscsi_logout_stats/*; do
        [ -f "$f" ] && echo "  ${f#"$C"/}: $(cat "$f" 2>/dev/null)"
    done
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
dmesg | grep -iE 'isert|iscsi|target|rxe' | tail -n 30
finish $STATUS
