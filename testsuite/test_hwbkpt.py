# kernel.data() probes: hardware breakpoints on a kernel variable, by
# symbol (looked up when the module starts) or by address with .length(N),
# firing on .write or on any access (.rw). The variable is vm.swappiness,
# which commands in the guest write and read through /proc/sys. The
# expected outputs are what SystemTap 4.8 printed for the same scripts
# and commands in the guest (recorded once, below), except where noted.
import re

import pytest

import guest
from conftest import STAPRUN, run_stap

SYMBOL = '''global w, r
probe kernel.data("vm_swappiness").write { if (!w++) printf("%s %s\\n", pp(), execname()) }
probe kernel.data("vm_swappiness").rw { if (!r++) printf("%s %s\\n", pp(), execname()) }
probe kernel.data("nosuch_symbol_kctx").write { println("never") }
probe end { printf("w>0 %d r>=w %d\\n", w > 0, r >= w) }
'''
# 4.8 (/usr/bin/stap -p4, /usr/bin/staprun in the guest, with trigger())
SYMBOL_UPSTREAM = (
    'rc=0\n'
    'kernel.data("vm_swappiness").length(1).write sh\n'
    'kernel.data("vm_swappiness").length(1).rw cat\n'
    'w>0 1 r>=w 0\n',
    'WARNING: Probe kernel.data("nosuch_symbol_kctx").length(1).write registration '
    'skipped: invalid symbol nosuch_symbol_kctx \n')

ADDRESS = '''global n, m
probe kernel.data(ADDR).length(4).write { if (!n++) printf("%s %s\\n", pp(), execname()) }
probe kernel.data(ADDR).length(3).rw { if (execname() == "cat") m++ }
probe end { printf("n>0 %d m>0 %d\\n", n > 0, m > 0) }
'''


def trigger(name):
    """Run module `name` with `staprun -c`: the command writes and reads
    the variable once the breakpoints are armed, and its end ends the
    session (a sleep before it lost the race on a loaded host)."""
    command = ('echo 61 > /proc/sys/vm/swappiness; cat /proc/sys/vm/swappiness >/dev/null; '
               'echo 60 > /proc/sys/vm/swappiness')
    return (f"{STAPRUN} -c '{command}' {name}.ko > {name}.out 2> {name}.err; "
            f'echo "rc=$?"; cat {name}.out; cat {name}.err >&2')


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('hwbkpt')
    r = run_stap(['-p4', '-r', krel, '-m', 'hw_symbol', '-e', SYMBOL], cwd=scratch)
    assert r.returncode == 0, r.stderr
    first = guest.run_batch([trigger('hw_symbol'), 'grep " vm_swappiness$" /proc/kallsyms'],
                            scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(first)
    # the guest boots without KASLR: the address stays for the next boot
    addr = '0x' + first[1].stdout.split()[0]
    r = run_stap(['-p4', '-r', krel, '-m', 'hw_addr', '-e', ADDRESS.replace('ADDR', addr)],
                 cwd=scratch)
    assert r.returncode == 0, r.stderr
    second = guest.run_batch([trigger('hw_addr')], scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(second)
    return {'symbol': first[0], 'address': second[0], 'addr': addr}


def test_symbol_as_upstream(run):
    assert (run['symbol'].stdout, run['symbol'].stderr) == SYMBOL_UPSTREAM


def test_address_and_length(run):
    addr = int(run['addr'], 16)
    assert (run['address'].stdout, run['address'].stderr) == (
        f'rc=0\nkernel.data({addr:#x}).length(4).write sh\nn>0 1 m>0 1\n', '')


@pytest.mark.parametrize('point,pp', [
    ('kernel.data("jiffies").write', 'kernel.data("jiffies").length(1).write'),
    ('kernel.data(4096).length(3).rw', 'kernel.data(0x1000).length(3).rw'),
    ('kernel.data(0x1000).rw', 'kernel.data(0x1000).length(1).rw'),
])
def test_pass2_names_as_upstream(krel, point, pp):
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println(1) }}'])
    assert r.returncode == 0, r.stderr
    assert re.search('^' + re.escape(pp) + ' /\\*', r.stdout, re.M), r.stdout


@pytest.mark.parametrize('point', ['kernel.data("jiffies").length(4).write',
                                   'kernel.data(4096).read'])
def test_pass2_mismatch(krel, point):
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println(1) }}'])
    assert r.returncode == 1
    assert f"no match for probe point '{point}'" in r.stderr, r.stderr
