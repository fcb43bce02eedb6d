#!/usr/bin/python3
# bench/passes.py - wall time of passes 1 to 4 (-p1 .. -p4), cold, for this
# stap and for Debian's SystemTap 4.8 on the same scripts in the same run,
# printed as a table with ratios (upstream time / our time: >1 means we are
# faster). Not a test: run it by hand, `bench/passes.py [--runs N]`.
#
# "Cold" means no compile cache: upstream runs with SYSTEMTAP_DIR pointing at
# an empty directory each time (so it redoes its kernel autoconf probes,
# as a first run on a machine does), and we have no cache. Upstream 4.8 cannot
# build for Debian's 6.1 headers as shipped (task_work_cancel changed), so a
# patched copy of its runtime is made in a temporary directory for -p4.
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# where things are, shared by the other benchmarks (they import these)
TOP = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get('STAP_BUILDDIR', TOP))
OURS = BUILD / 'translator' / 'stap'
OURS_RUN = BUILD / 'staprun' / 'staprun'
UPSTREAM = Path('/usr/bin/stap')
UPSTREAM_RUN = Path('/usr/bin/staprun')
sys.path.insert(0, str(TOP / 'testsuite'))

SCRIPTS = {
    'hello': 'probe begin { printf("hello %s %d\\n", "world", 6*7); exit() }',
    'timer': ('global n probe timer.ms(10) { n++; if (n > 5) exit() } '
              'probe end { printf("%d ticks\\n", n) }'),
    'arith': ('function fib(n) { if (n < 2) return n; return fib(n-1) + fib(n-2) } '
              'probe begin { s = ""; for (i = 0; i < 10; i++) s = s . sprintf("%d,", fib(i)); '
              'println(s); exit() }'),
}


def kernel_release():
    sys.path.insert(0, str(TOP / 'testsuite'))
    import guest
    return guest.kernel_release()


def patched_runtime(dest):
    shutil.copytree('/usr/share/systemtap/runtime', dest)
    f = Path(dest) / 'stp_task_work.c'
    text = f.read_text()
    text = text.replace('typeof(&task_work_cancel)', 'typeof(&task_work_cancel_func)')
    text = text.replace('kallsyms_lookup_name("task_work_cancel")',
                        'kallsyms_lookup_name("task_work_cancel_func")')
    f.write_text(text)


def time_one(argv, env, cwd):
    t = time.monotonic()
    r = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - t
    if r.returncode != 0:
        raise RuntimeError(f'{argv[0]} failed: {r.stderr[-500:]}')
    return elapsed


def measure(tool, script, npass, krel, rt, runs, work):
    times = []
    for i in range(runs):
        env = dict(os.environ)
        sysdir = Path(tempfile.mkdtemp(dir=work))
        env['SYSTEMTAP_DIR'] = str(sysdir)
        argv = [str(tool), f'-p{npass}', '-r', krel]
        if tool == UPSTREAM:
            argv += ['-R', rt]
        argv += ['-e', script]
        times.append(time_one(argv, env, work))
        shutil.rmtree(sysdir, ignore_errors=True)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--passes', default='1,2,3,4')
    args = ap.parse_args()
    krel = kernel_release()
    work = tempfile.mkdtemp(prefix='stap-bench.')
    rt = os.path.join(work, 'runtime')
    patched_runtime(rt)
    print(f'kernel {krel}; median of {args.runs} cold runs; '
          'ratio = upstream / ours')
    print(f'{"script":8} {"pass":>4} {"ours (s)":>10} {"4.8 (s)":>10} {"ratio":>8}')
    try:
        for name, script in SCRIPTS.items():
            for p in map(int, args.passes.split(',')):
                ours = measure(OURS, script, p, krel, rt, args.runs, work)
                up = measure(UPSTREAM, script, p, krel, rt, args.runs, work)
                print(f'{name:8} {p:>4} {ours:>10.3f} {up:>10.3f} {up / ours:>7.1f}x',
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
