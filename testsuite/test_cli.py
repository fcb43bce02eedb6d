# Command-line behaviour around running modules: staprun's errors on the
# host (no module support) and in the guest (wrong kernel, bad file),
# `make install` with stap finding its runtime relative to where it is
# installed, the whole `stap -e` pipeline, pass 5 included, in the guest,
# and SYSTEMTAP_DEBUGINFO_PATH.
import os
import subprocess

import pytest

import guest
from conftest import BUILD, STAP, STAPRUN, debuginfo_tree, run_stap

HELLO = 'probe begin { printf("hello %s %d\\n", "world", 6*7); exit() }'


def staprun_host(args, cwd=None):
    return subprocess.run([str(STAPRUN)] + args, capture_output=True,
                          text=True, cwd=cwd)


def test_staprun_usage(tools):
    r = staprun_host([])
    assert r.returncode == 1
    assert r.stderr.startswith('Usage: staprun [-v] [-i] [-o FILE [-S SIZE[,N]]] [-s MB|-b MB] '
                               '[-c CMD|-x PID] MODULE.ko [name=value ...]\n')


def test_staprun_missing_file(tools, tmp_path):
    r = staprun_host(['nonexist.ko'], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == ("ERROR: cannot open module 'nonexist.ko': "
                        'No such file or directory\n')


def test_module_name_upper_case(tools, krel, tmp_path):
    # 4.8 accepts upper-case letters in -m (its pattern ignores case)
    r = run_stap(['-p4', '-r', krel, '-m', 'Upper_Mod9', '-e', HELLO],
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'Upper_Mod9.ko').exists()
    r = run_stap(['-p2', '-m', 'Up-per', '-e', HELLO], cwd=tmp_path)
    assert r.returncode == 1
    assert '[A-Za-z0-9_]' in r.stderr


def test_staprun_on_the_host(tools, krel, tmp_path):
    r = run_stap(['-p4', '-r', krel, '-m', 'nomod', '-e', HELLO], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = staprun_host(['nomod.ko'], cwd=tmp_path)
    assert r.returncode == 1
    if not os.path.exists('/proc/modules'):
        # the development and CI hosts (shared/reference/test-vm.md)
        assert r.stderr == ('ERROR: this kernel has no loadable-module support '
                            "(CONFIG_MODULES is off); run 'nomod.ko' on a kernel "
                            'that has it\n')
    else:
        assert r.stderr.startswith("ERROR: module 'nomod.ko' was built for kernel")


def test_make_install_is_relocatable(tools, krel, tmp_path):
    dest = tmp_path / 'dest'
    r = subprocess.run(['make', '-C', str(BUILD), 'install', f'DESTDIR={dest}'],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    prefix = dest / 'usr' / 'local'
    for f in ('bin/stap', 'bin/staprun', 'libexec/stap/stapio',
              'share/stap/runtime/stp_runtime.h',
              'share/stap/runtime/transport/stp_msgs.h',
              'share/stap/tapset/logging.stp', 'share/stap/tapset/macros.stpm',
              'share/man/man1/stap.1',
              'share/man/man8/staprun.8', 'share/man/man8/stapio.8'):
        assert (prefix / f).exists(), f
    # installed under DESTDIR, not at the configured prefix: stap must find
    # its runtime and tapsets relative to its own location
    r = subprocess.run([str(prefix / 'bin' / 'stap'), '-p4', '-r', krel, '-m',
                        'inst', '-e', HELLO], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'inst.ko').exists()


@pytest.fixture(scope='module')
def guest_cli(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('cli')
    r = run_stap(['-p4', '-r', krel, '-m', 'good', '-e', HELLO], cwd=scratch)
    assert r.returncode == 0, r.stderr
    good = (scratch / 'good.ko').read_bytes()
    # another kernel's module: same image, another release in its vermagic
    wrong = good.replace(f'vermagic={krel}'.encode(), b'vermagic=6.1.0-0-amd64'
                         .ljust(len(f'vermagic={krel}'), b'x'))
    assert wrong != good
    (scratch / 'wrong.ko').write_bytes(wrong)
    (scratch / 'bad.ko').write_bytes(good[:4096])
    commands = [
        f'{STAPRUN} wrong.ko',
        f'{STAPRUN} bad.ko',
        f'{STAPRUN} -s 1 -o out.txt good.ko; echo "rc=$?"; cat out.txt',
        # the whole pipeline in the guest: passes 1-4 then staprun/stapio
        f'{STAP} -e \'{HELLO}\'',
        f'{STAP} -p4 -m fromguest -e \'{HELLO}\' && {STAPRUN} fromguest.ko',
        'grep -c -E "^(good|fromguest|stap_[0-9a-f_]+) " /proc/modules; true',
        # the same again: passes 3 and 4 from the cache the first one filled
        f'{STAP} -v -e \'{HELLO}\' 2>&1 | grep -E "^(Pass [345]|hello)"',
    ]
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=240,
                            memory_mb=1024)
    guest.check_kernel_healthy(batch)
    return batch, krel


def test_wrong_kernel(guest_cli):
    batch, krel = guest_cli
    r = batch[0]
    assert r.rc == 1
    assert r.stdout == ''
    assert r.stderr == ("ERROR: module 'wrong.ko' was built for kernel "
                        f"6.1.0-0-amd64{'x' * (len(krel) - 13)}, but this kernel is "
                        f"{krel} (rebuild it with 'stap -r {krel}')\n")


def test_corrupt_module(guest_cli):
    batch, krel = guest_cli
    r = batch[1]
    assert r.rc == 1
    assert r.stderr == ("ERROR: module 'bad.ko' is not a valid kernel module "
                        '(the file is truncated, 4096 bytes)\n')


def test_staprun_output_file_and_buffer_size(guest_cli):
    r = guest_cli[0][2]
    assert (r.stdout, r.stderr) == ('rc=0\nhello world 42\n', '')


def test_stap_runs_all_five_passes_in_guest(guest_cli):
    r = guest_cli[0][3]
    assert (r.stdout, r.stderr, r.rc) == ('hello world 42\n', '', 0)


def test_module_built_in_guest_runs_with_staprun(guest_cli):
    r = guest_cli[0][4]
    assert (r.stdout, r.stderr, r.rc) == ('fromguest.ko\nhello world 42\n', '', 0)


def test_nothing_left_loaded(guest_cli):
    assert guest_cli[0][5].stdout == '0\n'


def test_stap_second_run_in_guest_uses_cache(guest_cli):
    lines = guest_cli[0][6].stdout.splitlines()
    assert [line.split(' /')[0] for line in lines[:3]] == [
        'Pass 3: using cached', 'Pass 4: using cached', 'Pass 5: starting run.']
    assert lines[0].endswith('.c') and lines[1].endswith('.ko')
    assert lines[1].split()[-1][:-3] == lines[0].split()[-1][:-2]
    assert lines[3] == 'hello world 42'
    assert lines[4].startswith('Pass 5: run completed')


FAKE_STAPRUN = r'''#!/bin/sh
# stands in for staprun: shows its arguments, then waits for a signal
echo "staprun $*"
trap 'echo "got INT"; exit 0' INT
trap 'echo "got TERM"; exit 3' TERM
echo ready > "$READY"
while :; do sleep 0.05; done
'''


@pytest.mark.parametrize('sig,out,rc', [('INT', 'got INT\n', 0),
                                        ('TERM', 'got TERM\n', 1)])
def test_pass5_forwards_signals_to_staprun(tools, krel, tmp_path, sig, out, rc):
    """stap runs staprun with its options and passes SIGINT/SIGTERM on, so
    the script's end probes run; stap's status follows staprun's."""
    import signal
    import time
    fake = tmp_path / 'fake-staprun'
    fake.write_text(FAKE_STAPRUN)
    fake.chmod(0o755)
    ready = tmp_path / 'ready'
    env = dict(os.environ, SYSTEMTAP_STAPRUN=str(fake), READY=str(ready))
    p = subprocess.Popen([str(STAP), '-r', krel, '-m', 'fwd', '-o', 'o.txt',
                          '-s', '2', '-e', HELLO], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(600):
        if ready.exists():
            break
        time.sleep(0.05)
    p.send_signal(getattr(signal, 'SIG' + sig))
    stdout, stderr = p.communicate(timeout=30)
    tmpko = stdout.splitlines()[0].split()[-1]
    assert stdout == f'staprun -o o.txt -s 2 {tmpko}\n' + out
    assert tmpko.endswith('/fwd.ko')
    assert p.returncode == rc
    assert stderr == ('' if rc == 0 else
                      'Pass 5: run failed.  [man error::pass5]\n')


LIBC_ATOI = 'process("/usr/lib/x86_64-linux-gnu/libc.so.6").function("atoi{}")\n'


@pytest.mark.parametrize('path, want', [
    # the test set-up's debuginfo (libc6-dbg's files, by build ID)
    ('SETUP', LIBC_ATOI.format('@../stdlib/stdlib.h:362') + LIBC_ATOI.format('@./stdlib/atoi.c:25')),
    ('+:.debug:SETUP', LIBC_ATOI.format('@../stdlib/stdlib.h:362') +
     LIBC_ATOI.format('@./stdlib/atoi.c:25')),
    # a directory without it, or empty: the symbol table's function
    ('EMPTY', LIBC_ATOI.format('')),
    ('', LIBC_ATOI.format('')),
])
def test_debuginfo_path_as_upstream(tmp_path, krel, path, want):
    """Where separate debuginfo is searched, as 4.8 lists libc's atoi."""
    (tmp_path / 'setup').mkdir()
    (tmp_path / 'empty').mkdir()
    path = path.replace('SETUP', debuginfo_tree(str(tmp_path / 'setup')))
    path = path.replace('EMPTY', str(tmp_path / 'empty'))
    r = subprocess.run([str(STAP), '-r', krel, '-l', LIBC_ATOI.format('').strip()],
                       capture_output=True, text=True,
                       env=dict(os.environ, SYSTEMTAP_DEBUGINFO_PATH=path))
    assert (r.stdout, r.stderr, r.returncode) == (want, '', 0)


@pytest.mark.parametrize('script, p, rc, out, err', [
    # no warning: as without -W
    ('global g probe begin { g = 1; println(g) }', 2, 0,
     '# globals\ng:long\n# probes\nbegin /* <- begin */\n', ''),
    # a warning fails pass 2 (the elided probe: no "no probes found")
    ('probe begin { }', 2, 1, '',
     "<input>:1:1: warning: probe 'begin' has been elided\n"
     '    1 | probe begin { }\n      | ^\n'
     'Pass 2: analysis failed.  [man error::pass2]\n'),
    # pass 1's warnings: pass 1 succeeds, pass 2 fails (as 4.8)
    ('@define count %( 1 %) probe begin { println(@count) }', 1, 0,
     '# file <input>\nprobe begin {\n\tprintln(1);\n}\n',
     "<input>:1:9: warning: macro '@count' hides the built-in operator\n"
     '    1 | @define count %( 1 %) probe begin { println(@count) }\n'
     '      |         ^\n'),
    ('@define count %( 1 %) probe begin { println(@count) }', 2, 1, '',
     "<input>:1:9: warning: macro '@count' hides the built-in operator\n"
     '    1 | @define count %( 1 %) probe begin { println(@count) }\n'
     '      |         ^\n'
     'Pass 2: analysis failed.  [man error::pass2]\n'),
])
def test_warnings_are_errors(krel, script, p, rc, out, err):
    """-W: warnings count as errors, as 4.8 does; -w takes them away."""
    r = run_stap([f'-p{p}', '-r', krel, '-W', '-e', script])
    assert (r.stdout, r.stderr, r.returncode) == (out, err, rc)
    r = run_stap([f'-p{p}', '-r', krel, '-W', '-w', '-e', script])
    assert r.returncode == (1 if script == 'probe begin { }' else 0)
