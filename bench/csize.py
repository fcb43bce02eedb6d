#!/usr/bin/python3
# bench/csize.py - the size of the generated C and the CPU time of pass 4
# (kbuild and gcc: the usr+sys ms that `stap -v` reports for pass 4, both
# tools counting their children) for big tapset scripts (issue 17): the
# syscall.* one-liner, ours and 4.8's side by side in the same run, and
# process/errsnoop.stp and strace.stp (ours; 4.8's with --upstream-all).
# Not a test: run it by hand, `bench/csize.py [--runs N]`.
#
# Neither tool may use a cached module: each run has an empty cache (of
# modules: what each tool keeps per kernel tree stays, made by an untimed
# first build: 4.8's autoconf probes, our kbuild commands). 4.8
# runs with the patched runtime copy that passes.py and record_upstream.py
# use (/tmp/stap-rt, made when missing) on a -r tree of its own: links to
# /tmp/kb's entries (the headers with a System.map), plus `source`, the
# Debian -common headers (4.8 globs the tracepoint headers under -r or
# -r/source; /tmp/kb has neither, so tp_syscall.* had "no match"), plus
# `vmlinux`, the kernel's debug image. 4.8 finds the `sys_enter` tracepoint
# its tp_syscall.* aliases need only through the kernel's debuginfo, so it
# runs with the default debuginfo path; ours sees no kernel debuginfo
# (SYSTEMTAP_DEBUGINFO_PATH empty, as in the test suite: the C measured is
# test_csize's). 4.8's pass 2 builds about 170 tracepoint query modules
# first (minutes); that is done once, untimed, and kept in its cache. The
# side-by-side row is then the plain one-liner (4.8: 932 probes), with
# `--question` also the old `syscall.* ?` row (903). Our runtime's object
# (build/rtobj.c) is kept across the runs, as 4.8's autoconf probes: the
# first run of a script whose families the warm-up build lacked compiles
# it (each run's CPU seconds are printed after the row, the first one
# that).
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from passes import OURS, UPSTREAM, kernel_release, patched_runtime

EXAMPLES = Path('/usr/share/systemtap/examples')
QUESTION = ('syscall-oneliner?', ['-e', 'probe syscall.* ? { printf("%s(%s)\\n", name, argstr) }'])
SCRIPTS = [
    ('syscall-oneliner', ['-e', 'probe syscall.* { printf("%s(%s)\\n", name, argstr) }']),
    ('errsnoop', [str(EXAMPLES / 'process' / 'errsnoop.stp')]),
    ('strace', [str(EXAMPLES / 'process' / 'strace.stp')]),
]
PASS4 = re.compile(r'^Pass 4: compiled C into .* in (\d+)usr/(\d+)sys/(\d+)real ms', re.M)
KB = Path('/tmp/kb')
DEBUG_VMLINUX = Path('/usr/lib/debug/boot')
SIDE_BY_SIDE = ('syscall-oneliner', 'syscall-oneliner?')
RT = Path('/tmp/stap-rt')


def upstream_setup(krel, work, up_dir):
    """4.8's runtime copy and -r tree (in its SYSTEMTAP_DIR: its tracepoint
    queries are cached by the tree's path)."""
    rt, kb = RT, KB
    if not (rt / 'stp_task_work.c').exists():
        rt = work / 'stap-rt'
        patched_runtime(str(rt))
    if not (kb / 'System.map').exists():
        from probes import upstream_kbuild
        kb = upstream_kbuild(work, krel)
    own = up_dir / 'kb'		# kb's entries, plus source and vmlinux
    own.mkdir(exist_ok=True)
    for f in kb.iterdir():
        if not (own / f.name).exists():
            (own / f.name).symlink_to(f)
    common = Path(f'/usr/src/linux-headers-{krel.rsplit("-", 1)[0]}-common')
    if not (own / 'source').exists():
        (own / 'source').symlink_to(common)
    vmlinux = DEBUG_VMLINUX / f'vmlinux-{krel}'
    if vmlinux.exists() and not (own / 'vmlinux').exists():
        (own / 'vmlinux').symlink_to(vmlinux)
    return rt, own


def pass4(argv, sysdir, work, debuginfo=False):
    """(CPU seconds, real seconds) of pass 4 in one cold -p4 -v run."""
    for f in Path(sysdir).glob('cache/*/stap_*'):
        f.unlink()
    env = dict(os.environ, SYSTEMTAP_DIR=str(sysdir))
    if not debuginfo:
        env['SYSTEMTAP_DEBUGINFO_PATH'] = str(Path(work) / 'no-debuginfo')
    r = subprocess.run([str(a) for a in argv], env=env, cwd=work, capture_output=True,
                       text=True)
    m = PASS4.search(r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError(f'{argv[0]} failed: {r.stderr[-800:]}')
    return (int(m.group(1)) + int(m.group(2))) / 1000, int(m.group(3)) / 1000


def c_bytes(krel, args, work):
    r = subprocess.run([str(OURS), '-p3', '-r', krel] + args, cwd=work,
                       capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMTAP_DEBUGINFO_PATH=str(work / 'no-debuginfo')))
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-800:])
    return len(r.stdout.encode())


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--upstream-all', action='store_true',
                    help='4.8 on errsnoop and strace too (many minutes)')
    ap.add_argument('--no-upstream', action='store_true')
    ap.add_argument('--upstream-sysdir', type=Path,
                    help="4.8's SYSTEMTAP_DIR, kept (its tracepoint queries take minutes)")
    ap.add_argument('--question', action='store_true',
                    help='also the `syscall.* ?` row (the side-by-side row until session 10)')
    opts = ap.parse_args()
    krel = kernel_release()
    work = Path(tempfile.mkdtemp(prefix='bench-csize-'))
    (work / 'no-debuginfo').mkdir()
    try:
        ours_dir, up_dir = work / 'ours', opts.upstream_sysdir or work / 'up'
        ours_dir.mkdir()
        up_dir.mkdir(exist_ok=True)
        if not opts.no_upstream:
            rt, kb = upstream_setup(krel, work, up_dir)
            # the kernel autoconf probes and the tracepoint queries, once, untimed
            for npass, script in ((4, 'probe begin { exit() }'), (2, SCRIPTS[0][1][1])):
                subprocess.run([str(UPSTREAM), '-R', str(rt), '-r', str(kb), f'-p{npass}',
                                '-e', script], cwd=work, capture_output=True,
                               env=dict(os.environ, SYSTEMTAP_DIR=str(up_dir)))
        # ours: kbuild's commands, taken from one make run per kernel tree
        # (build/kdirect.c), once, untimed, as 4.8's autoconf probes
        subprocess.run([str(OURS), '-p4', '-r', krel, '-e', 'probe begin { exit() }'],
                       cwd=work, capture_output=True,
                       env=dict(os.environ, SYSTEMTAP_DIR=str(ours_dir),
                                SYSTEMTAP_DEBUGINFO_PATH=str(work / 'no-debuginfo')))
        print(f'{"script":18} {"C bytes":>10} {"ours cpu s":>11} {"4.8 cpu s":>10} '
              f'{"4.8/ours":>9} {"ours real s":>12}')
        for name, args in SCRIPTS[:1] + [QUESTION] * opts.question + SCRIPTS[1:]:
            size = c_bytes(krel, args, work)
            ours = [pass4([OURS, '-v', '-p4', '-r', krel] + args, ours_dir, work)
                    for _ in range(opts.runs)]
            cpu = statistics.median(t[0] for t in ours)
            real = statistics.median(t[1] for t in ours)
            up = None
            if not opts.no_upstream and (opts.upstream_all or name in SIDE_BY_SIDE):
                up = statistics.median(
                    pass4([UPSTREAM, '-v', '-p4', '-R', rt, '-r', kb] + args, up_dir,
                          work, debuginfo=True)[0] for _ in range(opts.runs))
            print(f'{name:18} {size:10} {cpu:11.2f} '
                  f'{up if up is not None else float("nan"):10.2f} '
                  f'{up / cpu if up else float("nan"):9.2f} {real:12.1f}   ours: '
                  + ' '.join(f'{t[0]:.2f}' for t in ours), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
