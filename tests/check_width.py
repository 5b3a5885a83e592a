#!/usr/bin/env python3
"""The text summary and the ladder fit the width they are laid out for
(make width; part of make check).

For every shared capture, at 80, 120 and 200 columns, plain and coloured:
- no line wider than the width (characters a terminal shows: colour escapes
  not counted, UTF-8 characters counted once);
- every colour escape closed on the line that opened it, and colour only on
  a problem that is there (never on a zero count);
- nothing lost to the layout: the anomaly sentences are those of the
  unlimited layout (--width 0) word for word, and every queue pair's label
  and packet count are in the table, or in its fold's count;
- --brief at 80 (and at 120 with --width 120) within 24 lines of that
  width, no number parted from its unit, escapes closed, plain and coloured
  (its lines are cut, not wrapped: check_summary.py checks the rest).
The --compare report too: each capture against a copy without its first 50
frames (editcap), at 80 and 120 columns: no line wider, the words those of
--width 0.
On a terminal (a pseudo-terminal of 100 columns), rocestat lays the summary
out for the terminal's width without being told; through a pipe, for 80.
"""
import glob
import json
import os
import pty
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, need_shared  # noqa: E402

need_shared("check_width")

ck = Checks("check_width")
ESC = re.compile(r"\x1b\[[0-9;]*m")
# A line that begins with a unit (report/format.c's), after its indent.
# A noun that names the number after it, at a line's end (report/layout.c
# keeps them together): "worst: QP" / "0x14a 239".
NOUN_END = re.compile(r"(?:^|\s)(?:QP|frames?|PSN|port|connection|REQ|REP|RTU|MRA|REJ|DREQ|DREP)$")
UNIT = re.compile(r"\s*(?:ns|µs|ms|s|B|[KMGTP]iB|[KMGT]iB/s|B/s|[kMGT]?b/s)(?:[,;:)\]]*)(?:\s|$)")


def shown(line):
    return len(ESC.sub("", line))


def run(*args):
    return subprocess.run([ROCESTAT, "-n", *args], capture_output=True, text=True).stdout


def anomaly_words(text):
    part = ESC.sub("", text).split("\nAnomalies\n", 1)
    return " ".join(part[1].split()) if len(part) == 2 else ""


def check_colours(name, text):
    for ln in text.split("\n"):
        codes = re.findall(r"\x1b\[([0-9;]*)m", ln)
        ck(name + ": escapes closed on their line", not codes or codes[-1] == "0", repr(ln[:120]))
        # A red cell holds a number that is not zero, or a state that is a problem.
        for red in re.findall(r"\x1b\[31m([^\x1b]*)\x1b\[0m", ln):
            ck(name + ": no red zero", red.strip() not in ("0", "") and not re.fullmatch(r"0+", red.strip()),
               repr(ln[:120]))


captures = sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap"))
                  + glob.glob(os.path.join(SHARED, "hw-captures", "*.pcap*"))
                  + glob.glob(os.path.join(SHARED, "public-captures", "*.pcap*")))
ck("captures found", len(captures) > 20, str(len(captures)))
# The storage protocols' sections, on the samples that have them.
captures += sorted(glob.glob(os.path.join(ROOT, "samples", "smbd_gen*.pcap")))
for cap in captures:
    base = os.path.basename(cap)
    whole = run("--width", "0", cap)
    js = subprocess.run([ROCESTAT, "-n", "--format", "json", cap], capture_output=True, text=True).stdout
    for width in (80, 120, 200):
        for colour in ("never", "always"):
            name = "%s at %d, colour %s" % (base, width, colour)
            text = run("--width", str(width), "--color", colour, cap)
            wide = [ln for ln in text.split("\n") if shown(ln) > width]
            ck(name + ": no line wider", not wide, "%d wider, e.g. %d: %r" % (
                len(wide), shown(wide[0]) if wide else 0, wide[0][:100] if wide else ""))
            ck(name + ": the anomalies word for word", anomaly_words(text) == anomaly_words(whole))
            lines = ESC.sub("", text).split("\n")
            split = [(a, b) for a, b in zip(lines, lines[1:]) if re.search(r"\d$", a) and UNIT.match(b)]
            ck(name + ": no number parted from its unit", not split, repr(split[:1]))
            named = [(a, b) for a, b in zip(lines, lines[1:]) if NOUN_END.search(a) and re.match(r"\s*(?:0x)?\d", b)]
            ck(name + ": no number parted from the noun that names it", not named, repr(named[:1]))
            if colour == "always":
                check_colours(name, text)
            else:
                # A table of many rows folds its smallest into one line
                # (check_summary.py checks its sums): those are not rows.
                table = text.split("\nQueue pairs", 1)[-1].split("\n\n", 1)[0]
                fold = re.search(r"… (\d+) more half-flows, smaller", " ".join(table.split()))
                folded = 0
                for q in json.loads(js)["qps"] if js else []:
                    label = "%s → %s 0x%x" % (q["src"], q["dst"], q["dest_qp"])
                    if q["src"].isdigit():
                        continue  # a LID: "LID n"
                    row = re.search(re.escape(label) + r"\s*\n?\s+\S+\s+(?:(?:cm|inferred|none)\s+)?(\d+)\s", table)
                    if not row and fold:
                        folded += 1
                        continue
                    ck(name + ": " + label + " packets", row and int(row.group(1)) == q["packets"],
                       "row %s, JSON %d" % (row.group(0) if row else None, q["packets"]))
                ck(name + ": the rows folded are those the fold counts", folded == (int(fold.group(1)) if fold else 0),
                   "%d missing, fold %s" % (folded, fold.group(0) if fold else None))

# --brief: one screen, whatever the capture.
for cap in captures:
    base = os.path.basename(cap)
    for width in (80, 120):
        for colour in ("never", "always"):
            name = "%s --brief at %d, colour %s" % (base, width, colour)
            text = run("--brief", "--width", str(width), "--color", colour, cap)
            lines = text.rstrip("\n").split("\n")
            ck(name + ": 24 lines at most", text.startswith(("rocestat", "\x1b[1mrocestat")) and len(lines) <= 24,
               "%d lines: %r" % (len(lines), text[:60]))
            wide = [ln for ln in lines if shown(ln) > width]
            ck(name + ": no line wider", not wide, repr(wide[:1]))
            plain = ESC.sub("", text).split("\n")
            split = [(a, b) for a, b in zip(plain, plain[1:]) if re.search(r"\d$", a) and UNIT.match(b)]
            ck(name + ": no number parted from its unit", not split, repr(split[:1]))
            named = [(a, b) for a, b in zip(plain, plain[1:]) if NOUN_END.search(a) and re.match(r"\s*(?:0x)?\d", b)]
            ck(name + ": no number parted from the noun that names it", not named, repr(named[:1]))
            if colour == "always":
                check_colours(name, text)

# The ladder too.
for cap in captures:
    base = os.path.basename(cap)
    for width in (80, 120, 200):
        text = run("--ladder", "--width", str(width), cap)
        wide = [ln for ln in text.split("\n") if shown(ln) > width]
        ck("%s ladder at %d: no line wider" % (base, width), not wide, repr(wide[:1]))

# The walkthrough too (a few frames of each capture: its layout does not
# depend on how many).
for cap in captures:
    base = os.path.basename(cap)
    for width in (80, 120):
        text = run("-V", "--frames", "1-12", "--width", str(width), cap)
        wide = [ln for ln in text.split("\n") if shown(ln) > width]
        ck("%s walkthrough at %d: no line wider" % (base, width), not wide, repr(wide[:1]))

# A path longer than a line (CI's clones sit deeper than a developer's):
# the walkthrough and --compare break it after a '/', and its last name
# too when that alone is wider than the line.
with tempfile.TemporaryDirectory() as tmp:
    deep = os.path.join(tmp, "a-directory-with-a-long-name-for-the-width-test", "and-another-one-below-it")
    os.makedirs(deep)
    src = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
    for leaf in ("loss.pcap", "x" * 100 + ".pcap"):
        link = os.path.join(deep, leaf)
        os.symlink(src, link)
        for width in (80, 120):
            text = run("-V", "--frames", "1-3", "--width", str(width), link)
            wide = [ln for ln in text.split("\n") if shown(ln) > width]
            ck("long path %d walkthrough at %d: no line wider" % (len(link), width), not wide, repr(wide[:1]))
            ck("long path %d walkthrough at %d: the path whole" % (len(link), width),
               link in re.sub(r"\n +", "", text), text[:300])
            text = run("--width", str(width), "--compare", link, link)
            wide = [ln for ln in text.split("\n") if shown(ln) > width]
            ck("long path %d compare at %d: no line wider" % (len(link), width), not wide, repr(wide[:1]))

# --compare: A against B without A's first 50 frames.
with tempfile.TemporaryDirectory() as tmp:
    for cap in captures:
        base = os.path.basename(cap)
        b = os.path.join(tmp, "b.pcapng")
        if subprocess.run(["editcap", cap, b, "1-50"], capture_output=True).returncode:
            ck("%s: editcap" % base, False)
            continue
        whole = run("--width", "0", "--compare", cap, b)
        ck("%s compare: a report" % base, whole.startswith("A: "), whole[:100])
        for width in (80, 120):
            text = run("--width", str(width), "--compare", cap, b)
            wide = [ln for ln in text.split("\n") if shown(ln) > width]
            ck("%s compare at %d: no line wider" % (base, width), not wide, "%d wider, e.g. %r" % (
                len(wide), wide[0][:100] if wide else ""))
            # A path too long for a line breaks after a '/': join it again.
            joined = re.sub(r"/\n +", "/", text)
            ck("%s compare at %d: the words of --width 0" % (base, width), joined.split() == whole.split())

# Through a pipe: 80 columns without being told.
loss = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
ck("a pipe gets 80 columns", run(loss) == run("--width", "80", loss))


def on_terminal_sized(cols, *args):
    """rocestat's standard output on a pseudo-terminal of `cols` columns
    (set by stty in the child, before rocestat starts)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv("/bin/sh", ["sh", "-c", "stty cols %d rows 50; exec \"$@\"" % cols, "sh", ROCESTAT, "-n",
                             "--color", "never", *args])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out.decode().replace("\r\n", "\n")


# The connections table names each connection's service whole at 80 and
# 120 columns: the RDMA CM port tshark reads from the REQ's Service ID
# (IBA A3.2.2: its low 16 bits), never cut to "…".
for cap in sorted(glob.glob(os.path.join(ROOT, "samples", "*.pcap"))):
    ports = subprocess.run(["tshark", "-r", cap, "-Y", "infiniband.cm.req", "-T", "fields", "-e",
                            "infiniband.cm.req.serviceid.dport"], capture_output=True, text=True).stdout.split()
    if not ports:
        continue
    want = sorted(set(int(p, 0) for p in ports))
    for width in (80, 120):
        text = run("--width", str(width), "--color", "never", cap)
        table = text.split("\nConnections (CM)\n", 1)[-1].split("\n\n", 1)[0].split("\n")
        rows = [ln for ln in table if re.match(r"  \d+\s", ln)]
        got = [p for p in want if any(re.search(r"\s%d\s" % p, ln) for ln in rows)]
        ck("%s at %d: every service's port whole in the connections table" % (os.path.basename(cap), width),
           rows and all("…" not in ln for ln in rows) and got == want, "want %s, rows %s" % (want, rows[:3]))

term = on_terminal_sized(100, loss)
ck("a terminal of 100 columns gets 100", term == run("--width", "100", "--color", "never", loss),
   "first lines: %r" % term[:200])
term = on_terminal_sized(60, loss)
ck("a terminal under 80 columns gets 80", term == run("--width", "80", "--color", "never", loss))
term = on_terminal_sized(80, "-V", "--frames", "40-50", loss)
ck("the walkthrough on a terminal of 80 columns gets 80",
   term == run("-V", "--frames", "40-50", "--width", "80", "--color", "never", loss) and
   max(shown(ln) for ln in term.split("\n")) <= 80, "first lines: %r" % term[:200])

print("check_width: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
