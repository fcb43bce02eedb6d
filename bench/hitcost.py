#!/usr/bin/python3
# bench/hitcost.py - the cost of a probe hit in a big script (issue 17: a
# big script's generated code is compiled at -O0): the syscall.* script
# (every syscall.* probe, a body that never prints in the run and counts;
# the global is not `n`: sysc_select.stp's locals `n` would become it)
# built four ways, (a) this stap as it is (-O0 for a big script; the
# runtime a prebuilt object of its own, build/rtobj.c), (b) this stap with
# --disable-cache (the runtime compiled with the script's C, so calls into
# it can be inlined), (c) this stap with -DSTP_SCRIPT_O2, (d) Debian's
# SystemTap 4.8, and with --og-stap (e) another build of the translator
# (whose big-script code is at -Og), each module loaded in turn in ONE boot of the test guest
# (TCG, 1 CPU, -icount: instruction-counted clock, so timings repeat and do
# not depend on the host's load, see probes.py) while a loop of N getppid()
# calls is timed; ns per hit = (probed - unprobed) / N, the best of --rep.
# Ratios are 4.8 / ours (>1: we are faster). Not a test: run it by hand,
# `bench/hitcost.py [--n N] [--rep R] [--og-stap PATH]`.
#
# Ours runs without kernel debuginfo (as in the test suite and csize.py);
# 4.8 runs as in csize.py (patched runtime, its own -r tree with the debug
# vmlinux, the default debuginfo path). 4.8's pass 2 first builds about 170
# tracepoint query modules (minutes, kept in --upstream-sysdir's cache);
# pass --upstream-sysdir and --upstream-kb of an earlier csize.py run to
# reuse them (the cache is keyed by the -r tree).
import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from passes import OURS, OURS_RUN, UPSTREAM, UPSTREAM_RUN  # noqa: E402
from probes import (ICOUNT_SHIFT, LOOP_C, CountingGuest,  # noqa: E402
                    best_timings, run)
from csize import upstream_setup  # noqa: E402
import guest  # noqa: E402

# "ready" from a timer, not from begin: 4.8 runs begin before it registers
# its kprobes (its first group), and registering 900 of them under TCG
# takes long enough that the loop ran before getppid's was in (1 hit of
# 50,000). The end display of hits shows every hit was counted.
SCRIPT = ('global hits, up probe syscall.* { if (pid() < 0) printf("%s(%s)\\n", name, argstr) '
          'hits++ } probe timer.ms(100) { if (!up++) printf("ready\\n") }')
HITS = re.compile(r'^hits=(\d+)$', re.M)
O0_MARK = 'define STP_SCRIPT_O0'


def variants(opts):
    """(key, label, translator argv head, staprun) of each build."""
    v = [('o0', 'ours (default: runtime object)', [OURS], OURS_RUN),
         ('inl', 'ours --disable-cache (runtime inline)', [OURS, '--disable-cache'], OURS_RUN),
         ('o2', 'ours -DSTP_SCRIPT_O2', [OURS, '-DSTP_SCRIPT_O2'], OURS_RUN),
         ('u', '4.8', None, UPSTREAM_RUN)]
    if opts.og_stap:
        og = Path(opts.og_stap)
        v.append(('og', f'-Og ({og})', [og], og.parent.parent / 'staprun' / 'staprun'))
    return v


def check_opt_level(work, krel, env, opts):
    """Ours' default C must be at -O0, the -Og translator's not."""
    checks = [(OURS, True)] + ([(Path(opts.og_stap), False)] if opts.og_stap else [])
    for stap, want in checks:
        r, _ = run([stap, '-p3', '-r', krel, '-e', SCRIPT], env=env, cwd=work)
        if (O0_MARK in r.stdout) != want:
            raise RuntimeError(f'{stap}: the script is {"not " * want}at -O0')


def build(work, krel, opts):
    """The loop and the modules hc_KEY.ko; -p4 wall seconds of each."""
    (work / 'loop.c').write_text(LOOP_C)
    run(['cc', '-O2', '-o', work / 'loop', work / 'loop.c'])
    (work / 'no-debuginfo').mkdir(exist_ok=True)
    ours_env = dict(os.environ, SYSTEMTAP_DIR=str(work / 'ours-sysdir'),
                    SYSTEMTAP_DEBUGINFO_PATH=str(work / 'no-debuginfo'))
    check_opt_level(work, krel, ours_env, opts)
    up_dir = opts.upstream_sysdir or work / 'up-sysdir'
    up_dir.mkdir(exist_ok=True)
    rt, kb = upstream_setup(krel, work, up_dir)
    kb = opts.upstream_kb or kb
    up_env = dict(os.environ, SYSTEMTAP_DIR=str(up_dir))
    secs = {}
    for key, _, head, _ in variants(opts):
        if head is None:
            # its overload limit (probes above half the CPU: an error that
            # ends the run) is off; ours has none
            argv, env = [UPSTREAM, '-R', rt, '-r', kb, '-DSTP_NO_OVERLOAD'], up_env
            for f in up_dir.glob('cache/*/stap_*'):
                f.unlink()
        else:
            argv, env = head + ['-r', krel], ours_env
        _, secs[key] = run(argv + ['-p4', '-m', f'hc_{key}', '-e', SCRIPT], env=env, cwd=work)
        print(f'built {key} in {secs[key]:.1f} s', file=sys.stderr, flush=True)
    return secs


def hit_command(key, srun, n):
    """Load the module, wait for its "ready", time the loop, unload, show hits."""
    out = f'hc_{key}.out'
    return (f'rm -f {out}; {srun} hc_{key}.ko > {out} 2>&1 & p=$!; i=0; '
            f'while ! grep -q ready {out} 2>/dev/null && [ $i -lt 3000 ]; '
            f'do sleep 0.05; i=$((i+1)); done; ./loop {n}; kill -INT $p; wait $p; cat {out} >&2')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=50000, help='getppid calls per timing')
    ap.add_argument('--rep', type=int, default=2, help='timings of each; the best counts')
    ap.add_argument('--og-stap', help='another translator, whose big-script code is at -Og')
    ap.add_argument('--upstream-sysdir', type=Path, help="4.8's SYSTEMTAP_DIR, kept")
    ap.add_argument('--upstream-kb', type=Path, help="4.8's -r tree (with --upstream-sysdir)")
    ap.add_argument('--work', help='keep the modules in this directory')
    opts = ap.parse_args()
    krel = guest.kernel_release()
    work = Path(opts.work or tempfile.mkdtemp(prefix='stap-bench-hitcost.', dir='/var/tmp'))
    work.mkdir(exist_ok=True)
    try:
        secs = build(work, krel, opts)
        keys, cmds = [], []
        for _ in range(opts.rep):
            keys.append('base')
            cmds.append(f'./loop {opts.n}')
            for key, _, _, srun in variants(opts):
                keys.append(key)
                cmds.append(hit_command(key, srun, opts.n))
        t = time.monotonic()
        batch = CountingGuest().run_batch(cmds, scratch=str(work), timeout=900, cpus=1)
        guest.check_kernel_healthy(batch)
        print(f'guest run {time.monotonic() - t:.0f} s', file=sys.stderr)
    finally:
        if not opts.work:
            shutil.rmtree(work, ignore_errors=True)
    best = best_timings(keys, batch)
    for k, r in zip(keys, batch):
        h = HITS.search(r.stderr)
        if k != 'base' and (not h or int(h.group(1)) < opts.n):
            raise RuntimeError(f'{k}: fewer hits than getppid calls: {r.stderr[-300:]}')
    base = best['base']
    hit = {k: (best[k] - base) / opts.n for k in best if k != 'base'}
    print(f'kernel {krel}, guest TCG 1 CPU -icount shift={ICOUNT_SHIFT}, N={opts.n} '
          f'getppid calls, best of {opts.rep}; unprobed loop {base / opts.n:.0f} ns '
          f'per call; script: {SCRIPT}')
    print(f'{"build":44} {"ns per hit":>10} {"4.8/this":>9} {"-p4 s":>7}')
    for key, label, _, _ in variants(opts):
        print(f'{label:44} {hit[key]:>10.0f} {hit["u"] / hit[key]:>9.2f} {secs[key]:>7.1f}')


if __name__ == '__main__':
    main()
