#!/usr/bin/python3
# bench/uprobes.py - the cost of a process() probe hit, this stap against
# Debian's SystemTap 4.8: bench/ubench.c (built with gcc -g at -O0 and
# -O2) calls hit(int, long) N times and prints the nanoseconds per call;
# it runs without probes, then under a module with a function probe
# reading $a and under one with a .return probe reading $return, for each
# tool, all in one guest boot (QEMU, TCG: absolute times are the
# emulator's). ns per hit = time per call with the probe - without.
# At -O0 4.8 probes hit() after its prologue (an instruction the kernel
# must single-step out of line) while this stap probes its first
# instruction, `push %rbp`, which the kernel emulates; at -O2 both probe
# the entry. Ratios are upstream / ours (>1: we are faster). Not a test:
# `bench/uprobes.py [--n N]`. Each run repeats REPEAT times; the fastest
# counts (the guest shares the host's CPUs).
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from passes import (TOP, OURS, OURS_RUN, UPSTREAM,  # noqa: E402
                    UPSTREAM_RUN, patched_runtime)
import guest  # noqa: E402

REPEAT = 3
SCRIPTS = {
    'uprobe': 'global x probe process(@1).function("hit") { x += $a }',
    'uretprobe': 'global x probe process(@1).function("hit").return { x += $return }',
}
OPTS = ('O0', 'O2')


def upstream_kbuild(work, krel):
    """A copy of the kernel build directory with a System.map, so that
    4.8 sees the kernel's uretprobe support (it looks for a symbol)."""
    src = Path(f'/lib/modules/{krel}/build').resolve()
    kb = work / 'kb'
    kb.mkdir()
    for p in list(src.iterdir()):
        (kb / p.name).symlink_to(p)
    common = Path(str(src).replace('-amd64', '-common'))
    if common.exists() and not (kb / 'source').exists():
        (kb / 'source').symlink_to(common)
    (kb / 'System.map').write_text('ffffffff81000000 T _text\n'
                                   'ffffffff81001000 T arch_uretprobe_hijack_return_addr\n')
    return kb


def build(work, krel, rt, kb):
    mods = []
    for o in OPTS:
        subprocess.run(['gcc', '-g', f'-{o}', '-o', f'ubench_{o}', str(TOP / 'bench' / 'ubench.c')],
                       cwd=work, check=True)
        for name, text in SCRIPTS.items():
            for tool in ('ours', 'up'):
                mod = f'{tool}_{name}_{o.lower()}'
                argv = ([str(OURS), '-p4', '-r', krel] if tool == 'ours' else
                        [str(UPSTREAM), '-R', rt, '-r', str(kb), '-p4'])
                r = subprocess.run(argv + ['-m', mod, '-e', text, str(work / f'ubench_{o}')],
                                   cwd=work, capture_output=True, text=True)
                if r.returncode:
                    sys.exit(f'{mod}: build failed:\n{r.stderr}')
                mods.append((tool, name, o, mod))
    return mods


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--n', type=int, default=20000, help='calls per run')
    args = ap.parse_args()
    krel = guest.kernel_release()
    rt = '/tmp/stap-rt'
    if not Path(rt).exists():
        patched_runtime(rt)
    with tempfile.TemporaryDirectory(prefix='stap-ubench-', dir='/var/tmp') as w:
        work = Path(w)
        mods = build(work, krel, rt, upstream_kbuild(work, krel))
        cmds, keys = [], []
        for o in OPTS:
            for _ in range(REPEAT):
                cmds.append(f'{work}/ubench_{o} {args.n}')
                keys.append(('none', None, o))
        for tool, name, o, mod in mods:
            run = OURS_RUN if tool == 'ours' else UPSTREAM_RUN
            for _ in range(REPEAT):
                cmds.append(f"{run} -c '{work}/ubench_{o} {args.n}' {mod}.ko")
                keys.append((tool, name, o))
        batch = guest.run_batch(cmds, scratch=str(work), timeout=600)
        best = {}
        for k, r in zip(keys, batch):
            if r.rc != 0:
                sys.exit(f'{k}: failed (rc {r.rc}): {r.stderr}')
            ns = float(r.stdout.split()[0])
            best[k] = min(best.get(k, ns), ns)
    print(f'ns per hit ({args.n} calls, best of {REPEAT}; guest under TCG)')
    print(f'{"probe":<12} {"opt":<4} {"4.8":>10} {"ours":>10} {"ratio":>7}')
    for name in SCRIPTS:
        for o in OPTS:
            base = best[('none', None, o)]
            up = best[('up', name, o)] - base
            ours = best[('ours', name, o)] - base
            print(f'{name:<12} {o:<4} {up:>10.0f} {ours:>10.0f} {up / ours if ours > 0 else 0:>7.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
