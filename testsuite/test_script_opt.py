# test_script_opt.py - how the generated code is compiled (issue 17): the
# module's own flags: no -Wmisleading-indentation (it only warns, and
# rereads the source around every if and loop: 10% of gcc's time on a
# big module).
import re
import shutil
from pathlib import Path

from conftest import run_stap


def test_module_flags(krel, tmp_path):
    r = run_stap(['-p4', '-k', '-r', krel, '-e', 'probe begin { exit() }'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    kept = re.search(r'Keeping temporary directory "([^"]+)"', r.stderr).group(1)
    mk = (Path(kept) / 'Makefile').read_text()
    shutil.rmtree(kept)
    flags = re.search(r'^ccflags-y := (.*)$', mk, re.M).group(1).split()
    assert '-Wno-misleading-indentation' in flags
