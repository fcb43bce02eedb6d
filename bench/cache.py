#!/usr/bin/python3
# bench/cache.py - the module cache: a -p4 run that misses (passes 1-4 and
# storing the entry) against one that hits (passes 1-2, then the entry
# checked and copied), for this stap and Debian's SystemTap 4.8 (with the
# runtime copy bench/passes.py makes), on a timer one-liner and a
# syscall.* one-liner. Each tool gets a fresh SYSTEMTAP_DIR; the miss runs
# once, the hit HITS times (the fastest is kept). Prints seconds and the
# ratios miss/hit and 4.8's hit / ours (>1: ours is faster). Not a test:
# `bench/cache.py [--hits N] [--only timer,syscall] [--no-upstream]`.
import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from passes import (OURS, UPSTREAM, kernel_release,  # noqa: E402
                    patched_runtime, time_one)

SCRIPTS = {
    'timer': 'probe timer.s(1) { println("tick") }',
    'syscall': 'probe syscall.* { printf("%s(%s)\\n", name, argstr) }',
}


def miss_and_hit(tool, script, krel, rt, hits, work):
    env = dict(os.environ)
    env['SYSTEMTAP_DIR'] = tempfile.mkdtemp(dir=work)
    argv = [str(tool), '-p4', '-r', krel]
    if tool == UPSTREAM:
        argv += ['-R', rt]
    argv += ['-e', script]
    miss = time_one(argv, env, work)
    hit = min(time_one(argv, env, work) for _ in range(hits))
    return miss, hit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--hits', type=int, default=3)
    ap.add_argument('--only', default=','.join(SCRIPTS))
    ap.add_argument('--no-upstream', action='store_true')
    a = ap.parse_args()
    krel = kernel_release()
    with tempfile.TemporaryDirectory(prefix='bench-cache-') as work:
        rt = str(Path(work) / 'runtime')
        tools = [('ours', OURS)]
        if not a.no_upstream and UPSTREAM.exists():
            patched_runtime(rt)
            tools.append(('4.8', UPSTREAM))
        print(f'{"script":8} {"tool":5} {"miss s":>8} {"hit s":>7} {"miss/hit":>9}')
        for name in a.only.split(','):
            res = {}
            for label, tool in tools:
                miss, hit = miss_and_hit(tool, SCRIPTS[name], krel, rt, a.hits, work)
                res[label] = hit
                print(f'{name:8} {label:5} {miss:8.2f} {hit:7.3f} {miss / hit:9.1f}',
                      flush=True)
            if '4.8' in res:
                print(f'{name:8} hit ratio 4.8/ours: {res["4.8"] / res["ours"]:.1f}',
                      flush=True)


if __name__ == '__main__':
    main()
