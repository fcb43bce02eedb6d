# stap -c CMD, -x PID, -G NAME=VALUE and -T SECS end to end: target(),
# the command held until the probes have started and ending the session
# when it exits, a failing command's warning, global values set at load,
# and the timeout probe. The expected outputs are what Debian's SystemTap
# 4.8 printed for the same scripts and staprun options in the same guest.
import re

import guest
from conftest import STAPRUN, build_module, run_stap

SCRIPTS = {
    't_end': 'probe begin { println("begin ", target() > 0) } '
             'probe end { println("end ", target()) }',
    't_x': 'probe begin { println(target()); exit() }',
    't_g': 'global g = 1, s = "a" probe begin { println(g, " ", s); exit() }',
    't_exit': 'probe begin { println("bye"); exit() }',
}

# name -> (staprun options, module, after: shell run after staprun)
RUNS = {
    'c_plain': ("-c 'sh -c \"echo child; sleep 0.3\"'", 't_end', ''),
    'c_shell_pid': ("-c 'echo $$ > pid_c; sleep 0.2'", 't_end', '; cat pid_c'),
    'c_failing': ("-c 'false'", 't_end', ''),
    'c_missing': ("-c '/nonexistent/cmd'", 't_end', ''),
    'c_outlived': ("-c 'sleep 2'", 't_exit', ''),
    'c_env': ('-c "sh -c \'echo \\$SYSTEMTAP_MODULE \\$SYSTEMTAP_VERBOSE\'"', 't_end', ''),
    'x_pid': ('-x 1234', 't_x', ''),
    'g_set': ('', 't_g g=5 s=hello', ''),
    'g_default': ('', 't_g', ''),
    'g_invalid': ('', 't_g g=abc', ''),
    'timeout': ('', 't_timeout', ''),
}


def run_all(krel, scratch):
    for name, text in SCRIPTS.items():
        build_module(name, text, krel, scratch)
    r = run_stap(['-p4', '-r', krel, '-m', 't_timeout', '-T', '1', '-e',
                  'probe begin { println("b") } probe end { println("e") }'],
                 cwd=scratch)
    assert r.returncode == 0, r.stderr
    commands = []
    for opts, mod, after in RUNS.values():
        words = mod.split()
        commands.append(f'{STAPRUN} {opts} {words[0]}.ko {" ".join(words[1:])}; '
                        f'echo rc=$?{after}')
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=30)
    guest.check_kernel_healthy(batch)
    return dict(zip(RUNS, batch))


def test_target_options(krel, tmp_path):
    res = run_all(krel, tmp_path)
    out = {k: (v.stdout, v.stderr) for k, v in res.items()}

    # -c: target() is the command's pid from the begin probe on; the
    # session ends when the command does
    m = re.fullmatch(r'begin 1\nchild\nend (\d+)\nrc=0\n', out['c_plain'][0])
    assert m, out['c_plain']
    assert out['c_plain'][1] == ''
    # a command with shell syntax runs under /bin/sh, which is the target
    m = re.fullmatch(r'begin 1\nend (\d+)\nrc=0\n(\d+)\n', out['c_shell_pid'][0])
    assert m and m.group(1) == m.group(2), out['c_shell_pid']
    # a failing command: upstream's warning and exit status 1
    assert re.fullmatch(r'begin 1\nend \d+\nrc=1\n', out['c_failing'][0])
    assert out['c_failing'][1] == 'WARNING: Child process exited with status 1\n'
    assert re.fullmatch(r'begin 1\nend \d+\nrc=1\n', out['c_missing'][0])
    assert out['c_missing'][1] == ('/nonexistent/cmd: No such file or directory\n'
                                   'WARNING: Child process exited with status 1\n')
    # exit() before the command ends does not wait for it
    assert out['c_outlived'] == ('bye\nrc=0\n', '')
    # the command's environment has the module's name and the verbosity
    # (its words split as by a shell: the quoted part is one)
    assert re.fullmatch(r'begin 1\nt_end 0\nend \d+\nrc=0\n', out['c_env'][0]), out['c_env']
    assert out['c_env'][1] == ''
    assert out['x_pid'] == ('1234\nrc=0\n', '')
    # -G NAME=VALUE reaches the module as parameters
    assert out['g_set'] == ('5 hello\nrc=0\n', '')
    assert out['g_default'] == ('1 a\nrc=0\n', '')
    assert out['g_invalid'] == (
        'rc=1\n', "ERROR: Couldn't insert module 't_g.ko': Invalid parameters\n")
    # -T 1: a timer probe that calls exit() after a second
    assert out['timeout'] == ('b\ne\nrc=0\n', '')


def test_timeout_probe_comes_first(krel):
    r = run_stap(['-p2', '-r', krel, '-T', '2', '-e',
                  'global g = 1 probe begin { println(g) }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('# globals\ng:long\n# functions\nexit:unknown ()\n'
                        '# probes\ntimer.ms(2000) /* <- timer.ms(2000) */\n'
                        'begin /* <- begin */\n')


def test_option_errors(krel):
    for args, msg in ((['-x', 'abc'], '-x: invalid target process ID number'),
                      (['-T', '0'], '-T: invalid timeout interval'),
                      (['-G', 'g'], "-G takes NAME=VALUE, a global's name and a value "
                                    "of [a-z0-9_.-] ('g')"),
                      (['-c', 'ls', '-x', '1'], '-c and -x cannot be given together')):
        r = run_stap(['-p2', '-r', krel] + args + ['-e', 'probe begin {}'])
        assert r.returncode == 1
        assert r.stderr == f"stap: {msg}\nTry 'stap -h' for more information.\n"


def test_options_after_the_script(krel):
    """As upstream, options may follow the script; the rest are its
    arguments."""
    r = run_stap(['-p2', '-r', krel, '-e', 'probe begin { println(@1) }', 'xx', '-w'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == '# probes\nbegin /* <- begin */\n'
    assert r.stderr == ''


def test_symbol_options_accepted(krel):
    r = run_stap(['-p2', '-r', krel, '-d', 'kernel', '--ldd', '--all-modules',
                  '-e', 'probe begin { exit() }'])
    assert r.returncode == 0, r.stderr
