#!/usr/bin/python3
# testsuite/debug_faults.py - the fault-injection pass of the debug-kernel
# campaign (testsuite/debug-campaign.sh; not a pytest file, not in `make
# check`). In the debug guest ($STAP_GUEST_KERNEL), failslab and
# fail_page_alloc fail exactly one allocation of staprun's init_module(2)
# call, that is in the kernel's module loading or our module's init: the
# Nth fault-injection point, through staprun's $STAP_FAIL_NTH, which arms
# /proc/thread-self/fail-nth just before the call and disarms it after
# (so exec, ld.so, stapio and the guest's 9p root see no failure). A first
# run with a count too large to reach measures how many points the call
# has (T); then N sweeps 1..T: the last --tail points one by one (the
# module's own init comes last), and --runs more spread evenly before.
# Each run may fail, with an error, but must leave nothing behind (no
# module of ours, kprobe or ftrace hook, after `staprun -d`), must not
# crash, and the kernel must stay free of KASAN, lockdep, atomic-sleep,
# BUG, WARNING and oops reports. Prints a summary of the outcomes per
# module.
#
#     STAP_GUEST_KERNEL=CACHE testsuite/debug_faults.py [--runs N] [--tail N]
import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import guest  # noqa: E402
from conftest import STAP, STAPRUN  # noqa: E402

SCRIPTS = {
    'f_hello': 'probe begin { println("hello"); exit() }',
    # a map, a timer, an entry and a return probe, procfs, a string
    'f_mix': 'global a[1000], n '
             'probe kernel.function("ksys_read") { a[tid()]++ } '
             'probe kernel.function("ksys_read").return { n++ } '
             'probe procfs("f").read { $value = sprint(n) } '
             'probe timer.ms(300) { printf("%d %s\\n", n > 0, "x") ; exit() }',
}
# reports the debug kernel makes; "page allocation failure" and its Call
# Trace are the injected failures themselves, not defects
BAD = ['Oops', 'BUG:', 'WARNING:', 'Kernel panic', 'general protection fault',
       'soft lockup', 'hard LOCKUP', 'KASAN', 'possible circular locking',
       'inconsistent lock state', 'sleeping function called', 'stall on CPU',
       'possible recursive locking', 'suspicious RCU usage']
SETUP = r'''D=/sys/kernel/debug
for f in failslab fail_page_alloc; do
	echo N > $D/$f/ignore-gfp-wait; echo 0 > $D/$f/verbose
	echo -1 > $D/$f/times; echo 0 > $D/$f/probability
done
echo 0 > $D/fail_page_alloc/min-order; echo N > $D/fail_page_alloc/ignore-gfp-highmem
echo setup done'''
BIG = 10000000
# T, the fault points of one init_module of MOD, then the sweep, one N a
# line, in MOD.sweep
COUNT = r'''STAP_FAIL_NTH={big} {staprun} {mod}.ko > /dev/null 2> {mod}.count.err
left=$(sed -n 's/^staprun: fail-nth [0-9]*: not reached, \([0-9]*\) left$/\1/p' {mod}.count.err)
[ -n "$left" ] || {{ cat {mod}.count.err; exit 1; }}
echo "@{mod} points=$(({big} - left))"
/usr/bin/python3 -c '
import sys
t, runs, tail = map(int, sys.argv[1:])
head = max(t - tail, 0)
ns = sorted({{1 + i * head // runs for i in range(runs) if head}} | set(range(head + 1, t + 1)))
print("\n".join(map(str, ns)))' $(({big} - left)) {runs} {tail} > {mod}.sweep'''
RUN = r'''n=$(sed -n '{i}p' {mod}.sweep)
[ -n "$n" ] || {{ echo "@{mod} none"; exit 0; }}
STAP_FAIL_NTH=$n {staprun} {mod}.ko > {mod}.$n.out 2> {mod}.$n.err; rc=$?
{staprun} -d {mod} 2>/dev/null
echo "@{mod} $n rc=$rc mods=$(grep -c '^f_' /proc/modules)" \
	"kprobes=$(grep -c . $D/kprobes/list)" \
	"ftrace=$(grep -c . /sys/kernel/tracing/enabled_functions)" \
	"segv=$(dmesg | grep -c 'segfault at')" \
	"inj=$(sed -n 's/^staprun: fail-nth [0-9]*: //p' {mod}.$n.err | cut -d, -f1)" \
	"err=$(grep -v '^staprun: fail-nth' {mod}.$n.err | head -n 1)"'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--runs', type=int, default=20, help='runs spread before the tail')
    ap.add_argument('--tail', type=int, default=40, help='last points, one by one')
    args = ap.parse_args()
    if not guest.debug_kernel():
        sys.exit('debug_faults.py: set STAP_GUEST_KERNEL to a debug-kernel.sh cache')
    krel = guest.kernel_release()
    scratch = Path(tempfile.mkdtemp(prefix='stap-faults.', dir='/var/tmp'))
    try:
        for mod, script in SCRIPTS.items():
            subprocess.run([str(STAP), '-p4', '-r', krel, '-m', mod, '-e', script],
                           cwd=scratch, check=True, capture_output=True)
        cmds = [SETUP] + [COUNT.format(mod=mod, staprun=STAPRUN, big=BIG, runs=args.runs,
                                       tail=args.tail) for mod in SCRIPTS]
        # the modules in turn, the tail (their own init) first
        for i in [*range(args.runs + 1, args.runs + args.tail + 1), *range(1, args.runs + 1)]:
            for mod in SCRIPTS:
                cmds.append('D=/sys/kernel/debug\n'
                            + RUN.format(i=i, mod=mod, staprun=STAPRUN))
        batch = guest.run_batch(cmds, scratch=str(scratch), timeout=60)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    bad = [x for x in (batch.console + '\n' + batch.dmesg).splitlines()
           if any(p in x for p in BAD)]
    outcomes = collections.defaultdict(collections.Counter)
    left, crashes, points, nsegv, runs = [], [], {}, 0, 0
    for r in batch[1:]:
        lines = [x for x in r.stdout.splitlines() if x.startswith('@')]
        if r.timed_out or r.rc != 0 or not lines:
            left.append(f'{r.command[:60]}...: rc {r.rc}, no report: {r.stdout[-200:]}')
            continue
        m = re.match(r'@(\S+) points=(\d+)$', lines[0])
        if m:
            points[m.group(1)] = int(m.group(2))
            continue
        if lines[0].endswith(' none'):
            continue
        m = re.match(r'@(\S+) (\d+) rc=(\d+) (mods=\d+ kprobes=\d+ ftrace=\d+) '
                     r'segv=(\d+) inj=(.*) err=(.*)', lines[0])
        if not m:
            left.append(f'{r.command[:60]}...: unreadable report {lines[0]!r}')
            continue
        runs += 1
        mod, n, rc, what, segv, inj, err = m.groups()
        if what != 'mods=0 kprobes=0 ftrace=0':
            left.append(f'{mod} fail-nth {n}: {what}')
        if int(rc) >= 128 or int(segv) > nsegv:	# killed by a signal
            crashes.append(f'{mod} fail-nth {n}: rc {rc} segfaults {segv} {err}')
        nsegv = int(segv)
        err = re.sub(r'\d+', 'N', err)
        outcomes[mod][f'{inj or "?"}: rc={rc} {err}'.strip()] += 1
    print(f'debug kernel {krel}: {runs} runs; fault points of init_module: {points}')
    for mod, c in outcomes.items():
        print(f'{mod}:')
        for k, v in c.most_common():
            print(f'  {v:4} x {k}')
    print('left behind or failed:', left or 'nothing')
    print('crashes:', crashes or 'none')
    print('kernel reports:', bad[:60] or 'none')
    return 1 if bad or left or crashes or len(points) != len(SCRIPTS) else 0


if __name__ == '__main__':
    sys.exit(main())
