#!/usr/bin/env python3
"""The command line and the outputs, hostile: file names that look like
options or hold control characters, a full standard output, an earlier
report a failed run must not replace, write-protected and symlinked
report files written as an unprivileged user.

Expected values come from elsewhere: frame counts from tshark, the
escaping from the rule the man page gives (as C and JSON write them),
the error texts from strerror (os.strerror) as tcpdump prints them.

    ROCESTAT=./rocestat python3 tests/hostile/outputs.py [-v]
"""
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from tally import Tally  # noqa: E402

ROCESTAT = os.path.abspath(os.environ.get('ROCESTAT', './rocestat'))
TALLY = Tally('hostile outputs')
check = TALLY.check
STREAM = gen.rc_write_stream(3, 2, mtu=256)
FULL = gen.pcap(STREAM)
LAST_REC = len(gen.pcap(STREAM[:-1]))


def run(args, cwd=None, stdout=subprocess.PIPE, pre=()):
    p = subprocess.run(list(pre) + [ROCESTAT, '-n', '--color', 'never', '--width', '0'] + args, cwd=cwd,
                       stdout=stdout, stderr=subprocess.PIPE)
    out = p.stdout.decode('utf-8', 'replace') if p.stdout is not None else ''
    return p.returncode, out, p.stderr.decode('utf-8', 'replace')


def tshark_frames(path, cwd=None):
    p = subprocess.run(['tshark', '-n', '-r', path, '-T', 'fields', '-e', 'frame.number'], cwd=cwd,
                       capture_output=True, text=True)
    return len(p.stdout.split())


def write(path, blob):
    with open(path, 'wb') as f:
        f.write(blob)
    return path


def escaped(name):
    """The man page's rule: \\n \\t \\r by name, every other control
    character (C0, DEL, C1) and every byte that is not UTF-8 as \\xHH."""
    out = []
    b = name.encode('utf-8', 'surrogateescape')
    i = 0
    while i < len(b):
        c = b[i]
        if c in b'\n\t\r':
            out.append({10: '\\n', 9: '\\t', 13: '\\r'}[c])
            i += 1
        elif c < 0x20 or c == 0x7F:
            out.append('\\x%02x' % c)
            i += 1
        elif c < 0x80:
            out.append(chr(c))
            i += 1
        else:
            n = 2 if c >= 0xC0 else 1
            n = 3 if c >= 0xE0 else n
            n = 4 if c >= 0xF0 else n
            try:
                ch = b[i:i + n].decode('utf-8')
            except UnicodeDecodeError:
                ch, n = None, 1
            if ch is None or 0x80 <= ord(ch) <= 0x9F:
                out.append(''.join('\\x%02x' % x for x in b[i:i + n]))
            else:
                out.append(ch)
            i += n
    return ''.join(out)


# ---- `--` ends the options -------------------------------------------------
def case_dashes(tmp):
    write(os.path.join(tmp, '-V.pcap'), FULL)
    write(os.path.join(tmp, '-r.pcap'), gen.pcap(STREAM[:4]))
    n_v, n_r = tshark_frames('./-V.pcap', tmp), tshark_frames('./-r.pcap', tmp)
    rc, out, err = run(['--format', 'json', '--', '-V.pcap'], cwd=tmp)
    js = json.loads(out) if rc in (0, 1) and out else {}
    check('dashes', 'rocestat -- -V.pcap: exit status, stderr', (rc, err), (0, ''))
    check('dashes', 'rocestat -- -V.pcap: the file read, every frame (tshark)',
          ([f['name'] for f in js.get('capture', {}).get('files', [])], js.get('capture', {}).get('frames')),
          (['-V.pcap'], n_v))
    # Two files that look like options, then the filter (tshark applies it too).
    n_udp = len(subprocess.run(['tshark', '-n', '-r', './-r.pcap', '-Y', 'ip.src == 192.0.2.2', '-T', 'fields',
                                '-e', 'frame.number'], cwd=tmp, capture_output=True, text=True).stdout.split())
    n_udp += len(subprocess.run(['tshark', '-n', '-r', './-V.pcap', '-Y', 'ip.src == 192.0.2.2', '-T', 'fields',
                                 '-e', 'frame.number'], cwd=tmp, capture_output=True, text=True).stdout.split())
    rc, out, err = run(['--format', 'json', '--', '-V.pcap', '-r.pcap', 'src', 'host', '192.0.2.2'], cwd=tmp)
    js = json.loads(out) if rc in (0, 1) and out else {}
    check('dashes', 'files then the filter after --: files, frames',
          ([f['name'] for f in js.get('capture', {}).get('files', [])], js.get('capture', {}).get('frames')),
          (['-V.pcap', '-r.pcap'], n_udp))
    # A second -- ends the files: a filter word that names a file.
    write(os.path.join(tmp, 'udp'), b'')
    rc, out, err = run(['--format', 'json', '--', '-V.pcap', '--', 'udp'], cwd=tmp)
    js = json.loads(out) if rc in (0, 1) and out else {}
    check('dashes', 'a second -- ends the files: exit status, files, frames',
          (rc, [f['name'] for f in js.get('capture', {}).get('files', [])], js.get('capture', {}).get('frames')),
          (0, ['-V.pcap'], n_v))


# ---- control characters in file names -------------------------------------
NASTY = 'cap\x1b[31mred\x07\nline\tx\x7f\x1b]0;title\x07.pcap'


def no_controls(text):
    """Nothing a terminal would act on: no control character but the line ends."""
    return [hex(ord(c)) for c in text if (ord(c) < 0x20 and c != '\n') or 0x7F <= ord(c) <= 0x9F]


def case_control_names(tmp):
    path = write(os.path.join(tmp, NASTY), FULL)
    rc, out, err = run([path])
    first = out.split('\n', 1)[0]
    check('control_names', 'text header: the name escaped', first, 'rocestat 0.1.0  ·  ' + escaped(path))
    check('control_names', 'text report: no control characters', no_controls(out), [])
    missing = os.path.join(tmp, 'gone\x1b[2J\x07\n.pcap')
    rc, out, err = run(['-r', missing, '-r', path])
    check('control_names', 'stderr of a missing file: the name escaped',
          err, 'rocestat: %s: %s\n' % (escaped(missing), os.strerror(errno.ENOENT)))
    check('control_names', 'text report of a missing file: no control characters', no_controls(out), [])
    cut = write(os.path.join(tmp, 'cut\x1b[1m\r.pcap'), FULL[:LAST_REC + 7])
    rc, out, err = run([cut])
    check('control_names', 'stderr of a truncated file: exit 3, one line, no control characters',
          (rc, err.count('\n'), no_controls(err), err.startswith('rocestat: %s: frame 9 ' % escaped(cut))),
          (3, 1, [], True))
    # Not UTF-8, and a C1 control (U+009B, CSI) encoded in UTF-8.
    odd = os.path.join(tmp, 'odd\udcff\u009b2J.pcap')
    write(odd.encode('utf-8', 'surrogateescape'), FULL)
    p = subprocess.run([ROCESTAT, '-n', odd.encode('utf-8', 'surrogateescape'), 'no_such_filter_word'],
                       capture_output=True)
    err = p.stderr.decode('utf-8', 'surrogateescape')
    check('control_names', 'a name not in UTF-8, with a C1 control: escaped on stderr',
          (escaped(odd) in err, no_controls(err)), (True, []))


# ---- a full standard output ------------------------------------------------
def case_full_stdout(tmp):
    path = write(os.path.join(tmp, 'full.pcap'), FULL)
    why = os.strerror(errno.ENOSPC)
    for fmt in (['--format', 'json'], ['--format', 'ndjson'], [], ['--fields'], ['--ladder']):
        with open('/dev/full', 'wb') as full:
            rc, _, err = run(fmt + [path], stdout=full)
        check('full_stdout', '%s > /dev/full: exit 3, the reason named' % (' '.join(fmt) or 'text'),
              (rc, err.count('\n'), err.rstrip('\n').endswith(': ' + why)), (3, 1, True))


# ---- a run that read nothing keeps the earlier report -----------------------
def case_kept_report(tmp):
    good = write(os.path.join(tmp, 'good.pcap'), FULL)
    # Cut inside the first record's header, and inside its body.
    cuts = {'header': FULL[:24 + 7], 'body': FULL[:24 + 16 + 10]}
    outs = {'-o': 'rep.json', '--timeline': 'tl.csv', '--plot': 'plot.svg'}
    for how, blob in cuts.items():
        bad = write(os.path.join(tmp, 'cut_%s.pcap' % how), blob)
        for o, name in outs.items():
            write(os.path.join(tmp, name), b'EARLIER\n')
        args = ['--format', 'json']
        for o, name in outs.items():
            args += [o, os.path.join(tmp, name)]
        rc, out, err = run(args + [bad])
        check('kept_report', 'first record cut in its %s: exit 3, tshark reads no frame either' % how,
              (rc, tshark_frames(bad)), (3, 0))
        for o, name in outs.items():
            with open(os.path.join(tmp, name), 'rb') as f:
                check('kept_report', 'first record cut in its %s: the earlier %s file kept' % (how, o),
                      f.read(), b'EARLIER\n')
        check('kept_report', 'first record cut in its %s: no temporary file left' % how,
              sorted(n for n in os.listdir(tmp) if n not in outs.values() and not n.endswith('.pcap')), [])
    # A run that read frames replaces them (exit 0: the stream is clean).
    rc, out, err = run(['--format', 'json', '-o', os.path.join(tmp, 'rep.json'), good])
    with open(os.path.join(tmp, 'rep.json')) as f:
        js = json.load(f)
    check('kept_report', 'a run that read frames: the report replaced', (rc, js['capture']['frames']),
          (0, tshark_frames(good)))


# ---- the file replaced: permissions, mode, owner, symbolic links -----------
NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']


def as_nobody(args, cwd):
    return run(args, cwd=cwd, pre=NOBODY)


def owner_mode(path):
    st = os.stat(path)
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


def case_permissions(tmp):
    import grp
    import pwd
    if os.geteuid() != 0 or not shutil.which('setpriv'):
        check('permissions', 'run as root with setpriv, to test as nobody (not a skip)', False, True)
        return
    nobody, nogroup = pwd.getpwnam('nobody').pw_uid, grp.getgrnam('nogroup').gr_gid
    # A directory anyone may write (not sticky): a rename in it needs no
    # more, so only rocestat's own checks stand between nobody and the files.
    os.chmod(tmp, 0o777)
    good = write(os.path.join(tmp, 'good.pcap'), FULL)
    os.chmod(good, 0o644)
    denied = os.strerror(errno.EACCES)

    def fresh(name, mode, uid=0, gid=0, blob=b'EARLIER\n'):
        path = write(os.path.join(tmp, name), blob)
        os.chown(path, uid, gid)
        os.chmod(path, mode)
        return path

    # tcpdump, the reference: it refuses a 0444 file of root's.
    ro = fresh('ro.pcap', 0o444)
    p = subprocess.run(NOBODY + ['tcpdump', '-r', good, '-w', ro], capture_output=True, text=True)
    check('permissions', 'tcpdump -w on a 0444 file of root: refused, "%s"' % denied,
          (p.returncode != 0, denied in p.stderr), (True, True))
    for opt, name in (('-o', 'ro.json'), ('--timeline', 'ro.csv'), ('-w', 'ro.pcap'), ('--annotate', 'ro.pcapng')):
        path = fresh(name, 0o444)
        extra = ['--format', 'json', '-o', os.devnull] if opt == '--timeline' else \
            ['--format', 'json'] if opt == '-o' else []
        rc, out, err = as_nobody(extra + (['-r', good] if opt == '-w' else []) + [opt, path] +
                                 ([] if opt == '-w' else [good]), tmp)
        with open(path, 'rb') as f:
            got = f.read()
        check('permissions', '%s on a 0444 file of root, as nobody: refused like tcpdump, file kept' % opt,
              (rc, err, got == b'EARLIER\n', owner_mode(path)), (3, 'rocestat: %s: %s\n' % (path, denied), True, (0, 0, 0o444)))
    # nobody's own 0444 file: still not writable (no w bit), as for tcpdump.
    path = fresh('mine_ro.json', 0o444, nobody, nogroup)
    rc, out, err = as_nobody(['--format', 'json', '-o', path, good], tmp)
    check('permissions', '-o on nobody\'s own 0444 file: refused, kept', (rc, err, open(path, 'rb').read() == b'EARLIER\n'),
          (3, 'rocestat: %s: %s\n' % (path, denied), True))
    # A symbolic link to a file nobody may not write: refused, target and link kept.
    target = fresh('target_ro.json', 0o644)
    link = os.path.join(tmp, 'link_ro.json')
    os.symlink('target_ro.json', link)
    rc, out, err = as_nobody(['--format', 'json', '-o', link, good], tmp)
    check('permissions', '-o through a link to a file of root: refused, target and link kept',
          (rc, err, open(target, 'rb').read() == b'EARLIER\n', os.readlink(link)),
          (3, 'rocestat: %s: %s\n' % (link, denied), True, 'target_ro.json'))
    # A link to nobody's own 0640 file: written through, the link stays, the mode too.
    frames = tshark_frames(good)
    for opt, name in (('-o', 'mine.json'), ('-w', 'mine.pcap')):
        target = fresh(name, 0o640, nobody, nogroup)
        link = os.path.join(tmp, 'link_' + name)
        os.symlink(name, link)
        args = ['-r', good, '-w', link] if opt == '-w' else ['--format', 'json', '-o', link, good]
        rc, out, err = as_nobody(args, tmp)
        written = tshark_frames(target) if opt == '-w' else json.load(open(target))['capture']['frames']
        check('permissions', '%s through a link to nobody\'s 0640 file: written through, link and mode kept' % opt,
              (rc, err, os.path.islink(link), written, owner_mode(target)),
              (0, '', True, frames, (nobody, nogroup, 0o640)))
    # A file of root's that group nogroup may write (0664): written, its
    # owner and mode kept (nobody cannot give a file to root: in place).
    for opt, name in (('-o', 'group.json'), ('-w', 'group.pcap')):
        path = fresh(name, 0o664, 0, nogroup)
        args = ['-r', good, '-w', path] if opt == '-w' else ['--format', 'json', '-o', path, good]
        rc, out, err = as_nobody(args, tmp)
        written = tshark_frames(path) if opt == '-w' else json.load(open(path))['capture']['frames']
        check('permissions', '%s on a group-writable file of root: written, owner and mode kept' % opt,
              (rc, err, written, owner_mode(path)), (0, '', frames, (0, nogroup, 0o664)))
    # Root replacing nobody's 0600 file: owner and mode kept, as tcpdump's truncation keeps them.
    for opt, name in (('-o', 'theirs.json'), ('-w', 'theirs.pcap')):
        path = fresh(name, 0o600, nobody, nogroup)
        args = ['-r', good, '-w', path] if opt == '-w' else ['--format', 'json', '-o', path, good]
        rc, out, err = run(args, cwd=tmp)
        check('permissions', '%s by root over nobody\'s 0600 file: owner and mode kept' % opt,
              (rc, err, owner_mode(path)), (0, '', (nobody, nogroup, 0o600)))
    # A directory that takes no new file (root's, 0755) holding a file
    # nobody may write (0666): tcpdump writes it in place; so must every
    # output, the file keeping its owner and mode.
    locked = os.path.join(tmp, 'locked')
    os.mkdir(locked, 0o755)
    path = os.path.join(locked, 'ref.pcap')
    write(path, b'EARLIER\n')
    os.chmod(path, 0o666)
    p = subprocess.run(NOBODY + ['tcpdump', '-r', good, '-w', path], capture_output=True, text=True)
    ref = tshark_frames(path)
    check('permissions', 'tcpdump -w into a directory that takes no new file: written in place',
          (p.returncode, ref), (0, frames))
    for opt, name in (('-o', 'dir.json'), ('-w', 'dir.pcap'), ('-w', 'dir.pcapng'), ('--annotate', 'ann.pcapng')):
        path = os.path.join(locked, name)
        write(path, b'EARLIER\n')
        os.chmod(path, 0o666)
        args = ['-r', good, '-w', path] if opt == '-w' else ['--format', 'json', '-o', path, good] \
            if opt == '-o' else [opt, path, good]
        rc, out, err = as_nobody(args, tmp)
        written = json.load(open(path))['capture']['frames'] if opt == '-o' else tshark_frames(path)
        check('permissions', '%s %s into a directory that takes no new file: written in place, owner and mode kept'
              % (opt, name), (rc in (0, 1), err, written, owner_mode(path)), (True, '', frames, (0, 0, 0o666)))
    check('permissions', 'nothing else in that directory', sorted(os.listdir(locked)),
          sorted(['ref.pcap', 'dir.json', 'dir.pcap', 'dir.pcapng', 'ann.pcapng']))
    check('permissions', 'no temporary file left',
          sorted(n for n in os.listdir(tmp) if '.XXX' in n or n.startswith('.') or
                 (len(n.rsplit('.', 1)[-1]) == 6 and n.count('.') >= 2)), [])


CASES = [case_dashes, case_control_names, case_full_stdout, case_kept_report, case_permissions]


def main():
    only = [a for a in sys.argv[1:] if not a.startswith('-')]
    with tempfile.TemporaryDirectory(prefix='rocestat-outputs.') as tmp:
        os.chmod(tmp, 0o755)
        for c in CASES:
            if not only or c.__name__[5:] in only:
                d = os.path.join(tmp, c.__name__)
                os.mkdir(d)
                c(d)
    return TALLY.finish()


if __name__ == '__main__':
    sys.exit(main())
