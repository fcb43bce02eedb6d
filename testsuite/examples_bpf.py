#!/usr/bin/python3
# examples_bpf.py - Debian's example scripts through the BPF backend.
#
# Each example is built with `stap --runtime=bpf -p4` for the running
# kernel (its BTF and tracefs: BPF objects are built for the host, unlike
# examples.py's pass 2 for the guest kernel), with the options and
# arguments of its .meta file (examples.py's meta_args), from a copy of the
# examples tree (pass 4 leaves its object in the current directory). Its
# outcome is "ok", or "error: " and the first error line, the tapset
# directory written "tapsets/". Every failure must be a clear one: status
# 1, a FILE:LINE:COL location with its caret, no compiler or verifier
# output, no internal error. `examples_bpf.py --record` writes
# corpus/examples-bpf.tsv (example, outcome), which test_examples_bpf.py
# asserts, so that a regression or a newly supported example shows.
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from examples import EXAMPLES, STAP, examples, meta_args, rel

HERE = Path(__file__).resolve().parent
RECORD = HERE / 'corpus' / 'examples-bpf.tsv'
ERROR = re.compile(r'^(?:\S+:\d+:\d+: )?error: (.*)$', re.M)
LOCATED = re.compile(r'^\S+:\d+:\d+: error: ', re.M)
TAPSETS = re.compile(r'\S*/tapsets/')
# what a user must never see: the compiler's or verifier's own words, or
# an error of ours that is not the script's
LEAKS = ('clang', 'verifier', 'libbpf', 'internal error', 'stapbpf.h',
         'Assertion', 'Segmentation', 'AddressSanitizer')


def copy_tree(dest):
    """A writable copy of the examples tree, for pass 4's objects."""
    shutil.copytree(EXAMPLES, dest, symlinks=True)
    return Path(dest)


def build(tree, script, timeout=300):
    """stap --runtime=bpf -p4 of the example (a path under EXAMPLES),
    run from its copy's directory."""
    where = tree / script.relative_to(EXAMPLES).parent
    args = ['--runtime=bpf', '-p4'] + meta_args(script)
    if script.name not in args:
        args.append(script.name)
    return subprocess.run([str(STAP)] + args, cwd=where, capture_output=True,
                          text=True, timeout=timeout)


def outcome(r):
    """"ok", or "error: " and the first error message (a line), the
    running kernel's release in it written KREL."""
    if r.returncode == 0:
        return 'ok'
    m = ERROR.search(r.stderr)
    if not m:
        return f'status {r.returncode}: {r.stderr[-200:]!r}'
    # the running kernel's release, which differs from host to host
    return 'error: ' + TAPSETS.sub('tapsets/', m.group(1)).replace(
        os.uname().release, 'KREL')


def clear_failure(r):
    """Why the failure r is not a clear one, or None."""
    if r.returncode != 1:
        return f'status {r.returncode}'
    if not LOCATED.search(r.stderr):
        return 'no FILE:LINE:COL: error: line'
    if not re.search(r'^\s+\|\s*\^', r.stderr, re.M):
        return 'no caret under the location'
    leaks = [w for w in LEAKS if w in r.stderr]
    if leaks:
        return f'shows {leaks}'
    return None


def run_all(tree, jobs=2):
    """{example: CompletedProcess} over every example, jobs at a time."""
    scripts = examples()
    with ThreadPoolExecutor(jobs) as pool:
        return dict(zip((rel(s) for s in scripts),
                        pool.map(lambda s: build(tree, s), scripts)))


def load_record():
    rows = {}
    for line in RECORD.read_text().splitlines():
        name, result = line.split('\t', 1)
        rows[name] = result
    return rows


def main():
    from conftest import debuginfo_tree   # the debuginfo the suite sees

    with tempfile.TemporaryDirectory(prefix='stap-examples-bpf-') as tmp:
        os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = debuginfo_tree(os.path.join(tmp, 'dbg'))
        os.environ['SYSTEMTAP_DIR'] = os.path.join(tmp, 'cache')
        results = run_all(copy_tree(os.path.join(tmp, 'examples')))
    lines = [f'{name}\t{outcome(r)}' for name, r in results.items()]
    bad = {name: clear_failure(r) for name, r in results.items()
           if r.returncode and clear_failure(r)}
    if len(sys.argv) > 1 and sys.argv[1] == '--record':
        RECORD.write_text('\n'.join(lines) + '\n')
        ok = sum(1 for r in results.values() if r.returncode == 0)
        print(f'{ok} of {len(lines)} examples build; written {RECORD}')
    else:
        print('\n'.join(lines))
    for name, why in bad.items():
        print(f'unclear failure: {name}: {why}', file=sys.stderr)


if __name__ == '__main__':
    main()
