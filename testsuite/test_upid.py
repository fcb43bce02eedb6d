# process(PID) probes, process.begin of processes already running, user
# stacks of process probes with --ldd, @cast without a module in a process
# probe and guru writes of target variables, end to end. The program
# uprobes/upid.c runs before the session starts. 4.8 resolves PID at
# translate time (/proc/PID/exe) and the module is built here but runs in
# the guest: the program is started here to get a PID P to translate for,
# and in the guest started again with P (/proc/sys/kernel/ns_last_pid),
# next to a second copy of it (process(PID)'s events ignore that one; its
# function probes, as 4.8's, fire there too).
# uprobes/upid.json is what SystemTap 4.8 printed for the same scripts
# (uprobes/NAME.stp) and commands in the same guest. Also: the begin and
# thread.begin of a two-thread program (uprobes/uidle.c) already running,
# and .function().label() on uprobes/ulabel.c, with -l and -L.
import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import guest
from conftest import STAPRUN, run_stap

HERE = Path(__file__).resolve().parent / 'uprobes'
PROG = 'upid'
# case -> (script, stap options)
CASES = {
    'pid': ('pid', []),
    'stack': ('pidstack', []),
    'stackldd': ('pidstack', ['--ldd']),
    'write': ('pidwrite', ['-g']),
}
ADDR = re.compile(r'0x[0-9a-f]{12}\b')
EXPECTED = {n: e for n, e in json.loads((HERE / 'upid.json').read_text()).items()
            if n in CASES}


def build_prog(d):
    shutil.copy(HERE / f'{PROG}.c', d)
    subprocess.run(['gcc', '-g', '-O0', '-o', PROG, f'{PROG}.c'], cwd=d, check=True)


def start_host_copy(d):
    """The program running here (exits with its stop file): its Popen and PID."""
    proc = subprocess.Popen([f'{d}/{PROG}', f'{d}/nostop'], cwd=d)
    for _ in range(100):	# until it has exec'd
        if Path(f'/proc/{proc.pid}/exe').resolve() == Path(f'{d}/{PROG}'):
            break
        time.sleep(0.01)
    return proc, proc.pid


def guest_command(d, pid, module, staprun):
    """Run module with the program as PID pid (made so through
    ns_last_pid) and a second copy of it."""
    return (f'cd {d} && rm -f stop && echo {pid - 1} > /proc/sys/kernel/ns_last_pid && '
            f'{{ ./{PROG} {d}/stop & A=$!; ./{PROG} {d}/nostop & B=$!; '
            f'[ $A = {pid} ] || echo "pid $A"; sleep 0.5; {staprun} {module}.ko; '
            'echo rc=$?; kill $B; kill $A 2>/dev/null; wait; }')


def canon(text):
    """Number the distinct randomized addresses in order of appearance."""
    seen = {}
    return ADDR.sub(lambda m: 'A%d' % seen.setdefault(m.group(0), len(seen)), text)


def test_pid_points_as_upstream(krel, tmp_path):
    d = str(tmp_path)
    build_prog(tmp_path)
    for script, _ in CASES.values():
        shutil.copy(HERE / f'{script}.stp', tmp_path)
    proc, pid = start_host_copy(d)
    try:
        for name, (script, opts) in CASES.items():
            r = run_stap(['-p4', '-r', krel, '-m', f'u_{name}'] + opts +
                         [f'{script}.stp', str(pid), f'{d}/stop', f'{d}/{PROG}'], cwd=d)
            assert r.returncode == 0, f'{name}: {r.stderr}'
    finally:
        proc.kill()
        proc.wait()
    # and a two-thread program running before the session; C labels
    for prog, flags in (('uidle', ['-pthread']), ('ulabel', [])):
        shutil.copy(HERE / f'{prog}.c', tmp_path)
        subprocess.run(['gcc', '-g', '-O0'] + flags + ['-o', prog, f'{prog}.c'], cwd=d,
                       check=True)
    for name, prog in (('idle', 'uidle'), ('label', 'ulabel')):
        r = run_stap(['-p4', '-r', krel, '-m', f'u_{name}', str(HERE / f'{name}.stp'),
                      f'{d}/{prog}'], cwd=d)
        assert r.returncode == 0, r.stderr
    batch = guest.run_batch([guest_command(d, pid, f'u_{n}', STAPRUN) for n in CASES] +
                            [f'cd {d} && {{ ./uidle & P=$!; sleep 0.5; {STAPRUN} u_idle.ko; '
                             'echo rc=$?; kill $P; }',
                             f'cd {d} && {STAPRUN} -c ./ulabel u_label.ko'],
                            scratch=d, timeout=90)
    guest.check_kernel_healthy(batch)
    got = {n: [canon(r.stdout.replace(d, '@DIR@')), r.stderr.replace(d, '@DIR@'), r.rc]
           for n, r in zip(CASES, batch)}
    want = {n: [canon(e[0]), e[1], e[2]] for n, e in EXPECTED.items()}
    for n in CASES:
        assert got[n] == want[n], n
    # 4.8 printed these lines, in either order (each runs in its thread)
    idle = batch[len(CASES)]
    assert (sorted(idle.stdout.splitlines()), idle.stderr, idle.rc) == (
        ['begin uidle 1', 'rc=0', 'thread.begin uidle 0'], '', 0)
    # process().function("work").label("*"): 4.8's output, $$vars in
    # scope order (innermost first)
    label = batch[len(CASES) + 1]
    pp = 'process("@DIR@/ulabel").function("work@@DIR@/ulabel.c:'
    assert (label.stdout.replace(d, '@DIR@'), label.stderr, label.rc) == (
        f'{pp}11") 3 0 i=0x0 n=0x3 s=0x0\n'
        f'{pp}11") 3 1 i=0x1 n=0x3 s=0x1\n'
        f'{pp}11") 3 3 i=0x2 n=0x3 s=0x3\n'
        f'{pp}17") 3 3 n=0x3 s=0x3\n', '', 0)


def test_pid_errors(tmp_path):
    # 4.8's messages, in the project's diagnostic format
    d = str(tmp_path)
    build_prog(tmp_path)

    def err(script, *opts):
        r = run_stap(['-p2', *opts, '-e', script], cwd=d)
        return r.returncode, r.stderr.replace(d, '@DIR@').splitlines()[0]

    # above PID_MAX_LIMIT: never a process
    assert err('probe process(5000000).begin { print(1) }') == (
        1, '<input>:1:7: error: cannot probe pid 5000000: No such process')
    proc, pid = start_host_copy(d)
    try:
        assert err(f'probe process({pid}).function("tick").return {{ print(1) }}') == (
            1, '<input>:1:7: error: process return probes not available [man error::inode-uprobes]')
        assert err(f'probe process({pid}).statement(0x1154).absolute {{ print(1) }}', '-g') == (
            1, '<input>:1:7: error: absolute process probes not available [man error::inode-uprobes]')
        for body, at, opts, msg in (
                ('$i = 1', '$', (), 'write to target variable not permitted; need stap -g'),
                ('$b->v = 1', '$', (), 'write to target variable not permitted; need stap -g'),
                ('$b->v += 1', '+=', ('-g',), 'Only the following assign operator is '
                 'implemented on target variables:  ='),
                ('$i++', '++', ('-g',), 'Only the following assign operator is '
                 'implemented on target variables:  =')):
            script = f'probe process({pid}).function("tick") {{ {body} }}'
            assert err(script, *opts) == (
                1, f'<input>:1:{script.index(at) + 1}: error: {msg}'), body
        # the points as 4.8 names them: the events by PID, the rest by program
        r = run_stap(['-p2', '-e', f'probe process({pid}).begin, process({pid}).syscall.return, '
                      f'process({pid}).function("tick") {{ print(1) }}'], cwd=d)
        probes = r.stdout.split('# probes\n')[1].replace(d, '@DIR@').replace(str(pid), 'PID')
        assert [p.split(' /*')[0] for p in probes.splitlines()] == [
            'process(PID).begin', 'process(PID).syscall.return',
            'process("@DIR@/upid").function("tick@@DIR@/upid.c:13")']
    finally:
        proc.kill()
        proc.wait()


def test_labels_listed_as_upstream(tmp_path):
    shutil.copy(HERE / 'ulabel.c', tmp_path)
    subprocess.run(['gcc', '-g', '-O0', '-o', 'ulabel', 'ulabel.c'], cwd=tmp_path, check=True)
    pp = 'process("@DIR@/ulabel").function("work@@DIR@/ulabel.c:'
    # what 4.8 listed (each function without DWARF with its .label("*"))
    r = run_stap(['-l', 'process("./ulabel").function("*").label("*")'], cwd=tmp_path)
    assert r.stdout.replace(str(tmp_path), '@DIR@').splitlines() == [
        f'process("@DIR@/ulabel").function("{f}").label("*")'
        for f in ('__do_global_dtors_aux', '_fini', '_init', '_start', 'deregister_tm_clones',
                  'frame_dummy', 'register_tm_clones')] + [
        f'{pp}11").label("again")', f'{pp}17").label("out")']
    r = run_stap(['-L', 'process("./ulabel").function("work").label("*")'], cwd=tmp_path)
    assert r.stdout.replace(str(tmp_path), '@DIR@').splitlines() == [
        f'{pp}11").label("again") $i:int $n:int $s:int',
        f'{pp}17").label("out") $n:int $s:int']
    r = run_stap(['-L', 'process("./ulabel").statement("work@ulabel.c:10")'], cwd=tmp_path)
    assert r.stdout.replace(str(tmp_path), '@DIR@') == (
        'process("@DIR@/ulabel").statement("work@@DIR@/ulabel.c:10") $i:int $n:int $s:int\n')


def test_cast_in_the_probed_program(tmp_path):
    # @cast without a module in a process probe: the program's type (4.8),
    # else the kernel's; read in user memory
    d = str(tmp_path)
    build_prog(tmp_path)
    r = run_stap(['-p3', '-e', f'probe process("{d}/{PROG}").function("tick") {{ '
                  'println(@cast($b, "struct box")->v + @cast($b, "box")->n, '
                  '@cast(task_current(), "task_struct")->pid) }'], cwd=d)
    assert r.returncode == 0, r.stderr
    assert re.search(r'stp_uread\(c, l->t_\d+, 8, 1\)', r.stdout)
    assert re.search(r'stp_uread\(c, l->t_\d+, 4, 1\)', r.stdout)
    assert re.search(r'stp_kread\(c, l->t_\d+, 4, 1\)', r.stdout)
    r = run_stap(['-p2', '-e', f'probe process("{d}/{PROG}").function("tick") {{ '
                  'println(@cast($b, "struct nosuch")->v) }'], cwd=d)
    assert (r.returncode, r.stderr.replace(d, '@DIR@').splitlines()[0]) == (
        1, f"<input>:1:{51 + len(d)}: error: type definition 'struct nosuch' not found "
        "in '@DIR@/upid'")
