#!/usr/bin/python3
# bench/manyprobes.py - the cost of arming and disarming many kprobes,
# this stap against Debian's SystemTap 4.8, in the test guest (QEMU, TCG,
# 1 CPU, -icount as in bench/probes.py, so timings repeat whatever the
# host's load). The script is `kprobe.function("*_show")` (1,308 sysfs
# show functions on the guest's 6.1 kernel, most of them on an ftrace
# location) counting hits, plus one on mtu_show that prints its first hit,
# and a begin probe. In the guest, a loop reads /sys/class/net/lo/mtu all
# the time; measured:
#   ready - from starting staprun to the begin probe's line (ours prints
#           it once every probe is armed: stapio reads output only after
#           the module's start, which arms them, returns);
#   armed - from starting staprun to ARMED functions or more in ftrace's
#           enabled_functions (both arm most of these probes through
#           ftrace: 4.8 a kprobe at a time, ours in one update);
#   hit   - whether mtu_show was hit within 10 s after that (4.8's
#           registration fails with rc 4 for about 130 of the probes,
#           mtu_show among them);
#   exit  - from SIGINT to staprun's exit (the probes disarmed, the end
#           probe run, the module removed);
# and afterwards nothing may be left in the kprobe list or in ftrace's
# enabled_functions. Ratios are 4.8 / ours (>1: we are faster). Not a
# test: run it by hand, `bench/manyprobes.py [--rep R] [--work DIR]`.
# With --ret the probes are return probes, `kernel.function("*_show").return`
# (about 1,230: the inlined ones cannot return), with an entry probe on
# mtu_show beside its return probe; armed then means 1,000 functions.
# With --syscall the probes are the syscall.* one-liner's (about 700
# entry probes on the guest's 6.1 kernel, hit by the loop's read()s);
# armed then means 600 functions.
# Measured (session 11, 6.1 guest, TCG -icount, ready / armed / exit in s):
#   syscall.* (697)          main 9.65 / 10.16 / 0.30, with the probes on
#                            ftrace locations registering no kprobe
#                            1.09 / 1.50 / 0.29; 4.8 9.85 / 76.88 / 62.44
#                            (armed: 51x faster than 4.8, was 7.6x)
#   syscall.*.return         main 9.64 / 9.96 / 0.32, now 0.97 / 1.30 / 0.32
#   kprobe.function("*_show") (1,308)  main 23.16 / 23.61 / 0.49,
#                            now 1.62 / 2.06 / 0.46
# This bench itself (session 11, --rep 1, ours / 4.8, ratio 4.8 / ours):
#   kprobe.function("*_show")          armed 2.03 / 142.88 s (70x),
#                                      exit 0.48 / 86.71 s (182x)
#   kernel.function("*_show").return   armed 6.36 / 132.49 s (21x),
#                                      exit 0.47 / 90.48 s (194x)
import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from passes import OURS, OURS_RUN, UPSTREAM, UPSTREAM_RUN, patched_runtime  # noqa: E402
from probes import CountingGuest, run, upstream_kbuild  # noqa: E402
import guest  # noqa: E402

SCRIPT = ('global n probe kprobe.function("*_show") { n++ } '
          'probe kprobe.function("mtu_show") { if (!m++) println("hit") } global m '
          'probe begin { println("ready") } '
          'probe end { printf("end %d\\n", n > 0) }')

ARMED = 1100

SCRIPT_RET = ('global n probe kernel.function("*_show").return { n++ } '
              'probe kernel.function("mtu_show") { e++ } global e '
              'probe kernel.function("mtu_show").return { if (!m++) println("hit") } global m '
              'probe begin { println("ready") } '
              'probe end { printf("end %d\\n", n > 0) }')
ARMED_RET = 1000

SCRIPT_SC = ('global n probe syscall.* { n++ } '
             'probe syscall.read { if (!m++) println("hit") } global m '
             'probe begin { println("ready") } '
             'probe end { printf("end %d\\n", n > 0) }')
ARMED_SC = 600

# ns timestamps: start, ready, armed, SIGINT, exit, hit; what is left
COMMAND = '''( while :; do cat /sys/class/net/lo/mtu > /dev/null; done ) & L=$!
F=/sys/kernel/tracing/enabled_functions
rm -f {t}.out; a=$(date +%s%N); {srun} {t}_many.ko > {t}.out 2> {t}.err & P=$!
j=0; until grep -q ready {t}.out 2>/dev/null || [ $j -ge 3000 ]; do sleep 0.1; j=$((j+1)); done
b=$(date +%s%N)
j=0; until [ $(grep -c . $F) -ge {armed} ] || [ $j -ge 3000 ]; do sleep 0.1; j=$((j+1)); done
c=$(date +%s%N)
i=0; until grep -q hit {t}.out || [ $i -ge 100 ]; do sleep 0.1; i=$((i+1)); done
grep -q hit {t}.out && h=1 || h=0
s=$(date +%s%N); kill -INT $P; wait $P; d=$(date +%s%N); kill $L; wait $L 2>/dev/null
echo "times $a $b $c $s $d $h"; grep "^end " {t}.out
echo "left $(grep -c . /sys/kernel/debug/kprobes/list) $(grep -c . $F) \\
$(grep -c _many /proc/modules)"
'''


def build(work, krel, script):
    """o_many.ko and u_many.ko; -p4 seconds of each."""
    rt = str(work / 'runtime')
    if not (work / 'runtime').exists():
        patched_runtime(rt)
    sysdir = work / 'sysdir'
    sysdir.mkdir(exist_ok=True)
    kb = work / 'kb'
    if not (kb / 'System.map').exists():
        shutil.rmtree(kb, ignore_errors=True)
        kb = upstream_kbuild(work, krel)
    vmlinux = Path(f'/usr/lib/debug/boot/vmlinux-{krel}')
    if not (kb / 'vmlinux').exists() and vmlinux.exists():
        (kb / 'vmlinux').symlink_to(vmlinux)   # 4.8's kernel.function DWARF
    env = dict(os.environ, SYSTEMTAP_DIR=str(sysdir))
    _, o = run([OURS, '-r', krel, '-p4', '-m', 'o_many', '-e', script], cwd=work, env=env)
    _, u = run([UPSTREAM, '-R', rt, '-r', kb, '-p4', '-m', 'u_many', '-w', '-e', script],
               env=env, cwd=work)
    return {'o': o, 'u': u}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rep', type=int, default=1, help='runs of each; the best counts')
    ap.add_argument('--work', help='keep the modules in this directory and reuse them')
    ap.add_argument('--ret', action='store_true',
                    help='kernel.function("*_show").return probes')
    ap.add_argument('--syscall', action='store_true', help='the syscall.* probes')
    args = ap.parse_args()
    script, armed = ((SCRIPT_RET, ARMED_RET) if args.ret else
                     (SCRIPT_SC, ARMED_SC) if args.syscall else (SCRIPT, ARMED))
    krel = guest.kernel_release()
    work = Path(args.work or tempfile.mkdtemp(prefix='stap-bench-many.', dir='/var/tmp'))
    work.mkdir(exist_ok=True)
    try:
        if (work / 'secs.json').exists():
            secs = json.loads((work / 'secs.json').read_text())
        else:
            secs = build(work, krel, script)
            (work / 'secs.json').write_text(json.dumps(secs))
        keys, cmds = [], []
        for _ in range(args.rep):
            for t, srun in (('o', OURS_RUN), ('u', UPSTREAM_RUN)):
                keys.append(t)
                cmds.append(COMMAND.format(t=t, srun=srun, armed=armed))
        batch = CountingGuest().run_batch(cmds, scratch=str(work), timeout=900,
                                          memory_mb=512)
        guest.check_kernel_healthy(batch)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    best, hits = {}, {}
    for t, r in zip(keys, batch):
        print(f'{t}: {r.stdout.strip()!r}')
        lines = r.stdout.splitlines()
        times = next((x.split()[1:] for x in lines if x.startswith('times ')), None)
        left = next((x.split()[1:] for x in lines if x.startswith('left ')), None)
        if r.rc != 0 or not times or left != ['0', '0', '0'] or not any(x.startswith('end ') for x in lines):
            raise RuntimeError(f'{t}: rc {r.rc}: {r.stdout[-400:]} {r.stderr[-400:]}')
        a, b, c, sig, d, h = (int(x) for x in times)
        got = ((b - a) / 1e9, (c - a) / 1e9, (d - sig) / 1e9)
        hits[t] = hits.get(t, False) or bool(h)
        old = best.get(t, got)
        best[t] = tuple(min(x, y) for x, y in zip(got, old))
    probes = ('kernel.function("*_show").return' if args.ret else
              'syscall.*' if args.syscall else 'kprobe.function("*_show")')
    print(f'kernel {krel}, guest TCG 1 CPU -icount, {probes}, '
          f'best of {args.rep}; ratio = 4.8 / ours')
    print(f'{"seconds":14} {"ours":>8} {"4.8":>8} {"ratio":>6}')
    print(f'{"build -p4":14} {secs["o"]:>8.2f} {secs["u"]:>8.2f} {secs["u"] / secs["o"]:>6.2f}')
    for i, name in enumerate(('ready', 'armed', 'exit')):
        o, u = best['o'][i], best['u'][i]
        print(f'{name:14} {o:>8.2f} {u:>8.2f} {u / o:>6.2f}')
    hit = 'syscall.read' if args.syscall else 'mtu_show'
    print(f'{hit} hit: ours {hits["o"]}, 4.8 {hits["u"]}')


if __name__ == '__main__':
    main()
