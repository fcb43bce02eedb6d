# Debian's example scripts that need the kernel's DWARF (issue 15: they
# probe kernel.function("*@net/socket.c") and the like, which 4.8 refuses
# without linux-image-KVER-dbg), run under test_examples_workload.py's
# workload (`staprun -c './wl /tmp/wl.txt'`) with the guest kernel's
# debuginfo in SYSTEMTAP_DEBUGINFO_PATH (4.8's default path; the
# session's hides it, conftest.py). What each prints must be what Debian's
# SystemTap 4.8 printed in the same guest, its modules built on the host
# with the debuginfo visible (`-R /tmp/stap-rt -r KB`, KB a copy of the
# guest kernel's build tree with its System.map and a vmlinux link to the
# debug vmlinux, where 4.8 looks for the DWARF of a -r tree) and run with
# its staprun; recorded in corpus/kdwarf-workload.json by
# `test_kdwarf_workload.py --record KB SCRATCH` (two recordings and this
# implementation's run agreed before it was stored).
#
# Outputs go through test_examples_workload.normalize_rules() (pids by
# rank, masked fields, ties sorted), after two steps of their own:
# - `keep`: only the lines about the workload's processes (thread_indent's
#   "wl(TID):"): the guest's other tasks are not the workload's;
# - `drop`: lines of functions run wherever the kernel happens to run
#   them: init_once (the socket inode cache's constructor, when a slab is
#   refilled) and sock_free_inode (an RCU callback: the workload's task
#   or ksoftirqd);
# - `bypid`: the lines grouped by process, each process's in their order:
#   the parent's and a child's interleave as the scheduler runs them;
# - `anypid`: lines whose process varies, sorted after the others with
#   their pid as *: the listening socket is shared by the parent and the
#   child that connects to it, and sock_close runs in whichever drops the
#   last reference (the parent's close() or the child's exit).
# Kernel pointers printed by $$parms (0x and 8 to 16 hex digits) and
# thread_indent's microsecond stamps are masked.
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_stap
from examples import EXAMPLES
from test_examples_workload import (assert_as_recorded, build_and_run, build_wl, main,
                                    normalize_rules, write_recorded)
from test_examples_workload import run_modules as workload_run
from test_kdwarf_vmlinux import DEFAULT_PATH, dbg  # noqa: F401 (fixture)

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / 'corpus' / 'kdwarf-workload.json'

WL = r'^ *\d+ wl\(\d+\):'
DROP = r'[>-] (init_once|sock_free_inode)\b'
CLOSE = r'[>-] (sock_close|__sock_release)$'
INDENT = [(r'^( *\d+) wl\((\d+)\):', 'xp')]
PTR = (r'(0x[0-9a-f]{8,16})\b', 'x')

# name -> (example, script arguments, rules): see the top comment and
# test_examples_workload.CASES
CASES = {
    'socket_trace': ('network/socket-trace.stp', [], {
        'keep': WL, 'drop': DROP, 'bypid': True, 'anypid': CLOSE, 'fields': INDENT}),
    'functioncallcount': ('profiling/functioncallcount.stp', ['*@net/socket.c'], {
        'drop': r'^(init_once|sock_free_inode) ', 'ties': r' (\d+)$'}),
    'para_callgraph': ('general/para-callgraph.stp',
                       ['kernel.function("*@net/socket.c")',
                        'kernel.function("__sys_socket")'], {
        'keep': WL, 'drop': DROP, 'bypid': True, 'fields': INDENT + [PTR]}),
}


def normalize(name, text):
    """What is compared of example name's stdout (see the top comment)."""
    rules = CASES[name][2]
    lines = text.split('\n')
    if 'keep' in rules:
        lines = [x for x in lines if re.search(rules['keep'], x)]
    if 'drop' in rules:
        lines = [x for x in lines if not re.search(rules['drop'], x)]
    lines = normalize_rules(rules, '\n'.join(lines)).split('\n')
    if rules.get('bypid'):
        lines.sort(key=lambda x: int(re.search(r'wl\(P(\d+)\)', x)[1]))
    if 'anypid' in rules:
        moved = sorted(re.sub(r'wl\(P\d+\)', 'wl(*)', x) for x in lines
                       if re.search(rules['anypid'], x))
        lines = [x for x in lines if not re.search(rules['anypid'], x)] + moved
    return '\n'.join(lines)


def run_modules(scratch, staprun, prefix):
    """Run every case's module prefix + name under the workload, one boot."""
    return workload_run(scratch, staprun, prefix, names=list(CASES), timeout=120)


def build_args(name, prefix):
    example, args, _ = CASES[name]
    return ['-p4', '-m', f'{prefix}{name}', str(EXAMPLES / example)] + args


@pytest.fixture(scope='module')
def run(dbg, krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('kdwarf_workload')
    build_wl(scratch)
    env = os.environ.get('SYSTEMTAP_DEBUGINFO_PATH')

    def build(name):
        r = run_stap(['-r', krel] + build_args(name, 'kw_'), cwd=scratch, timeout=600)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = dbg
    try:
        return build_and_run(scratch, build, 'kw_', list(CASES), 120)
    finally:
        os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = env


@pytest.mark.parametrize('name', list(CASES))
def test_dwarf_example_under_workload(run, name):
    assert_as_recorded(EXPECTED, normalize, run[name], name)


def record(kb, scratch):
    """Build the cases with 4.8 (-r kb: see the top comment), run them with its
    staprun and write EXPECTED."""
    scratch = Path(scratch)
    build_wl(scratch)
    env = dict(os.environ, SYSTEMTAP_DEBUGINFO_PATH=DEFAULT_PATH)
    for name in CASES:
        subprocess.run(['/usr/bin/stap', '-R', '/tmp/stap-rt', '-r', kb] + build_args(name, 'u_'),
                       cwd=scratch, check=True, env=env)
    write_recorded(run_modules(scratch, '/usr/bin/staprun', 'u_'), EXPECTED, normalize)


if __name__ == '__main__':
    main(record, sys.argv)
