#!/usr/bin/python3
# bench/csize.py - the size of the generated C and the CPU time of pass 4
# (kbuild and gcc: the usr+sys ms that `stap -v` reports for pass 4, both
# tools counting their children) for big tapset scripts (issue 17): the
# syscall.* one-liner, ours and 4.8's side by side in the same run, and
# process/errsnoop.stp and strace.stp (ours; 4.8's with --upstream-all).
# Not a test: run it by hand, `bench/csize.py [--runs N]`.
#
# Neither tool may use a cached module: each run has an empty cache. 4.8
# runs with the patched runtime copy and the -r tree holding a System.map
# that passes.py and record_upstream.py use (/tmp/stap-rt, /tmp/kb; made
# when missing), its kernel autoconf probes done once, untimed, first.
# Both see no kernel debuginfo (SYSTEMTAP_DEBUGINFO_PATH empty, as in the
# test suite). 4.8 cannot resolve its tp_syscall.* aliases on this set-up
# (kernel.trace("sys_enter") against the Debian headers: "no match"), so
# the side-by-side row is `syscall.* ?`, which skips them (4.8: 903
# probes; ours: those of the plain one-liner).
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
SCRIPTS = [
    ('syscall-oneliner', ['-e', 'probe syscall.* { printf("%s(%s)\\n", name, argstr) }']),
    ('syscall-oneliner?', ['-e', 'probe syscall.* ? { printf("%s(%s)\\n", name, argstr) }']),
    ('errsnoop', [str(EXAMPLES / 'process' / 'errsnoop.stp')]),
    ('strace', [str(EXAMPLES / 'process' / 'strace.stp')]),
]
PASS4 = re.compile(r'^Pass 4: compiled C into .* in (\d+)usr/(\d+)sys/(\d+)real ms', re.M)
KB = Path('/tmp/kb')
RT = Path('/tmp/stap-rt')


def upstream_setup(krel, work):
    """4.8's runtime copy and -r tree: the shared ones, else made here."""
    rt, kb = RT, KB
    if not (rt / 'stp_task_work.c').exists():
        rt = work / 'stap-rt'
        patched_runtime(str(rt))
    if not (kb / 'System.map').exists():
        from probes import upstream_kbuild
        kb = upstream_kbuild(work, krel)
    return rt, kb


def pass4(argv, sysdir, work):
    """(CPU seconds, real seconds) of pass 4 in one cold -p4 -v run."""
    for f in Path(sysdir).glob('cache/*/stap_*'):
        f.unlink()
    env = dict(os.environ, SYSTEMTAP_DIR=str(sysdir),
               SYSTEMTAP_DEBUGINFO_PATH=str(Path(work) / 'no-debuginfo'))
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
    opts = ap.parse_args()
    krel = kernel_release()
    work = Path(tempfile.mkdtemp(prefix='bench-csize-'))
    (work / 'no-debuginfo').mkdir()
    try:
        ours_dir, up_dir = work / 'ours', work / 'up'
        ours_dir.mkdir()
        up_dir.mkdir()
        if not opts.no_upstream:
            rt, kb = upstream_setup(krel, work)
            # the kernel autoconf probes, once, untimed
            subprocess.run([str(UPSTREAM), '-R', str(rt), '-r', str(kb), '-p4', '-e',
                            'probe begin { exit() }'], cwd=work, capture_output=True,
                           env=dict(os.environ, SYSTEMTAP_DIR=str(up_dir),
                                    SYSTEMTAP_DEBUGINFO_PATH=str(work / 'no-debuginfo')))
        print(f'{"script":18} {"C bytes":>10} {"ours cpu s":>11} {"4.8 cpu s":>10} '
              f'{"4.8/ours":>9} {"ours real s":>12}')
        for name, args in SCRIPTS:
            size = c_bytes(krel, args, work)
            ours = [pass4([OURS, '-v', '-p4', '-r', krel] + args, ours_dir, work)
                    for _ in range(opts.runs)]
            cpu = statistics.median(t[0] for t in ours)
            real = statistics.median(t[1] for t in ours)
            up = None
            if not opts.no_upstream and (opts.upstream_all or name == 'syscall-oneliner?'):
                up = statistics.median(
                    pass4([UPSTREAM, '-v', '-p4', '-R', rt, '-r', kb] + args, up_dir,
                          work)[0] for _ in range(opts.runs))
            print(f'{name:18} {size:10} {cpu:11.1f} '
                  f'{up if up is not None else float("nan"):10.1f} '
                  f'{up / cpu if up else float("nan"):9.1f} {real:12.1f}', flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
