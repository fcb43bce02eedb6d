# stap --runtime=bpf's pass 4 start-up (translator/bpf/bpf_clang.c,
# bpf_cache.c): clang started before pass 1 and fed pass 3's C, the object
# cache under $SYSTEMTAP_DIR/cache/bpf and its per-command-line hint, and
# what the user sees when clang is missing or fails. STAP_CLANG names the
# clang to run, so a missing or failing clang is a path, not an uninstall.
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import STAP, STAPRUN

SCRIPT = 'probe begin { println("up"); exit() }'
PASS4 = 'Pass 4: compilation failed.  [man error::pass4]\n'


@pytest.fixture(autouse=True)
def as_root():
    """loading BPF needs root: run as anyone else, a failure, not a skip"""
    assert os.geteuid() == 0, 'test_bpf_start.py loads BPF programs: run it as root'


def stap(tmp_path, *args, clang=None, cwd=None):
    env = dict(os.environ, SYSTEMTAP_DIR=str(tmp_path / 'sd'))
    env.pop('STAP_CLANG', None)
    if clang:
        env['STAP_CLANG'] = clang
    r = subprocess.run([str(STAP), '--runtime=bpf', *args], capture_output=True,
                       text=True, timeout=120, env=env, cwd=cwd)
    return r.stdout, r.stderr, r.returncode


def cache_files(tmp_path):
    """the cache's objects and C files (KEY.bpf.o, KEY.c), and its hints
    (bpf-hint/KEY), by kind"""
    names = []
    for sub, kind in (('bpf', None), ('bpf-hint', 'hint')):
        d = tmp_path / 'sd' / 'cache' / sub
        if d.exists():
            names += [kind or p.name.split('.', 1)[1] for p in d.iterdir()]
    return sorted(names)


def test_cold_then_cached(tmp_path):
    """the second run takes the cached object, and the hint keeps it from
    starting clang at all (the clang's path is in the cache key: the same
    wrapper both times, told to refuse and tell on the second)"""
    deny, ran = tmp_path / 'deny', tmp_path / 'ran'
    wrapper = tmp_path / 'clang'
    wrapper.write_text(f'#!/bin/sh\nif [ -e {deny} ]; then : > {ran}; exit 1; fi\n'
                       'exec clang "$@"\n')
    wrapper.chmod(0o755)
    assert stap(tmp_path, '-e', SCRIPT, clang=str(wrapper)) == ('up\n', '', 0)
    assert cache_files(tmp_path) == ['bpf.o', 'c', 'hint']
    deny.touch()
    assert stap(tmp_path, '-e', SCRIPT, clang=str(wrapper)) == ('up\n', '', 0)
    assert not ran.exists()
    assert cache_files(tmp_path) == ['bpf.o', 'c', 'hint']


def test_hint_without_object_compiles(tmp_path):
    """a hint whose object is gone (cache cleaned by hand): clang runs late"""
    assert stap(tmp_path, '-e', SCRIPT) == ('up\n', '', 0)
    for p in (tmp_path / 'sd' / 'cache' / 'bpf').iterdir():
        p.unlink()
    assert stap(tmp_path, '-e', SCRIPT) == ('up\n', '', 0)
    assert cache_files(tmp_path) == ['bpf.o', 'c', 'hint']


def test_other_script_not_hinted(tmp_path):
    assert stap(tmp_path, '-e', SCRIPT) == ('up\n', '', 0)
    other = 'probe begin { println("other"); exit() }'
    assert stap(tmp_path, '-e', other) == ('other\n', '', 0)
    assert cache_files(tmp_path) == ['bpf.o', 'bpf.o', 'c', 'c', 'hint', 'hint']


def test_no_clang(tmp_path):
    assert stap(tmp_path, '--disable-cache', '-e', SCRIPT, clang='/nonexistent/clang') == (
        '', 'stap: error: cannot run /nonexistent/clang (install clang)\n' + PASS4, 1)
    assert cache_files(tmp_path) == []


def test_clang_fails(tmp_path):
    out, err, rc = stap(tmp_path, '-e', SCRIPT, clang='/bin/false')
    head, _, tail = err.partition('program ')
    assert (out, head, rc) == ('', 'stap: error: clang could not compile the BPF ', 1)
    assert tail.startswith('/tmp/stap') and tail.endswith('.bpf.c\n' + PASS4)
    assert cache_files(tmp_path) == []


def test_early_clang_killed_on_pass2_error(tmp_path):
    """clang started before pass 1 is killed and reaped when pass 2 fails:
    stap returns at once, and no clang is left behind"""
    pidfile = tmp_path / 'clang.pid'
    fake = tmp_path / 'clang'
    fake.write_text(f'#!/bin/sh\necho $$ > {pidfile}\nexec sleep 600\n')
    fake.chmod(0o755)
    out, err, rc = stap(tmp_path, '-e', 'probe begin { println(nosuch()) }',
                        clang=str(fake))
    assert (out, rc) == ('', 1)
    assert err.endswith('Pass 2: analysis failed.  [man error::pass2]\n')
    if pidfile.exists():	# else killed before it wrote its pid
        pid = int(pidfile.read_text())
        assert not os.path.exists(f'/proc/{pid}'), 'the early clang was left running'


def test_number_formatting_only_when_used(tmp_path):
    """stp_sfmt_num(), a global BPF function clang compiles whether or not
    it is called (half of a one-liner's compile), comes in through
    stapbpf_sfmt.h only for C that formats a number in BPF; both run"""
    out, err, rc = stap(tmp_path, '-p3', '-e', SCRIPT)
    assert (err, rc) == ('', 0) and 'stapbpf_sfmt.h' not in out
    fmt = 'probe begin { println(sprintf("%d|%5x|%-4o|", 42, 255, 8)); exit() }'
    out, err, rc = stap(tmp_path, '-p3', '-e', fmt)
    assert (err, rc) == ('', 0)
    assert '\n#include "stapbpf_sfmt.h"\n\nstatic const char stp_meta[]' in out
    assert stap(tmp_path, '-e', fmt) == ('42|   ff|10  |\n', '', 0)


def test_whole_object_not_waiting_for_clang_exit(tmp_path):
    """pass 5 starts once clang has written a whole object (the ELF's
    section headers say where it ends), not when clang has exited: a
    clang that writes one and then hangs with its output open is killed
    and reaped, not waited for"""
    assert stap(tmp_path, '-p4', '-m', 'upobj', '-e', SCRIPT, cwd=tmp_path) == ('', '', 0)
    pidfile = tmp_path / 'clang.pid'
    fake = tmp_path / 'clang'
    fake.write_text(f'#!/bin/sh\necho $$ > {pidfile}\ncat > /dev/null\n'
                    f'cat {tmp_path}/upobj.bpf.o\nexec sleep 600\n')
    fake.chmod(0o755)
    assert stap(tmp_path, '-e', SCRIPT, clang=str(fake)) == ('up\n', '', 0)
    pid = int(pidfile.read_text())
    assert not os.path.exists(f'/proc/{pid}'), 'the clang was left running'


def test_p4_object_runs(tmp_path):
    assert stap(tmp_path, '-p4', '-m', 'upobj', '-e', SCRIPT, cwd=tmp_path) == ('', '', 0)
    r = subprocess.run([str(STAPRUN), str(tmp_path / 'upobj.bpf.o')], capture_output=True,
                       text=True, timeout=120)
    assert (r.stdout, r.stderr, r.returncode) == ('up\n', '', 0)


def test_readme_bpf_line(tmp_path):
    """README's "Using it" line for --runtime=bpf, as written there, runs on
    this host: one line, the name of whatever ran on the timer's CPU and
    that CPU's number"""
    readme = (Path(__file__).resolve().parent.parent / 'README.md').read_text()
    line = next(ln for ln in readme.splitlines() if '--runtime=bpf -e' in ln)
    argv = shlex.split(line.split('#')[0])
    assert argv[:3] == ['translator/stap', '--runtime=bpf', '-e']
    out, err, rc = stap(tmp_path, *argv[2:])
    assert (err, rc) == ('', 0)
    m = re.fullmatch(r'(.+) (\d+)\n', out)
    assert m and int(m.group(2)) < os.cpu_count(), out


def test_many_points_past_soft_nofile(tmp_path):
    """78 tracepoints hold more descriptors than a soft RLIMIT_NOFILE of 40:
    the loader raises the soft limit to the hard one instead of failing
    with 'Too many open files' halfway through attaching"""
    import resource

    def low_soft_limit():
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, hard))

    script = ('global n probe kernel.trace("m*") { n++ } '
              'probe begin { println("ok"); exit() } probe end { delete n }')
    listed = subprocess.run([str(STAP), '-l', 'kernel.trace("m*")'],
                            capture_output=True, text=True, timeout=60)
    assert len(listed.stdout.splitlines()) > 40   # the premise
    env = dict(os.environ, SYSTEMTAP_DIR=str(tmp_path / 'sd'))
    r = subprocess.run([str(STAP), '--runtime=bpf', '-e', script],
                       capture_output=True, text=True, timeout=120, env=env,
                       preexec_fn=low_soft_limit)
    assert 'ERROR' not in r.stderr
    assert (r.stdout, r.returncode) == ('ok\n', 0)
