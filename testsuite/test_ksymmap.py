# kprobe.function() on kernel functions without BTF (the __x64_sys_ stubs,
# assembly functions), found as SystemTap 4.8 finds them: in the System.map
# of the -r build directory. The directory is made as for 4.8 in
# bench/probes.py: the headers' files plus a System.map from the guest's
# /proc/kallsyms (one guest boot); then the probe runs in a second boot.
# Without a symbol map the name is not found, as before.
from pathlib import Path

import pytest

import guest
from conftest import STAPRUN, run_stap

STUB = 'kprobe.function("__x64_sys_getppid")'
SCRIPT = (f'global n, f probe {STUB} {{ if (pid() == target()) {{ n++; f = ppfunc() }} }} '
          'probe end { printf("%s %d\\n", f, n) }')
PROG = "python3 -c 'import os\nfor i in range(5): os.getppid()'"


@pytest.fixture(scope='module')
def kb(krel, tmp_path_factory):
    work = tmp_path_factory.mktemp('ksymmap')
    kb = work / 'kb'
    kb.mkdir()
    hdr = Path(f'/usr/src/linux-headers-{krel}')
    for f in hdr.iterdir():
        (kb / f.name).symlink_to(f)
    b = guest.run_batch([f'grep -v "\\[" /proc/kallsyms | sort > {kb}/System.map'],
                        scratch=str(work), timeout=60)
    assert b[0].rc == 0, b[0].stderr
    return kb


def test_listed_from_the_map(kb):
    r = run_stap(['-r', str(kb), '-l', 'kprobe.function("__x64_sys_getpp*")'])
    assert (r.stdout, r.stderr, r.returncode) == (f'{STUB}\n', '', 0)
    # BTF functions and map symbols together, once each
    r = run_stap(['-r', str(kb), '-l', 'kprobe.function("*sys_getppid")'])
    assert r.stdout == ('kprobe.function("__do_sys_getppid")\n'
                        'kprobe.function("__ia32_sys_getppid")\n' f'{STUB}\n')


def test_no_map_no_match(krel):
    r = run_stap(['-r', krel, '-p2', '-e', SCRIPT])
    assert r.returncode == 1
    assert "no match for probe point 'kprobe.function(\"__x64_sys_getppid\")'" in r.stderr


def test_probe_runs(kb, tmp_path):
    r = run_stap(['-r', str(kb), '-p4', '-m', 'ksymmap', '-e', SCRIPT], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    b = guest.run_batch([f'cd {tmp_path} && {STAPRUN} -c "{PROG}" ksymmap.ko'],
                        scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(b)
    assert (b[0].stdout, b[0].stderr, b[0].rc) == ('__x64_sys_getppid 5\n', '', 0)
