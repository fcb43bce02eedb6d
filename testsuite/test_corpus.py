# Pass 1 over the real-world corpus: every example script of Debian's
# systemtap-doc and every tapset file of Debian's systemtap 4.8 (read in
# place). Our `stap -p1` must accept exactly what upstream 4.8 accepts
# (its verdicts are recorded in corpus/upstream-p1.tsv by corpus.py
# --record), and what it accepts must survive the print/re-parse round trip.
import pytest

from conftest import run_stap
from corpus import load_record, options_for

ENTRIES = load_record()
IDS = [str(p).replace('/usr/share/systemtap/', '') for p, _, _ in ENTRIES]


def our_p1(path, args, krel):
    return run_stap(['-r', krel, '-I', '/usr/share/systemtap/tapset', '-p1']
                    + options_for(path) + [str(path)] + args)


def test_corpus_is_complete():
    assert len(ENTRIES) >= 780
    assert sum(1 for _, _, rc in ENTRIES if rc == 0) >= 740


@pytest.mark.parametrize('path,args,rc', ENTRIES, ids=IDS)
def test_p1_agrees_with_upstream(path, args, rc, krel):
    r = our_p1(path, args, krel)
    assert r.returncode == rc, r.stderr
    if rc:
        assert 'error: ' in r.stderr
        return
    # the round trip: print, re-parse, print again: the same text
    first = r.stdout
    again = run_stap(['-r', krel, '-p1'] + options_for(path) + ['-'],
                     stdin=first.split('\n', 1)[1])
    assert again.returncode == 0, again.stderr
    assert again.stdout.split('\n', 1)[1] == first.split('\n', 1)[1]
