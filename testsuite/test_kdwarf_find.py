# Where the kernel's debug vmlinux is found (issue 15), besides the -dbg
# package's /usr/lib/debug/boot/vmlinux-KVER (test_kdwarf_vmlinux.py):
# by build ID alone, under a debuginfo path's .build-id tree (the -r
# tree's vmlinux, stripped of its DWARF, gives the ID), and as the -r
# tree's own vmlinux when it has DWARF; a file the .build-id link names
# that is another build is an error naming both IDs. The trees are
# symlinks to the installed debug files (vmlinux is 600 MB). SystemTap
# 4.8 on this host, with the same trees and paths (a -r tree holding the
# headers and System.map it needs), lists exactly the goldens compared
# here (kvmlinux/read_write.l, vfs_read.L), and finds nothing when the
# path has no .build-id link.
import re
import subprocess
from pathlib import Path

import pytest

from test_kdwarf_vmlinux import CASES, dbg, stap  # noqa: F401 (fixture)

POINTS = [
    ('-l', 'kernel.function("*@fs/read_write.c")', 'read_write.l'),
    ('-L', 'kernel.function("vfs_read")', 'vfs_read.L'),
]


def debug_vmlinux(krel):
    return Path(f'/usr/lib/debug/boot/vmlinux-{krel}')


def build_id(path):
    note = subprocess.run(['readelf', '-n', str(path)], capture_output=True, text=True,
                          check=True).stdout
    return re.search(r'Build ID: ([0-9a-f]+)', note).group(1)


def tree(root, krel, vmlinux=None):
    """A -r build tree: its release, and a vmlinux when given."""
    (root / 'include' / 'config').mkdir(parents=True)
    (root / 'include' / 'config' / 'kernel.release').write_text(krel + '\n')
    if vmlinux:
        (root / 'vmlinux').symlink_to(vmlinux)
    return str(root)


@pytest.fixture(scope='module')
def stripped(dbg, krel, tmp_path_factory):
    """The vmlinux with only its .notes (its build ID), no DWARF: what a
    build tree whose debug info is elsewhere holds."""
    out = tmp_path_factory.mktemp('kfind') / 'vmlinux.notes'
    subprocess.run(['objcopy', '-j', '.notes', '--strip-all', str(debug_vmlinux(krel)),
                    str(out)], check=True, capture_output=True)
    assert build_id(out) == build_id(debug_vmlinux(krel))
    return out


def build_id_tree(root, bid, target):
    link = root / '.build-id' / bid[:2] / f'{bid[2:]}.debug'
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    return str(root)


@pytest.mark.parametrize('option,point,golden', POINTS)
def test_found_by_build_id_only(stripped, krel, tmp_path, option, point, golden):
    """The path names a tree with only DIR/.build-id/XX/REST.debug (no
    DIR/boot/vmlinux-KVER): found by the -r tree's build ID."""
    r = tree(tmp_path / 'build', krel, stripped)
    path = build_id_tree(tmp_path / 'debug', build_id(stripped), debug_vmlinux(krel))
    got = stap(['-r', r, option, point], path)
    assert (got.stdout, got.returncode) == ((CASES / golden).read_text(), 0), got.stderr


def test_no_build_id_link_finds_nothing(stripped, krel, tmp_path):
    """The same without the link: no DWARF, so no file:line points (4.8:
    rc 1 too)."""
    r = tree(tmp_path / 'build', krel, stripped)
    (tmp_path / 'debug').mkdir()
    got = stap(['-r', r, '-l', POINTS[0][1]], str(tmp_path / 'debug'))
    assert (got.stdout, got.returncode) == ('', 1)


@pytest.mark.parametrize('option,point,golden', POINTS)
def test_found_in_build_tree(dbg, krel, tmp_path, option, point, golden):
    """The -r tree's vmlinux has DWARF: taken with a path holding
    nothing."""
    r = tree(tmp_path / 'build', krel, debug_vmlinux(krel))
    (tmp_path / 'debug').mkdir()
    got = stap(['-r', r, option, point], str(tmp_path / 'debug'))
    assert (got.stdout, got.returncode) == ((CASES / golden).read_text(), 0), got.stderr


def test_build_id_link_to_another_file_is_an_error(stripped, krel, tmp_path):
    """A .build-id link naming a file of another build (4.8: "cannot find
    module kernel debuginfo", then "no match"): an error naming the file
    and both IDs, never probes placed by the wrong DWARF."""
    other = next(p for p in sorted(Path('/usr/lib/debug/.build-id').glob('*/*.debug'))
                 if p.resolve() != debug_vmlinux(krel))
    bid = build_id(stripped)
    r = tree(tmp_path / 'build', krel, stripped)
    path = build_id_tree(tmp_path / 'debug', bid, other.resolve())
    got = stap(['-r', r, '-p2', '-e',
                'probe kernel.function("vfs_read@fs/read_write.c") { next }'], path)
    assert got.returncode == 1
    assert got.stderr.splitlines()[0] == (
        f'<input>:1:23: error: the kernel debuginfo {path}/.build-id/{bid[:2]}/{bid[2:]}.debug'
        f' (build ID {build_id(other)}) is not for kernel {krel} (build ID {bid})')
