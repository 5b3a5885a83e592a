#!/usr/bin/env python3
"""The source tree's shape, checked (make layers; part of make check).

- Rooms include one way: dissect/ only itself; analyzer/ dissect/ and
  itself; report/ those and itself; capture/ dissect/ and itself; views/
  (the per-frame views) all of those and itself; cli/ anything. A room
  never includes a later one.
- Within analyzer/, report/, views/ and cli/, calls between files go one way: the
  graph of "file A calls a non-static function defined in file B (or hands
  it on as a function pointer)" has no cycle.
- analyzer/'s sub-rooms (SUBROOMS, lowest first): calls and includes of
  analyzer/ headers go to a file's own sub-room or a lower one; the files at
  analyzer/'s top (and its headers, for includes) are above them all, and
  are those of TOP only (a new file joins a sub-room).
- Every function a file exports is named rs_... (main aside).
- report/ and views/ read the analysis through its public headers
  (PUBLIC): no file of theirs includes another analyzer/ header, directly
  or through the headers it includes.
- No source file over 800 lines, no function over 120.
- proto/NAME/ (a protocol module) holds files named by role, and each is
  held to the room of its role (ROLES): NAME_dissect.* as dissect/,
  NAME_state.* as analyzer/, NAME_text.* and NAME_json.* as report/,
  NAME_walk.* as views/. A role header is of its role's room wherever it
  is included from (dissect/dissect.h may include a NAME_dissect.h, an
  analyzer/ file no NAME_text.h). proto/proto.h (the modules' interface)
  includes no room; proto/modules.c (the table) and each module's
  NAME/NAME.h (what the module gives the table) include only proto/, and
  only proto/ files include a module's NAME.h. proto/pdu.h and
  proto/decoders.c (the decoders' table the dissector runs) are of dissect/.

Each rule fails with the file (and the function or the cycle) that breaks it.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROOT, Checks  # noqa: E402

ck = Checks("check_layers")

ALLOWED = {
    "dissect": {"dissect"},
    "analyzer": {"dissect", "analyzer"},
    "report": {"dissect", "analyzer", "report"},
    "capture": {"dissect", "capture"},
    "views": {"dissect", "analyzer", "report", "capture", "views"},
}


# The room whose rules a protocol module's file obeys, by its role.
ROLES = {"dissect": "dissect", "state": "analyzer", "text": "report", "json": "report", "walk": "views"}
# Files of proto/ itself that play a role: the dissector's table of the
# modules' decoders and the PDU block it fills (the frame points to it).
PROTO_ROLES = {"proto/pdu.h": "dissect", "proto/decoders.c": "dissect"}


def role_room(rel):
    """The room of a file or included header: its folder's, or for
    proto/NAME/NAME_ROLE.c|h the room of its role; "proto" for the
    interface, the table and a module's table header; None for a file of
    proto/ with no role."""
    parts = rel.split("/")
    if parts[0] != "proto":
        return parts[0]
    if rel in PROTO_ROLES:
        return PROTO_ROLES[rel]
    if len(parts) == 2 or parts[-1] == parts[1] + ".h":
        return "proto"
    m = re.match(r"\w+?_(%s)\.[ch]$" % "|".join(ROLES), parts[-1])
    return ROLES[m.group(1)] if m else None


ck("role of a module file", role_room("proto/x/x_state.c") == "analyzer" and role_room("proto/x/x.h") == "proto"
   and role_room("proto/modules.c") == "proto" and role_room("proto/x/y_walk.h") == "views"
   and role_room("proto/x/misc.c") is None and role_room("dissect/ib.c") == "dissect"
   and role_room("proto/pdu.h") == "dissect")


def sources(room, exts=(".c", ".h")):
    """A room's files, with the protocol modules' files of its role."""
    own = [p for e in exts for p in glob.glob(os.path.join(ROOT, room, "**", "*" + e), recursive=True)]
    mods = [p for e in exts for p in glob.glob(os.path.join(ROOT, "proto", "*", "*" + e))
            + glob.glob(os.path.join(ROOT, "proto", "*" + e))
            if role_room(os.path.relpath(p, ROOT)) == room]
    return sorted(own + mods)


for e in (".c", ".h"):
    for path in glob.glob(os.path.join(ROOT, "proto", "*", "*" + e)):
        rel = os.path.relpath(path, ROOT)
        ck("module files named by role", role_room(rel) is not None,
           "%s: a module's file is NAME_ROLE.c or .h, ROLE one of %s (or NAME.h for the table)"
           % (rel, ", ".join(ROLES)))


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


for room, allowed in ALLOWED.items():
    for path in sources(room):
        rel = os.path.relpath(path, ROOT)
        for inc in re.findall(r'^#include "([a-z]+/[\w/]+\.h)"', open(path).read(), re.M):
            to = role_room(inc)
            # Any room may include the modules' interface; a module's
            # table header only the table and the module's own files.
            ok = inc == "proto/proto.h" or (to in allowed) or (
                to == "proto" and os.path.dirname(inc) == os.path.dirname(rel))
            ck("includes one way", ok, "%s includes %s, of %s/ (a %s/ file may include only %s, and proto/proto.h)"
               % (rel, inc, to, room, ", ".join(sorted(allowed))))

for path in sorted(glob.glob(os.path.join(ROOT, "proto", "*.[ch]")) + glob.glob(os.path.join(ROOT, "proto", "*", "*.h"))):
    rel = os.path.relpath(path, ROOT)
    if role_room(rel) != "proto":
        continue
    for inc in re.findall(r'^#include "([a-z]+/[\w/]+\.h)"', open(path).read(), re.M):
        ok = inc.startswith("proto/") and (rel != "proto/proto.h")
        ck("the table includes only proto/", ok, "%s includes %s (proto/proto.h includes no room; the table and"
           " a module's NAME.h only proto/)" % (rel, inc))
for room in list(ALLOWED) + ["cli"]:
    for path in glob.glob(os.path.join(ROOT, room, "**", "*.[ch]"), recursive=True) + [
            p for p in glob.glob(os.path.join(ROOT, "proto", "*", "*.[ch]"))]:
        rel = os.path.relpath(path, ROOT)
        for inc in re.findall(r'^#include "(proto/(\w+)/(\w+)\.h)"', open(path).read(), re.M):
            if inc[1] == inc[2]:
                ck("a module's table header", rel.startswith("proto/"),
                   "%s includes %s (only proto/ reaches a module's table header)" % (rel, inc[0]))


# The analyzer's headers its readers may include: the analysis (analyzer.h),
# its results (result.h), and --compare's (compare.h). The others hold its
# layouts and what its files offer each other.
PUBLIC = {"analyzer/analyzer.h", "analyzer/result.h", "analyzer/compare.h"}


def includes_of(text):
    return re.findall(r'^#include "([a-z]+/[\w/]+\.h)"', strip_comments(text), re.M)


def reached(start, includes):
    """Every header `start` includes, directly or through another
    (includes: file -> the headers it includes)."""
    seen, todo = set(), [start]
    while todo:
        for h in includes(todo.pop()):
            if h not in seen:
                seen.add(h)
                todo.append(h)
    return seen


# The check can fail: a header two steps away is reached.
ck("reaches through headers", reached("a.c", {"a.c": ["b.h"], "b.h": ["c.h"], "c.h": []}.get) == {"b.h", "c.h"})

_includes = {}


def file_includes(rel):
    if rel not in _includes:
        path = os.path.join(ROOT, rel)
        _includes[rel] = includes_of(open(path).read()) if os.path.exists(path) else []
    return _includes[rel]


for room in ("report", "views"):
    for path in sources(room):
        rel = os.path.relpath(path, ROOT)
        private = sorted(h for h in reached(rel, file_includes) if h.startswith("analyzer/") and h not in PUBLIC)
        ck("readers include the public analyzer headers", not private,
           "%s reaches %s (report/ and views/ may include of analyzer/ only %s)"
           % (rel, ", ".join(private), ", ".join(sorted(PUBLIC))))


def call_graph(room, names=r"rs_\w+"):
    files = sources(room, (".c",))
    text = {f: strip_comments(open(f).read()) for f in files}
    defined = {}
    for f, t in text.items():
        for m in re.finditer(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(%s)\s*\(" % names + r"[^;]*?\)\s*\{", t, re.M | re.S):
            defined.setdefault(m.group(1), f)
    edges = {f: set() for f in files}
    for f, t in text.items():
        for name, home in defined.items():
            # A name is a call or a function pointer handed on (a free
            # function given to GLib calls back just the same).
            if home != f and re.search(r"\b%s\b" % name, t):
                edges[f].add(home)
    return edges


def find_cycle(edges):
    state, stack = {}, []

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w in sorted(edges[v]):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state:
                c = visit(w)
                if c:
                    return c
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(edges):
        if v not in state:
            c = visit(v)
            if c:
                return c
    return None


# The checks can fail: a two-file circle is found, a line of files is not.
ck("finds a circle", find_cycle({"a.c": {"b.c"}, "b.c": {"c.c"}, "c.c": {"a.c"}}) == ["a.c", "b.c", "c.c", "a.c"])
ck("a line is no circle", find_cycle({"a.c": {"b.c"}, "b.c": {"c.c"}, "c.c": set()}) is None)

for room, names in (("analyzer", r"rs_\w+"), ("report", r"rs_\w+"), ("views", r"rs_\w+"), ("cli", r"rs_\w+")):
    edges = call_graph(room, names)
    ck("files found", len(edges) > 3, "%s/" % room)
    cycle = find_cycle(edges)
    ck("calls one way", cycle is None,
       "%s/: calls go round: %s" % (room, " → ".join(os.path.basename(f) for f in cycle or [])))

# analyzer/'s sub-rooms, lowest first: a file's calls (and function
# pointers handed on) and its includes of analyzer/ headers go to its own
# sub-room or a lower one. The files at analyzer/'s top (analyzer.c, the
# entry point; result.c and groups.c, the results) and the protocol
# modules' state files are above every sub-room; the top's headers
# (analyzer.h, result.h, compare.h, internal.h: the state every room
# shares) may be included from anywhere.
SUBROOMS = ["records", "congestion", "whole", "messages", "table", "cm", "transport", "compare"]


def subroom_level(rel):
    """A file's place in SUBROOMS; len(SUBROOMS) above them all; None for a
    sub-room SUBROOMS does not name."""
    parts = rel.split("/")
    if parts[0] != "analyzer" or len(parts) == 2:
        return len(SUBROOMS)
    return SUBROOMS.index(parts[1]) if parts[1] in SUBROOMS else None


def downward(edges, level):
    """The edges (from, to) that go up a level."""
    return sorted((f, g) for f, tos in edges.items() for g in tos if level(g) > level(f))


# The check can fail: a call from a lower sub-room to a higher one is found,
# one down is not, and a sub-room SUBROOMS does not name has no place.
ck("finds a call up", downward({"analyzer/records/a.c": {"analyzer/table/b.c"}, "analyzer/table/b.c": set()},
                               subroom_level) == [("analyzer/records/a.c", "analyzer/table/b.c")])
ck("a call down is no call up", not downward({"analyzer/table/b.c": {"analyzer/records/a.c"},
                                              "analyzer/analyzer.c": {"analyzer/table/b.c"}}, subroom_level))
ck("an unnamed sub-room", subroom_level("analyzer/foo/x.c") is None and subroom_level("analyzer/result.c") == len(SUBROOMS))

# The files at analyzer/'s top, above every sub-room (and exempt from their
# order): a new file joins a sub-room instead.
TOP = {"analyzer/analyzer.c", "analyzer/result.c", "analyzer/groups.c",
       "analyzer/analyzer.h", "analyzer/result.h", "analyzer/compare.h", "analyzer/internal.h"}
for path in sorted(glob.glob(os.path.join(ROOT, "analyzer", "*.[ch]"))):
    rel = os.path.relpath(path, ROOT)
    ck("sub-rooms: the top is the entry point, the results and the shared headers", rel in TOP,
       "%s: a file at analyzer/'s top (put it in the sub-room of what it calls and is called by;"
       " the top is %s)" % (rel, ", ".join(sorted(TOP))))
for path in sorted(glob.glob(os.path.join(ROOT, "analyzer", "*", ""))):
    room = os.path.basename(os.path.dirname(path))
    ck("sub-rooms named", room in SUBROOMS,
       "analyzer/%s/: a sub-room with no place in SUBROOMS (tests/check_layers.py): put it in the order" % room)

_an_edges = {os.path.relpath(f, ROOT): {os.path.relpath(g, ROOT) for g in tos}
             for f, tos in call_graph("analyzer").items()}
for f, g in downward({f: tos for f, tos in _an_edges.items() if subroom_level(f) is not None},
                     lambda r: subroom_level(r) if subroom_level(r) is not None else len(SUBROOMS)):
    ck("sub-rooms: calls go down", False,
       "%s calls %s, of a higher sub-room (analyzer/ lowest first: %s)" % (f, g, ", ".join(SUBROOMS)))
for path in sources("analyzer"):
    rel = os.path.relpath(path, ROOT)
    lv = subroom_level(rel)
    if lv is None:
        continue
    for inc in includes_of(open(path).read()):
        if not inc.startswith("analyzer/") or inc.count("/") == 1:
            continue
        to = subroom_level(inc)
        ck("sub-rooms: includes go down", to is not None and to <= lv,
           "%s includes %s, of a higher sub-room (analyzer/ lowest first: %s)" % (rel, inc, ", ".join(SUBROOMS)))

# Every function a file exports is named rs_... (main aside); the rest is static.
for room in ("dissect", "analyzer", "report", "capture", "views", "cli", "proto"):
    for path in sources(room, (".c",)):
        t = strip_comments(open(path).read())
        for m in re.finditer(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;]*?\)\s*\{", t, re.M | re.S):
            name = m.group(1)
            ck("exported names", name.startswith("rs_") or name == "main",
               "%s: %s is exported without the rs_ prefix (name it rs_%s, or make it static)"
               % (os.path.relpath(path, ROOT), name, name))

for room in ("dissect", "analyzer", "report", "capture", "views", "cli", "proto"):
    for path in sources(room):
        lines = open(path).read().split("\n")
        rel = os.path.relpath(path, ROOT)
        ck("file length", len(lines) <= 801, "%s: %d lines (at most 800)" % (rel, len(lines) - 1))
        # A function: a line at column 0 that opens a body ("{" alone, after
        # a signature), to the "}" at column 0 that closes it.
        start = None
        for i, line in enumerate(lines):
            if line == "{" and i and re.search(r"\)\s*$", lines[i - 1]) and not lines[i - 1].startswith("#"):
                start = i
            elif line.startswith("}") and start is not None:
                n = i - start - 1
                name = re.search(r"(\w+)\s*\(", "".join(lines[max(0, start - 3):start]))
                ck("function length", n <= 120, "%s:%d: %s has %d lines (at most 120)"
                   % (rel, start, name.group(1) if name else "a function", n))
                start = None

# The rest of the tree does not know a protocol module's name: NVMe-oF is
# proto/nvmeof/'s, reached through proto/proto.h and the table. PENDING:
# the files that still name it, each with what keeps it there (the frame's
# extension block, the walkthrough's and the verdicts' hooks); the list
# only shrinks (a file that no longer names it must leave it).
MODULE_NAME = re.compile(r"nvme", re.I)
PENDING = {
    "dissect/dissect.h": "the RS_L_NVME layer",
    "dissect/names.c": "the name of the RS_L_NVME layer",
    "analyzer/analyzer.h": "the NVMe-oF members of struct rs_verdict",
    "views/fields.c": "the nvme* columns of --fields --verdicts",
    "views/walk.c": "the RS_L_NVME layer's lines, a capsule shown as payload elsewhere",
    "views/walk_ib.c": "the command an RDMA READ or WRITE of the target served",
    "views/walk_int.h": "the walkthrough's NVMe-oF functions and topic",
    "cli/options.c": "--ulp's --help line names the nvme/nvmf prefixes",
}
ck("a module's name is found", MODULE_NAME.search("rs_nvme_frame") and not MODULE_NAME.search("rs_iser"))
for room in ("dissect", "analyzer", "report", "capture", "views", "cli"):
    for path in sorted(glob.glob(os.path.join(ROOT, room, "**", "*.[ch]"), recursive=True)):
        rel = os.path.relpath(path, ROOT)
        named = bool(MODULE_NAME.search(open(path).read()))
        ck("modules' names stay in proto/", not named or rel in PENDING,
           "%s names NVMe-oF, a module of proto/ (reach it through proto/proto.h)" % rel)
        ck("modules' names: the pending list is current", named or rel not in PENDING,
           "%s no longer names NVMe-oF: take it off PENDING in tests/check_layers.py" % rel)
for rel in PENDING:
    ck("modules' names: the pending list is current", os.path.exists(os.path.join(ROOT, rel)), "%s: no such file" % rel)

print("check_layers: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
