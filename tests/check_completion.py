#!/usr/bin/env python3
"""The bash completion (completion/rocestat) offers what rocestat accepts.

bash runs the completion function as readline would, with COMP_WORDS and
COMP_CWORD set, and its answers are held to sources outside the file:

- the options are those `rocestat --help` lists, no more and no fewer, and
  an option takes a value in the completion (offered as --opt=, the word
  after it completed as its value, never as an option) exactly when --help
  shows it with =VALUE: an option added to rocestat and not here fails;
- the values of --format and --color are those rocestat's error for a wrong
  value names;
- -e offers the header of --fields --verdicts on the capture named, --expect
  the names --expect-names lists (but the qp(N) ones);
- after --, no option; files, directories and interfaces where a path or an
  interface goes, in the short, long, --opt=value and clustered (-nr) forms.

    ROCESTAT=./rocestat python3 tests/check_completion.py [--installed]

--installed: the completion is not sourced from the tree but loaded as a
user's shell loads it, by bash-completion's loader from where the package
(or make install PREFIX=/usr) put it. Exit status 0 when every check holds,
1 otherwise.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, Checks  # noqa: E402

ck = Checks("check_completion")
INSTALLED = "--installed" in sys.argv[1:]
COMPLETION = os.environ.get("COMPLETION", os.path.join(ROOT, "completion", "rocestat"))
SAMPLE = os.path.join(ROOT, "samples", "rping_s64.pcap")
LOADER = "/usr/share/bash-completion/bash_completion"
MARK = "@@reply"


def help_options():
    """[(short or None, long, takes_value)] from rocestat --help."""
    out = subprocess.run([ROCESTAT, "--help"], capture_output=True, text=True).stdout
    opts = []
    for line in out.splitlines():
        m = re.match(r"\s+(?:-(\w), )?(--[\w-]+)(=\S+)?(?:\s|$)", line)
        if m:
            opts.append((m.group(1), m.group(2), m.group(3) is not None))
    return opts


def refused_values(option):
    """The values rocestat's refusal of a wrong one names ("expected a, b or c")."""
    p = subprocess.run([ROCESTAT, option, "no-such-value", SAMPLE], capture_output=True, text=True)
    m = re.search(r"expected (.+)$", p.stderr.strip())
    if p.returncode != 2 or not m:
        return None
    return set(re.split(r", | or ", m.group(1)))


def complete(cases, cwd):
    """Run the completion on each list of words (the last is the one being
    completed); returns (output of `complete -p rocestat`, [replies])."""
    if INSTALLED:
        load = "source %s; _completion_loader rocestat" % shlex.quote(LOADER)
    else:
        load = "source %s" % shlex.quote(COMPLETION)
    script = [load, "complete -p rocestat || echo 'no completion for rocestat'"]
    for words in cases:
        script.append("COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=%s; COMP_POINT=${#COMP_LINE}"
                      % (" ".join(shlex.quote(w) for w in words), len(words) - 1, shlex.quote(" ".join(words))))
        script.append("COMPREPLY=(); _rocestat rocestat %s %s; echo %s; printf '%%s\\n' \"${COMPREPLY[@]}\""
                      % (shlex.quote(words[-1]), shlex.quote(words[-2]), MARK))
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(ROCESTAT)) + os.pathsep + os.environ["PATH"])
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", "\n".join(script)],
                       capture_output=True, text=True, cwd=cwd, env=env)
    parts = p.stdout.split(MARK + "\n")
    replies = [[w for w in part.split("\n") if w] for part in parts[1:]]
    if len(replies) != len(cases):
        print("check_completion: bash answered %d of %d cases: %s" % (len(replies), len(cases), p.stderr[-2000:]))
        sys.exit(1)
    return parts[0].strip(), replies


def main():
    opts = help_options()
    # --help's layout is what this test reads: a layout it no longer reads
    # must fail here, not make every comparison below vacuous.
    if not ck("rocestat --help lists its options as this test reads them",
              len(opts) > 40 and ("r", "--read", True) in opts and ("h", "--help", False) in opts,
              "read %d options" % len(opts)):
        return 1
    want = set()
    for short, long, arg in opts:
        want.add(long + "=" if arg else long)
        if short:
            want.add("-" + short)

    work = tempfile.mkdtemp()
    empty = os.path.join(work, "empty")
    files = os.path.join(work, "files")
    os.makedirs(empty)
    os.makedirs(os.path.join(files, "subdir"))
    open(os.path.join(files, "cap one.pcap"), "w").close()
    open(os.path.join(files, "cap two.pcapng"), "w").close()

    # In an empty directory: the word after an option that takes a value is
    # that value, never an option; after a flag, "-" completes options.
    forms = []
    for short, long, arg in opts:
        forms.append((long, arg))
        if short:
            forms.append(("-" + short, arg))
    head, replies = complete([["rocestat", "-"], ["rocestat", "--fo"], ["rocestat", "--", "-"]]
                             + [["rocestat", f, "-"] for f, _ in forms], empty)
    if INSTALLED:
        ck("bash-completion's loader finds the installed completion", head == "complete -F _rocestat rocestat", head)
    else:
        ck("sourcing %s defines the completion" % COMPLETION, head == "complete -F _rocestat rocestat", head)
    got = set(replies[0])
    ck("rocestat -<TAB> offers every option of --help (a value-taking one as --opt=)",
       not (want - got), "missing: " + " ".join(sorted(want - got)))
    ck("rocestat -<TAB> offers no option --help does not list",
       not (got - want), "extra: " + " ".join(sorted(got - want)))
    ck("rocestat --fo<TAB> completes --format=", replies[1] == ["--format="], repr(replies[1]))
    ck("after --, no word is completed as an option", replies[2] == [], repr(replies[2]))
    for (form, arg), reply in zip(forms, replies[3:]):
        if arg:
            ck("the word after %s is its value, not an option" % form, reply == [], repr(reply[:5]))
        else:
            ck("after the flag %s, - completes options" % form, "--help" in reply, repr(reply[:5]))

    cases = []
    expect = []
    for option in ("--format", "--color"):
        values = refused_values(option)
        ck("rocestat names the values of %s when refusing one" % option, values, "")
        values = values or set()
        cases += [["rocestat", option, ""], ["rocestat", option, "="], ["rocestat", option, "=", "j"],
                  ["rocestat", option + "=a"]]
        expect += [(option + " VALUE", values), (option + "=VALUE", values),
                   (option + "=j", {v for v in values if v.startswith("j")}),
                   (option + "=a (one word)", {option + "=" + v for v in values if v.startswith("a")})]
    header = subprocess.run([ROCESTAT, "--fields", "--verdicts", "-c", "1", SAMPLE],
                            capture_output=True, text=True).stdout.split("\n")[0].split(",")
    cases += [["rocestat", "--fields", SAMPLE, "-e", ""], ["rocestat", "-r", SAMPLE, "--fields", "--field", "=", "msg_"]]
    expect += [("-e COLUMN", set(header)), ("--field=msg_", {c for c in header if c.startswith("msg_")})]
    names = [line.split()[0] for line in subprocess.run([ROCESTAT, "--expect-names"], capture_output=True,
                                                        text=True).stdout.splitlines() if line.strip()]
    names = [n for n in names if "(" not in n]
    if not ck("rocestat --expect-names lists names", len(names) > 10, repr(names)):
        names = ["(none)"]
    cases += [["rocestat", "--expect", ""], ["rocestat", "--expect", "'rn"], ["rocestat", "--expect-junit", "c"]]
    expect += [("--expect NAME", set(names)), ("--expect 'rn", {"'" + n for n in names if n.startswith("rn")}),
               ("--expect-junit FILE", {"cap one.pcap", "cap two.pcapng"})]
    cases += [["rocestat", "c"], ["rocestat", "-r", "c"], ["rocestat", "-nr", "cap\\ t"], ["rocestat", "--read", "=", "c"],
              ["rocestat", "-w", ""], ["rocestat", "-n", "--", "-V.pcap", ""], ["rocestat", "--sysfs", "s"],
              ["rocestat", "-i", "l"], ["rocestat", "-c", "1"], ["rocestat", "-rn", ""]]
    caps = {"cap one.pcap", "cap two.pcapng"}
    expect += [("a capture", caps), ("-r FILE", caps), ("-nr FILE (typed cap\\ t)", {"cap two.pcapng"}),
               ("--read=FILE", caps), ("-w FILE", caps | {"subdir"}), ("a capture after --", caps | {"subdir"}),
               ("--sysfs DIR", {"subdir"}), ("-i lo", None), ("-c N", set()), ("-rn: n is -r's value", caps | {"subdir"})]
    _, replies = complete(cases, files)
    if len(header) < 10:
        ck("--fields --verdicts has a header", False, repr(header))
    for (name, want_reply), reply in zip(expect, replies):
        if want_reply is None:
            ck("-i l<TAB> offers the loopback interface", "lo" in reply, repr(reply))
        else:
            ck("completes " + name, set(reply) == want_reply and len(reply) == len(want_reply),
               "got %r, want %r" % (sorted(reply), sorted(want_reply)))
    subprocess.run(["rm", "-rf", work])
    print("check_completion: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
