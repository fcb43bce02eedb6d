# stap --runtime=bpf's compiler: translator/bpfcc/stapbpfcc (clang's front end and the
# BPF back end linked statically, which the build makes when configure finds
# clang's static libraries; setup.sh installs them) makes the same object as
# clang, stap runs it rather than clang, a compiler that fails after it has
# written its object (pass 5 already started) is an error, not ignored, and
# pass 5 execs stapbpf itself (what staprun execs for a NAME.bpf.o).
import os
import subprocess
from pathlib import Path

import pytest

from conftest import STAP, BUILD

BPFCC = BUILD / 'translator' / 'bpfcc' / 'stapbpfcc'
PASS5 = 'Pass 5: run failed.  [man error::pass5]\n'
RUNTIME_BPF = Path(__file__).resolve().parent.parent / 'runtime' / 'bpf'
SCRIPTS = {
    'begin': 'probe begin { println("up"); exit() }',
    'maps': 'global a, s probe begin { a["x", 1] = 2; s <<< 3; '
            'printf("%5d|%s|%d\\n", a["x", 1], sprint(@sum(s)), @count(s)); exit() }',
    'trace': 'probe kernel.trace("sched:sched_switch") { printf("%s %d\\n", '
             'task_execname(task_current()), $next->pid); exit() }',
}


@pytest.fixture(autouse=True)
def as_root():
    """loading BPF needs root: run as anyone else, a failure, not a skip"""
    assert os.geteuid() == 0, 'test_bpf_cc.py loads BPF programs: run it as root'


def stap(tmp_path, *args, clang=None, path=None):
    env = dict(os.environ, SYSTEMTAP_DIR=str(tmp_path / 'sd'))
    env.pop('STAP_CLANG', None)
    if clang:
        env['STAP_CLANG'] = clang
    if path:
        env['PATH'] = path
    r = subprocess.run([str(STAP), '--runtime=bpf', *args], capture_output=True,
                       text=True, timeout=120, env=env, cwd=tmp_path)
    return r.stdout, r.stderr, r.returncode


def test_bpfcc_built():
    assert BPFCC.is_file() and os.access(BPFCC, os.X_OK), \
        'configure found no clang static libraries (setup.sh installs libclang-14-dev)'


@pytest.mark.parametrize('name', sorted(SCRIPTS))
def test_same_object_as_clang(tmp_path, name):
    """byte for byte what `clang -target bpf -O1 -g` makes of pass 3's C"""
    c, err, rc = stap(tmp_path, '-p3', '-e', SCRIPTS[name])
    assert (err, rc) == ('', 0)
    common = ['-O1', '-w', f'-I{RUNTIME_BPF}']
    ours = subprocess.run([str(BPFCC), *common], input=c.encode(), capture_output=True,
                          timeout=120)
    ref = subprocess.run(['clang', '-target', 'bpf', '-g', *common, '-c', '-x', 'c', '-',
                          '-o', '-'], input=c.encode(), capture_output=True, timeout=120)
    assert (ours.stderr, ours.returncode) == (b'', 0)
    assert (ref.stderr, ref.returncode) == (b'', 0)
    assert ours.stdout[:4] == b'\x7fELF' and ours.stdout == ref.stdout


def test_bpfcc_reports_errors(tmp_path):
    r = subprocess.run([str(BPFCC), '-O1'], input='int x = ;\n', capture_output=True,
                       text=True, timeout=120)
    assert (r.stdout, r.returncode) == ('', 1)
    assert r.stderr == ('<stdin>:1:9: error: expected expression\nint x = ;\n'
                        '        ^\n1 error generated.\n')


def test_stap_runs_bpfcc_not_clang(tmp_path):
    """with a clang on PATH that fails and tells, stap still compiles (and
    the object runs): it ran stapbpfcc"""
    bindir, ran = tmp_path / 'bin', tmp_path / 'ran'
    bindir.mkdir()
    (bindir / 'clang').write_text(f'#!/bin/sh\n: > {ran}\nexit 1\n')
    (bindir / 'clang').chmod(0o755)
    path = f'{bindir}:{os.environ["PATH"]}'
    assert stap(tmp_path, '-e', SCRIPTS['begin'], path=path) == ('up\n', '', 0)
    assert not ran.exists()


def fake_clang(tmp_path, tail, script=SCRIPTS['begin']):
    """a clang that writes a real object for script, then runs tail"""
    assert stap(tmp_path, '-p4', '-m', 'upobj', '-e', script) == ('', '', 0)
    fake = tmp_path / 'fakeclang'
    fake.write_text(f'#!/bin/sh\ncat > /dev/null\ncat {tmp_path}/upobj.bpf.o\n{tail}\n')
    fake.chmod(0o755)
    return str(fake)


def test_status_after_whole_object_is_an_error(tmp_path):
    """a clang that exits 3 once pass 5 runs its object: stap says so,
    ends the session (its output so far kept) and exits 1"""
    script = 'probe begin { println("up") } probe end { println("end") }'
    fake = fake_clang(tmp_path, 'sleep 1\nexit 3', script)
    assert stap(tmp_path, '--disable-cache', '-e', script, clang=fake) == (
        'up\nend\n', f'stap: error: {fake} exited with status 3 after writing its output\n'
        + PASS5, 1)


def test_failure_after_whole_object_keeps_no_cache_entry(tmp_path):
    """the object was put in the cache when pass 5 began: the compiler's
    late failure takes it out again, so the next run compiles anew"""
    script = 'probe begin { println("up") } probe end { println("end") }'
    fake = fake_clang(tmp_path, 'sleep 1\nexit 3', script)
    assert stap(tmp_path, '-e', script, clang=fake)[2] == 1
    assert sorted((tmp_path / 'sd').rglob('*.bpf.o')) == []
    assert sorted((tmp_path / 'sd').rglob('*.c')) == []
    fake = fake_clang(tmp_path, 'sleep 1', script)
    assert stap(tmp_path, '-p4', '-e', script, clang=fake)[2] == 0
    assert len(sorted((tmp_path / 'sd').rglob('*.bpf.o'))) == 1


def test_signal_after_whole_object_is_an_error(tmp_path):
    script = 'probe begin { println("up") }'
    fake = fake_clang(tmp_path, 'sleep 1\nkill -SEGV $$', script)
    assert stap(tmp_path, '--disable-cache', '-e', script, clang=fake) == (
        'up\n', f'stap: error: {fake} was killed by signal 11 (Segmentation fault) '
        'after writing its output\n' + PASS5, 1)


def test_status_before_pass5_fails_pass4(tmp_path):
    """exited already when its object is whole (or -p4, which waits for
    it): pass 4 fails, and nothing runs or is kept"""
    fake = fake_clang(tmp_path, 'exit 3')
    (tmp_path / 'upobj.bpf.o').rename(tmp_path / 'saved.o')
    fake_path = Path(fake)
    fake_path.write_text(fake_path.read_text().replace('upobj.bpf.o', 'saved.o'))
    out, err, rc = stap(tmp_path, '--disable-cache', '-p4', '-m', 'upobj', '-e',
                        SCRIPTS['begin'], clang=fake)
    assert (out, rc) == ('', 1)
    assert err.startswith('stap: error: clang could not compile the BPF program ')
    assert err.endswith('Pass 4: compilation failed.  [man error::pass4]\n')
    assert not (tmp_path / 'upobj.bpf.o').exists()


def test_pass5_execs_stapbpf_directly(tmp_path):
    """no staprun between stap and the loader (an exec fewer before the
    first output); SYSTEMTAP_STAPRUN still names the staprun to run"""
    trace = tmp_path / 'trace'
    env = dict(os.environ, SYSTEMTAP_DIR=str(tmp_path / 'sd'))
    env.pop('STAP_CLANG', None)
    r = subprocess.run(['strace', '-f', '-qq', '-e', 'trace=execve', '-o', str(trace),
                        str(STAP), '--runtime=bpf', '-e', SCRIPTS['begin']],
                       capture_output=True, text=True, timeout=120, env=env)
    assert (r.stdout, r.stderr, r.returncode) == ('up\n', '', 0)
    execs = [ln.split('"')[1].rsplit('/', 1)[1] for ln in trace.read_text().splitlines()
             if 'execve(' in ln and '= 0' in ln]
    assert execs == ['stap', 'stapbpfcc', 'stapbpf']
    fake = tmp_path / 'staprun'
    fake.write_text('#!/bin/sh\necho "fake staprun $#"\n')
    fake.chmod(0o755)
    env['SYSTEMTAP_STAPRUN'] = str(fake)
    r = subprocess.run([str(STAP), '--runtime=bpf', '-e', SCRIPTS['begin']],
                       capture_output=True, text=True, timeout=120, env=env)
    assert (r.stdout, r.stderr, r.returncode) == ('fake staprun 1\n', '', 0)
