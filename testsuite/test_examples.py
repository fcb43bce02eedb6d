# Pass 2 over Debian's systemtap-doc examples (examples.py): each example
# elaborates for the guest kernel with its .meta options, or fails only
# for what corpus/examples-p2.tsv says it needs (tapset functions and
# probe families of later issues, DWARF-only forms). A change that breaks
# an example, or makes one work, shows here; `examples.py --record`
# rewrites the record after a deliberate change.
import pytest

from examples import examples, load_record, rel, verdict

RECORD = load_record()
SCRIPTS = examples()


def test_record_covers_every_example():
    assert sorted(RECORD) == sorted(rel(p) for p in SCRIPTS)
    assert len(RECORD) >= 190


def test_failures_are_only_missing_features():
    """No example fails for a reason outside the known kinds of missing
    feature, except those upstream cannot elaborate either."""
    upstream_fails = {
        'profiling/graphcall.stp',       # needs two arguments, has no .meta
        'security-band-aids/cve-2016-0728-templatized.stp',  # templates
        'security-band-aids/security-bandaid-template.stp',
        'security-band-aids/cve-2018-6485-templatized.stp',  # no .meta; its #!
                                                 # line says -g (raise())
        'security-band-aids/cve-2021-4155.stp',  # 6.1's xfs_alloc_file_space
                                                 # has no $alloc_type
        'general/badname.stp',    # 6.1's vfs_rename has neither $dentry nor $new_dentry
        'process/futexes2.stp',   # 6.1's futex_key.shared has no inode member
    }
    kinds = ('function ', 'probe ', 'global ', 'target ', 'target-write ',
             'macro ', 'operator ', 'dwarf ')
    odd = {name: [n for n in needs if not n.startswith(kinds)]
           for name, (status, needs) in RECORD.items()
           if name not in upstream_fails}
    assert {k: v for k, v in odd.items() if v} == {}
    for name in upstream_fails:
        assert RECORD[name][0] == 'needs'


@pytest.mark.parametrize('script', SCRIPTS, ids=[rel(p) for p in SCRIPTS])
def test_example_p2(script, krel):
    status, needs = verdict(script, krel)
    assert (status, needs) == RECORD[rel(script)]
