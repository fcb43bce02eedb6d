# Tapsets the example scripts use, end to end in the guest: `probe init`,
# stp_pid(), user_mode(), the target set (target_set_pid(),
# target_set_report()) ... Each case is a script, the staprun options it
# runs with, and what Debian's SystemTap 4.8 printed for it in the same
# guest (built with a System.map of the guest's kallsyms for kprobes, and
# its runtime patched for task_work_cancel_func). The -c commands run the
# shell scripts of SHELL, written next to the modules.
import pytest

import guest
from conftest import STAPRUN, build_module

SHELL = {
    # a busy loop in the target, then two children that sleep
    'work.sh': 'i=0\nwhile [ $i -lt 30000 ]; do i=$((i+1)); done\n'
               'sleep 0.1 &\nsleep 0.2\nwait\n',
}

# name -> (script, staprun options, stdout, stderr, rc)
CASES = {
    'init_order': (
        'probe begin { println("begin") }\n'
        'probe init { println("init ", stp_pid() == pid()) }\n'
        'probe begin(-5) { println("begin-5") }\n'
        'probe kprobe.function("vfs_read") { printf("%d\\n", user_mode()); exit() }',
        '', 'init 1\nbegin-5\nbegin\n0\n', '', 0),
    # the target and its descendants
    'target_set': (
        'global seen\n'
        'probe begin { println(target_set_pid(target()), " ", target_set_pid(stp_pid()), " ",'
        ' stp_pid() == pid(), " ", user_mode()) }\n'
        'probe syscall.nanosleep, syscall.clock_nanosleep {'
        ' if (target_set_pid(pid())) seen[execname()]++ }\n'
        'probe end { foreach (e+ in seen) println(e, " ", seen[e]);'
        ' println(target_set_pid(target())) }',
        "-c 'sh SCRATCH/work.sh'", '1 0 1 0\nsleep 2\n0\n', '', 0),
    # user_mode() in timer.profile samples of the target's busy loop
    'user_mode_profile': (
        'global um\n'
        'probe timer.profile { if (pid() == target()) um[user_mode()] = 1 }\n'
        'probe end { println(um[1]) }',
        "-c 'sh SCRATCH/work.sh'", '1\n', '', 0),
}


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('tapset_misc')
    for name, text in SHELL.items():
        (scratch / name).write_text(text)
    for name, case in CASES.items():
        build_module(name, case[0], krel, scratch)
    commands = [f'{STAPRUN} {c[1].replace("SCRATCH", str(scratch))} {n}.ko'
                for n, c in CASES.items()]
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(batch)
    return dict(zip(CASES, batch))


@pytest.mark.parametrize('name', list(CASES))
def test_tapset_misc(run, name):
    _, _, out, err, rc = CASES[name]
    r = run[name]
    assert (r.stdout, r.stderr, r.rc) == (out, err, rc)
