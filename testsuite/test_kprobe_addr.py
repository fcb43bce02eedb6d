# Kernel probes placed by address: the translator takes each kprobe's
# address from a symbol map of the target kernel (the -r tree's System.map,
# or the debuginfo package's), and the runtime relocates it (KASLR) and
# checks with kallsyms that the symbol at that address is the probe's own
# before probing it; a map that disagrees is never probed at, the probe is
# registered by name instead, with a warning (runtime/kprobes.c). All the
# modules run in one guest boot, triggered by `staprun -c`.
import os
import re
from pathlib import Path

import pytest

import guest
from conftest import STAPRUN, build_args, run_stap

SCRIPT = ('global m, c, r '
          'probe kprobe.function("mtu_show") { if (!m++) printf("entry %s %s\\n", probefunc(), '
          'symname(addr())) } '
          'probe kprobe.function("carrier_show") { c++ } '
          'probe kernel.function("mtu_show").return { if (!r++) printf("return %s %d\\n", '
          'ppfunc(), $return) } '
          'probe end { printf("carrier %d\\n", c > 0) }')
TRIGGER = "sh -c 'cat /sys/class/net/lo/mtu /sys/class/net/lo/carrier > /dev/null 2>&1; true'"
EXPECTED = 'entry mtu_show mtu_show\nreturn mtu_show 6\ncarrier 1\n'


def debug_map(krel):
    path = f'/usr/lib/debug/boot/System.map-{krel}'
    assert os.path.exists(path), f'{path} is missing: run testsuite/kernel-dbg.sh'
    return path


def map_addrs(text, *names):
    got = {}
    for line in text.splitlines():
        a, _, n = line.split(' ', 2)
        if n in names and n not in got:
            got[n] = int(a, 16)
    return got


@pytest.fixture(scope='module')
def swapped_tree(krel, tmp_path_factory):
    """A -r tree whose System.map has mtu_show's and carrier_show's
    addresses swapped: a map of some other build of the kernel."""
    tree = tmp_path_factory.mktemp('kaddr') / 'kb'
    tree.mkdir()
    hdr = Path(os.path.realpath(f'/lib/modules/{krel}/build'))
    for f in hdr.iterdir():
        if f.name not in ('System.map', 'source'):
            (tree / f.name).symlink_to(f)
    (tree / 'source').symlink_to(hdr.parent / ('linux-headers-' + krel.rsplit('-', 1)[0]
                                               + '-common'))
    text = open(debug_map(krel)).read()
    a = map_addrs(text, 'mtu_show', 'carrier_show')
    swap = {'mtu_show': a['carrier_show'], 'carrier_show': a['mtu_show']}
    lines = []
    for line in text.splitlines():
        addr, t, n = line.split(' ', 2)
        lines.append(f'{swap[n]:016x} {t} {n}' if n in swap else line)
    (tree / 'System.map').write_text('\n'.join(lines) + '\n')
    return tree, swap


def test_table_has_map_addresses(krel):
    a = map_addrs(open(debug_map(krel)).read(), 'mtu_show', 'carrier_show', 'sprint_symbol')
    r = run_stap(['-p3', '--disable-cache', '-r', krel, '-e', SCRIPT])
    assert r.returncode == 0, r.stderr
    rows = [x for x in r.stdout.splitlines() if 'STP_PROBE_K' in x]
    assert len(rows) == 3
    assert 'STP_KFUNC("mtu_show")' in rows[0]
    assert rows[0].endswith(f'.kaddr = {a["mtu_show"]:#x}UL }},')
    assert rows[1].endswith(f'.kaddr = {a["carrier_show"]:#x}UL }},')
    assert rows[2].endswith(f'.kaddr = {a["mtu_show"]:#x}UL }},')
    assert f'#define STP_KMAP_ANCHOR {a["sprint_symbol"]:#x}UL\n' in r.stdout


def test_no_address_without_map_entry(krel):
    # a name the map does not have (a clone taken on trust) goes by name
    r = run_stap(['-p3', '--disable-cache', '-r', krel, '-e',
                  'probe kprobe.function("no_such_fn.isra.0") { println(1) }'])
    assert r.returncode == 0, r.stderr
    assert '.kaddr' not in r.stdout and 'STP_KMAP_ANCHOR' not in r.stdout


@pytest.fixture(scope='module')
def run(krel, swapped_tree, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('kaddr_run')
    tree, _ = swapped_tree
    build_args('ka_good', ['-e', SCRIPT], scratch, krel)
    build_args('ka_swap', ['-e', SCRIPT], scratch, str(tree))
    build_args('ka_name', ['-D', 'STP_KP_BY_NAME', '-e', SCRIPT], scratch, krel)
    names = ['ka_good', 'ka_swap', 'ka_name']
    commands = [f'{STAPRUN} -c "{TRIGGER}" {n}.ko; echo "rc=$?"' for n in names]
    commands.append('grep -c -E "^(ka_good|ka_swap|ka_name) " /proc/modules; '
                    'grep -c . /sys/kernel/debug/kprobes/list; true')
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=180)
    guest.check_kernel_healthy(batch)
    return dict(zip(names + ['left'], batch))


def test_placed_by_address_fires_on_the_function(run):
    assert (run['ka_good'].stdout, run['ka_good'].stderr) == (EXPECTED + 'rc=0\n', '')


def test_by_name_is_the_same(run):
    assert (run['ka_name'].stdout, run['ka_name'].stderr) == (EXPECTED + 'rc=0\n', '')


def test_mismatched_address_is_refused(run, swapped_tree):
    _, swap = swapped_tree
    r = run['ka_swap']
    # the probes fire on their own functions all the same (placed by name)
    assert r.stdout == EXPECTED + 'rc=0\n'
    m = re.fullmatch(
        r'WARNING: probe kprobe\.function\("mtu_show"\): the symbol map\'s address of '
        r'mtu_show \((0x[0-9a-f]+)\) is carrier_show\+0x0/0x[0-9a-f]+ in this kernel, '
        r'not mtu_show: not probed there, registered by name \(is the map of another '
        r'build of the kernel\?\)\n'
        r'WARNING: 2 other probes: the symbol map\'s address is not the symbol\'s in '
        r'this kernel: registered by name\n', r.stderr)
    assert m, r.stderr
    assert int(m.group(1), 16) == swap['mtu_show']


def test_nothing_left(run):
    assert run['left'].stdout == '0\n0\n'
