# Guru-mode stores through typed target expressions of kernel probes, no
# debuginfo needed (BTF types): $p->member = v on a tracepoint's struct
# pointer, $ptr[i] = v and @cast(p, "T")->m = v on kprobes, bit fields
# included. Every store is fault tolerant: a user, unmapped or read-only
# address is the script error "write fault [man error::fault] at 0x...",
# and the kernel stays healthy. Pass-2 errors (no -g, op=, ++, .return)
# are 4.8's texts at 4.8's columns, checked on the host.
#
# The UPSTREAM scripts run under SystemTap 4.8 too (given a System.map;
# its @cast with "kernel<linux/sched.h>" needs no debuginfo) and their
# expected output is what 4.8 printed in the guest, byte for byte. 4.8's
# bit-field stores are broken (`$p->sched_reset_on_fork = 1` reads back 0
# there, and the assignment's value is garbage), so the bit-field script
# checks the language's meaning instead: the value truncated to the
# field, its neighbours untouched, and the effect seen by chrt(1).
import re

import pytest

import guest
from conftest import STAPRUN, run_stap

SCHED = '"task_struct", "kernel<linux/sched.h>"'

UPSTREAM = {
    # a tracepoint's struct task_struct *: the exec'd cat's timer slack,
    # which cat itself then prints from /proc/self/timerslack_ns
    'tp_slack': ('probe kernel.trace("sched:sched_process_exec") {\n'
                 'if (execname() != "cat") next\n'
                 'printf("cat %d\\n", $p->timer_slack_ns)\n'
                 '$p->timer_slack_ns = $p->timer_slack_ns + 7\n'
                 'x = $p->timer_slack_ns = -1\n'
                 'printf("%d %d\\n", x, $p->timer_slack_ns)\n'
                 '$p->timer_slack_ns = 50008\n'
                 '} probe timer.s(60) { exit() }',
                 '50008\nrc=0\ncat 50000\n-1 -1\n'),
    # @cast on a kprobe
    'cast_slack': ('global done probe kprobe.function("do_sys_openat2") {\n'
                   'if (execname() == "cat" && !done++) {\n'
                   f'@cast(task_current(), {SCHED})->timer_slack_ns = 60001\n'
                   f'println(@cast(task_current(), {SCHED})->timer_slack_ns)\n'
                   '} } probe timer.s(60) { exit() }',
                   '60001\nrc=0\n60001\n'),
}
SLACK = 'cat /proc/self/timerslack_ns'

OURS = {
    # bit fields: truncated to their width, the assignment's value is the
    # value assigned, the other bits of the word are kept; chrt sees
    # SCHED_RESET_ON_FORK
    'bits': ('probe kernel.trace("sched:sched_process_exec") {\n'
             'if (execname() != "chrt") next\n'
             'n = $p->sched_contributes_to_load * 10 + $p->sched_migrated\n'
             'e = $p->in_execve\n'
             '$p->sched_reset_on_fork = 2\n'
             'println($p->sched_reset_on_fork)\n'
             'println($p->sched_reset_on_fork = 3)\n'
             'println($p->sched_reset_on_fork)\n'
             f'@cast(task_current(), {SCHED})->in_execve = 0\n'
             f'println(@cast(task_current(), {SCHED})->in_execve)\n'
             '$p->in_execve = e\n'
             'println(n == $p->sched_contributes_to_load * 10 + $p->sched_migrated, '
             '" ", $p->in_execve == e)\n'
             '} probe timer.s(60) { exit() }',
             'chrt -p 0 | head -1 | sed "s/^pid [0-9]*/pid/"',
             "pid's current scheduling policy: SCHED_OTHER|SCHED_RESET_ON_FORK\n"
             'rc=0\n0\n3\n1\n0\n1 1\n'),
    # *pos = 2 at vfs_read's entry: cat's read starts at offset 2
    'pos': ('probe kernel.function("vfs_read") {\n'
            'if (execname() == "cat" && $pos[0] == 0 &&\n'
            '    kernel_string($file->f_path->dentry->d_name->name) == "tw.txt") {\n'
            '$pos[0] = 2\n'
            'printf("pos %d\\n", $pos[0])\n'
            '} } probe timer.s(60) { exit() }',
            'cat tw.txt', 'cdefgh\nrc=0\npos 2\n'),
}

# bad addresses: the handler stops with a write fault, nothing is written
FAULTS = {
    # a user address taken as a struct file *
    'user_fault': ('probe kernel.function("vfs_read") { if (execname() == "cat") '
                   '@cast($buf, "file")->f_flags = 1 } '
                   'probe timer.s(60) { println("not reached"); exit() }', 62),
    # a read-only kernel page (the file_operations in .rodata), written
    # with the value it holds
    'ro_fault': ('probe kernel.function("vfs_read") { if (execname() == "cat") {\n'
                 'x = @cast($file->f_op, "file_operations")->owner\n'
                 '@cast($file->f_op, "file_operations")->owner = x } }\n'
                 'probe timer.s(60) { println("not reached"); exit() }', None),
}


def trigger(name, command):
    """Run module `name` with `staprun -c`: the command starts once the
    probes are armed, and its end ends the session (a sleep before it lost
    the race on a loaded host). What it prints comes first, as when it
    ran in the foreground, through a pipe as then (cat copies a file to a
    file without read())."""
    return (f"{STAPRUN} -c '({command}) | tee {name}.cmd >/dev/null' {name}.ko > {name}.out 2> {name}.err; "
            f'rc=$?; cat {name}.cmd; echo "rc=$rc"; cat {name}.out; cat {name}.err >&2')


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('twrite')
    (scratch / 'tw.txt').write_text('abcdefgh\n')
    scripts = {n: c[0] for n, c in UPSTREAM.items()}
    scripts.update({n: c[0] for n, c in OURS.items()})
    scripts.update({n: c[0] for n, c in FAULTS.items()})
    for name, script in scripts.items():
        r = run_stap(['-g', '-p4', '-r', krel, '-m', name, '-e', script], cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    commands = [trigger(n, SLACK) for n in UPSTREAM]
    commands += [trigger(n, c[1]) for n, c in OURS.items()]
    commands += [trigger(n, 'cat tw.txt > /dev/null') for n in FAULTS]
    commands.append('grep -c -E "^(' + '|'.join(scripts) + ') " /proc/modules; true')
    batch = guest.run_batch([f'cd {scratch}; {c}' for c in commands],
                            scratch=str(scratch), timeout=120)
    guest.check_kernel_healthy(batch)
    return dict(zip(list(UPSTREAM) + list(OURS) + list(FAULTS) + ['lsmod'], batch))


@pytest.mark.parametrize('name', list(UPSTREAM))
def test_same_as_upstream(run, name):
    assert (run[name].stdout, run[name].stderr) == (UPSTREAM[name][1], '')


@pytest.mark.parametrize('name', list(OURS))
def test_stores(run, name):
    assert (run[name].stdout, run[name].stderr) == (OURS[name][2], '')


@pytest.mark.parametrize('name', list(FAULTS))
def test_bad_address_is_a_write_fault(run, name):
    r = run[name]
    col = FAULTS[name][1]
    where = f'<input>:1:{col}' if col else '<input>:3:1'
    assert r.stdout == 'rc=1\n'
    assert re.fullmatch(r"ERROR: write fault \[man error::fault\] at 0x[0-9a-f]+ near operator "
                        rf"'@cast' at {where}\n"
                        r'WARNING: Number of errors: 1, skipped probes: 0\n', r.stderr), r.stderr


def test_all_modules_unloaded(run):
    assert run['lsmod'].stdout == '0\n'


# ---- pass 2: 4.8's messages and columns ------------------------------------

ONLY_EQ = 'Only the following assign operator is implemented on target variables:  ='


@pytest.mark.parametrize('script,guru,col,message', [
    ('probe kprobe.function("vfs_read") { @cast(pointer_arg(1), "struct file", "kernel")->f_pos = 0 }',
     False, 37, 'write to @cast context variable not permitted; need stap -g'),
    ('probe kernel.trace("sched_process_exec") { $p->prio = 0 }', False, 44,
     "write to tracepoint variable '$p' not permitted; need stap -g"),
    ('probe kernel.trace("sched_process_exec") { $p->prio += 1 }', False, 44,
     "write to tracepoint variable '$p' not permitted; need stap -g"),
    ('probe kernel.trace("sched_process_exec") { $p->prio++ }', True, 52, ONLY_EQ),
    ('probe kernel.trace("sched_process_exec") { ++$p->prio }', True, 44, ONLY_EQ),
    ('probe kernel.trace("sched_process_exec") { $p->prio += 1 }', True, 53, ONLY_EQ),
    ('probe kernel.function("vfs_read") { $file->f_pos = 0 }', False, 37,
     'write to target variable not permitted; need stap -g'),
    ('probe kernel.function("vfs_read").return { $file->f_pos = 0 }', True, 44,
     'write to target variable not permitted in .return probes'),
])
def test_write_errors(krel, script, guru, col, message):
    r = run_stap(['-p2', '-r', krel, '-e', script] + (['-g'] if guru else []))
    assert r.returncode == 1
    assert f'<input>:1:{col}: error: {message}\n' in r.stderr, r.stderr


def test_write_elaborates_with_guru(krel):
    r = run_stap(['-g', '-p2', '-r', krel, '-e',
                  'probe kernel.function("vfs_read").return { @cast($file, "file")->f_pos = 0 }'])
    assert r.returncode == 0, r.stderr


def test_write_in_probe_without_points(krel):
    # the point's error alone, as for reads (4.8 drops such probes)
    r = run_stap(['-g', '-p2', '-r', krel, '-e',
                  'probe kernel.function("nosuch_fn") { $x = 1; $p->y = 2 }'])
    assert r.returncode == 1
    assert "error: no match for probe point 'kernel.function(\"nosuch_fn\")'" in r.stderr
    assert r.stderr.count(': error: ') == 1, r.stderr
