# Command-line behaviour around running modules: staprun's errors on the
# host (no module support) and in the guest (wrong kernel, bad file),
# `make install` with stap finding its runtime relative to where it is
# installed, the whole `stap -e` pipeline, pass 5 included, in the guest,
# and SYSTEMTAP_DEBUGINFO_PATH.
import os
import re
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
    # every option, as 4.8's usage lists them (-h prints it on stdout)
    assert r.stderr.startswith(
        'Usage: staprun [-v] [-w] [-V] [-h] [-i] [-c CMD | -x PID] [-A|-L|-d] [-C WHEN]\n'
        '\t[-s MB | -b MB] [-R] [-T MS] [-o FILE [-D] [-S SIZE[,N]]] MODULE [name=value ...]\n')


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


# 4.8's options this version does not offer: a specific message naming
# what to use instead, exit status 1, nothing built
REFUSED = [
    (['--use-server'], "--use-server: compile servers are not supported: modules are "
     "built locally, with the kernel's headers (setup.sh installs them)"),
    (['--list-servers'], '--list-servers: compile servers are not supported: there are '
     'none to list'),
    (['--remote=host'], "--remote: remote runs are not supported: build with -p4 -m NAME "
     "(-r for the target's kernel), copy NAME.ko there and run staprun NAME.ko"),
    (['--download-debuginfo'], "--download-debuginfo: debuginfo is not downloaded: install "
     "the distribution's -dbg packages, or probe kernel functions through BTF, which "
     "needs none"),
    (['--dyninst'], '--dyninst: the dyninst runtime is not supported: use the kernel '
     'module runtime (the default)'),
    (['-i'], '-i: the interactive mode is not supported: write the script to a file, '
     'or use -e'),
    (['--sysroot=/x'], "--sysroot: sysroots are not supported: build on a machine with "
     "the target's kernel headers and programs"),
    (['--sysenv=X=1'], "--sysenv: sysroots are not supported: build on a machine with "
     "the target's kernel headers and programs"),
    (['--use-server-on-error'], "--use-server-on-error: compile servers are not supported: "
     "modules are built locally, with the kernel's headers"),
    (['--trust-servers=ssl'], '--trust-servers: compile servers are not supported: there '
     'are none to trust'),
    (['--remote-prefix'], '--remote-prefix: remote runs are not supported: run staprun on '
     'each machine'),
    (['--monitor'], '--monitor: the monitor window is not supported: print what you need '
     'from a timer probe'),
]


@pytest.mark.parametrize('args,msg', REFUSED)
def test_refused_options(args, msg):
    r = run_stap(args + ['-p1', '-e', 'probe begin { exit() }'])
    assert (r.returncode, r.stdout, r.stderr) == (1, '', f'stap: {msg}\n')


def test_accepted_options(tmp_path):
    script = '%( systemtap_v >= "4.0" %? probe begin { exit() } %: probe end { } %)'
    r = run_stap(['-p1', '--compatible=3.2', '--check-version', '--color=never',
                  '--runtime=kernel', '-a', 'x86_64', '-e', script])
    assert (r.returncode, r.stdout) == (0, '# file <input>\nprobe end {\n}\n')
    r = run_stap(['-p1', '-e', script])
    assert r.stdout == '# file <input>\nprobe begin {\n\texit();\n}\n'
    for args, msg in ((['-a', 'arm64'], '-a: only x86_64 is supported'),
                      (['--compatible=x'], '--compatible takes a version such as 4.8'),
                      (['--color=often'], '--color takes never, auto or always'),
                      (['--rlimit-cpu=x'], '--rlimit-cpu takes a number'),
                      (['--vp', '1234567'], '--vp takes up to five digits, one per pass'),
                      (['-B', 'novalue'], '-B takes NAME=VALUE')):
        r = run_stap(args + ['-p1', '-e', 'probe begin {}'])
        assert (r.returncode, r.stderr) == \
            (1, f"stap: {msg}\nTry 'stap -h' for more information.\n"), args
    # --vp: pass 1's verbosity
    r = run_stap(['--vp', '10000', '-p1', '-e', 'probe begin {}'])
    assert r.stderr.startswith('Pass 1: parsed user script')


def test_rlimit_option(krel, tmp_path):
    # --rlimit-fsize: set on the translator itself, so writing the
    # module's source fails, with an error rather than SIGXFSZ
    r = run_stap(['--rlimit-fsize=100', '-p4', '-r', krel, '-e', 'probe begin { exit() }'],
                 cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.startswith('stap: error: cannot write /')
    assert r.stderr.endswith('_src.c\nPass 3: translation failed.  [man error::pass3]\n')
    assert not list(tmp_path.glob('*.ko'))


def test_tmpdir_option(tmp_path):
    r = run_stap(['-k', '-p3', f'--tmpdir={tmp_path}', '-e', 'probe begin { exit() }'])
    assert r.returncode == 0, r.stderr
    kept = r.stderr.strip().split('"')[1]
    assert kept.startswith(f'{tmp_path}/stap') and os.path.isdir(kept)


def test_no_global_var_display():
    script = 'global x probe begin { x = 1; exit() }'
    with_display = run_stap(['-p3', '-e', script]).stdout
    without = run_stap(['-p3', '--no-global-var-display', '-e', script]).stdout
    assert '"x="' in with_display and '"x="' not in without


def test_make_arguments(krel, tmp_path):
    # -B NAME=VALUE reaches kbuild's make: V=1 prints the compiler's commands
    r = run_stap(['-k', '-p4', '-r', krel, '-B', 'V=1', '-e', 'probe begin { exit() }'],
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    kept = r.stderr.strip().split('"')[1]
    log = open(os.path.join(kept, 'make.log')).read()
    assert 'gcc' in log and '-D__KERNEL__' in log


def test_no_module_btf_with_vmlinux_in_tree(krel, tmp_path):
    # a -r tree holding a vmlinux: kbuild would make the module's BTF
    # (pahole, resolve_btfids: missing from a headers tree, status 127);
    # as 4.8, the module gets none
    tree = tmp_path / 'kb'
    tree.mkdir()
    build = f'/lib/modules/{krel}/build'
    for name in os.listdir(build):
        (tree / name).symlink_to(os.path.join(build, name))
    (tree / 'vmlinux').write_bytes(b'')
    r = run_stap(['-k', '-p4', '-r', str(tree), '-m', 'nobtf', '-e', 'probe begin { exit() }'],
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    kept = r.stderr.strip().split('"')[1]
    assert 'BTF [M]' not in open(os.path.join(kept, 'make.log')).read()
    secs = subprocess.run(['readelf', '-SW', str(tmp_path / 'nobtf.ko')], capture_output=True,
                          text=True, check=True).stdout
    assert ' .BTF ' not in secs and '.gnu.linkonce.this_module' in secs


def test_rc_file_options(tmp_path):
    # $SYSTEMTAP_DIR/rc: default options, before the command line's
    (tmp_path / 'rc').write_text('-p1\n  -w\n')
    r = subprocess.run([str(STAP), '-e', 'probe begin { exit() }'], capture_output=True,
                       text=True, env={**os.environ, 'SYSTEMTAP_DIR': str(tmp_path)})
    assert (r.returncode, r.stdout) == (0, '# file <input>\nprobe begin {\n\texit();\n}\n')
    r = subprocess.run([str(STAP), '-p2', '-e', 'probe begin { exit() }'],
                       capture_output=True, text=True,
                       env={**os.environ, 'SYSTEMTAP_DIR': str(tmp_path)})
    # the command line's -p2 comes after the rc file's -p1
    assert (r.returncode, r.stdout) == (0, '# functions\nexit:unknown ()\n# probes\n'
                                        'begin /* <- begin */\n')


def test_other_kernel_stops_after_pass_4(krel, tmp_path):
    # 4.8: a module for a kernel other than the running one is built, not
    # run (the hosts run another kernel than the guest's: test-vm.md)
    assert os.uname().release != krel
    r = run_stap(['-r', krel, '-e', HELLO], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == 'WARNING: kernel release/architecture mismatch with host ' \
        'forces last-pass 4.\n'
    assert r.stdout.strip().endswith('.ko')


TIMING = '''global n
probe timer.ms(10) { n++; if (n == 5) exit() }
probe begin { printf("start\\n") }
probe end { printf("n=%d\\n", n) }
'''


def test_timing_report(krel, tmp_path):
    # -t: after the end probes, each probe's hits and cycles, in 4.8's
    # form (its run of the same script in the guest gave these lines, with
    # other cycle counts)
    (tmp_path / 'timing.stp').write_text(TIMING)
    r = run_stap(['-t', '-p4', '-r', krel, '-m', 'timing', 'timing.stp'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    b = guest.run_batch([f'{STAPRUN} timing.ko'], scratch=str(tmp_path))
    guest.check_kernel_healthy(b)
    out = b[0].stdout
    assert (b[0].rc, b[0].stderr) == (0, '')
    cyc = r'hits: {}, cycles: (\d+)min/(\d+)avg/(\d+)max, variance: \d+, from: {}, index: {}'
    lines = out.splitlines()
    assert lines[:3] == ['start', 'n=5', '----- probe hit report: ']
    assert lines[6:] == ['----- refresh report:']
    for line, (pp, loc, hits, index) in zip(lines[3:6], (
            ('timer.ms(10)', 'timing.stp:2:1', 5, 0), ('begin', 'timing.stp:3:1', 1, 1),
            ('end', 'timing.stp:4:1', 1, 2))):
        m = re.fullmatch(re.escape(f'{pp}, ({loc}), ') +
                         cyc.format(hits, re.escape(pp), index), line)
        assert m, line
        lo, avg, hi = map(int, m.groups())
        assert 0 < lo <= avg <= hi
    # without -t, no report
    r = run_stap(['-p3', '-r', krel, 'timing.stp'], cwd=tmp_path)
    assert 'stp_probe_locs' not in r.stdout and 'STP_TIMING' not in r.stdout


LOOP = 'probe begin { for (i = 0; i < 200000; i++) n++; printf("%d\\n", n); exit() }'


def test_suppress_time_limits(krel, tmp_path):
    r = run_stap(['--suppress-time-limits', '-p1', '-e', LOOP])
    assert (r.returncode, r.stderr) == (
        1, 'ERROR --suppress-time-limits requires guru mode (-g)\n')
    for name, extra in (('limited', []), ('unlimited', ['-g', '--suppress-time-limits'])):
        r = run_stap(['-p4', '-r', krel, '-m', name] + extra + ['-e', LOOP], cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    b = guest.run_batch([f'{STAPRUN} limited.ko', f'{STAPRUN} unlimited.ko'],
                        scratch=str(tmp_path))
    guest.check_kernel_healthy(b)
    assert b[0].rc == 1 and 'MAXACTION exceeded' in b[0].stderr
    assert (b[1].stdout, b[1].stderr, b[1].rc) == ('200000\n', '', 0)


def test_modinfo_option(krel, tmp_path):
    r = run_stap(['-p4', '-r', krel, '-m', 'infod', '--modinfo', 'stap_note=made "here"',
                  '-e', 'probe begin { exit() }'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    info = subprocess.run(['/usr/sbin/modinfo', '-F', 'stap_note', 'infod.ko'], cwd=tmp_path,
                          capture_output=True, text=True)
    assert info.stdout == 'made "here"\n'
    r = run_stap(['--modinfo', 'bad name=x', '-p1', '-e', 'probe begin {}'])
    assert r.returncode == 1 and "NAME is letters, digits and '_'" in r.stderr


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


def test_skip_badvars(krel):
    # --skip-badvars: a target variable the probe does not have reads as 0,
    # with 4.8's warning; without it, the error
    script = 'probe kprobe.function("vfs_read") { println($nosuch, $nosuch->x) }'
    r = run_stap(['-p2', '-r', krel, '-e', script])
    assert r.returncode == 1 and "target variable '$nosuch' is not available" in r.stderr
    r = run_stap(['-p2', '-r', krel, '--skip-badvars', '-e', script])
    assert r.returncode == 0, r.stderr
    # the second warning has the first's text: counted, as 4.8 does
    warn = "<input>:1:{}: warning: bad $context variable '$nosuch' being substituted " \
        "with literal 0\n"
    assert r.stderr == (warn.format(45) + caret_line(script, 45) +
                        'Number of similar warning messages suppressed: 1.\n'
                        'Rerun with -v to see them.\n')
    r = run_stap(['-p3', '-r', krel, '--skip-badvars', '-e', script])
    # both read as the constant 0, nothing of the probe's context
    assert r.stdout.count('stp_emit_long(&sk, ((int64_t)0), ') == 2


def caret_line(script, col):
    return f'    1 | {script}\n      | ' + ' ' * (col - 1) + '^\n'


def test_more_options_as_4_8(tmp_path):
    # -E SCRIPT: run with the main one (repeatable); with -l only its aliases
    r = run_stap(['-p2', '-E', 'probe end { exit() }', '-E', 'probe error { exit() }',
                  '-e', 'probe begin { exit() }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith('# probes\nbegin /* <- begin */\nend /* <- end */\n'
                             'error /* <- error */\n')
    r = run_stap(['-l', 'begin', '-E', 'probe end { exit() }'])
    assert (r.returncode, r.stdout) == (0, 'begin\n')
    r = run_stap(['-l', 'my.*', '-E', 'probe my.x = begin {} probe end {}'])
    assert (r.returncode, r.stdout) == (0, 'my.x\n')
    # --example NAME: 4.8's example scripts (Debian's systemtap-doc)
    r = run_stap(['-p2', '--example', 'helloworld.stp'])
    assert (r.returncode, r.stdout.splitlines()[-1]) == \
        (0, 'begin /* <- oneshot += begin <- oneshot */'), r.stderr
    r = run_stap(['-p2', '--example', 'nosuch.stp'])
    assert (r.returncode, r.stderr) == \
        (1, "Example 'nosuch.stp' was not found under '/usr/share/systemtap/examples'\n")
    # accepted, with 4.8's checks of their arguments
    r = run_stap(['-p2', '-q', '-P', '--save-uprobes', '--prologue-searching',
                  '--prologue-searching=never', '--target-namespaces=1',
                  '-e', 'probe begin { exit() }'])
    assert r.returncode == 0, r.stderr
    for args, err in ((['--target-namespaces=abc'],
                       'Invalid process ID number for target namespaces.\n'),
                      (['--prologue-searching=foo'],
                       "Invalid argument 'foo' for --prologue-searching.\n")):
        r = run_stap(['-p2'] + args + ['-e', 'probe begin { exit() }'])
        assert (r.returncode, r.stdout, r.stderr) == (1, '', err)


def test_dump_probe_types():
    # 4.8's list, less the shapes no family here takes
    r = run_stap(['--dump-probe-types'])
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and len(lines) == 234
    for t in ('begin', 'begin(number)', 'kernel.function(string).return.maxactive(number)',
              'kernel.trace(string)', 'process(string).function(string).callee(string)',
              'process(string).mark(string)', 'procfs(string).umask(number).write',
              'timer.profile.tick', 'netfilter.pf(string).hook(string).priority(string)'):
        assert t in lines
    for t in ('kernel.mark(string)', 'process(string).insn',
              'kernel.function(string).exported'):
        assert t not in lines
    usr = run_stap(['--dump-probe-types', '--privilege=stapusr']).stdout.splitlines()
    assert set(usr) < set(lines) and 'process.begin' in usr
    assert not [t for t in usr if t.startswith(('kernel', 'timer.profile', 'procfs'))]


def test_usage_lists_every_option():
    out = run_stap(['-h']).stdout
    for opt in ('-q', '-E SCRIPT', '-P', '--dump-probe-types', '--example',
                '--save-uprobes', '--target-namespaces', '--prologue-searching',
                '--privilege', '--unprivileged', '--sign-module', '-b', '-t'):
        assert opt in out, opt


@pytest.mark.parametrize('args,err,usage', [
    (['-r', 'foo'], "ERROR: Cannot process remote id option 'foo'.\n", True),
    (['-N', 'abc'], 'ERROR: Invalid target namespaces pid 0 (should be > 0).\n', True),
    (['-F', '3'], 'ERROR: Relay basedir -F option is invalid for staprun\n', False),
])
def test_staprun_remote_and_namespace_options(tools, args, err, usage):
    # 4.8's errors (its staprun, same arguments); the usage on stdout
    r = staprun_host(args + ['x.ko'])
    assert (r.returncode, r.stderr) == (1, err)
    assert r.stdout.startswith('Usage: staprun') == usage
