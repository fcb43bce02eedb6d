#!/usr/bin/python3
# bench/kdwarf.py - pass 2 through the kernel's own DWARF (the guest
# kernel's linux-image-KVER-dbg installed, SYSTEMTAP_DEBUGINFO_PATH unset:
# 4.8's default path): wall time and peak memory (max RSS, /usr/bin/time)
# of `stap -p2` (and -l) on one-liners, for this stap and for Debian's
# SystemTap 4.8 in the same run, with ratios (upstream / ours: >1 means we
# are faster or smaller). Ours twice: its first run in a new cache
# directory (which writes the index of the DWARF, info/kindex.c) and a
# warm run (which reads it); the goal is 10 or more on both ratios of the
# warm runs. Wall time and CPU time (user + system: on a loaded machine
# the wall time of a short run is mostly waiting for a CPU). Not a test:
# run it by hand, `bench/kdwarf.py [--runs N] [--only TEXT]`.
# The bodies are `{ next }` so the probes are not elided.
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

from passes import OURS, UPSTREAM, kernel_release

POINTS = [
    ('-p2', 'probe kernel.function("*@fs/read_write.c") { next }'),
    ('-p2', 'probe kernel.function("*@mm/*.c").call { next }'),
    ('-p2', 'probe kernel.statement("vfs_read@fs/read_write.c:*") { println($$locals) }'),
    ('-l', 'kernel.function("vfs_*")'),
    ('-L', 'kernel.function("*@net/socket.c")'),
    ('-l', 'kernel.function("*@net/socket.c")'),
    # 26 modules: the index of their function names (info/kmodidx.c)
    ('-l', 'module("nf_*").function("jhash2")'),
]


def measure(stap, opt, arg, krel, home=None):
    env = {k: v for k, v in os.environ.items() if k != 'SYSTEMTAP_DEBUGINFO_PATH'}
    env['SYSTEMTAP_DIR'] = home or tempfile.mkdtemp(prefix='kdwarf-bench-')
    args = [str(stap), '-r', krel, opt] + (['-e', arg] if opt == '-p2' else [arg])
    r = subprocess.run(['/usr/bin/time', '-f', 'TIME %e %M %U %S'] + args, capture_output=True,
                       text=True, env=env, timeout=600)
    m = re.search(r'TIME ([0-9.]+) ([0-9]+) ([0-9.]+) ([0-9.]+)\s*$', r.stderr)
    nprobes = sum(1 for line in r.stdout.splitlines() if line.startswith(('kernel.', 'module(')))
    return (float(m.group(1)), int(m.group(2)) // 1024, nprobes, r.returncode,
            float(m.group(3)) + float(m.group(4)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--only', help='the rows whose point contains this text')
    a = ap.parse_args()
    krel = kernel_release()
    if not os.path.exists(f'/usr/lib/debug/boot/vmlinux-{krel}'):
        sys.exit(f'kdwarf.py: linux-image-{krel}-dbg is not installed')
    print(f'{"point":60} {"run":5} {"ours s":>7} {"4.8 s":>7} {"ratio":>6} {"cpu s":>6} '
          f'{"4.8":>6} {"ratio":>6} {"ours MB":>8} {"4.8 MB":>7} {"ratio":>6} {"probes":>13}')
    for opt, arg in POINTS:
        if a.only and a.only not in arg:
            continue
        first, warm = [], []
        for _ in range(a.runs):
            home = tempfile.mkdtemp(prefix='kdwarf-bench-')
            first.append(measure(OURS, opt, arg, krel, home))
            warm.append(measure(OURS, opt, arg, krel, home))
        up = [measure(UPSTREAM, opt, arg, krel) for _ in range(a.runs)]
        ut, um = statistics.median(x[0] for x in up), max(x[1] for x in up)
        uc = statistics.median(x[4] for x in up)
        for name, ours in (('first', first), ('warm', warm)):
            ot, om = statistics.median(x[0] for x in ours), max(x[1] for x in ours)
            oc = statistics.median(x[4] for x in ours)
            print(f'{(opt + " " + arg)[:60]:60} {name:5} {ot:7.2f} {ut:7.2f} '
                  f'{ut / max(ot, 0.01):6.1f} {oc:6.2f} {uc:6.2f} {uc / max(oc, 0.01):6.1f} '
                  f'{om:8d} {um:7d} {um / max(om, 1):6.1f} '
                  f'{ours[0][2]:>6}/{up[0][2]:<6}', flush=True)


if __name__ == '__main__':
    main()
