#!/usr/bin/python3
# bench/probes.py - the cost of a probe hit, this stap against Debian's
# SystemTap 4.8, in the test guest (QEMU, TCG, 1 CPU, -icount: the guest's
# clock counts executed instructions, 8 ns each, so the timings do not
# depend on the host's load and repeat exactly): a loop of N
# getppid() system calls is timed unprobed, then with a kprobe
# (kprobe.function("__do_sys_getppid")), a kretprobe (its .return) and a
# tracepoint (kernel.trace("raw_syscalls:sys_enter")) loaded, each with the
# same body in both; ns per hit = (probed - unprobed) / N. Also the
# start-up: `stap -p4` build seconds on the host, and in the guest the time
# from starting staprun to the first hit of the kprobe (a background
# loop calls getppid all the time). Ratios are 4.8 / ours (>1: we are
# faster). Not a test: run it by hand, `bench/probes.py [--n N] [--rep R]`.
#
# 4.8 needs a System.map to resolve kprobe.function(): one guest boot
# fetches /proc/kallsyms (the guest boots without KASLR) into a -r
# directory of symlinks to the kernel headers.
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from passes import (OURS, OURS_RUN, UPSTREAM,  # noqa: E402
                    UPSTREAM_RUN, patched_runtime)
import guest  # noqa: E402

ICOUNT_SHIFT = 3    # 2^3 ns of guest time per guest instruction


class CountingGuest(guest.Guest):
    """The test guest with a clock driven by instruction counts."""

    def _qemu_argv(self, *args):
        argv = super()._qemu_argv(*args)
        i = argv.index('-accel')
        argv[i:i + 2] = ['-accel', 'tcg,thread=single',
                         '-icount', f'shift={ICOUNT_SHIFT},sleep=on']
        return argv

SYSCALL = '__do_sys_getppid'
BODY = '{ n++ }'
READY = 'probe begin { printf("ready\\n") }'
SCRIPTS = {
    'kprobe': f'global n probe kprobe.function("{SYSCALL}") {BODY} {READY}',
    'kretprobe': f'global n probe kprobe.function("{SYSCALL}").return {BODY} {READY}',
    'tracepoint': f'global n probe kernel.trace("raw_syscalls:sys_enter") {BODY} {READY}',
    # start-up: the first hit prints and ends the run
    'first': f'global n probe kprobe.function("{SYSCALL}") {{ if (!n++) {{ '
             'println("hit"); exit() } }',
}

LOOP_C = r'''
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
/* loop N: N getppid() calls, prints the ns they took; loop 0: forever */
int main(int argc, char **argv)
{
	long n = atol(argv[1]), i;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; n == 0 || i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}
'''


def run(argv, env=None, cwd=None):
    t = time.monotonic()
    r = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f'{" ".join(map(str, argv[:3]))}: {r.stderr[-800:]}')
    return r, time.monotonic() - t


def upstream_kbuild(work, krel):
    """A -r directory for 4.8 with a System.map from the guest's kallsyms."""
    kb = work / 'kb'
    kb.mkdir()
    hdr = Path(f'/usr/src/linux-headers-{krel}')
    for f in hdr.iterdir():
        (kb / f.name).symlink_to(f)
    (kb / 'source').symlink_to(hdr.parent / ('linux-headers-' + krel.rsplit('-', 1)[0] + '-common'))
    b = guest.run_batch([f'grep -v "\\[" /proc/kallsyms | sort > {kb}/System.map'],
                        scratch=str(work), timeout=60)
    if b[0].rc != 0:
        raise RuntimeError('cannot read the guest kallsyms')
    return kb


def build(work, krel, kb, rt, sysdir):
    """Both tools' modules o_NAME.ko and u_NAME.ko; -p4 seconds of each."""
    env = dict(os.environ, SYSTEMTAP_DIR=str(sysdir))
    secs = {}
    for name, text in SCRIPTS.items():
        _, secs[('o', name)] = run([OURS, '-r', krel, '-p4', '-m', f'o_{name}', '-e', text],
                                   cwd=work)
        for f in Path(sysdir).glob('cache/*/stap_*'):
            f.unlink()
        _, secs[('u', name)] = run([UPSTREAM, '-R', rt, '-r', kb, '-p4', '-m', f'u_{name}',
                                    '-e', text], env=env, cwd=work)
        print(f'built {name}', file=sys.stderr, flush=True)
    return secs


def build_dir(work, krel):
    """The loop program, 4.8's -r directory and runtime, both tools' modules."""
    (work / 'loop.c').write_text(LOOP_C)
    run(['cc', '-O2', '-o', work / 'loop', work / 'loop.c'])
    rt = str(work / 'runtime')
    patched_runtime(rt)
    sysdir = work / 'sysdir'
    sysdir.mkdir()
    kb = upstream_kbuild(work, krel)
    # warm upstream's autoconf cache once, untimed
    run([UPSTREAM, '-R', rt, '-r', kb, '-p4', '-e', 'probe begin { exit() }'],
        env=dict(os.environ, SYSTEMTAP_DIR=str(sysdir)), cwd=work)
    return build(work, krel, kb, rt, sysdir)


def hit_command(tool, name, n):
    """Load the module, wait for its begin probe, time the loop, unload."""
    srun = OURS_RUN if tool == 'o' else UPSTREAM_RUN
    return (f'rm -f {tool}_{name}.out; {srun} {tool}_{name}.ko > {tool}_{name}.out 2>&1 & p=$!; '
            f'i=0; while ! grep -q ready {tool}_{name}.out 2>/dev/null && [ $i -lt 600 ]; '
            f'do sleep 0.05; i=$((i+1)); done; ./loop {n}; kill -INT $p; wait $p')


def first_command(tool):
    """ns from starting staprun to the first hit (loop running meanwhile)."""
    srun = OURS_RUN if tool == 'o' else UPSTREAM_RUN
    return (f'./loop 0 & l=$!; a=$(date +%s%N); {srun} {tool}_first.ko | head -1 >/dev/null; '
            f'b=$(date +%s%N); kill $l; wait $l 2>/dev/null; echo $((b - a))')


def best_timings(keys, batch):
    """The least of each key's timings (a command's last number)."""
    best = {}
    for k, r in zip(keys, batch):
        lines = [x for x in r.stdout.split() if x.isdigit()]
        if r.rc not in (0, 130) or not lines:
            raise RuntimeError(f'{k}: rc {r.rc}: {r.stdout[-300:]} {r.stderr[-300:]}')
        v = int(lines[-1])
        best[k] = min(best.get(k, v), v)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=200000, help='getppid calls per timing')
    ap.add_argument('--rep', type=int, default=3, help='timings of each; the best counts')
    ap.add_argument('--work', help='keep the modules in this directory and reuse them')
    args = ap.parse_args()
    krel = guest.kernel_release()
    work = Path(args.work or tempfile.mkdtemp(prefix='stap-bench-probes.', dir='/var/tmp'))
    work.mkdir(exist_ok=True)
    try:
        if (work / 'secs.json').exists():
            secs = {tuple(k.split()): v for k, v in
                    json.loads((work / 'secs.json').read_text()).items()}
        else:
            secs = build_dir(work, krel)
            if args.work:
                (work / 'secs.json').write_text(json.dumps(
                    {' '.join(k): v for k, v in secs.items()}))
        keys, cmds = [], []
        for _ in range(args.rep):
            keys.append(('base', None))
            cmds.append(f'./loop {args.n}')
            for name in ('kprobe', 'kretprobe', 'tracepoint'):
                for tool in ('o', 'u'):
                    keys.append((tool, name))
                    cmds.append(hit_command(tool, name, args.n))
            for tool in ('o', 'u'):
                keys.append((tool, 'first'))
                cmds.append(first_command(tool))
        batch = CountingGuest().run_batch(cmds, scratch=str(work), timeout=300, cpus=1)
        guest.check_kernel_healthy(batch)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    best = best_timings(keys, batch)
    base = best[('base', None)]
    print(f'kernel {krel}, guest TCG 1 CPU -icount shift={ICOUNT_SHIFT}, N={args.n} '
          f'getppid calls, best of {args.rep}; '
          f'unprobed loop {base / args.n:.0f} ns per call; ratio = 4.8 / ours')
    print(f'{"ns per hit":14} {"ours":>8} {"4.8":>8} {"ratio":>6}')
    for name in ('kprobe', 'kretprobe', 'tracepoint'):
        o = (best[('o', name)] - base) / args.n
        u = (best[('u', name)] - base) / args.n
        print(f'{name:14} {o:>8.0f} {u:>8.0f} {u / o:>6.2f}')
    print(f'{"start-up (s)":14} {"ours":>8} {"4.8":>8} {"ratio":>6}')
    o, u = secs[('o', 'first')], secs[('u', 'first')]
    print(f'{"build -p4":14} {o:>8.2f} {u:>8.2f} {u / o:>6.2f}')
    o, u = best[('o', 'first')] / 1e9, best[('u', 'first')] / 1e9
    print(f'{"load->1st hit":14} {o:>8.2f} {u:>8.2f} {u / o:>6.2f}')


if __name__ == '__main__':
    main()
