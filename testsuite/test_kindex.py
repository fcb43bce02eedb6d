# The index of the kernel's DWARF kept per build ID in the cache directory
# (issue 15, translator/info/kindex.c): the first run with the guest
# kernel's debuginfo installed writes $SYSTEMTAP_DIR/cache/kdwarf/ID.idx,
# the next ones read it, and what they resolve is what a run without it
# (--disable-cache) resolves and what 4.8 printed (kvmlinux/*.l). An index
# cut short, with a byte changed, or for another build is rebuilt, never
# trusted.
import os
import subprocess
from pathlib import Path

import pytest

from conftest import STAP
from test_kdwarf_vmlinux import CASES, DEFAULT_PATH, have_dbg

POINTS = [
    (['-l', 'kernel.function("*@fs/read_write.c")'], 'read_write.l'),
    (['-l', 'kernel.function("vfs_*")'], 'vfs.l'),
]
MM_CALL = 'probe kernel.function("*@mm/*.c").call { next }'


@pytest.fixture(scope='module')
def dbg(krel):
    if not have_dbg(krel):
        pytest.fail(f'linux-image-{krel}-dbg is not installed: run testsuite/kernel-dbg.sh')


def stap(args, home, krel):
    return subprocess.run([str(STAP), '-r', krel] + args, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, SYSTEMTAP_DIR=str(home),
                                                SYSTEMTAP_DEBUGINFO_PATH=DEFAULT_PATH))


def index_of(home):
    files = sorted((Path(home) / 'cache' / 'kdwarf').glob('*.idx'))
    assert len(files) == 1, files
    return files[0]


def probes(out):
    return out[out.index('# probes\n'):]


def check_points(home, krel):
    for args, golden in POINTS:
        r = stap(args, home, krel)
        assert (r.stdout, r.returncode) == ((CASES / golden).read_text(), 0), r.stderr


@pytest.fixture(scope='module')
def built(dbg, krel, tmp_path_factory):
    """A cache directory whose index the first run wrote, and that run's
    -p2 of "*@mm/*.c".call."""
    home = tmp_path_factory.mktemp('kindex')
    r = stap(['-p2', '-e', MM_CALL], home, krel)
    assert r.returncode == 0, r.stderr
    return home, probes(r.stdout)


def test_first_run_writes_the_index(built, krel):
    home, _ = built
    idx = index_of(home)
    assert idx.read_bytes()[:8] == b'STPKIDX2'
    assert idx.name == idx.read_bytes()[32:32 + len(idx.stem)].decode() + '.idx'
    assert not list(idx.parent.glob('*.tmp'))


def test_index_runs_as_without_it(built, krel, tmp_path):
    """The same probes from the index as from a walk of every CU
    (--disable-cache: no index), and 4.8's listings."""
    home, first = built
    r = stap(['-p2', '--disable-cache', '-e', MM_CALL], tmp_path, krel)
    assert r.returncode == 0, r.stderr
    assert probes(r.stdout) == first
    assert not (tmp_path / 'cache' / 'kdwarf').exists()
    r = stap(['-p2', '-e', MM_CALL], home, krel)
    assert (probes(r.stdout), r.returncode) == (first, 0), r.stderr
    check_points(home, krel)


@pytest.mark.parametrize('damage', ['truncated', 'byte', 'other_build', 'empty'])
def test_bad_index_is_rebuilt(built, krel, tmp_path, damage):
    home, first = built
    good = index_of(home).read_bytes()
    idx = tmp_path / 'cache' / 'kdwarf' / index_of(home).name
    idx.parent.mkdir(parents=True)
    if damage == 'truncated':
        bad = good[:len(good) // 2]
    elif damage == 'byte':
        bad = bytearray(good)
        bad[len(good) // 2] ^= 0x40
        bad = bytes(bad)
    elif damage == 'other_build':
        bad = bytearray(good)
        bad[32:34] = b'00' if bad[32:34] != b'00' else b'11'
        bad = bytes(bad)
    else:
        bad = b''
    idx.write_bytes(bad)
    r = stap(['-p2', '-e', MM_CALL], tmp_path, krel)
    assert (probes(r.stdout), r.returncode) == (first, 0), r.stderr
    assert idx.read_bytes() == good
    check_points(tmp_path, krel)


NF_JHASH2 = (['-l', 'module("nf_*").function("jhash2")'], 'module_nf_jhash2.l')


def test_module_names_index(dbg, krel, tmp_path):
    """module("GLOB") over more than 16 modules (info/kmodidx.c): the
    first run writes ID.fn for each module (its DWARF's function names,
    inlined ones too), the next reads them; one cut short, with a name
    changed, or for another build is rewritten whole, and what is listed
    is 4.8's list each time (jhash2 is only inlined in those modules)."""
    args, golden = NF_JHASH2
    want = ((CASES / golden).read_text(), 0)
    r = stap(args, tmp_path, krel)
    assert (r.stdout, r.returncode) == want, r.stderr
    files = sorted((tmp_path / 'cache' / 'kdwarf').glob('*.fn'))
    assert len(files) >= 26
    with_jhash2 = [f for f in files if '\njhash2\n' in f.read_text()]
    assert len(with_jhash2) >= 3
    whole = {f: f.read_bytes() for f in with_jhash2}
    a, b, c = with_jhash2[:3]
    a.write_bytes(whole[a][:len(whole[a]) // 2])
    b.write_bytes(whole[b].replace(b'\njhash2\n', b'\njhash3\n'))
    c.write_bytes(whole[c].replace(c.stem.encode(), b'0' * len(c.stem), 1))
    r = stap(args, tmp_path, krel)
    assert (r.stdout, r.returncode) == want, r.stderr
    assert {f: f.read_bytes() for f in with_jhash2} == whole
