#!/usr/bin/env python3
"""Every program the tests run comes from `deps.sh test`.

CI installs `scripts/deps.sh test` on a machine that keeps what earlier
runs installed, so a test that calls a tool only an earlier session put
there (jq, sqlite3, nvme-cli...) passes in CI and fails on the README's
fresh Debian 12 machine. This test reads the test scripts for the programs
they start (subprocess calls in list form, the first word of shell strings
and of each pipeline stage, `for t in ...` tool checks and `command -v X`
in shell scripts), finds each on PATH, asks dpkg which package owns it, and
requires that package to be one `deps.sh --list test` names or one they
depend on (check_build_deps.py's closure). A program on no PATH is reported
too: the test that runs it cannot pass anywhere.

Exit status 0 if every program is accounted for, 1 otherwise.
"""
import glob
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_build_deps import ROOT, closure, owner_of_all, run  # noqa: E402

# Words that start a command but are not programs a package provides here:
# shell builtins and keywords, and names the tests build themselves.
NOT_PROGRAMS = {"sh", "bash", "cd", "set", "exec", "export", "test", "true", "false", "echo", "printf",
                "for", "if", "then", "do", "done", "while", "exit", "trap", "wait", "kill", "read",
                "command", "env", "timeout", "sudo"}

LIST_CALL = re.compile(r"subprocess\.\w+\(\s*\[\s*[\"']([\w.+-]+)[\"']")
SHELL_CALL = re.compile(r"subprocess\.\w+\(\s*[\"']([^\"']+)[\"']")
SH_CHECK = re.compile(r"^\s*for t in ([\w .+-]+); do", re.M)
COMMAND_V = re.compile(r"command -v ([\w.+-]+)(.*)")


def programs():
    """{program: first file that runs it}"""
    found = {}

    def add(word, where):
        word = word.strip()
        if re.fullmatch(r"[a-z][\w.+-]*", word) and word not in NOT_PROGRAMS:
            found.setdefault(word, where)

    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "*.py"))):
        text = open(path, encoding="utf-8").read()
        rel = os.path.relpath(path, ROOT)
        for m in LIST_CALL.finditer(text):
            add(m.group(1), rel)
        for m in SHELL_CALL.finditer(text):
            for stage in m.group(1).split("|"):
                words = stage.split()
                if words:
                    add(words[0], rel)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "*.sh"))):
        text = open(path, encoding="utf-8").read()
        rel = os.path.relpath(path, ROOT)
        for m in SH_CHECK.finditer(text):
            for w in m.group(1).split():
                add(w, rel)
        for m in COMMAND_V.finditer(text):
            # not a shell function, nor an optional hook (`command -v f && f`)
            if not re.search(r"^\s*%s\s*\(\)" % re.escape(m.group(1)), text, re.M) and \
                    "&& " + m.group(1) not in m.group(2):
                add(m.group(1), rel)
    return found


def essential(pkg):
    """Debian installs Essential packages everywhere (coreutils, hostname...)."""
    q = run(["dpkg-query", "-W", "-f=${Essential}", pkg])
    return q.returncode == 0 and q.stdout.strip() == "yes"


def main():
    r = run(["sh", "scripts/deps.sh", "--list", "test"])
    roots = r.stdout.split()
    if r.returncode != 0 or not roots:
        print("check_test_deps: sh scripts/deps.sh --list test failed: " + r.stderr.strip())
        return 1
    allowed = closure(roots) | set(roots)
    progs = programs()
    paths = {}
    bad = []
    for prog, where in sorted(progs.items()):
        p = shutil.which(prog)
        if p is None:
            bad.append("%s (run by %s) is on no PATH here" % (prog, where))
        else:
            paths[prog] = p
    own = owner_of_all(list(paths.values()))
    for prog, p in sorted(paths.items()):
        pk = own.get(p)
        if pk is None:
            # found first outside Debian's files (a pyenv python3): the
            # fresh machine runs the one in /usr/bin
            for alt in (os.path.realpath(p), "/usr/bin/" + prog):
                pk = owner_of_all([alt]).get(alt) if os.path.exists(alt) else None
                if pk:
                    break
        if pk is None:
            bad.append("%s (%s, run by %s) belongs to no Debian package" % (prog, p, progs[prog]))
        elif not any(x in allowed or essential(x) for x in pk):
            bad.append("%s (run by %s) comes from %s, which `deps.sh test` neither names nor depends on"
                       % (prog, progs[prog], " or ".join(pk)))
    print("check_test_deps: the tests run %d programs: %s" % (len(progs), " ".join(sorted(progs))))
    for b in bad:
        print("FAIL: " + b)
    print("%d passed, %d failed" % (len(progs) - len(bad), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
