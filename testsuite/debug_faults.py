#!/usr/bin/python3
# testsuite/debug_faults.py - the fault-injection pass of the debug-kernel
# campaign (testsuite/debug-campaign.sh; not a pytest file, not in `make
# check`). In the debug guest ($STAP_GUEST_KERNEL), failslab and
# fail_page_alloc fail exactly one allocation of staprun's task: the Nth
# fault-injection point after `echo N > /proc/self/fail-nth` (so module
# loading, our module's init, the relay set-up, stapio's reads), for N in
# a sweep. Each run may fail, with an error, but must leave nothing
# behind (no module of ours, kprobe or ftrace hook, after `staprun -d`),
# and the kernel must stay free of KASAN, lockdep, atomic-sleep, BUG,
# WARNING and oops reports. Prints a summary of the outcomes per module.
# A segfault in ld.so (glibc 2.36 crashes in fatal_error() when its own
# start-up allocation fails, before main) is listed apart, as not ours.
#
#     STAP_GUEST_KERNEL=CACHE testsuite/debug_faults.py [--upto N] [--step S]
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
RUN = r'''sh -c 'echo {n} > /proc/self/fail-nth && exec {staprun} {mod}.ko' \
	> {mod}.{n}.out 2> {mod}.{n}.err; rc=$?
{staprun} -d {mod} 2>/dev/null
echo "@{mod} {n} rc=$rc mods=$(grep -c '^f_' /proc/modules)" \
	"kprobes=$(grep -c . $D/kprobes/list)" \
	"ftrace=$(grep -c . /sys/kernel/tracing/enabled_functions)" \
	"segv=$(dmesg | grep -c 'segfault at')" \
	"last=$(dmesg | grep 'segfault at' | tail -n 1 | grep -o ' in [^[ ]*')" \
	"err=$(head -n 1 {mod}.{n}.err)"'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--upto', type=int, default=150)
    ap.add_argument('--step', type=int, default=3)
    ap.add_argument('--start', type=int, default=1)
    args = ap.parse_args()
    if not guest.debug_kernel():
        sys.exit('debug_faults.py: set STAP_GUEST_KERNEL to a debug-kernel.sh cache')
    krel = guest.kernel_release()
    scratch = Path(tempfile.mkdtemp(prefix='stap-faults.', dir='/var/tmp'))
    try:
        for mod, script in SCRIPTS.items():
            subprocess.run([str(STAP), '-p4', '-r', krel, '-m', mod, '-e', script],
                           cwd=scratch, check=True, capture_output=True)
        cmds = [SETUP]
        for n in range(args.start, args.upto + 1, args.step):
            for mod in SCRIPTS:
                cmds.append('D=/sys/kernel/debug\n' + RUN.format(n=n, mod=mod, staprun=STAPRUN))
        batch = guest.run_batch(cmds, scratch=str(scratch), timeout=60, memory_mb=768)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    bad = [x for x in (batch.console + '\n' + batch.dmesg).splitlines()
           if any(p in x for p in BAD)]
    outcomes = collections.defaultdict(collections.Counter)
    left, crashes, ldso, nsegv = [], [], [], 0
    for r in batch[1:]:
        line = next((x for x in r.stdout.splitlines() if x.startswith('@')), None)
        if r.timed_out or not line:
            left.append(f'{r.command[:60]}...: timed out or no report')
            continue
        m = re.match(r'@(\S+) (\d+) rc=(\d+) (mods=\d+ kprobes=\d+ ftrace=\d+) '
                     r'segv=(\d+) last=(.*) err=(.*)', line)
        if not m:
            left.append(f'{r.command[:60]}...: unreadable report {line!r}')
            continue
        mod, n, rc, what, segv, last, err = m.groups()
        # a segfault of this run, in the dynamic loader: glibc 2.36's
        # ld.so dereferences a NULL object name in fatal_error()
        # (elf/dl-error-minimal.c:78) when its own start-up allocation
        # fails, before main() of staprun or stapio: not our code
        in_ldso = int(segv) > nsegv and 'ld-linux' in last
        nsegv = int(segv)
        if what != 'mods=0 kprobes=0 ftrace=0':
            left.append(f'{mod} fail-nth {n}: {what}')
        if int(rc) >= 128 and in_ldso:
            ldso.append(f'{mod} fail-nth {n}: rc {rc} {err}')
            err = 'crash in ld.so before main (glibc)'
        elif int(rc) >= 128:	# staprun or stapio killed by a signal
            crashes.append(f'{mod} fail-nth {n}: rc {rc} {err}{last}')
        err = re.sub(r'\d+', 'N', err)
        outcomes[mod][f'rc={rc} {err}'.strip()] += 1
    print(f'debug kernel {krel}: {len(batch) - 1} runs, fail-nth {args.start}..{args.upto} step {args.step}')
    for mod, c in outcomes.items():
        print(f'{mod}:')
        for k, v in c.most_common():
            print(f'  {v:4} x {k}')
    print('left behind:', left or 'nothing')
    print('crashes:', crashes or 'none')
    print('crashes in ld.so before main (glibc, not ours):', ldso or 'none')
    print('kernel reports:', bad[:60] or 'none')
    return 1 if bad or left or crashes else 0


if __name__ == '__main__':
    sys.exit(main())
