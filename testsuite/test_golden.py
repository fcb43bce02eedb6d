# Golden pass-1 tests: every testsuite/parseok/NAME.stp must parse and
# print exactly NAME.out (and NAME.err, if any, on stderr); every
# testsuite/parseko/NAME.stp must fail with exactly NAME.err. The cases and
# their maintenance (--update, --check-upstream) are in golden.py.
import pytest

import golden
from conftest import run_stap

CASES = golden.all_cases()
OK = [c for c in CASES if c.kind == 'parseok']


@pytest.mark.parametrize('case', CASES, ids=[c.id for c in CASES])
def test_golden(case, krel):
    status, out, err = case.expected()
    r = run_stap(case.args(krel), cwd=case.dir)
    assert (r.returncode, r.stdout, r.stderr) == (status, out, err)


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
    assert len(CASES) >= 160
    assert len(OK) and len(OK) < len(CASES)
    for c in CASES:
        lines = c.script.read_text().count('\n')
        assert 1 <= lines <= 15, f'{c.id}: {lines} lines'
