# The namespace-aware functions (ns_pid(), ns_tid(), ns_ppid(), ns_pgrp(),
# ns_sid(), ns_uid(), ns_euid(), ns_gid(), ns_egid()), task_utime(),
# task_stime(), task_time_string(), remote_id() and remote_uri(), as 4.8:
# - stapusr may call all of them (4.8: `stap -p2 --privilege=stapusr`
#   takes each; task_utime_tid() and the others of another task it refuses);
# - the ns_*() ids are those of the pid and user namespaces of the process
#   stap --target-namespaces=PID (staprun -N PID) names, else of the
#   session's own (here the initial ones: the same as pid(), uid() ...);
#   a task the namespace cannot see has id 0 there;
# - remote_id() and remote_uri() are staprun -r N:URI's, else -1 and "".
# In the guest: a process in a new pid namespace (unshare) is the target;
# /bin/true run in that namespace with nsenter is its second process (pid
# 2), its parent (nsenter) outside it. Not tested: a user namespace other
# than the initial one, since the guest runs its commands in a chroot,
# where the kernel refuses to make one (unshare(CLONE_NEWUSER): EPERM).
import os
import re
import subprocess

import pytest

import guest
from conftest import STAP, STAPIO, STAPRUN, build_args, run_stap
from test_privilege import SETUP, SR, as_user

USR = ['-p2', '-u', '--privilege=stapusr', '-e']
NS_FNS = ['ns_pid', 'ns_tid', 'ns_ppid', 'ns_pgrp', 'ns_sid', 'ns_uid', 'ns_euid',
          'ns_gid', 'ns_egid']
PLAIN = ['pid', 'tid', 'ppid', 'pgrp', 'sid', 'uid', 'euid', 'gid', 'egid']
SCRIPT = ('probe process("/bin/true").begin {\n'
          '\tprintln(' + ', " ", '.join(f'{n}() == {p}()' for n, p in zip(NS_FNS, PLAIN)) + ')\n'
          '\tprintln(' + ', " ", '.join(f'{n}()' for n in NS_FNS) + ')\n'
          '\tprintln(task_utime() >= 0, task_stime() >= 0, " ", task_time_string())\n'
          '\tprintln(remote_id(), " [", remote_uri(), "]")\n'
          '\texit()\n}\n')
TIME_RE = r'11 usr: \d+m\d+\.\d{3}s, sys: \d+m\d+\.\d{3}s'


@pytest.mark.parametrize('call', [f'{n}()' for n in NS_FNS] + [
    'task_utime()', 'task_stime()', 'task_time_string()', 'remote_id()', 'remote_uri()'])
def test_stapusr_may_call(call):
    r = run_stap(USR + [f'probe process("/bin/true").begin {{ println({call}) }}'])
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize('call', ['task_utime_tid(1)', 'task_stime(1)',
                                  'task_time_string_tid(1)'])
def test_stapusr_may_not_read_another_task(call):
    r = run_stap(USR + [f'probe process("/bin/true").begin {{ println({call}) }}'])
    assert r.returncode == 1
    assert 'may not be used when --privilege=stapusr is specified' in r.stderr


def test_target_namespaces_reaches_staprun(tmp_path):
    fake = tmp_path / 'staprun'
    fake.write_text('#!/bin/sh\nfor a; do echo "[$a]"; done\n')
    fake.chmod(0o755)
    r = run_stap_env(['-m', 'nsargs', '--target-namespaces=4242',
                      '-e', 'probe begin { exit() }'], tmp_path, fake)
    assert r.returncode == 0, r.stderr
    assert '[-N]\n[4242]\n' in r.stdout
    r = run_stap_env(['-m', 'nsargs', '-e', 'probe begin { exit() }'], tmp_path, fake)
    assert r.returncode == 0 and '[-N]' not in r.stdout, r.stderr


def run_stap_env(args, cwd, fake):
    return subprocess.run([str(STAP), '-r', guest.kernel_release()] + args, cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, SYSTEMTAP_STAPRUN=str(fake)))


NS_TARGET = ('unshare --pid --fork sleep 120 & U=$!; '
             'while ! S=$(pgrep -P $U -x sleep); do sleep 0.1; done; ')


@pytest.fixture(scope='module')
def runs(tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('namespaces')
    build_args('nsids', ['--privilege=stapusr', '-e', SCRIPT], scratch)
    cmds = {
        'setup': SETUP.format(staprun=STAPRUN, stapio=STAPIO)
                      .replace('privu.ko privs.ko privd.ko', 'nsids.ko'),
        'root': f'{SR} -c /bin/true /tmp/pm/nsids.ko',
        'target': NS_TARGET + f'{SR} -N $S -c "nsenter -t $S -p /bin/true" /tmp/pm/nsids.ko; '
                  'echo rc=$?; kill $U; wait',
        'remote': f'{SR} -r 3:http://h/x -c /bin/true /tmp/pm/nsids.ko',
        'stapusr': as_user('pusr', f'{SR} -c /bin/true nsids'),
        'left': 'grep -c "^nsids" /proc/modules; true',
    }
    batch = guest.run_batch(list(cmds.values()), scratch=str(scratch), timeout=90)
    guest.check_kernel_healthy(batch)
    res = dict(zip(cmds, batch))
    assert res['setup'].stdout == 'ok\n', res['setup'].stderr
    return res


def lines(r):
    assert r.rc == 0, r.stderr
    return r.stdout.splitlines()


def test_default_namespaces_are_the_sessions(runs):
    out = lines(runs['root'])
    assert len(out) == 4, out
    assert out[0] == ' '.join(['1'] * 9)
    assert re.fullmatch(TIME_RE, out[2]), out[2]
    assert out[3] == '-1 []'


def test_target_namespaces(runs):
    out = runs['target'].stdout.splitlines()
    assert runs['target'].stderr == ''
    # pid 2 there, its parent and group and session outside it; the user
    # namespace is the initial one (root)
    assert out[0].split()[:2] + out[0].split()[5:] == ['0', '0', '1', '1', '1', '1']
    assert out[1] == '2 2 0 0 0 0 0 0 0'
    assert out[4] == 'rc=0'


def test_remote_id_and_uri(runs):
    assert lines(runs['remote'])[3] == '3 [http://h/x]'


def test_stapusr_runs_them(runs):
    out = lines(runs['stapusr'])
    assert out[0] == ' '.join(['1'] * 9)
    assert re.fullmatch(TIME_RE, out[2]), out[2]
    assert runs['left'].stdout == '0\n'
