#!/usr/bin/python3
# bench/pass4steps.py - where pass 4's CPU time goes (issue 17): builds each
# script's module with `stap -p4 -k`, then runs kbuild again in the kept
# directory with every shell command kbuild starts timed (make's SHELL is a
# wrapper around /usr/bin/time), and prints the user+sys seconds of each kind
# of step: the module's C (gcc and objtool), the .mod.c, the compiler-option
# probes kbuild's Makefiles run on every invocation, modpost, the links, the
# module BTF (pahole, when the -r tree has a vmlinux), and what is left:
# make itself reading the kernel's Makefiles. A second table splits the
# compile of the C: the kernel headers alone, the runtime alone (a module
# with no probe of its own) and the rest, the script's own code. This is
# make's path (-k turns the module cache off): with the cache on, stap
# runs the leaf commands without make (build/kdirect.c), so the rows for
# make, its option probes and the nested makes are not spent there.
# Not a test: run it by hand, `bench/pass4steps.py [--runs N] [SCRIPT...]`.
import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from passes import OURS, kernel_release

SCRIPTS = {
    'trivial': 'probe begin { printf("hi\\n"); exit() }',
    'kprobe+tp': ('probe kprobe.function("vfs_read") { printf("x\\n") } '
                  'probe kernel.trace("sched_switch") { printf("y\\n") }'),
    'syscall.*': 'probe syscall.* { printf("%s(%s)\\n", name, argstr) }',
}
WRAPPER = '''#!/bin/sh
exec /usr/bin/time -a -o "$STEPS_LOG" -f "%U %S @@ $2" /bin/sh "$@"
'''
# the kind of a leaf shell command, by what it runs (first match wins)
KINDS = [
    ('make (nested)', re.compile(r'^make -f ')),
    ('cc-option probes', re.compile(r'TMP=.*\.tmp_')),
    ('C of the module (gcc, objtool)', re.compile(r"CC \[M\]  \S*_src\.o")),
    ('.mod.c (gcc)', re.compile(r"CC \[M\]  \S*\.mod\.o")),
    ('modpost', re.compile(r'MODPOST')),
    ('BTF (pahole)', re.compile(r'BTF \[M\]')),
    ('link (ld)', re.compile(r'LD \[M\]')),
]


def build_kept(krel, script, work):
    """Build with -k; the kept temporary directory."""
    env = dict(os.environ, SYSTEMTAP_DIR=str(work / 'sysdir'),
               SYSTEMTAP_DEBUGINFO_PATH=str(work / 'no-debuginfo'))
    r = subprocess.run([str(OURS), '-v', '-k', '--disable-cache', '-p4', '-r', krel,
                        '-e', script], env=env, cwd=work, capture_output=True, text=True)
    m = re.search(r'Keeping temporary directory "([^"]+)"', r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError(r.stderr[-800:])
    return Path(m.group(1))


def clean(tmp):
    for f in tmp.iterdir():
        if f.name not in ('Makefile',) and not f.name.endswith('_src.c'):
            if f.is_dir():
                shutil.rmtree(f)
            else:
                f.unlink()


def steps(krel, tmp, work):
    """{kind: cpu seconds} of one kbuild run in tmp, and its total."""
    log = work / 'steps.log'
    wrapper = work / 'tsh'
    wrapper.write_text(WRAPPER)
    wrapper.chmod(0o755)
    clean(tmp)
    log.write_text('')
    kdir = f'/lib/modules/{krel}/build'
    r = subprocess.run(['/usr/bin/time', '-f', '%U %S', 'make', '-C', kdir, f'M={tmp}',
                        f'SHELL={wrapper}', 'modules'],
                       env=dict(os.environ, STEPS_LOG=str(log)), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-800:])
    u, s = r.stderr.strip().splitlines()[-1].split()
    total = float(u) + float(s)
    out = {k: 0.0 for k, _ in KINDS}
    out['other leaf commands'] = 0.0
    text = log.read_text(errors='replace')
    # each record: "U S @@ COMMAND" (the command may span lines)
    for m in re.finditer(r'^(\d+\.\d+) (\d+\.\d+) @@ (.*?)(?=^\d+\.\d+ \d+\.\d+ @@ |\Z)',
                         text, re.S | re.M):
        cpu = float(m.group(1)) + float(m.group(2))
        for kind, rx in KINDS:
            if rx.search(m.group(3)):
                out[kind] += cpu
                break
        else:
            out['other leaf commands'] += cpu
    del out['make (nested)']	# its children are counted as leaves
    out['make itself'] = max(total - sum(out.values()), 0.0)
    return out, total


def cc_split(krel, tmp, work):
    """CPU seconds of gcc on the headers alone, the runtime with no probe,
    and the module's C (its kbuild command line, without objtool)."""
    src = next(tmp.glob('*_src.c'))
    cmd = (tmp / f'.{src.stem}.o.cmd').read_text().splitlines()[0]
    cmd = cmd.split(':=', 1)[1].split(' ; ', 1)[0]
    cmd = re.sub(r'-Wp,-MMD,\S+', '', cmd)
    cmd = re.sub(r' -c -o \S+ \S+\s*$', '', cmd.strip())
    heads = work / 'heads.c'
    heads.write_text('#define STP_NPROBES 1\n#define MAXNESTING 1\n'
                     '#define STP_MAXNESTING 1\n#include "stp_runtime.h"\n')
    kdir = f'/lib/modules/{krel}/build'

    def cpu(path):
        r = subprocess.run(['/usr/bin/time', '-f', '%U %S', 'sh', '-c',
                            f'{cmd} -c -o {work}/x.o {shlex.quote(str(path))}'],
                           cwd=kdir, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr[-800:])
        u, s = r.stderr.strip().splitlines()[-1].split()
        return float(u) + float(s)
    return cpu(heads), cpu(src)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('scripts', nargs='*', help=f'of {", ".join(SCRIPTS)}')
    opts = ap.parse_args()
    krel = kernel_release()
    names = opts.scripts or list(SCRIPTS)
    work = Path(tempfile.mkdtemp(prefix='bench-p4steps-'))
    (work / 'no-debuginfo').mkdir()
    kept = []
    try:
        results = {}
        for name in names:
            tmp = build_kept(krel, SCRIPTS[name], work)
            kept.append(tmp)
            runs = [steps(krel, tmp, work) for _ in range(opts.runs)]
            kinds = runs[0][0].keys()
            results[name] = ({k: statistics.median(r[0][k] for r in runs) for k in kinds},
                             statistics.median(r[1] for r in runs),
                             [cc_split(krel, tmp, work) for _ in range(opts.runs)])
        print('pass-4 CPU seconds (user+sys) by kbuild step; median of '
              f'{opts.runs} run(s)')
        print(f'{"step":32}' + ''.join(f'{n:>12}' for n in names))
        for kind in next(iter(results.values()))[0]:
            print(f'{kind:32}' + ''.join(f'{results[n][0][kind]:12.2f}' for n in names))
        print(f'{"total":32}' + ''.join(f'{results[n][1]:12.2f}' for n in names))
        print()
        print('gcc alone on the module C: the headers, and all of it')
        print(f'{"headers (stp_runtime.h)":32}' + ''.join(
            f'{statistics.median(c[0] for c in results[n][2]):12.2f}' for n in names))
        print(f'{"whole _src.c":32}' + ''.join(
            f'{statistics.median(c[1] for c in results[n][2]):12.2f}' for n in names))
    finally:
        for tmp in kept:
            shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
