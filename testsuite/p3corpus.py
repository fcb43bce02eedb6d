#!/usr/bin/env python3
"""p3corpus.py - pass 3 (`stap -p3`, no kbuild) over every script we keep:
the differential corpus (diff/), the pass-2 golden cases (semok/) and
Debian's example scripts. Used two ways:

    p3corpus.py --out DIR          write each script's C (and its stderr and
                                   exit status when not 0) under DIR
    p3corpus.py --compare A B      list the scripts whose output differs
                                   between two such snapshots (exit 1 if any)
    p3corpus.py                    run them all, print a line per failure
                                   (a crash: exit status other than 0 or 1)

A refactoring of the translator takes a snapshot before and after and
compares them (the pass-3 output must not change unless a test says why);
sanitize.sh runs the plain form under ASan/UBSan. Environment: STAP (the
stap binary; default STAP_BUILDDIR/translator/stap, as for the tests and
examples.py, else the in-tree build), P3_JOBS (default: cores).
"""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import examples  # noqa: E402

KREL = '6.1.0-56-amd64'
STAP = Path(os.environ.get('STAP', examples.STAP))
# examples.py finds stap through STAP_BUILDDIR only; when STAP names another
# binary, its helpers must run that one too.
examples.STAP = STAP


def golden_args(path):
    """The options of a diff/ or semok/ case: -g for guru_ names, then the
    script, then the arguments of NAME.args."""
    args = ['-g'] if path.name.startswith('guru_') else []
    args.append(path.name)
    extra = path.with_suffix('.args')
    if extra.exists():
        args += extra.read_text().splitlines()
    return args


def cases():
    """(name, directory, stap arguments) of every script, sorted by name."""
    found = []
    for d in ('diff', 'semok'):
        for p in sorted((HERE / d).rglob('*.stp')):
            found.append((f'{d}/{p.relative_to(HERE / d)}', p.parent,
                          golden_args(p)))
    for p in examples.examples():
        args = examples.meta_args(p)
        if p.name not in args:
            args.append(p.name)
        found.append((f'examples/{examples.rel(p)}', p.parent, args))
    return found


# The module cache would answer a repeated -p3 without running pass 3.
os.environ['SYSTEMTAP_DIR'] = tempfile.mkdtemp(prefix='p3corpus-')
atexit.register(shutil.rmtree, os.environ['SYSTEMTAP_DIR'], True)
# The debuginfo the tests see (conftest.py): the set-up's libc6-dbg only,
# the kernel's -dbg package hidden, so the snapshots are those of the
# BTF-only translator whatever the machine has installed.
_DEBUGINFO = tempfile.mkdtemp(prefix='p3corpus-debuginfo-')
atexit.register(shutil.rmtree, _DEBUGINFO, True)
try:
    from conftest import debuginfo_tree  # noqa: E402
    os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = debuginfo_tree(_DEBUGINFO)
except (ImportError, subprocess.CalledProcessError):
    os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = _DEBUGINFO


def run(case):
    """Run one case; the result also carries the process id, the suffix of
    a sanitizer's log_path file, so a report can be traced to its script."""
    name, cwd, args = case
    argv = [str(STAP), '-p3', '-r', KREL] + args
    with subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          errors='replace') as p:
        try:
            out, err = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            err += '\np3corpus: timed out after 300 s\n'
    r = subprocess.CompletedProcess(argv, p.returncode, out, err)
    r.pid = p.pid
    return name, r


def run_all():
    jobs = int(os.environ.get('P3_JOBS', os.cpu_count() or 2))
    with ThreadPoolExecutor(jobs) as ex:
        yield from ex.map(run, cases())


def snapshot(out):
    n = 0
    for name, r in run_all():
        dst = Path(out) / (name + '.c')
        dst.parent.mkdir(parents=True, exist_ok=True)
        text = r.stdout
        if r.returncode:
            text += f'\n/* exit {r.returncode}\n{r.stderr}*/\n'
        dst.write_text(text)
        n += 1
    print(f'p3corpus: {n} scripts written under {out}')
    return 0


def compare(a, b):
    a, b = Path(a), Path(b)
    names = {p.relative_to(a) for p in a.rglob('*.c')}
    names |= {p.relative_to(b) for p in b.rglob('*.c')}
    bad = 0
    for n in sorted(names):
        pa, pb = a / n, b / n
        ta = pa.read_text() if pa.exists() else None
        tb = pb.read_text() if pb.exists() else None
        if ta != tb:
            print(f'differs: {n}')
            bad += 1
    print(f'p3corpus: {len(names)} compared, {bad} differ')
    return 1 if bad else 0


def check():
    bad = n = 0
    for name, r in run_all():
        n += 1
        if r.returncode not in (0, 1) or 'Sanitizer' in r.stderr \
                or 'runtime error:' in r.stderr:
            bad += 1
            print(f'FAILED {name}: exit {r.returncode} (pid {r.pid})\n'
                  f'{r.stderr[-3000:]}')
    print(f'p3corpus: {n - bad} passed, {bad} failed')
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out')
    ap.add_argument('--compare', nargs=2)
    o = ap.parse_args()
    if o.compare:
        return compare(*o.compare)
    if not STAP.exists():
        print(f'p3corpus: {STAP} is not built (set STAP or STAP_BUILDDIR)',
              file=sys.stderr)
        return 2
    if o.out:
        return snapshot(o.out)
    return check()


if __name__ == '__main__':
    sys.exit(main())
