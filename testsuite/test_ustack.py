# User stacks from a kernel probe that fires in user context:
# print_ubacktrace(), print_ubacktrace_brief(), ubacktrace(),
# sprint_ubacktrace(), ucallers(), usymname(), usymdata(), umodname() and
# uaddr() on a test program (ustack/ustack_prog.c) built -O2 without frame
# pointers, -O0, and -O2 without PIE, unwound through .eh_frame with the
# tables of `-d PROG --ldd`, and without them (hex addresses and 4.8's
# warnings). ustack/NAME.out and NAME.err are what Debian's SystemTap 4.8
# printed in the same guest for the same script and programs, built in
# /tmp/ustack-rec; its addresses (ASLR) are compared as the same address
# wherever 4.8 printed the same one.
import re
import subprocess
from pathlib import Path

import guest
from conftest import STAPRUN, run_stap

HERE = Path(__file__).resolve().parent / 'ustack'
RECORDED_DIR = '/tmp/ustack-rec'
PROGS = {
    'prog_o2': ['-g', '-O2', '-fomit-frame-pointer'],
    'prog_o0': ['-g', '-O0'],
    'prog_np': ['-g', '-O2', '-fomit-frame-pointer', '-no-pie'],
}
# case -> (program, with -d PROG --ldd)
CASES = {'d': ('prog_o2', True), 'o0': ('prog_o0', True),
         'np': ('prog_np', True), 'n': ('prog_o2', False)}
# ustack_bad.c: an unreadable stack, and a stack that loops (MAXBACKTRACE)
BAD = ['-g', '-O2', '-fomit-frame-pointer']
ADDR = re.compile(r'0x[0-9a-f]{12}\b')


def canon(text):
    """Number the distinct randomized addresses in order of appearance."""
    seen = {}
    return ADDR.sub(lambda m: 'A%d' % seen.setdefault(m.group(0), len(seen)), text)


def build(scratch, krel):
    src = HERE / 'ustack_prog.c'
    for prog, flags in PROGS.items():
        subprocess.run(['gcc'] + flags + ['-o', str(scratch / prog), str(src)],
                       check=True)
    for case, (prog, with_d) in CASES.items():
        opts = ['-d', str(scratch / prog), '--ldd'] if with_d else []
        r = run_stap(['-p4', '-r', krel, '-g', '-m', 'us_' + case] + opts +
                     [str(HERE / 'ustack.stp')], cwd=scratch, timeout=300)
        assert r.returncode == 0, r.stderr
    subprocess.run(['gcc'] + BAD + ['-o', str(scratch / 'bad'), str(HERE / 'ustack_bad.c')],
                   check=True)
    r = run_stap(['-p4', '-r', krel, '-m', 'us_bad', '-d', str(scratch / 'bad'), '--ldd',
                  str(HERE / 'ustack_bad.stp')], cwd=scratch, timeout=300)
    assert r.returncode == 0, r.stderr
    # no user context: the idle task, from timer.profile
    r = run_stap(['-p4', '-r', krel, '-m', 'us_idle', str(HERE / 'ustack_idle.stp')],
                 cwd=scratch)
    assert r.returncode == 0, r.stderr


def check_symbols(scratch, prog, out):
    """Each frame in the program is at its load base + its symbol's
    link-time address + the offset printed."""
    nm = subprocess.run(['nm', str(scratch / prog)], capture_output=True,
                        text=True, check=True).stdout
    syms = {f[2]: int(f[0], 16) for f in (line.split() for line in nm.splitlines())
            if len(f) == 3}
    bases = set()
    for addr, sym, off in re.findall(r'^ (0x[0-9a-f]+) : (\w+)\+(0x[0-9a-f]+)/\S+ \[%s\]$'
                                     % re.escape(str(scratch / prog)), out, re.M):
        bases.add(int(addr, 16) - int(off, 16) - syms[sym])
    assert len(bases) == 1 and bases.pop() % 4096 == 0, out


def test_user_stacks(krel, tmp_path):
    build(tmp_path, krel)
    commands = [f'cd {tmp_path} && {STAPRUN} -c ./{prog} us_{case}.ko; echo rc=$?'
                for case, (prog, _) in CASES.items()]
    commands.append(f'cd {tmp_path} && {STAPRUN} -c ./bad us_bad.ko; echo rc=$?')
    commands.append(f'cd {tmp_path} && {STAPRUN} us_idle.ko; echo rc=$?')
    batch = guest.run_batch(commands, scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    bad = batch[len(CASES)]
    want = (HERE / 'bad.out').read_text().replace(RECORDED_DIR, str(tmp_path))
    assert canon(bad.stdout) == canon(want), bad.stdout
    assert bad.stderr == (HERE / 'bad.err').read_text()
    idle = batch[len(CASES) + 1]
    assert (idle.stdout, idle.stderr) == ((HERE / 'idle.out').read_text(),
                                          (HERE / 'idle.err').read_text())
    for case, res in zip(CASES, batch):
        want_out = (HERE / f'{case}.out').read_text().replace(RECORDED_DIR, str(tmp_path))
        want_err = (HERE / f'{case}.err').read_text()
        assert canon(res.stdout) == canon(want_out), (case, res.stdout)
        assert res.stderr == want_err, (case, res.stderr)
        # ubacktrace() lists the addresses print_ubacktrace() printed
        first = res.stdout.split('\n--\n')
        assert first[2].split() == re.findall(r'^ (0x[0-9a-f]+)', first[0], re.M)
        if CASES[case][1]:
            check_symbols(tmp_path, CASES[case][0], res.stdout)


def test_symbol_options_documented():
    text = (Path(__file__).resolve().parent.parent / 'man' / 'stap.1').read_text()
    assert '\\-\\-ldd' in text and 'print_ubacktrace' in text


def test_unreadable_objects_warn(krel):
    """As 4.8 at pass 3: a -d name that is not an ELF file (but 'kernel')
    gets a warning; -w silences it; pass 2 does not read the objects."""
    script = ['-e', 'probe begin { print_ubacktrace() }']
    r = run_stap(['-p3', '-r', krel, '-d', 'kernel', '-d', '/etc/passwd', '-d', 'foo']
                 + script)
    assert r.returncode == 0
    assert r.stderr == ("WARNING: missing unwind/symbol data for module '/etc/passwd'\n"
                        "WARNING: missing unwind/symbol data for module 'foo'\n")
    r = run_stap(['-p3', '-w', '-r', krel, '-d', 'foo'] + script)
    assert (r.returncode, r.stderr) == (0, '')
    r = run_stap(['-p2', '-r', krel, '-d', 'foo'] + script)
    assert (r.returncode, r.stderr) == (0, '')


def test_tables_in_module_source(krel, tmp_path):
    """-d PROG --ldd puts the program's and libc's symbols and unwind
    sections in the module source; the program alone without --ldd."""
    src = HERE / 'ustack_prog.c'
    subprocess.run(['gcc', '-g', '-O2', '-o', str(tmp_path / 'p'), str(src)], check=True)
    script = ['-e', 'probe begin { print_ubacktrace() }']
    r = run_stap(['-p3', '-r', krel, '-d', str(tmp_path / 'p'), '--ldd'] + script)
    assert r.returncode == 0, r.stderr
    paths = re.findall(r'\.path = "([^"]+)"', r.stdout)
    assert paths[0] == str(tmp_path / 'p')
    assert '/usr/lib/x86_64-linux-gnu/libc.so.6' in paths
    assert '"inner",' in r.stdout and '"getppid",' in r.stdout
    r = run_stap(['-p3', '-r', krel, '-d', str(tmp_path / 'p')] + script)
    assert re.findall(r'\.path = "([^"]+)"', r.stdout) == [str(tmp_path / 'p')]
    # a process() probe's binary, whatever other probes come first
    r = run_stap(['-p3', '-r', krel, '-e', 'probe begin { println(1) } '
                  'probe process("%s").function("inner") { print_ubacktrace() }'
                  % (tmp_path / 'p')])
    assert re.findall(r'\{ \.path = "([^"]+)"', r.stdout) == [str(tmp_path / 'p')], r.stderr
