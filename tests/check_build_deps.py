#!/usr/bin/env python3
"""Every system header the product includes comes from `deps.sh build`.

The README's quick start installs `scripts/deps.sh build` and runs `make`.
CI installs `deps.sh test` first (a superset) on a machine that keeps what
earlier runs installed, so a header that only the test packages bring
builds there and breaks the first command of every new user (as
<infiniband/opcode.h> once did: it came from libibverbs-dev, which only
`test` named).

This test asks the compiler which headers each source of the default build
includes (`-M -MG`: a header that is not installed at all is listed by its
bare name instead of stopping the run), asks dpkg which package owns each
header file, and requires that owner to be

  * a package `deps.sh --list build` names, or
  * one they depend on, directly or not (Depends and Pre-Depends, every
    alternative; build-essential's closure holds libc and the compiler).

The dependency closure comes from apt's package lists (`apt-cache depends
--recurse`), which describe Debian, not this machine: a package counts the
same whether or not it is installed here. Only where apt's lists do not
know a package does the test fall back to dpkg's record of an installed one.
What it reads of this machine beyond that is the headers themselves.

Environment (the Makefile's `builddeps` target sets it): CC, CPPFLAGS,
PKG_CFLAGS, SOURCES (the .c files `make` compiles). Exit status 0 if every
header is accounted for, 1 otherwise, 2 if the test could not run.
"""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    print("check_build_deps: " + msg, file=sys.stderr)
    sys.exit(2)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, **kw)


def build_packages():
    r = run(["sh", "scripts/deps.sh", "--list", "build"])
    if r.returncode != 0 or not r.stdout.split():
        die("sh scripts/deps.sh --list build failed: " + r.stderr.strip())
    return r.stdout.split()


def headers(cc, flags, sources):
    """Absolute paths of the system headers, and names of missing ones."""
    found, missing = {}, {}
    for src in sources:
        r = run([cc] + flags + ["-M", "-MG", src])
        if r.returncode != 0:
            die("%s -M %s failed: %s" % (cc, src, r.stderr.strip()[:500]))
        deps = r.stdout.replace("\\\n", " ").split(":", 1)[1].split()
        for d in deps:
            if d == src:
                continue
            if os.path.isabs(d):
                found.setdefault(os.path.normpath(d), src)
            elif not os.path.exists(os.path.join(ROOT, d)):
                # -MG lists an include it could not find by its bare name.
                missing.setdefault(d, src)
    return found, missing


def owners(paths):
    """dpkg -S for many paths at once: {path: [package, ...]}."""
    out = {}
    if not paths:
        return out
    r = run(["dpkg-query", "-S"] + sorted(paths))
    for line in r.stdout.splitlines():
        if line.startswith("diversion "):
            continue
        pkgs, _, path = line.partition(": ")
        if path in paths:
            out[path] = [p.strip().split(":")[0] for p in pkgs.split(",")]
    return out


def owner_of_all(paths):
    """Owners, trying the resolved path and the pre-usrmerge alias of a
    header that dpkg records under another name."""
    got = owners(set(paths))
    for p in paths:
        if p in got:
            continue
        for alt in (os.path.realpath(p), p[4:] if p.startswith("/usr/") else None):
            if alt and alt != p:
                o = owners({alt})
                if alt in o:
                    got[p] = o[alt]
                    break
    return got


DEP_LINE = re.compile(r"^\s*\|?(?:Pre)?Depends:\s*(\S+)")


def name(tok):
    return tok.strip("<>").split(":")[0]


def closure(roots):
    """Every package the roots depend on, from apt's lists; dpkg's status
    for a package apt's lists lack (no `apt-get update` on this machine)."""
    seen = set()
    r = run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
             "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + roots)
    for line in r.stdout.splitlines():
        m = DEP_LINE.match(line)
        if m:
            seen.add(name(m.group(1)))
        elif line and not line.startswith(" "):
            seen.add(name(line))
        elif line.startswith("    "):
            seen.add(name(line.strip()))      # a provider of a virtual package
    todo = [p for p in roots if p not in seen]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        q = run(["dpkg-query", "-W", "-f=${Depends}, ${Pre-Depends}", p])
        if q.returncode != 0:
            die("neither apt's package lists nor dpkg know the package %s "
                "(run apt-get update, or fix its name in scripts/deps.sh)" % p)
        seen.add(p)
        for alt in q.stdout.replace("|", ",").split(","):
            alt = alt.strip().split(" ")[0]
            if alt:
                todo.append(name(alt))
    return seen


def main():
    cc = os.environ.get("CC", "cc")
    flags = shlex.split(os.environ.get("CPPFLAGS", "")) + shlex.split(os.environ.get("PKG_CFLAGS", ""))
    sources = os.environ.get("SOURCES", "").split()
    if not sources:
        die("SOURCES is empty (run it as `make builddeps`)")

    build = build_packages()
    found, missing = headers(cc, flags, sources)
    own = owner_of_all(list(found))
    allowed = closure(build)
    for p in build:
        allowed.add(p)

    bad = []
    for hdr, src in sorted(missing.items()):
        bad.append("%s (included by %s) is not installed: the build fails before any test runs"
                   % (hdr, src))
    for hdr, src in sorted(found.items()):
        pk = own.get(hdr)
        if pk is None:
            bad.append("%s (included by %s) belongs to no Debian package" % (hdr, src))
        elif not any(p in allowed for p in pk):
            bad.append("%s (included by %s) comes from %s, which `deps.sh build` neither names nor "
                       "depends on" % (hdr, src, " or ".join(pk)))

    pkgs = sorted({p for v in own.values() for p in v})
    print("check_build_deps: %d sources, %d system headers from %d packages: %s"
          % (len(sources), len(found), len(pkgs), " ".join(pkgs)))
    print("check_build_deps: deps.sh build names: %s (closure: %d packages)"
          % (" ".join(build), len(allowed)))
    for b in bad:
        print("FAIL: " + b)
    print("%d passed, %d failed" % (len(found) + len(missing) - len(bad), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
