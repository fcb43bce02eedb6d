# stap --runtime=bpf's compiler: bpfcc/stapbpfcc (clang's front end and the
# BPF back end linked statically, which the build makes when configure finds
# clang's static libraries; setup.sh installs them) makes the same object as
# clang, and stap runs it rather than clang.
import os
import subprocess
from pathlib import Path

import pytest

from conftest import STAP, BUILD

BPFCC = BUILD / 'bpfcc' / 'stapbpfcc'
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
