#!/usr/bin/python3
# bench/bpftrace.py - stap --runtime=bpf against bpftrace on this host, in
# the same run (both BPF; needs root; installs Debian's bpftrace with apt
# when it is missing: a bench tool, not a project dependency).
#
# - start-up: from the command's start to its begin probe's first line of
#   output ("up"), for stap -e (compiles with clang: an empty cache each
#   run), stap -e with the object in its cache, staprun of a -p4 object,
#   and bpftrace -e: the median of REPEAT rounds, each round running every
#   tool once in turn (bpftrace's time includes its own LLVM compile, as
#   stap -e's includes stapbpfcc's, or clang's when STAP_CLANG names one). On a host other sessions load, the kernel's
#   autogroups give this session a fixed share of the CPUs, whatever the
#   tools overlap: --boost runs the rounds in a new session whose autogroup
#   has nice -15 (for both tools alike), close to an idle machine's figures.
# - per hit: the same counting work on two probes, each tool's cost per
#   hit = ns per call of the workload with the probe on - without it:
#   * a syscall tracepoint: bench/sbench.c calls getppid() N times;
#     stap `kernel.trace("sys_enter") { s <<< 1 }` (a raw tracepoint),
#     bpftrace `tracepoint:raw_syscalls:sys_enter { @s = count() }`
#     (bpftrace 0.17 has no raw tracepoints);
#   * a uprobe: bench/ubench.c (gcc -O2) calls hit(int, long) N times;
#     stap `process(P).function("hit") { s <<< $a }`, bpftrace
#     `uprobe:P:hit { @s = sum(arg0) }`.
#   Each workload run is the median of REPEAT runs while the tracer is
#   attached (a tracer is given SETTLE seconds after its first line: our
#   begin probe runs before the other probes are attached).
# Ratios are bpftrace / ours (>1: we are faster or cheaper). Not a test:
# `bench/bpftrace.py [--n N] [--repeat R] [--startup-only] [--boost]`
# (STAP_BUILDDIR names another build to measure).
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from passes import TOP, OURS, OURS_RUN  # noqa: E402

REPEAT = 5
SETTLE = 1.0


def ensure_bpftrace():
    if not os.path.exists('/sys/kernel/tracing/events'):	# bpftrace's tracepoints
        subprocess.run(['mount', '-t', 'tracefs', 'nodev', '/sys/kernel/tracing'])
    if shutil.which('bpftrace'):
        return
    print('bpftrace missing: apt-get install -y bpftrace', file=sys.stderr)
    subprocess.run(['apt-get', 'install', '-y', '-q', 'bpftrace'], check=True,
                   stdout=subprocess.DEVNULL)


def until_up(argv, cwd, env=None):
    """Start argv; the seconds until its first line; the process."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, cwd=cwd, env=env)
    line = p.stdout.readline()
    while line.startswith('Attaching '):	# bpftrace's banner
        line = p.stdout.readline()
    dt = time.monotonic() - t0
    if line.strip() != 'up':
        p.kill()
        raise SystemExit(f'{argv[0]}: no "up" line: {line!r}')
    return dt, p


def stop(p, timeout=30):
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()


def startup(work, repeat):
    """Median seconds to the first line, per tool. The tools take turns,
    round after round, so a change in the host's load hits all alike."""
    begin_stap = 'probe begin { println("up") }'
    subprocess.run([str(OURS), '--runtime=bpf', '-p4', '-m', 'up', '-e', begin_stap],
                   cwd=work, check=True, capture_output=True)
    tools = {
        'stap -e': [str(OURS), '--runtime=bpf', '-e', begin_stap],
        'stap cached': [str(OURS), '--runtime=bpf', '-e', begin_stap],
        'staprun obj': [str(OURS_RUN), 'up.bpf.o'],
        'bpftrace -e': ['bpftrace', '-e', 'BEGIN { printf("up\\n") }'],
    }
    times = {name: [] for name in tools}
    # cached: one cache, filled before the first round
    env_cached = dict(os.environ, SYSTEMTAP_DIR=str(work / 'sd'))
    stop(until_up(tools['stap cached'], work, env_cached)[1])
    for i in range(repeat):
        for name, argv in tools.items():
            # stap -e: a cache of its own each time (clang runs)
            env = env_cached if name != 'stap -e' else \
                dict(os.environ, SYSTEMTAP_DIR=str(work / f'sd{i}'))
            dt, p = until_up(argv, work, env)
            stop(p, 3)	# bpftrace 0.17 here may not end on SIGINT: killed
            times[name].append(dt)
    return {name: statistics.median(t) for name, t in times.items()}


def workload(argv):
    runs = []
    for _ in range(REPEAT):
        r = subprocess.run(argv, capture_output=True, text=True, check=True)
        runs.append(float(r.stdout.split()[0]))
    return statistics.median(runs)


def per_hit(work, n):
    sb = work / 'sbench'
    ub = work / 'ubench'
    subprocess.run(['gcc', '-O2', '-o', str(sb), str(TOP / 'bench' / 'sbench.c')], check=True)
    subprocess.run(['gcc', '-g', '-O2', '-o', str(ub), str(TOP / 'bench' / 'ubench.c')],
                   check=True)
    cases = {
        'tracepoint': ([str(sb), str(n)],
                       'global s probe begin { println("up") } '
                       'probe kernel.trace("sys_enter") { s <<< 1 } '
                       'probe end { printf("%d\\n", @count(s)) }',
                       'BEGIN { printf("up\\n") } '
                       'tracepoint:raw_syscalls:sys_enter { @s = count() }'),
        'uprobe': ([str(ub), str(n)],
                   'global s probe begin { println("up") } '
                   f'probe process("{ub}").function("hit") {{ s <<< $a }} '
                   'probe end { printf("%d\\n", @count(s)) }',
                   'BEGIN { printf("up\\n") } '
                   f'uprobe:{ub}:hit {{ @s = sum(arg0) }}'),
    }
    out = {}
    for name, (wl, stp, bt) in cases.items():
        base = workload(wl)
        res = {'none': base}
        for tool, argv in (('ours', [str(OURS), '--runtime=bpf', '-e', stp]),
                           ('bpftrace', ['bpftrace', '-e', bt])):
            _, p = until_up(argv, work)
            time.sleep(SETTLE)
            res[tool] = workload(wl)
            stop(p)
        out[name] = res
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=1000000)
    ap.add_argument('--repeat', type=int, default=REPEAT * 2 + 1,
                    help='start-up rounds (median)')
    ap.add_argument('--startup-only', action='store_true')
    ap.add_argument('--boost', action='store_true',
                    help='run in a new session, its autogroup at nice -15')
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit('bench/bpftrace.py: needs root (BPF)')
    if a.boost:
        if os.getpid() != os.getsid(0):	# a session of its own, then its autogroup
            argv = [sys.executable, *sys.argv]
            os.execvp('setsid', ['setsid', '--wait', *argv])
        with open('/proc/self/autogroup', 'w') as f:
            f.write('-15')
    ensure_bpftrace()
    ver = subprocess.run(['bpftrace', '--version'], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix='bpftrace-bench-') as d:
        work = Path(d)
        st = startup(work, a.repeat)
        print(f'start-up to first output, median of {a.repeat} ({ver}):')
        for k, v in st.items():
            print(f'  {k:12} {v * 1000:7.1f} ms')
        print(f'  ratio bpftrace / stap -e:      {st["bpftrace -e"] / st["stap -e"]:.2f}')
        print(f'  ratio bpftrace / stap cached:  {st["bpftrace -e"] / st["stap cached"]:.2f}')
        print(f'  ratio bpftrace / staprun obj:  {st["bpftrace -e"] / st["staprun obj"]:.2f}')
        if a.startup_only:
            return
        ph = per_hit(work, a.n)
        print(f'per hit (ns per call, median of {REPEAT}, N={a.n}):')
        for name, r in ph.items():
            ours = r['ours'] - r['none']
            bt = r['bpftrace'] - r['none']
            print(f'  {name:10} none {r["none"]:7.1f}  ours {r["ours"]:7.1f} (+{ours:.1f})'
                  f'  bpftrace {r["bpftrace"]:7.1f} (+{bt:.1f})'
                  f'  ratio bpftrace/ours {bt / ours if ours > 0 else float("nan"):.2f}')


if __name__ == '__main__':
    main()
