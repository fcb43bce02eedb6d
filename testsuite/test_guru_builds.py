# Guru-mode scripts written for SystemTap 4.8 build with ours (pass 4):
# the -g examples of Debian's set that 4.8 builds for the 6.1 kernel and
# that use its embedded-C API (kread(), CATCH_DEREF_FAULT(), STAP_VERSION,
# STAP_ARG_*) or the kernel headers a 4.8 module includes (struct
# signal_struct, key_put()), and tapset functions whose embedded C needs
# a header of its own in a module of no other family (raise()).
# (process/pfiles.stp is left out: 4.8 cannot build it for 6.1 either,
# fcheck_files() being gone.)
import shutil
from pathlib import Path

import pytest

from conftest import build_args

EXAMPLES = Path('/usr/share/systemtap/examples')
# 4.8's default debuginfo path: cve-2016-0728 probes a .label(), and
# cve-2018-14634 a static function (the kernel's DWARF)
DEFAULT_PATH = '+:.debug:/usr/lib/debug:/var/cache/abrt-di/usr/lib/debug:build'
SCRIPTS = {
    'plimit': ('process/plimit.stp', ['1']),
    'cve_2013_2094': ('security-band-aids/cve-2013-2094.stp', []),
    'cve_2016_0728': ('security-band-aids/cve-2016-0728.stp', []),
    'cve_2018_14634': ('security-band-aids/cve-2018-14634.stp', []),
}


@pytest.mark.parametrize('name', sorted(SCRIPTS))
def test_guru_example_builds(name, krel, tmp_path, monkeypatch):
    rel, args = SCRIPTS[name]
    # setup.sh installs the examples and make check the kernel's
    # debuginfo (testsuite/kernel-dbg.sh): their absence is a failure
    assert (EXAMPLES / rel).exists(), f'{rel} is not installed: run setup.sh'
    if name in ('cve_2016_0728', 'cve_2018_14634'):
        assert Path(f'/usr/lib/debug/boot/vmlinux-{krel}').exists(), \
            'the kernel debuginfo is not installed: run testsuite/kernel-dbg.sh'
        monkeypatch.setenv('SYSTEMTAP_DEBUGINFO_PATH', DEFAULT_PATH)
    shutil.copy(EXAMPLES / rel, tmp_path / 'script.stp')
    build_args(f'gx_{name}', ['-g', 'script.stp'] + args, tmp_path, krel)
    assert (tmp_path / f'gx_{name}.ko').exists()


def test_raise_builds_alone(krel, tmp_path):
    build_args('tf_raise', ['-g', '-e', 'probe begin { raise(0); exit() }'],
               tmp_path, krel)
    assert (tmp_path / 'tf_raise.ko').exists()
