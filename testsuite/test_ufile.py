# Source lines, PLT entries, labels, callees and CFI expressions in user
# space, on ufile/ufile_prog.c built -O2 -gdwarf-4 without frame pointers
# (as a PIE and without PIE):
# - ufile.stp: usymfile(), usymline(), usymfileline(),
#   print_ubacktrace_fileline(), print_ubacktrace(pc, sp, fp) and
#   print_ubacktrace_fileline(pc, sp, fp), kernel symfile()...; backtraces
#   from a signal handler (through glibc's __restore_rt, whose CFI is
#   DW_CFA_def_cfa_expression / DW_CFA_expression);
# - uplt.stp: process().plt() probes and a backtrace from a PLT entry (its
#   CFA is an expression);
# - ulabel.stp: .function().label(), .callee(), .callee().call, .callees;
# - upn.stp: pn() and probefunc() of those probes;
# - kfile.stp: without the kernel's debuginfo print_backtrace_fileline() is
#   print_backtrace() and symfileline() the address in hex, as in 4.8;
# - uexpr.stp on uexpr.c: CFA expressions good and hostile (loops, faults,
#   stack overflow...): the unwind goes on or stops with 4.8's warnings;
# - ustmt.stp: .statement() by line (":*", a range, "+N") and $r there.
# ufile/NAME.out and NAME.err are what Debian's SystemTap 4.8 printed in
# the same guest for the same scripts and programs, built in /tmp/uf
# (the PIE), /tmp/uf/np (the other) and /tmp/uf/ex (uexpr.c);
# listing.json its -l and -L.
# Where 4.8 is wrong we are not, and the test says so: past __restore_rt
# 4.8 prints one bogus frame and stops (we unwind into the interrupted
# code), and in a PIE it finds no source line (it looks the run-time
# address up in the link-time table).
import json
import re
import shutil
import subprocess
from pathlib import Path

import guest
from conftest import STAPRUN, run_stap

HERE = Path(__file__).resolve().parent / 'ufile'
REC = '/tmp/uf'
CFLAGS = ['-g', '-gdwarf-4', '-O2', '-fomit-frame-pointer']
ADDR = re.compile(r'0x[0-9a-f]{6,}\b')


def canon(text):
    """Number the distinct addresses in order of appearance."""
    seen = {}
    return ADDR.sub(lambda m: 'A%d' % seen.setdefault(m.group(0), len(seen)), text)


def cut_signal(text):
    """The frames after __restore_rt removed from each backtrace."""
    out, skip = [], False
    for line in text.split('\n'):
        if line in ('--', '==') or not line.startswith(' 0x'):
            skip = False
        if not skip:
            out.append(line)
        if '__restore_rt+' in line:
            skip = True
    return '\n'.join(out)


def signal_tails(text):
    """The frames after __restore_rt of each backtrace that has one."""
    tails, cur = [], None
    for line in text.split('\n'):
        if cur is not None and (line in ('--', '==') or not line.startswith(' 0x')):
            tails.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line)
        if '__restore_rt+' in line:
            cur = []
    return tails


def build(tmp, krel):
    np_dir, ex_dir = tmp / 'np', tmp / 'ex'
    for d, src, extra in ((tmp, 'ufile_prog.c', []), (np_dir, 'ufile_prog.c', ['-no-pie']),
                          (ex_dir, 'uexpr.c', [])):
        d.mkdir(exist_ok=True)
        shutil.copy(HERE / src, d)
        subprocess.run(['gcc'] + CFLAGS + extra + ['-o', 'prog', src], cwd=d, check=True)
    jobs = [(np_dir, 'ufile', ['-g', '--ldd']), (tmp, 'ufile', ['-g', '--ldd']),
            (tmp, 'uplt', ['--ldd']), (tmp, 'ulabel', []), (ex_dir, 'uexpr', []),
            (tmp, 'upn', []), (tmp, 'kfile', []), (tmp, 'ustmt', [])]
    for d, name, opts in jobs:
        r = run_stap(['-p4', '-r', krel, '-m', 'uf_' + name] + opts + [str(HERE / f'{name}.stp')],
                     cwd=d, timeout=300)
        assert r.returncode == 0, r.stderr
    return [(d, name) for d, name, _ in jobs]


def recorded(name, tmp):
    """4.8's output for this run's directory."""
    text = (HERE / name).read_text()
    return text.replace(REC + '/np/', f'{tmp}/np/').replace(REC + '/', f'{tmp}/')


def test_ufile(krel, tmp_path):
    jobs = build(tmp_path, krel)
    batch = guest.run_batch([f'cd {d} && {STAPRUN} -c ./prog uf_{n}.ko; echo rc=$?'
                             for d, n in jobs], scratch=str(tmp_path), timeout=240)
    guest.check_kernel_healthy(batch)
    np_run, pie, plt, label, expr, pn, kfile, stmt = batch
    for res, name in ((np_run, 'np'), (pie, 'pie'), (plt, 'plt'), (label, 'label'),
                      (expr, 'expr'), (pn, 'pn'), (stmt, 'stmt')):
        assert res.stderr == (HERE / f'{name}.err').read_text(), (name, res.stderr)
    # not a PIE: 4.8's output, up to __restore_rt in the signal handler
    want = recorded('np.out', tmp_path)
    assert canon(cut_signal(np_run.stdout)) == canon(cut_signal(want)), np_run.stdout
    # past it: the interrupted raise() in main, down to _start like the
    # other stacks (4.8: one wrong frame)
    main_tail = np_run.stdout.split('\n--\n')[0].split('\n')[-3:]
    tails = signal_tails(np_run.stdout)
    assert len(tails) == 5, np_run.stdout
    for t in tails:
        assert t[-3:] == main_tail, t
        assert re.search(r' : (raise|gsignal)\+0x', '\n'.join(t)), t
        assert re.search(r' : main\+0x\w+/0x\w+( at \S+ufile_prog.c:43)? \[', t[-4]), t
    # a PIE: the same as without PIE (4.8: no lines, addresses in hex)
    no_np = np_run.stdout.replace(f'{tmp_path}/np/', f'{tmp_path}/')
    assert canon(pie.stdout) == canon(no_np), pie.stdout
    # ... and 4.8's output once the lines are taken out of both
    def unlined(text):
        text = re.sub(r' at \S+:\d+ \[', ' [', cut_signal(text))
        return '\n'.join(ln for ln in text.split('\n') if '|' not in ln)
    assert canon(unlined(pie.stdout)) == canon(unlined(recorded('pie.out', tmp_path)))
    # PLT probes: 4.8's output, up to __restore_rt
    want = recorded('plt.out', tmp_path)
    assert canon(cut_signal(plt.stdout)) == canon(cut_signal(want)), plt.stdout
    assert ' : _init+0x60/0x80 [' in plt.stdout and ' : leaf+0x13/' in plt.stdout
    assert [ADDR.sub('', ln) for ln in signal_tails(plt.stdout)[0][-3:]] == [
        ADDR.sub('', ln.replace('/np/', '/')) for ln in main_tail]
    # labels and callees: exactly 4.8's
    assert label.stdout == recorded('label.out', tmp_path)
    assert pn.stdout == recorded('pn.out', tmp_path)
    # statement probes by line (":*", a range, "+N"): 4.8's lines and values
    assert stmt.stdout == recorded('stmt.out', tmp_path)
    fileline, plain = kfile.stdout.split('--\n')
    assert fileline.startswith(' 0x') and ' : __do_sys_getppid+0x0/' in fileline, kfile.stdout
    assert plain == fileline + '1 1 1\nrc=0\n', kfile.stdout
    # CFA expressions: 4.8's frames (and warnings, above)
    assert canon(expr.stdout) == canon(recorded('expr.out', tmp_path)), expr.stdout


def test_listing(tmp_path, krel):
    """-l and -L of .plt, .label, .callee and .callees are 4.8's."""
    shutil.copy(HERE / 'ufile_prog.c', tmp_path)
    subprocess.run(['gcc'] + CFLAGS + ['-o', 'prog', 'ufile_prog.c'], cwd=tmp_path,
                   check=True)
    for key, (rc, out) in json.loads((HERE / 'listing.json').read_text()).items():
        opt, point = key.split(' ', 1)
        r = run_stap(['-r', krel, opt, point], cwd=tmp_path)
        assert (r.returncode, r.stdout) == (rc, out.replace(REC + '/', f'{tmp_path}/')), key


def test_plt_return_refused(tmp_path):
    shutil.copy(HERE / 'ufile_prog.c', tmp_path)
    subprocess.run(['gcc'] + CFLAGS + ['-o', 'prog', 'ufile_prog.c'], cwd=tmp_path,
                   check=True)
    r = run_stap(['-p2', '-e', 'probe process("./prog").plt("s*").return { }'],
                 cwd=tmp_path)
    assert r.returncode == 1
    assert 'error: process return probes not available' in r.stderr


def test_line_table_only_when_used(tmp_path, krel):
    """The module carries a line table only for the line functions, and
    only of objects with their own .debug_line (the program, not libc)."""
    shutil.copy(HERE / 'ufile_prog.c', tmp_path)
    subprocess.run(['gcc'] + CFLAGS + ['-o', 'prog', 'ufile_prog.c'], cwd=tmp_path,
                   check=True)
    probe = 'probe process("./prog").function("leaf") { %s }'
    r = run_stap(['-p3', '-r', krel, '--ldd', '-e', probe % 'print_ubacktrace()'],
                 cwd=tmp_path)
    assert r.returncode == 0 and 'stp_uline' not in r.stdout, r.stderr
    r = run_stap(['-p3', '-r', krel, '--ldd', '-e', probe % 'println(usymline(uaddr()))'],
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.findall(r'\.line_file = (stp_uline_file_\d+)', r.stdout) == ['stp_uline_file_0']
    assert f'"{tmp_path}/ufile_prog.c",' in r.stdout


def test_documented():
    man = Path(__file__).resolve().parent.parent / 'man'
    text = (man / 'ustack.3stap').read_text()
    for f in ('usymfileline', 'print_ubacktrace_fileline', 'DW_CFA_def_cfa_expression'):
        assert f in text
    text = (man / 'stapprobes.process.3stap').read_text()
    for f in ('.plt(', '.label(', '.callee(', '.callees'):
        assert f in text
    assert 'print_backtrace_fileline' in (man / 'stapfuncs.context.3stap').read_text()
