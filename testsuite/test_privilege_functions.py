# Which tapset functions a --privilege=stapusr script may call (issue 18),
# compared exactly with SystemTap 4.8's verdicts. listing/privilege-stapusr-4.8.txt
# holds, for every public function of 4.8's tapsets, the call tried and 4.8's
# verdict: "refused" when `stap -p2 -u --privilege=stapusr -e 'probe begin
# { CALL }'` (4.8 on the host, -r /tmp/kb -R /tmp/stap-rt) reports a
# privilege error (a function, one it calls, an embedded expression or a
# probe its tapset pulls in), "allowed" otherwise. Other errors (a dummy
# argument's type, a member this kernel lacks) don't count: only the
# privilege verdict is compared. Host only: pass 2 needs no guest.
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conftest import run_stap

GOLDEN = Path(__file__).parent / 'listing' / 'privilege-stapusr-4.8.txt'
REFUSED = ('may not be used when --privilege=stapusr is specified',
           'is not allowed for --privilege=stapusr')


def golden():
    """{call: verdict} as recorded from 4.8."""
    rows = {}
    for line in GOLDEN.read_text().splitlines():
        if line and not line.startswith('#'):
            verdict, call = line.split(' ', 1)
            rows[call] = verdict
    return rows


def verdict(call, option='--privilege=stapusr'):
    r = run_stap(['-p2', '-u', option, '-e', f'probe begin {{ {call} }}'])
    return 'refused' if any(e in r.stderr for e in REFUSED) else 'allowed'


def test_golden_covers_every_function():
    names = [n for n in (Path(__file__).parent / 'listing' /
                         'functions-4.8.txt').read_text().splitlines()
             if n and not n.startswith('#')]
    assert sorted(c.split('(')[0] for c in golden()) == sorted(names)


def test_function_verdicts_as_4_8():
    want = golden()
    with ThreadPoolExecutor(2) as ex:
        got = dict(zip(want, ex.map(verdict, want)))
    diff = {c: (got[c], want[c]) for c in want if got[c] != want[c]}
    assert diff == {}, f'{len(diff)} differ (ours, 4.8)'


def test_unprivileged_option_same_verdicts():
    # --unprivileged is --privilege=stapusr: one refused, one allowed
    want = golden()
    refused = next(c for c, v in want.items() if v == 'refused')
    allowed = next(c for c, v in want.items() if v == 'allowed')
    assert verdict(refused, '--unprivileged') == 'refused'
    assert verdict(allowed, '--unprivileged') == 'allowed'
