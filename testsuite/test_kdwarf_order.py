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
import pytest

from record_kdwarf import CASES
from test_kdwarf_vmlinux import CASES as GOLDENS
from test_kdwarf_vmlinux import dbg, stap  # noqa: F401 (fixture)


@pytest.mark.parametrize('name', sorted(n for n in CASES if n.startswith('order_')))
def test_p2_order_as_upstream(dbg, krel, name):
    args = CASES[name][0]
    r = stap(['-r', krel] + args, dbg)
    assert (r.stdout, r.returncode) == ((GOLDENS / name).read_text(), 0), r.stderr
