#!/usr/bin/env python3
"""Golden pass-1 and pass-2 tests: the cases, how to run them, and their
maintenance.

Four directories of small scripts, one construct each:

  parseok/NAME.stp  must parse; NAME.out is the exact stdout of
                    `stap -p1 NAME.stp` (the canonical re-print), and
                    NAME.err, when present, its exact stderr (warnings).
  parseko/NAME.stp  must be rejected in pass 1 (exit 1); NAME.err is the
                    exact stderr (the diagnostics, then "Pass 1: parse
                    failed.  [man error::pass1]").
  semok/NAME.stp    must pass elaboration; NAME.out is the exact stdout of
                    `stap -p2 NAME.stp` (the resolved globals, functions
                    and probes with their types), and NAME.err, when
                    present, its exact stderr (warnings).
  semko/NAME.stp    must be rejected in pass 2 (exit 1); NAME.err is the
                    exact stderr (the diagnostics, then "Pass 2: analysis
                    failed.  [man error::pass2]").

NAME.args, when present, holds the script arguments, one per line.
Cases whose name starts with `guru_` run with -g. Every case runs with
`-r KREL` (the guest kernel release) so kernel_v and CONFIG_* conditions
are deterministic, from inside its directory, so file names in the output
are just `NAME.stp`.

    golden.py                 compare every case with the current stap
    golden.py --update        rewrite the .out/.err files from the current
                              stap (after a deliberate change; review the
                              diff by eye before committing)
    golden.py --check-upstream
                              check that Debian's SystemTap
                              (/usr/bin/stap) agrees on acceptance: exit 0
                              for parseok and semok, non-zero for parseko
                              and semko (pass-2 cases run upstream with -w:
                              its warnings are not ours)
Any of them takes case names (`foreach_limit`, `parseko/macro_redefined`)
or directories (`semko`) to work on only those. test_golden.py runs the
comparisons under pytest.
"""
import argparse
import difflib
import os
import resource
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import guest  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
STAP = Path(os.environ.get('STAP_BUILDDIR', REPO)) / 'translator' / 'stap'
UPSTREAM = '/usr/bin/stap'
KINDS = ('parseok', 'parseko', 'semok', 'semko')
# semko cases upstream lets through pass 2 but fails later: we say why
# at pass 2 instead
FAILS_LATER_UPSTREAM = {
    'semko/array_ten_keys': 'upstream: pass 4 fails (kbuild errors)',
    'semko/hist_linear_zero_step':
        "upstream: staprun fails ('histogram: interval cannot be zero')",
    'semko/target_fn_entry_local':
        "upstream: pass 3 fails ('unresolved symbol: operator '+'')",
}
# semok cases whose -p2 listing differs from upstream's on purpose
P2_DIFFERENCES = {
    'semok/defined_target_per_point':
        'upstream lists its tracepoint argument copies as locals',
    'semok/void_call_tested_for_truth':
        'upstream calls exit() long once an if() tests it, unknown under &&',
    'semok/target_fn_entry':
        'upstream reads the kernel DWARF (file:line names, pc notes, its '
        'getters, copies numbered by its tapsets\' probes)',
    'semok/target_fn_next':
        'the same, and upstream copies only the second overload',
}
EXIT = {'parseok': 0, 'parseko': 1, 'semok': 0, 'semko': 1}
PASS = {'parseok': 1, 'parseko': 1, 'semok': 2, 'semko': 2}


class Case:
    def __init__(self, kind, name):
        self.kind = kind
        self.name = name
        self.dir = HERE / kind
        self.script = self.dir / f'{name}.stp'

    @property
    def id(self):
        return f'{self.kind}/{self.name}'

    @property
    def ok(self):
        """Must be accepted (parseok, semok) rather than rejected."""
        return EXIT[self.kind] == 0

    @property
    def last_pass(self):
        return PASS[self.kind]

    @property
    def guru(self):
        return self.name.startswith('guru_')

    @property
    def script_args(self):
        f = self.dir / f'{self.name}.args'
        return f.read_text().splitlines() if f.exists() else []

    def args(self, krel):
        """stap's arguments (without the program), to run in self.dir."""
        return ([f'-p{self.last_pass}'] + (['-g'] if self.guru else []) +
                ['-r', krel, self.script.name] + self.script_args)

    def upstream_args(self, krel):
        """The same for upstream: its pass-2 warnings are not ours."""
        args = self.args(krel)
        return ['-w'] + args if self.last_pass == 2 else args

    @property
    def out_file(self):
        return self.dir / f'{self.name}.out'

    @property
    def err_file(self):
        return self.dir / f'{self.name}.err'

    def expected(self):
        """(exit status, stdout, stderr) the case must produce."""
        def read(f):
            return f.read_text() if f.exists() else ''
        if self.ok:
            return 0, read(self.out_file), read(self.err_file)
        return 1, '', read(self.err_file)


def all_cases():
    return [Case(kind, p.stem) for kind in KINDS
            for p in sorted((HERE / kind).glob('*.stp'))]


def select(names):
    cases = all_cases()
    if not names:
        return cases
    chosen = []
    for n in names:
        n = n[:-4] if n.endswith('.stp') else n.rstrip('/')
        hits = [c for c in cases if n in (c.id, c.name, c.kind)]
        if not hits:
            sys.exit(f'golden.py: no case {n!r}')
        chosen += hits
    return chosen


TAPSET_DIR = re.compile(r'\S*/translator/\.\./tapsets/')


def run(program, case, krel, **kw):
    """The case's run; in ours, the tapset library's path (which depends on
    where the tree is) becomes <tapsets>/ (a note showing a tapset
    function's declaration names it)."""
    args = case.upstream_args(krel) if program == UPSTREAM else case.args(krel)
    r = subprocess.run([str(program)] + args, cwd=case.dir,
                       capture_output=True, text=True, **kw)
    if program != UPSTREAM:
        r.stderr = TAPSET_DIR.sub('<tapsets>/', r.stderr)
    return r


def update(cases, krel):
    bad = 0
    for c in cases:
        r = run(STAP, c, krel, timeout=60)
        if r.returncode != EXIT[c.kind]:
            print(f'{c.id}: exit {r.returncode}, expected {EXIT[c.kind]}; '
                  'not written\n' + r.stderr, file=sys.stderr)
            bad += 1
            continue
        if c.ok:
            c.out_file.write_text(r.stdout)
            if r.stderr:
                c.err_file.write_text(r.stderr)
            elif c.err_file.exists():
                c.err_file.unlink()
        else:
            c.err_file.write_text(r.stderr)
    print(f'{len(cases) - bad} of {len(cases)} cases written')
    return 1 if bad else 0


def compare(cases, krel):
    bad = 0
    for c in cases:
        r = run(STAP, c, krel, timeout=60)
        status, out, err = c.expected()
        got = (r.returncode, r.stdout, r.stderr)
        if got == (status, out, err):
            continue
        bad += 1
        print(f'FAIL {c.id}: exit {r.returncode} (expected {status})')
        for what, want, have in (('stdout', out, r.stdout),
                                 ('stderr', err, r.stderr)):
            sys.stdout.writelines(difflib.unified_diff(
                want.splitlines(True), have.splitlines(True),
                f'{c.id} expected {what}', f'{c.id} actual {what}'))
    print(f'{len(cases) - bad} of {len(cases)} cases pass')
    return 1 if bad else 0


def limit_memory():
    # upstream 4.8 expands a recursive macro until memory runs out: cap it
    # (it then reports "Out of memory" and exits 1)
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def check_upstream(cases, krel):
    if not os.access(UPSTREAM, os.X_OK):
        sys.exit(f'golden.py: {UPSTREAM} not found (apt-get install systemtap)')
    bad = 0
    for c in cases:
        try:
            r = run(UPSTREAM, c, krel, timeout=120, preexec_fn=limit_memory)
        except subprocess.TimeoutExpired:
            print(f'DISAGREE {c.id}: upstream timed out')
            bad += 1
            continue
        accepted = r.returncode == 0
        if accepted and c.id in FAILS_LATER_UPSTREAM:
            print(f'note {c.id}: {FAILS_LATER_UPSTREAM[c.id]}')
        elif accepted != c.ok:
            bad += 1
            print(f'DISAGREE {c.id}: upstream exit {r.returncode}')
            print(''.join('    ' + line for line in
                          (r.stderr or r.stdout).splitlines(True)
                          if 'symbol table missing' not in line))
        elif r.returncode < 0:
            print(f'note {c.id}: upstream rejects it by crashing '
                  f'(signal {-r.returncode})')
        elif c.kind == 'semok' and c.id not in P2_DIFFERENCES and \
                r.stdout != (c.dir / f'{c.name}.out').read_text():
            bad += 1
            print(f'DISAGREE {c.id}: upstream -p2 prints otherwise')
            print(''.join(difflib.unified_diff(
                (c.dir / f'{c.name}.out').read_text().splitlines(True),
                r.stdout.splitlines(True), 'ours', 'upstream')))
    print(f'upstream agrees on {len(cases) - bad} of {len(cases)} cases')
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(
        description='golden pass-1 and pass-2 tests '
        '(testsuite/parseok, parseko, semok, semko)')
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument('--update', action='store_true',
                      help='rewrite .out/.err from the current stap')
    mode.add_argument('--check-upstream', action='store_true',
                      help=f'check acceptance against {UPSTREAM}')
    ap.add_argument('cases', nargs='*', help='case names (default: all)')
    opt = ap.parse_args()
    cases = select(opt.cases)
    krel = guest.kernel_release()
    if opt.check_upstream:
        return check_upstream(cases, krel)
    if not STAP.exists():
        sys.exit(f'golden.py: {STAP} is not built: run make first')
    if opt.update:
        return update(cases, krel)
    return compare(cases, krel)


if __name__ == '__main__':
    sys.exit(main())
