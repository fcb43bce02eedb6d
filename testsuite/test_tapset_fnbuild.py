# The tapset functions added for 4.8's --dump-functions (issue 18): each
# file of them builds alone (pass 4) in a module that calls every public
# function it defines with zero arguments, its embedded C bringing its own
# headers; and `stap --dump-functions` lists every public function 4.8
# lists (testsuite/listing/functions-4.8.txt, see its header).
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import REPO, STAP, run_stap

# the files of the functions added, relative to tapsets/
FILES = [
    'floatingpoint.stp', 'utf.stp', 'conversions_more.stp', 'print_binary.stp',
    'livepatch.stp', 'java.stp', 'linux/endian.stp', 'linux/kguru.stp',
    'linux/atomic.stp', 'linux/module_info.stp', 'linux/wait_status.stp',
    'linux/mib.stp', 'linux/mib_filter_tcpmib.stp', 'linux/mib_filter_ipmib.stp',
    'linux/mib_filter_linuxmib.stp', 'linux/set_args.stp', 'linux/rlimit.stp',
    'linux/envvar.stp', 'linux/small_helpers.stp', 'linux/umod.stp',
    'linux/rpc_helpers.stp', 'linux/nfs_helpers.stp', 'linux/scsi_helpers.stp',
    'python.stp',
]

# public names 4.8 has that we do not, and why (none: python.stp has the
# CPython helpers, as script errors, since we have no python probes)
EXCEPTIONS = set()

FUNC = re.compile(r'^function\s+([A-Za-z][A-Za-z0-9_]*)\s*(?::\s*\w+\s*)?\(([^)]*)\)', re.M)


def calls(path):
    """A call of each public function of the file, every argument 0 or ""."""
    out = []
    for name, params in FUNC.findall(path.read_text()):
        args = [('""' if p.strip().endswith(':string') else '0')
                for p in params.split(',') if p.strip()]
        out.append(f'{name}({", ".join(args)})')
    return out


def script(path):
    # a condition pass 2 cannot fold keeps every call in the module
    body = '\n'.join(f'\t\t{c}' for c in calls(path))
    return f'probe begin {{\n\tif (randint(2) > 5) {{\n{body}\n\t}}\n\texit()\n}}\n'


@pytest.fixture(scope='module')
def built(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('fnbuild')

    def build(rel):
        name = 'fb_' + re.sub(r'\W', '_', rel[:-4])
        r = run_stap(['-g', '-p4', '-r', krel, '-m', name, '-e',
                      script(REPO / 'tapsets' / rel)], cwd=scratch, timeout=300)
        return rel, r

    with ThreadPoolExecutor(max_workers=2) as ex:
        return dict(ex.map(build, FILES))


@pytest.mark.parametrize('rel', FILES)
def test_file_builds_alone(built, rel):
    r = built[rel]
    assert calls(REPO / 'tapsets' / rel)
    assert r.returncode == 0, r.stderr[-3000:]


def public(lines):
    return {re.split(r'[:( ]', line)[0] for line in lines
            if line and not line.startswith(('_', '#'))}


def test_dump_functions_has_every_48_name(tools):
    golden = (REPO / 'testsuite' / 'listing' / 'functions-4.8.txt').read_text().splitlines()
    out = subprocess.run([str(STAP), '--dump-functions'], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    ours, theirs = public(out), public(golden)
    assert len(theirs) > 500
    assert sorted(theirs - ours - EXCEPTIONS) == []
    # an exception that we come to have is no longer one
    assert sorted(EXCEPTIONS & ours) == []
