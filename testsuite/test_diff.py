# Differential tests: every script of the corpus under testsuite/diff/ is
# built with our stap (2 at a time) and run in the test guest (a few boots
# for the whole corpus); its stdout, stderr and exit status must equal what
# SystemTap 4.8 gave, byte for byte (the NAME.out/.err/.rc golden files that
# record_upstream.py writes). One test per script, named by its path.
import re

import pytest

import diffcorpus
import kbtf
from conftest import STAP, STAPRUN

# Scripts where we knowingly differ from upstream: path -> reason.
# 4.8's order of a statistics array's rows (unsorted foreach, and ties of a
# sorted one) is not fixed: each CPU's hash table is walked bucket by bucket,
# and the hash is seeded at random at each module load. Such scripts say
# `# golden: runs N` and keep every stdout 4.8 gave in N runs (see
# diffcorpus.py); ours (each CPU's rows in insertion order, CPU by CPU, one
# of the orders 4.8 can give) must be one of them.

# Scripts where upstream is wrong: path -> (the right output, why). The
# test asserts the right output, and that the golden still records 4.8's.
UPSTREAM_WRONG = {
    'arrays/foreach_limit_nested_break': (
        ('7\n', '', 0), ('2\n', '', 0),
        'upstream sorts the array in place for the inner foreach, which '
        'disturbs the outer one: it prints 2 where 7 is right'),
}

# Goldens holding a kernel address, recorded on Debian's kernel: the text,
# and the base and struct member it is the address of. On another kernel
# (the debug kernel of debug-campaign.sh, laid out otherwise) the expected
# output has that kernel's address instead, from its BTF (kbtf.py); on
# Debian's it is the golden's own.
KERNEL_ADDRESSES = {
    'values/autocast_kfault': ('at 0x970 ', 0, 'task_struct', 'pid'),
}

CASES = diffcorpus.cases()


def kernel_addresses(rel, expected):
    """expected, with the addresses of KERNEL_ADDRESSES[rel] in the guest's kernel."""
    text, base, sname, member = KERNEL_ADDRESSES[rel]
    assert text in expected[1], (rel, text)
    here = f'at 0x{base + kbtf.offsetof(sname, member):x} '
    return (expected[0], expected[1].replace(text, here), expected[2])

# An error raised inside a tapset function names that function's definition
# in the tapset library: 4.8's is under /usr/share/systemtap/tapset, ours
# under tapsets/; the file and line are compared as <tapset> (the message
# and the function's name still are, byte for byte).
TAPSET_LOCATION = re.compile(r"(near identifier '[^']+' at )(/usr/share/systemtap/tapset/|\S*tapsets/)\S+:\d+:\d+")


def untapset(text):
    return TAPSET_LOCATION.sub(r'\1<tapset>', text)


@pytest.fixture(scope='module')
def results(request, krel, tools, tmp_path_factory):
    """Build and run the selected cases that have a golden."""
    scratch = tmp_path_factory.mktemp('diff')
    diffcorpus.stage(scratch)
    selected = {item.callspec.params['case'] for item in request.session.items
                if item.originalname == 'test_diff'}
    todo = [c for c in CASES if c in selected and c.expected() is not None]
    built = diffcorpus.build_all(
        lambda c: [str(STAP), '-p4', '-r', krel, '-m', c.module,
                   *c.options(), c.rel + '.stp'], todo, scratch)
    ok = [c for c in todo if built[c].returncode == 0]
    return built, diffcorpus.run_all(STAPRUN, ok, scratch)


def _param(case):
    return pytest.param(case, id=case.rel)


@pytest.mark.parametrize('case', [_param(c) for c in CASES])
def test_diff(results, case):
    expected = case.expected()
    assert expected is not None, \
        f'{case.rel}: no golden; run testsuite/record_upstream.py {case.rel}'
    built, ran = results
    b = built[case]
    assert b.returncode == 0, f'{case.rel}: our build failed:\n{b.stderr}'
    r = ran[case]
    if case.rel in UPSTREAM_WRONG:
        right, upstream, _ = UPSTREAM_WRONG[case.rel]
        assert expected == upstream
        expected = right
    if case.rel in KERNEL_ADDRESSES:
        expected = kernel_addresses(case.rel, expected)
    stdout = expected[0]
    if r.stdout in case.outs():
        stdout = r.stdout
    assert (r.stdout, untapset(r.stderr), r.rc) == \
        (stdout, untapset(expected[1]), expected[2])
