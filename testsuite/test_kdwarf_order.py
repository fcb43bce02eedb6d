# The order of the probes a pattern makes through the kernel's DWARF
# (issue 15), as SystemTap 4.8's -p2 lists them with the guest kernel's
# debuginfo (goldens in kvmlinux/order_*, recorded by record_kdwarf.py):
# 4.8 keeps each compilation unit's functions in a hash table keyed by
# name and probes them in the order it walks it (info/uorder.c models
# that table), the functions of a unit first, then their inlined copies,
# then (a module) the symbol table's functions without DWARF by address;
# a name without wildcard or file reads its units latest first, those
# with its functions before those with only inlined copies. Users diff
# -p2 listings: the same probes in another order are a difference.
# A function a pattern matches but 4.8's blacklists leave out is a
# warning in 4.8's words ("function F is blocklisted", "is in blocklisted
# file", "is in blocklisted section"), at the probe, each text once and
# the repeats counted at the end as 4.8 counts them (its goldens' stderr,
# *.err: the same warnings in the same order, the same count); -l and -w
# print none.
import re

import pytest

from record_kdwarf import CASES
from test_kdwarf_vmlinux import CASES as GOLDENS
from test_kdwarf_vmlinux import dbg, stap  # noqa: F401 (fixture)


@pytest.mark.parametrize('name', sorted(n for n in CASES if n.startswith('order_')))
def test_p2_order_as_upstream(dbg, krel, name):
    args = CASES[name][0]
    r = stap(['-r', krel] + args, dbg)
    assert (r.stdout, r.returncode) == ((GOLDENS / name).read_text(), 0), r.stderr


def warnings_48(err):
    return re.findall(r'^WARNING: (function \S+ is [a-z ]+): keyword at', err, re.M)


def warnings_ours(err):
    return re.findall(r'^<input>:1:1: warning: (function \S+ is [a-z ]+)$', err, re.M)


def suppressed(err):
    return re.findall(r'^Number of similar warning messages suppressed: \d+\.\n'
                      r'Rerun with -v to see them\.$', err, re.M)


@pytest.mark.parametrize('name', sorted(n for n in CASES if CASES[n][2]))
def test_blacklist_warnings_as_upstream(dbg, krel, name):
    args, rc = CASES[name][0], (CASES[name] + (0,))[3]
    r = stap(['-r', krel] + args, dbg)
    want = (GOLDENS / f'{name}.err').read_text()
    assert (r.returncode, warnings_ours(r.stderr), suppressed(r.stderr)) == \
        (rc, warnings_48(want), suppressed(want)), r.stderr
    assert warnings_48(want)
    if rc == 0:
        assert r.stdout == (GOLDENS / name).read_text()


def test_blacklist_warnings_not_listed_nor_with_w(dbg, krel):
    """4.8's -l prints none; -w leaves them out."""
    r = stap(['-r', krel, '-l', 'kernel.function("vfs_*")'], dbg)
    assert (r.returncode, r.stderr) == (0, '')
    r = stap(['-r', krel, '-w', '-p2', '-e', 'probe kernel.function("vfs_*") { next }'], dbg)
    assert (r.returncode, r.stderr) == (0, '')
