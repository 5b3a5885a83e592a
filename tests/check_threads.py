#!/usr/bin/env python3
"""The two-thread pipeline (cli/pipeline.c) against one thread: rocestat -j 2
must write what rocestat -j 1 writes, byte for byte (standard output,
standard error, exit status, the --timeline CSV and the --plot SVG), on
every capture of ../shared and on inputs made here to take the paths where
timing could show: many batches and events, a read error mid-file (the
frames before it kept), records longer than the snapshot length (a warning
after the frames), an input that cannot be opened among others, a bad
filter, -c ending mid-batch, --frames, --since/--until, --fields (another
sink that takes batches), standard input, and a pipe; the sinks that read
each frame's bytes (-V, --annotate, -r ... -w: the written file compared
too, and a write that fails), with frames big enough to fill a batch's
room before its count. Then SIGINT and
SIGTERM in the middle of a pipe that stays open: the run reports what was
read, with either number of threads.

    ROCESTAT=./rocestat python3 tests/check_threads.py

Run by `make threads` (part of `make check`, and of `make tsan` against the
ThreadSanitizer build). Exit status 0 when every case holds.
"""
import glob
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "hostile"))
import gen  # noqa: E402

ROCESTAT = os.environ.get("ROCESTAT", os.path.join(ROOT, "rocestat"))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import need_shared  # noqa: E402

need_shared("check_threads")
TIMEOUT = float(os.environ.get("CHECK_THREADS_TIMEOUT", "120"))

failures = 0
cases = 0


def fail(msg):
    global failures
    failures += 1
    print("check_threads: FAIL: " + msg)


def run(jobs, args, tmp, stdin=None):
    """(stdout, stderr, status, timeline, plot, written) of one run: OUT in
    args names a file the run writes (-w, --annotate), and `written` holds
    its bytes."""
    outs = {}
    extra = []
    if "TL" in args:
        args = [a for a in args if a != "TL"]
        extra = ["--timeline", os.path.join(tmp, "tl.csv"), "--plot", os.path.join(tmp, "plot.svg")]
    out_path = None
    for i, a in enumerate(args):
        if a.startswith("OUT."):
            out_path = os.path.join(tmp, a)
            args = args[:i] + [out_path] + args[i + 1:]
    r = subprocess.run([ROCESTAT, "-j", str(jobs)] + extra + args, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    written = None
    if out_path and os.path.exists(out_path):
        written = open(out_path, "rb").read()
        os.unlink(out_path)
    for name in ("tl.csv", "plot.svg"):
        path = os.path.join(tmp, name)
        outs[name] = open(path, "rb").read() if os.path.exists(path) else None
        if os.path.exists(path):
            os.unlink(path)
    return r.stdout, r.stderr, r.returncode, outs["tl.csv"], outs["plot.svg"], written


def same(label, args, tmp, stdin_path=None):
    global cases
    cases += 1
    got = []
    for jobs in (1, 2):
        fh = open(stdin_path, "rb") if stdin_path else None
        try:
            got.append(run(jobs, args, tmp, stdin=fh))
        finally:
            if fh:
                fh.close()
    if got[0] != got[1]:
        what = [n for n, a, b in zip(("stdout", "stderr", "status", "timeline", "plot", "written file"), got[0], got[1]) if a != b]
        fail("%s: -j 2 differs from -j 1 in %s (rocestat %s)" % (label, ", ".join(what), " ".join(args)))
    if got[0][2] not in (0, 1, 2, 3):
        fail("%s: exit status %d" % (label, got[0][2]))
    return got[0]


ARGS = [
    [],
    ["--format", "json"],
    ["--fields"],
    ["-c", "1"],
    ["-c", "300"],
    ["--frames", "50-700"],
    ["--since", "0.0005", "--until", "0.02"],
    ["TL", "--interval", "1ms", "-o", os.devnull],
    ["--max-flows", "4", "--format", "json"],
    ["--ladder"],
]

# Sinks that read every frame's bytes (they take frames one by one): in two
# threads each frame's bytes travel with it, and a batch is posted early
# when they fill its room (the jumbo input below).
BYTES_ARGS = [
    ["-V"],
    ["-V", "--qp", "0x12", "--frames", "3-900"],
    ["--annotate", "OUT.pcapng"],
    ["-r", "-", "-w", "OUT.pcap"],
    ["-r", "-", "-w", "OUT.pcap", "--qp", "0x11"],
    ["-r", "-", "-w", "OUT.pcap", "--since", "0.0005", "-c", "700"],
    ["-r", "-", "-w", "OUT.pcap", "--format", "json"],
    ["-r", "-", "-w", "/dev/full"],
    # More than a slot's bytes read and left out before the window opens.
    ["-r", "-", "-w", "OUT.pcap", "--since", "4"],
    ["--annotate", "OUT.pcapng", "--until", "3"],
    ["--compare", "IN", "IN"],
    ["--compare", "--since", "4", "IN", "IN"],
]


def bytes_args(args, path):
    """args with the input in place of IN, or of "-" after -r, else appended."""
    if "IN" in args:
        return [path if a == "IN" else a for a in args]
    if "-r" in args:
        return [path if a == "-" else a for a in args]
    return args + [path]


def made_inputs(tmp):
    """Captures made here: {name: path}."""
    paths = {}
    # Many batches: 2000 three-packet messages with their ACKs.
    many = gen.pcap(gen.rc_write_stream(2000, 3))
    paths["many"] = os.path.join(tmp, "many.pcap")
    open(paths["many"], "wb").write(many)
    # Cut mid-record: a read error after thousands of frames.
    paths["cut"] = os.path.join(tmp, "cut.pcap")
    open(paths["cut"], "wb").write(many[:len(many) * 2 // 3 + 7])
    # Records longer than the header's snapshot length: a warning after the frames.
    frames = gen.rc_write_stream(600, 2)
    over = bytearray(gen.pcap(frames))
    over[16:20] = (100).to_bytes(4, "little")
    paths["over"] = os.path.join(tmp, "over.pcap")
    open(paths["over"], "wb").write(bytes(over))
    # pcapng: libpcap reads it, not the chunked reader.
    paths["ng"] = os.path.join(tmp, "many.pcapng")
    open(paths["ng"], "wb").write(gen.pcapng(gen.rc_write_stream(700, 3)))
    # Jumbo frames (8 KiB MTU): a batch's bytes fill its room long before
    # it holds its 256 frames.
    paths["jumbo"] = os.path.join(tmp, "jumbo.pcap")
    open(paths["jumbo"], "wb").write(gen.pcap(gen.rc_write_stream(400, 3, mtu=8192)))
    paths["junk"] = os.path.join(tmp, "junk.pcap")
    open(paths["junk"], "wb").write(b"not a capture at all\n")
    return paths


def fifo_writer(fifo, stream):
    """Make the FIFO and write `stream` into it from a thread that keeps it
    open until the returned event is set: (event, thread)."""
    os.mkfifo(fifo)
    release = threading.Event()

    def writer():
        try:
            with open(fifo, "wb") as f:
                f.write(stream)
                f.flush()
                release.wait(60)
        except BrokenPipeError:
            pass
    w = threading.Thread(target=writer, daemon=True)
    w.start()
    return release, w


def pipe_interrupted(tmp, sig, args, ng=False):
    """rocestat -j N reading a pipe that stays open, stopped by `sig` once
    the frames have been written: what was read is reported. `ng`: the
    stream in pcapng (rocestat's own reader), else pcap (libpcap's)."""
    global cases
    frames = gen.rc_write_stream(300, 2)
    stream = gen.pcapng(frames) if ng else gen.pcap(frames)
    for jobs in (1, 2):
        cases += 1
        fifo = os.path.join(tmp, "in-%d-%d%s.fifo" % (jobs, sig, "-ng" if ng else ""))
        release, w = fifo_writer(fifo, stream)
        # Standard output into a file, which never makes a write wait: so
        # every frame has been read when the signal comes. (Into a pipe
        # nobody reads, the output would hold up the reading once the pipe
        # is full, and the signal would end the run with frames unread.)
        out_path = os.path.join(tmp, "out-%d-%d" % (jobs, sig))
        with open(out_path, "wb") as out_f:
            p = subprocess.Popen([ROCESTAT, "-n", "-j", str(jobs)] + args + [fifo], stdout=out_f,
                                 stderr=subprocess.PIPE)
            time.sleep(0.5)
            p.send_signal(sig)
            try:
                _, err = p.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
                fail("-j %d, signal %d on a pipe: still running a minute later" % (jobs, sig))
        out = open(out_path, "rb").read()
        release.set()
        w.join(5)
        os.unlink(fifo)
        label = "-j %d %s, signal %d on a %s pipe" % (jobs, " ".join(args), sig, "pcapng" if ng else "pcap")
        if p.returncode != 0 or err != b"rocestat: interrupted; reporting what was read\n":
            fail("%s: exit %d, stderr %r" % (label, p.returncode, err[:200]))
        if "--fields" in args:
            if out.count(b"\n") != 1 + 900:  # header, 300 messages of two packets and an ACK
                fail("%s: %d lines" % (label, out.count(b"\n")))
        elif json.loads(out)["capture"]["frames"] != 900:
            fail("%s: %d frames" % (label, json.loads(out)["capture"]["frames"]))


def pipe_streams(tmp, args, want, ng=False):
    """rocestat -j N ARGS reading a pipe that stays open after some frames:
    the output for them comes while the pipe is still open (a view of
    tcpdump -U -w - | rocestat -r -, or dumpcap -w - in pcapng, `ng`), not
    when it closes. want(out): the output holds them all."""
    global cases
    frames = gen.rc_write_stream(5, 2)
    stream = gen.pcapng(frames) if ng else gen.pcap(frames)
    for jobs in (1, 2):
        cases += 1
        fifo = os.path.join(tmp, "stream-%d%s.fifo" % (jobs, "-ng" if ng else ""))
        release, w = fifo_writer(fifo, stream)
        p = subprocess.Popen([ROCESTAT, "-n", "-j", str(jobs)] + args + ["-r", fifo], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        out = b""
        deadline = time.monotonic() + 10
        while not want(out) and time.monotonic() < deadline:
            ready, _, _ = select.select([p.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
        label = "-j %d %s from a %s pipe kept open" % (jobs, " ".join(args), "pcapng" if ng else "pcap")
        if not want(out):
            fail("%s: the frames written so far not shown within 10 s (%d bytes: %r)" % (label, len(out), out[-120:]))
        release.set()
        try:
            p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            fail("%s: still running a minute after the pipe closed" % label)
        w.join(5)
        os.unlink(fifo)


def main():
    with tempfile.TemporaryDirectory(prefix="rocestat-threads.") as tmp:
        files = sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap")) +
                       glob.glob(os.path.join(SHARED, "hw-captures", "*")) +
                       glob.glob(os.path.join(SHARED, "public-captures", "*")))
        if len(files) < 10:
            fail("only %d captures in %s" % (len(files), SHARED))
        for f in files:
            for args in ARGS:
                same(os.path.basename(f), args + [f], tmp)
        m = made_inputs(tmp)
        for f in files[:6] + [m["many"], m["jumbo"], m["cut"], m["ng"]]:
            for args in BYTES_ARGS:
                got = same(os.path.basename(f), bytes_args(args, f), tmp)
                if "/dev/full" in args and (got[2] != 3 or b"/dev/full" not in got[1]):
                    fail("-w /dev/full: exit %d, stderr %r" % (got[2], got[1][:200]))
        # The frames written are the input's (framecmp.py reads both
        # files with code of its own; -w writes nanosecond timestamps).
        out = os.path.join(tmp, "jumbo-out.pcap")
        subprocess.run([ROCESTAT, "-j", "2", "-r", m["jumbo"], "-w", out], timeout=TIMEOUT)
        cmp = subprocess.run([sys.executable, os.path.join(HERE, "framecmp.py"), "all", m["jumbo"], out],
                             stderr=subprocess.PIPE, timeout=TIMEOUT)
        if cmp.returncode != 0:
            fail("-j 2 -r jumbo.pcap -w: not the input's frames: %r" % cmp.stderr[:200])
        for name in ("many", "cut", "over", "ng"):
            for args in ARGS + [["--qp", "0x12", "--format", "json"]]:
                same(name, args + [m[name]], tmp)
            same(name + " filtered", ["--format", "json", m[name], "udp dst port 4791 and ip[1] & 3 = 0"], tmp)
        cut = same("cut", [m["cut"]], tmp)
        if cut[2] != 3 or b"the frames before it were analysed" not in cut[1]:
            fail("cut mid-record: exit %d, stderr %r" % (cut[2], cut[1][:200]))
        # -c stops at the count-th frame: a read error a few frames after it
        # is not reached (the summary once read 7 frames ahead and reported it).
        frames = json.loads(run(1, ["--format", "json", m["cut"]], tmp)[0])["capture"]["frames"]
        for args in (["--format", "json"], ["--fields"]):
            short = same("cut, -c short of the error", args + ["-c", str(frames - 3), m["cut"]], tmp)
            if short[1:3] != (b"", 0):
                fail("-c %d %s: exit %d, stderr %r" % (frames - 3, " ".join(args), short[2], short[1][:200]))
        several = [m["many"], m["junk"], m["cut"], m["over"]] + files[:4]
        for args in ([], ["--format", "json"], ["--fields"], ["-c", "5000"], ["TL", "-o", os.devnull]):
            same("several files", args + several, tmp)
        bad = same("bad filter", [m["many"], m["cut"], "not a filter ((("], tmp)
        if bad[2] != 2:
            fail("bad filter: exit %d" % bad[2])
        for args in ([], ["--fields"], ["-c", "77", "--format", "json"]):
            same("standard input", args + ["-r", "-"], tmp, stdin_path=m["many"])
        for sig in (signal.SIGINT, signal.SIGTERM):
            pipe_interrupted(tmp, sig, ["--format", "json"])
        pipe_interrupted(tmp, signal.SIGINT, ["--fields"])
        pipe_interrupted(tmp, signal.SIGINT, ["--fields"], ng=True)
        pipe_interrupted(tmp, signal.SIGTERM, ["--format", "json"], ng=True)
        # rc_write_stream(5, 2): 5 messages of two packets and an ACK each.
        pipe_streams(tmp, ["--fields"], lambda out: out.count(b"\n") >= 1 + 15)
        pipe_streams(tmp, ["-V"], lambda out: b"Frame 15 " in out)
        pipe_streams(tmp, ["--fields"], lambda out: out.count(b"\n") >= 1 + 15, ng=True)
    print("check_threads: %d cases, %d failed" % (cases, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
