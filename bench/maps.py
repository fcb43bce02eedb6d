#!/usr/bin/python3
# bench/maps.py - global arrays and statistics at run time, this stap against
# Debian's SystemTap 4.8: each script below times N map updates, lookups,
# `<<<` or foreach rows inside one begin probe with gettimeofday_ns() and
# prints picoseconds per operation; both modules run in the test guest
# (QEMU, TCG, -icount as in bench/probes.py: the guest's clock counts
# executed instructions, so the timings do not depend on the host's load)
# with 1 and with 2 CPUs. Also reported per script: the size of
# the pass-3 C (-p3) and the pass-4 build time (warm upstream autoconf
# cache, no module cache; we have no cache). Ratios are upstream / ours
# (>1: we are faster or smaller). Not a test: run it by hand,
# `bench/maps.py [--n N] [--only a,b]`. The times include the loop itself;
# the `loop` row is that overhead alone. Each module times its loop REPEAT
# times and reports the fastest, since the guest's vCPUs share the host.
import argparse
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

# {n} is the operation count; {FILL} fills a[0..999] first. Each prints
# "RESULT <ps per op>" (and possibly more lines, ignored).
FILL = 'for (i = 0; i < 1000; i++) a[i] = i;'
REPEAT = 5          # timed runs per module; the fastest counts (host noise)
TIMED = ('best = -1; for (r = 0; r < ' + str(REPEAT) + '; r++) {{ '
         't0 = gettimeofday_ns(); {body} t1 = gettimeofday_ns(); '
         'if (best < 0 || t1 - t0 < best) best = t1 - t0 }} '
         'printf("RESULT %d\\n", best * 1000 / {n});')
SCRIPTS = {
    'loop': ('global x', '', 'for (i = 0; i < {n}; i++) x += i;'),
    'map_set': ('global a', '', 'for (i = 0; i < {n}; i++) a[i % 1000] = i;'),
    'map_incr': ('global a', '', 'for (i = 0; i < {n}; i++) a[i % 1000]++;'),
    'map_get': ('global a, x', FILL, 'for (i = 0; i < {n}; i++) x += a[i % 1000];'),
    'map_str': ('global b', '',
                'for (i = 0; i < {n}; i++) b[i % 2 ? "alpha" : "beta", i % 100] = i;'),
    'map_in': ('global a, x', FILL, 'for (i = 0; i < {n}; i++) x += (i % 2000) in a;'),
    'stat_add': ('global s', '', 'for (i = 0; i < {n}; i++) s <<< i;'),
    'stat_map': ('global t', '', 'for (i = 0; i < {n}; i++) t[i % 100] <<< i;'),
    'stat_hist': ('global h, x, y', '', 'for (i = 0; i < {n}; i++) h <<< i; x = @count(h); '
                  'y = @hist_log(h)[3];'),
    'foreach': ('global a, x', FILL,
                'for (j = 0; j < {n} / 1000; j++) foreach (k in a) x += a[k];'),
    'foreach_sort': ('global a, x', FILL,
                     'for (j = 0; j < {n} / 1000; j++) foreach (k in a-) x += k;'),
}
DEFINES = ['-DMAXACTION_INTERRUPTIBLE=1000000000', '-DMAXACTION=1000000000']


def script_text(name, n):
    decl, fill, body = SCRIPTS[name]
    timed = TIMED.format(body=body.format(n=n), n=n)
    return f'{decl} probe begin {{ {fill} {timed} exit() }}'


def run(argv, env=None, cwd=None):
    t = time.monotonic()
    r = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f'{" ".join(map(str, argv[:3]))}: {r.stderr[-800:]}')
    return r, time.monotonic() - t


def drop_module_cache(sysdir):
    """Keep upstream's cached autoconf results, forget built modules."""
    for f in Path(sysdir).glob('cache/*/stap_*'):
        f.unlink()


def build_all(names, n, krel, rt, sysdir, work):
    """-p3 sizes and -p4 times; the .ko files land in work."""
    env = dict(os.environ, SYSTEMTAP_DIR=str(sysdir))
    stats = {}
    for name in names:
        text = script_text(name, n)
        row = {}
        for tool in ('o', 'u'):
            base = ([str(OURS)] if tool == 'o' else
                    [str(UPSTREAM), '-R', rt])
            base += ['-r', krel] + DEFINES
            r, _ = run(base + ['-p3', '-e', text], env=env, cwd=work)
            row[f'{tool}_c'] = len(r.stdout.encode())
            drop_module_cache(sysdir)
            _, row[f'{tool}_p4'] = run(base + ['-p4', '-m', f'{tool}_{name}', '-e', text],
                                       env=env, cwd=work)
        stats[name] = row
        print(f'built {name}', file=sys.stderr, flush=True)
    return stats


def run_guest(names, work, cpus):
    import guest
    from probes import CountingGuest
    cmds = []
    for name in names:
        cmds.append(f'{OURS_RUN} o_{name}.ko')
        cmds.append(f'{UPSTREAM_RUN} u_{name}.ko')
    batch = CountingGuest().run_batch(cmds, scratch=str(work), timeout=300, cpus=cpus)
    guest.check_kernel_healthy(batch)
    out = {}
    for name, i in zip(names, range(0, len(cmds), 2)):
        for tool, r in (('o', batch[i]), ('u', batch[i + 1])):
            lines = [x for x in r.stdout.splitlines() if x.startswith('RESULT ')]
            if r.rc != 0 or not lines:
                raise RuntimeError(f'{tool}_{name}: rc {r.rc}: {r.stderr[-500:]}')
            out[(name, tool)] = int(lines[0].split()[1]) / 1000.0
    return out


def ratio(u, o):
    return f'{u / o:.2f}x' if o else '-'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=200000, help='operations per script')
    ap.add_argument('--only', help='comma-separated script names')
    ap.add_argument('--cpus', default='1,2',
                    help='guest CPU counts, comma-separated (2 CPUs take long under -icount)')
    args = ap.parse_args()
    names = args.only.split(',') if args.only else list(SCRIPTS)
    cpus = [int(c) for c in args.cpus.split(',')]
    import guest
    krel = guest.kernel_release()
    work = Path(tempfile.mkdtemp(prefix='stap-bench-maps.', dir='/var/tmp'))
    try:
        rt = str(work / 'runtime')
        patched_runtime(rt)
        sysdir = work / 'sysdir'
        sysdir.mkdir()
        # warm upstream's autoconf cache once, untimed
        run([str(UPSTREAM), '-R', rt, '-r', krel, '-p4', '-e', 'probe begin { exit() }'],
            env=dict(os.environ, SYSTEMTAP_DIR=str(sysdir)), cwd=work)
        stats = build_all(names, args.n, krel, rt, sysdir, work)
        times = {c: run_guest(names, work, c) for c in cpus}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f'kernel {krel}, N={args.n}; ns per operation in the guest (TCG), '
          'C bytes of -p3, -p4 seconds; ratio = upstream / ours')
    hdr = (f'{"script":13}' + ''.join(f' {c + "cpu ours":>11} {"4.8":>8} {"ratio":>6}'
                                      for c in map(str, cpus)) +
           f' {"C ours":>8} {"4.8":>8} {"ratio":>6} {"p4 ours":>7} {"4.8":>6} {"ratio":>6}')
    print(hdr)
    for name in names:
        line = f'{name:13}'
        for c in cpus:
            o, u = times[c][(name, 'o')], times[c][(name, 'u')]
            line += f' {o:>11.1f} {u:>8.1f} {ratio(u, o):>6}'
        s = stats[name]
        line += (f' {s["o_c"]:>8} {s["u_c"]:>8} {ratio(s["u_c"], s["o_c"]):>6}'
                 f' {s["o_p4"]:>7.2f} {s["u_p4"]:>6.2f} {ratio(s["u_p4"], s["o_p4"]):>6}')
        print(line, flush=True)


if __name__ == '__main__':
    main()
