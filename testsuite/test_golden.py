# Golden pass-1 and pass-2 tests: every testsuite/parseok/NAME.stp must
# parse (-p1) and every testsuite/semok/NAME.stp elaborate (-p2), printing
# exactly NAME.out (and NAME.err, if any, on stderr); every
# testsuite/parseko/NAME.stp and semko/NAME.stp must fail in that pass with
# exactly NAME.err. The cases and their maintenance (--update,
# --check-upstream) are in golden.py.
import pytest

import golden
from conftest import run_stap

CASES = golden.all_cases()
OK = [c for c in CASES if c.kind == 'parseok']
FAILED = {1: 'Pass 1: parse failed.  [man error::pass1]',
          2: 'Pass 2: analysis failed.  [man error::pass2]'}


@pytest.mark.parametrize('case', CASES, ids=[c.id for c in CASES])
def test_golden(case, krel):
    status, out, err = case.expected()
    r = run_stap(case.args(krel), cwd=case.dir)
    # the tapset library's path depends on where the tree is (golden.py)
    stderr = golden.TAPSET_DIR.sub('<tapsets>/', r.stderr)
    assert (r.returncode, r.stdout, stderr) == (status, out, err)


@pytest.mark.parametrize('case', OK, ids=[c.id for c in OK])
def test_golden_round_trip(case, krel):
    """The canonical re-print parses again to the same text."""
    first = run_stap(case.args(krel), cwd=case.dir)
    assert first.returncode == 0, first.stderr
    header, body = first.stdout.split('\n', 1)
    assert header == f'# file {case.script.name}'
    second = run_stap(['-p1'] + (['-g'] if case.guru else []) +
                      ['-r', krel, '-'], stdin=body)
    assert second.returncode == 0, second.stderr
    assert second.stderr == ''
    assert second.stdout == '# file <input>\n' + body


def test_enough_cases():
    parse = [c for c in CASES if c.last_pass == 1]
    sem = [c for c in CASES if c.last_pass == 2]
    assert len(parse) >= 160 and len(sem) >= 210
    for group in (parse, sem):
        ok = [c for c in group if c.ok]
        assert len(ok) and len(ok) < len(group)
    for c in CASES:
        lines = c.script.read_text().count('\n')
        assert 1 <= lines <= 15, f'{c.id}: {lines} lines'


@pytest.mark.parametrize('case', [c for c in CASES if not c.ok],
                         ids=[c.id for c in CASES if not c.ok])
def test_golden_ko_ends_with_failed_pass(case):
    """A rejected case fails in its own pass, saying so last."""
    status, _, err = case.expected()
    assert err.endswith(FAILED[case.last_pass] + '\n')
