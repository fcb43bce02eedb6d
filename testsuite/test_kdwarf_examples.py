# Debian's example scripts that corpus/examples-p2.tsv records as needing
# the kernel's DWARF ("dwarf kernel.function(...)") elaborate (-p2, with
# their .meta options) once the guest kernel's debuginfo is installed and
# in the path, as they do under SystemTap 4.8 with it (issue 15). The
# record itself keeps the no-debuginfo verdicts (conftest.py hides it).
import os
import subprocess

import pytest

from conftest import STAP
from examples import examples, meta_args, rel
from test_kdwarf_vmlinux import DEFAULT_PATH, dbg  # noqa: F401 (fixture)

ELABORATE = [
    'general/callgraph.stp',
    'general/para-callgraph.stp',
    'general/para-callgraph-verbose.stp',
    'general/varwatch.stp',
    'general/whythefail.stp',
    'network/socket-trace.stp',
    'profiling/functioncallcount.stp',
    'profiling/linetimes.stp',
    'security-band-aids/cve-2012-0056.stp',
    'security-band-aids/cve-2016-0728.stp',
]
SCRIPTS = {rel(p): p for p in examples()}


@pytest.fixture(scope='module')
def home(tmp_path_factory):
    """One cache directory: the first example writes the DWARF index."""
    return tmp_path_factory.mktemp('kdwarf-examples')


@pytest.mark.parametrize('name', ELABORATE)
def test_example_elaborates_with_debuginfo(dbg, krel, name, home):
    script = SCRIPTS[name]
    args = ['-p2', '-r', krel] + meta_args(script)
    if script.name not in args:
        args.append(script.name)
    r = subprocess.run([str(STAP)] + args, cwd=script.parent, capture_output=True,
                       text=True, timeout=300,
                       env=dict(os.environ, SYSTEMTAP_DEBUGINFO_PATH=DEFAULT_PATH,
                                SYSTEMTAP_DIR=str(home)))
    assert r.returncode == 0, r.stderr
    assert '# probes\n' in r.stdout
