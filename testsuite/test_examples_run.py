# Example scripts of Debian's systemtap-doc that elaborate thanks to the
# tapsets written for them, built and run in the guest as their .meta
# test_installcheck line says (-T 1: one second): what they print must
# be what Debian's SystemTap 4.8 printed in the same guest (built with a
# System.map of the guest's kallsyms). Those with a prometheus file have
# it read while they run, and run until the read ends (staprun -c) instead
# of for one second; its lines must have the Prometheus text format (the
# counts vary from run to run).
import re
import shutil

import pytest

import guest
from conftest import STAPRUN, run_stap
from examples import EXAMPLES

# name -> (example, arguments, stdout 4.8 printed); stderr was empty and
# the exit status 0
CASES = {
    'also_ran': ('general/also_ran.stp', [], ''),
    'cpu_throttle': ('general/cpu_throttle.stp', [], ''),
    'execsnoop_nd': ('lwtools/execsnoop-nd.stp', [],
                     'TIME                        UID   PPID    PID           COMM ARGS\n'),
    'net_xmit_json': ('network/net_xmit_json.stp', [], ''),
    'pstrace_exec': ('process/pstrace_exec.stp', ['bash'], ''),
    'proctop': ('process/proctop.stp', [], ''),
    'syscallsbypid': ('profiling/syscallsbypid.stp', [], ''),
    'syscallerrorsbypid': ('profiling/syscallerrorsbypid.stp', [], ''),
    'syscalllatency': ('profiling/syscalllatency.stp', [], ''),
    'topsys': ('profiling/topsys.stp', [], ''),
    # a type of a user header: @cast's module "<header>"
    'sizeof_file': ('general/sizeof.stp', ['FILE', '</usr/include/stdio.h>'],
                    'type FILE in </usr/include/stdio.h> byte-size: 216\n'),
}

# the examples whose prometheus file is read
PROMETHEUS = ('syscallsbypid', 'syscallerrorsbypid', 'syscalllatency', 'topsys')
PROM_LINE = re.compile(r'\w+\{\w+="[^"]*"(,\w+="[^"]*")*\} -?\d+(\.\d+)?')


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('examples_run')
    for name, (example, args, _) in CASES.items():
        shutil.copy(EXAMPLES / example, scratch / f'{name}.stp')
        # those read under -c end when the read ends, not after 1 s, so
        # that a loaded host cannot end them before the read
        limit = [] if name in PROMETHEUS else ['-T', '1']
        r = run_stap(['-p4', '-r', krel, '-m', name] + limit + [f'{name}.stp'] + args,
                     cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    commands = []
    for name in CASES:
        if name in PROMETHEUS:
            commands.append(f"cd {scratch}; {STAPRUN} -c 'cat /proc/systemtap/{name}/"
                            f"__prometheus > {name}.prom' {name}.ko")
        else:
            commands.append(f'cd {scratch}; {STAPRUN} {name}.ko')
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(batch)
    return scratch, dict(zip(CASES, batch))


@pytest.mark.parametrize('name', list(CASES))
def test_example_runs_as_upstream(run, name):
    scratch, res = run
    r = res[name]
    assert (r.stdout, r.stderr, r.rc) == (CASES[name][2], '', 0)
    if name in PROMETHEUS:
        lines = (scratch / f'{name}.prom').read_text().splitlines()
        assert lines, 'empty prometheus file'
        assert [x for x in lines if not PROM_LINE.fullmatch(x)] == []
