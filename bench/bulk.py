#!/usr/bin/python3
# bench/bulk.py - bulk mode (stap -b) against normal mode, for this stap and
# Debian's SystemTap 4.8 (with the runtime copy bench/passes.py makes): a
# flood script prints from timer.profile on every CPU of a 2-CPU test guest
# for SECS seconds, to -o files; the output is merged (stap-merge for -b)
# and its lines counted. Reported per tool and mode: lines delivered, the
# lines a second, the transport failures the session reported, and the
# bulk/normal ratio of lines delivered (>1: bulk mode carries more). Not a
# test: `bench/bulk.py [--secs S] [--no-upstream]`.
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'testsuite'))
from passes import (OURS, OURS_RUN, UPSTREAM, UPSTREAM_RUN,  # noqa: E402
                    kernel_release, patched_runtime)
import guest  # noqa: E402

OURS_MERGE = OURS.parent.parent / 'stapio' / 'stap-merge'
UPSTREAM_MERGE = Path('/usr/bin/stap-merge')
SCRIPT = ('probe timer.profile {{ for (i = 0; i < 100; i++) '
          'printf("%d %d ................................................\\n", cpu(), i) }} '
          'probe timer.s({secs}) {{ exit() }}')
DEFINES = ['-DMAXACTION=100000']
FAILURES = re.compile(r'There were (\d+) transport failures')


def build(tool, mode, krel, rt, secs, work):
    base = [str(OURS)] if tool == 'ours' else [str(UPSTREAM), '-R', rt]
    name = f'{tool.replace(".", "")}_{mode}'
    argv = base + ['-r', krel, '-p4', '-m', name] + DEFINES + \
        (['-b'] if mode == 'bulk' else []) + ['-e', SCRIPT.format(secs=secs)]
    r = subprocess.run(argv, cwd=work, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f'{name}: {r.stderr[-600:]}')
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--secs', type=int, default=3, help='seconds of flood')
    ap.add_argument('--no-upstream', action='store_true')
    args = ap.parse_args()
    krel = kernel_release()
    tools = ['ours'] + ([] if args.no_upstream else ['4.8'])
    with tempfile.TemporaryDirectory(prefix='bench-bulk-', dir='/var/tmp') as work:
        rt = str(Path(work) / 'rt')
        if '4.8' in tools:
            patched_runtime(rt)
        cmds, runs = [], []
        for tool in tools:
            run, merge = (OURS_RUN, OURS_MERGE) if tool == 'ours' else \
                (UPSTREAM_RUN, UPSTREAM_MERGE)
            for mode in ('normal', 'bulk'):
                name = build(tool, mode, krel, rt, args.secs, work)
                out = f'{work}/{name}.out'
                cmd = f'{run} -o {out} {name}.ko'
                if mode == 'bulk':
                    cmd += f' && {merge} {out}_* > {out}'
                cmds.append(cmd + f' ; wc -l < {out}')
                runs.append((tool, mode))
        batch = guest.run_batch(cmds, scratch=work, timeout=120, cpus=2)
        guest.check_kernel_healthy(batch)
    lines = {}
    print(f'{"tool":6} {"mode":7} {"lines":>10} {"lines/s":>10} {"failures":>9}')
    for (tool, mode), r in zip(runs, batch):
        n = int(r.stdout.split()[-1])
        m = FAILURES.search(r.stderr)
        lines[(tool, mode)] = n
        print(f'{tool:6} {mode:7} {n:10d} {n / args.secs:10.0f} {m.group(1) if m else 0:>9}')
    if '4.8' in tools:
        for mode in ('normal', 'bulk'):
            print(f'{mode}: ours/4.8 lines delivered '
                  f'{lines[("ours", mode)] / max(lines[("4.8", mode)], 1):.2f}x')
    for tool in tools:
        normal, bulk = lines[(tool, 'normal')], lines[(tool, 'bulk')]
        print(f'{tool}: bulk/normal lines delivered {bulk / normal:.2f}x' if normal
              else f'{tool}: normal mode delivered nothing')


if __name__ == '__main__':
    main()
