# The privilege model (issue 18), as SystemTap 4.8's:
# - `stap --privilege=stapusr` (and `--unprivileged`) translates only what
#   a stapusr member may run: begin/end/error/never, the timers but
#   timer.profile, the process family; functions whose embedded C is marked
#   unprivileged or myproc-unprivileged; marked embedded expressions.
#   stapsys and stapdev may use everything (but -g is refused with stapusr
#   and stapsys). 4.8's texts, measured with /usr/bin/stap -p2 on the host:
#     "probe point is not allowed for --privilege=stapusr"
#     "function may not be used when --privilege=stapusr is specified"
#     "You can't specify -g and --privilege=stapusr together."
#     "Invalid argument 'foo' for --privilege."
#     "Privilege level may be set only once."
# - the module records its level (.modinfo stap_privilege);
# - staprun (setuid root) lets root and stapdev members load anything; a
#   stapusr/stapsys member only a module built for their level that sits in
#   /lib/modules/KVER/systemtap (or is signed for a kernel that enforces
#   signatures); anyone else is refused before anything is loaded; a
#   stapusr module's process probes fire only in the loader's processes.
# The guest part creates real users and groups (/etc and /lib/modules/KVER
# made writable in the guest's tmpfs) and a setuid copy of staprun.
import subprocess

import pytest

import guest
from conftest import STAP, STAPIO, STAPRUN, build_args, run_stap

USR = ['-p2', '-u', '--privilege=stapusr', '-e']


@pytest.mark.parametrize('point', [
    'begin', 'end', 'error', 'never', 'timer.ms(100)', 'timer.s(1).randomize(1)',
    'timer.jiffies(1)', 'timer.hz(100)', 'process.begin', 'process.end',
    'process("/bin/true").begin', 'process.syscall', 'process.thread.begin',
])
def test_stapusr_allowed_points(point):
    r = run_stap(USR + [f'probe {point} {{ print(1) }}'])
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize('point', [
    'timer.profile', 'kernel.function("vfs_read")', 'kprobe.function("vfs_read")',
    'kernel.trace("sched_switch")', 'procfs("x").read', 'kernel.data(4660).write',
    'perf.type(1).config(0)', 'netfilter.hook("NF_INET_PRE_ROUTING")',
])
def test_stapusr_refused_points(point):
    r = run_stap(USR + [f'probe {point} {{ print(1) }}'])
    assert r.returncode == 1
    assert ('error: probe point is not allowed for --privilege=stapusr: '
            f"'{point}'") in r.stderr
    assert 'Pass 2: analysis failed.' in r.stderr
    # stapsys and stapdev may use it (no privilege error)
    for level in ('stapsys', 'stapdev'):
        r = run_stap(['-p2', f'--privilege={level}', '-e', f'probe {point} {{ print(1) }}'])
        assert 'not allowed' not in r.stderr


def test_stapusr_alias_of_refused_point():
    # an alias body's point is checked where it is written (4.8: perf.stp)
    r = run_stap(USR + ['probe perf.sw.cpu_clock { print(1) }'])
    assert r.returncode == 1
    assert ("error: probe point is not allowed for --privilege=stapusr: "
            "'perf.type(1).config(0)'") in r.stderr


@pytest.mark.parametrize('call,ok', [
    ('execname()', True), ('pid()', True), ('uid()', True), ('pp()', True),
    ('gettimeofday_s()', True), ('user_string(0)', True),
    ('user_int_error(0)', True), ('probefunc()', True), ('ubacktrace()', True),
    ('signal_str(9)', True), ('user_string2_warn(0, "x")', True),
    ('kernel_string(0)', False), ('kernel_int(0)', False),
    ('print_backtrace()', False), ('task_current()', False),
])
def test_stapusr_functions(call, ok):
    r = run_stap(USR + [f'probe process("/bin/true").begin {{ {call} }}'])
    if ok:
        assert r.returncode == 0, r.stderr
        return
    name = call.split('(')[0]
    assert r.returncode == 1
    assert ('error: function may not be used when --privilege=stapusr is '
            f"specified: '{name}'") in r.stderr
    # only for stapusr
    r = run_stap(['-p2', '-u', '--privilege=stapsys', '-e',
                  f'probe process("/bin/true").begin {{ {call} }}'])
    assert r.returncode == 0, r.stderr


def test_stapusr_unused_function_not_checked():
    # as 4.8: only the functions the probes use
    r = run_stap(USR + ['function f() { return kernel_string(0) } probe begin { exit() }'])
    assert r.returncode == 0, r.stderr


def test_unprivileged_is_stapusr():
    r = run_stap(['-p2', '--unprivileged', '-e', 'probe kernel.function("vfs_read") {}'])
    assert 'not allowed for --privilege=stapusr' in r.stderr
    r = run_stap(['-p2', '--unprivileged', '--privilege=stapusr', '-e', 'probe begin { exit() }'])
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize('args,err', [
    (['--privilege=stapusr', '-g'], "You can't specify -g and --privilege=stapusr together.\n"),
    (['--privilege=stapsys', '-g'], "You can't specify -g and --privilege=stapsys together.\n"),
    (['--unprivileged', '-g'], "You can't specify -g and --privilege=stapusr together.\n"),
    (['--privilege=foo'], "Invalid argument 'foo' for --privilege.\n"),
    (['--privilege=stapusr', '--privilege=stapsys'], 'Privilege level may be set only once.\n'),
    (['--unprivileged', '--privilege=stapdev'], 'Privilege level may be set only once.\n'),
])
def test_privilege_option_errors(args, err):
    r = run_stap(['-p2'] + args + ['-e', 'probe begin {}'])
    assert (r.returncode, r.stdout, r.stderr) == (1, '', err)


def test_stapdev_with_guru():
    r = run_stap(['-p2', '--privilege=stapdev', '-g', '-e', 'probe begin { exit() }'])
    assert r.returncode == 0, r.stderr


def test_systemtap_privilege_macro():
    script = 'probe begin { printf("%s\\n", %( systemtap_privilege == "stapusr" %? "u" %: "d" %)) }'
    assert 'u' in run_stap(['-p1', '--unprivileged', '-e', script]).stdout
    assert 'd' in run_stap(['-p1', '-e', script]).stdout


def test_module_records_level_and_myproc_check(tmp_path):
    script = 'probe process("/bin/true").begin { print(user_string_n(0, 4)) }'
    r = run_stap(['-p3', '--privilege=stapusr', '-e', script])
    assert r.returncode == 0, r.stderr
    assert '#define STP_PRIVILEGE "stapusr"\n' in r.stdout
    assert 'stp_assert_is_myproc(c);' in r.stdout
    r = run_stap(['-p3', '-e', script])
    assert 'STP_PRIVILEGE' not in r.stdout and 'stp_assert_is_myproc' not in r.stdout
    build_args('privrec', ['--privilege=stapsys', '-e', 'probe begin { exit() }'], tmp_path)
    info = subprocess.run(['/usr/sbin/modinfo', '-F', 'stap_privilege',
                           str(tmp_path / 'privrec.ko')], capture_output=True, text=True)
    assert info.stdout == 'stapsys\n'


# ---- staprun in the guest, with real users ---------------------------------

SETUP = '''set -e
K=$(uname -r)
mkdir -p /tmp/etc && cp -a /etc/. /tmp/etc/ && mount --bind /tmp/etc /etc
getent group stapusr >/dev/null || groupadd -r stapusr
getent group stapsys >/dev/null || groupadd -r stapsys
getent group stapdev >/dev/null || groupadd -r stapdev
for u in pusr psys pdev pnone; do useradd -M -d /tmp -s /bin/sh $u; done
usermod -a -G stapusr pusr; usermod -a -G stapusr,stapsys psys
usermod -a -G stapusr,stapdev pdev
mount -t tmpfs -o mode=755 tmpfs /lib/modules/$K
mkdir -p /lib/modules/$K/systemtap /tmp/pm /tmp/bin /tmp/stapio
cp privu.ko privs.ko privd.ko /lib/modules/$K/systemtap/
cp privu.ko privs.ko privd.ko /tmp/pm/; chmod 755 /tmp/pm; chmod 644 /tmp/pm/*
cp {staprun} /tmp/bin/staprun; chmod 4755 /tmp/bin/staprun
cp {stapio} /tmp/stapio/stapio
echo ok
'''
SR = '/tmp/bin/staprun'
DIR_ERR = ('ERROR: Members of the "stapusr" and "stapsys" groups can only use '
           'unsigned modules within\n  the "/lib/modules/{k}/systemtap" directory.\n'
           '  Module "{m}" does not exist within that directory.\n')
NORMAL_ERR = ('ERROR: You are trying to run systemtap as a normal user.\n'
              'You should either be root, or be part of group "stapusr" and possibly '
              'the groups "stapsys" or "stapdev".\n')
# the commands run by staprun -c start once the probes are in place, so
# what they run is seen whatever the guest's speed
ROOT_TRUES = '(while :; do /bin/true; sleep 0.1; done) & L=$!; '


def as_user(user, cmd):
    return f'cd /tmp/pm; setpriv --reuid={user} --regid={user} --init-groups {cmd}'


@pytest.fixture(scope='module')
def runs(tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('privilege')
    builds = {
        'privu': ['--privilege=stapusr', '-e',
                  'probe process("/bin/true").begin { printf("true uid=%d\\n", uid()) } '
                  # only a stop-gap: each run ends with its -c command, which
                  # under TCG and a loaded host can take seconds
                  'probe timer.s(60) { exit() }'],
        'privs': ['--privilege=stapsys', '-e', 'probe begin { printf("sys\\n"); exit() }'],
        'privd': ['-e', 'probe begin { printf("dev\\n"); exit() }'],
    }
    for n, a in builds.items():
        build_args(n, a, scratch)
    cmds = {
        'setup': SETUP.format(staprun=STAPRUN, stapio=STAPIO),
        'nogroup': as_user('pnone', f'{SR} privu.ko'),
        'outside': as_user('pusr', f'{SR} privu.ko'),
        'dev_module': as_user('pusr', f'{SR} privd'),
        'sys_module': as_user('pusr', f'{SR} privs'),
        # only the user's own processes; -o's file is the user's; a
        # STAP_STAPIO of the user's is not run (setuid)
        # a root /bin/true runs every 0.1 s meanwhile, which it must not see
        'own': 'id -u pusr; ' + ROOT_TRUES + as_user('pusr', f"env STAP_STAPIO=/bin/false {SR} "
                               "-c '/bin/true; sleep 1; /bin/true' -o /tmp/u.out privu") +
               '; echo rc=$?; kill $L; wait; cat /tmp/u.out; stat -c %U /tmp/u.out',
        'sys': as_user('psys', f'{SR} privs') + '; echo rc=$?; ' +
               as_user('psys', f'{SR} -c /bin/true privu') + ' | head -0; echo rc=$?',
        'dev': as_user('pdev', f'{SR} /tmp/pm/privd.ko'),
        'root_own': f"{SR} -c '/bin/true; /bin/true; /bin/true' /tmp/pm/privu.ko | sort | uniq -c",
        'writable': 'chmod 666 /lib/modules/$(uname -r)/systemtap/privu.ko; ' +
                    as_user('pusr', f'{SR} privu'),
        # staprun -N and -r: module parameters the module takes
        'params': f'{SR} -N 1 -r 3:http://h/x /tmp/pm/privd.ko',
        'left': 'grep -c "^priv" /proc/modules; true',
    }
    batch = guest.run_batch(list(cmds.values()), scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(batch)
    res = dict(zip(cmds, batch))
    assert res['setup'].stdout == 'ok\n', res['setup'].stderr
    return res


def test_staprun_refuses_a_user_in_no_group(runs):
    r = runs['nogroup']
    assert (r.rc, r.stdout, r.stderr) == (1, '', NORMAL_ERR)


def test_staprun_stapusr_module_outside_the_directory(runs):
    r = runs['outside']
    k = guest.kernel_release()
    assert (r.rc, r.stdout, r.stderr) == (1, '', DIR_ERR.format(k=k, m='privu.ko'))


def test_staprun_stapusr_level_too_low(runs):
    k = guest.kernel_release()
    for key, mod, need in (('dev_module', 'privd', 'stapdev'),
                           ('sys_module', 'privs', 'stapsys')):
        r = runs[key]
        assert (r.rc, r.stdout) == (1, '')
        assert r.stderr == (f'ERROR: Your privilege credentials (stapusr) are insufficient '
                            f'to load the module /lib/modules/{k}/systemtap/{mod}.ko '
                            f'({need} required)\n')


def test_staprun_stapusr_runs_own_processes_only(runs):
    r = runs['own']
    assert r.rc == 0, r.stderr
    uid, rest = r.stdout.split('\n', 1)
    assert rest == 'rc=0\n' + f'true uid={uid}\n' * 2 + 'pusr\n'


def test_staprun_stapsys_and_stapdev(runs):
    assert runs['sys'].stdout == 'sys\nrc=0\nrc=0\n', runs['sys'].stderr
    assert (runs['dev'].rc, runs['dev'].stdout) == (0, 'dev\n'), runs['dev'].stderr


def test_staprun_root_loads_stapusr_module_as_its_own(runs):
    # as 4.8: the loader's processes (root's here), not the other user's
    assert runs['root_own'].stdout == '      3 true uid=0\n', runs['root_own'].stderr


def test_staprun_world_writable_module(runs):
    r = runs['writable']
    k = guest.kernel_release()
    assert (r.rc, r.stderr) == (1, f'ERROR: The module "/lib/modules/{k}/systemtap/'
                                   'privu.ko" must not be world writable.\n')


def test_staprun_namespace_and_remote_parameters(runs):
    r = runs['params']
    assert (r.rc, r.stdout) == (0, 'dev\n'), r.stderr


def test_nothing_left_loaded(runs):
    assert runs['left'].stdout == '0\n'
