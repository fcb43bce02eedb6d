# The signed-module path in a guest booted with module.sig_enforce=1 (the
# kernel command line, not the run-time switch test_sign.py flips), with
# real users and groups as test_privilege.py makes them:
# - the kernel refuses an unsigned module, and staprun says so clearly;
# - a module built with --sign-module reaches the kernel, which refuses it
#   only because it does not trust our key: Debian's kernel trusts its
#   built-in keys and, booted by shim under UEFI Secure Boot, enrolled MOKs
#   (CONFIG_INTEGRITY_MACHINE_KEYRING); this guest boots through qboot with
#   no UEFI, and the kernel has no CONFIG_SYSTEM_EXTRA_CERTIFICATE slot, so
#   no key of ours can be made trusted and no stap module can load here;
# - staprun lets a stapusr member load a signed module that is not in
#   /lib/modules/KVER/systemtap (the kernel checks it: it is refused by the
#   kernel, for the key, not by staprun, for its place), and refuses an
#   unsigned one outside that directory before anything is loaded;
# - without sig_enforce, a signed module outside the directory is refused
#   (nothing would check its signature).
import subprocess

import pytest

import guest
from conftest import STAPIO, STAPRUN, build_args
from test_privilege import DIR_ERR, NORMAL_ERR, SETUP, SR, as_user

SCRIPT = ('probe process("/bin/true").begin { printf("true uid=%d\\n", uid()) } '
          'probe begin { printf("begin\\n"); exit() }')
UNSIGNED_ERR = ("ERROR: the kernel takes only signed modules (module.sig_enforce or "
                "lockdown), and '{m}' is not signed: build it with stap --sign-module and "
                "enroll its key (mokutil --import KEYDIR/signing_key.x509)\n")
UNTRUSTED_ERR = ("ERROR: the kernel takes only signed modules (module.sig_enforce or "
                 "lockdown), and does not trust the key '{m}' is signed with: enroll it "
                 "(mokutil --import KEYDIR/signing_key.x509, then reboot) or sign with a "
                 "key the kernel trusts\n")


def modules_setup():
    # test_privilege's set-up, with this file's two modules in both places
    return (SETUP.format(staprun=STAPRUN, stapio=STAPIO)
            .replace('privu.ko privs.ko privd.ko', 'privu.ko privus.ko'))


@pytest.fixture(scope='module')
def built(tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('sigenforce')
    build_args('privu', ['--privilege=stapusr', '-e', SCRIPT], scratch)
    build_args('privus', ['--privilege=stapusr', f'--sign-module={scratch / "keys"}',
                          '-e', SCRIPT], scratch)
    return scratch


def modinfo(ko, field):
    return subprocess.run(['/usr/sbin/modinfo', '-F', field, str(ko)],
                          capture_output=True, text=True).stdout


CMDS = {
    'setup': None,
    'enforce': 'cat /sys/module/module/parameters/sig_enforce; '
               'tr " " "\\n" < /proc/cmdline | grep -x module.sig_enforce=1',
    'root_unsigned': f'{SR} /tmp/pm/privu.ko',
    'root_signed': f'{SR} /tmp/pm/privus.ko',
    'usr_unsigned_outside': as_user('pusr', f'{SR} privu.ko'),
    'usr_signed_outside': as_user('pusr', f'{SR} privus.ko'),
    'usr_unsigned_inside': as_user('pusr', f'{SR} privu'),
    'usr_signed_inside': as_user('pusr', f'{SR} privus'),
    'nogroup_signed': as_user('pnone', f'{SR} privus.ko'),
    'dmesg': 'dmesg | grep -c "Loading of unsigned module is rejected"; '
             'dmesg | grep -c "Loading of module with unavailable key is rejected"',
    'left': 'grep -c "^privu" /proc/modules; true',
}


@pytest.fixture(scope='module')
def enforced(built):
    cmds = dict(CMDS, setup=modules_setup())
    batch = guest.run_batch(list(cmds.values()), scratch=str(built), timeout=60,
                            cmdline=['module.sig_enforce=1'])
    guest.check_kernel_healthy(batch)
    res = dict(zip(cmds, batch))
    assert res['setup'].stdout == 'ok\n', res['setup'].stderr
    return res


@pytest.fixture(scope='module')
def unenforced(built):
    cmds = {'setup': modules_setup(),
            'enforce': 'cat /sys/module/module/parameters/sig_enforce',
            'usr_signed_outside': as_user('pusr', f'{SR} privus.ko'),
            'usr_signed_inside': as_user('pusr', f'{SR} privus'),
            'left': 'grep -c "^privu" /proc/modules; true'}
    batch = guest.run_batch(list(cmds.values()), scratch=str(built), timeout=60)
    guest.check_kernel_healthy(batch)
    res = dict(zip(cmds, batch))
    assert res['setup'].stdout == 'ok\n', res['setup'].stderr
    return res


def test_signed_module_shows_its_signer(built):
    assert modinfo(built / 'privus.ko', 'signer') == 'stap module signing key\n'
    assert modinfo(built / 'privus.ko', 'stap_privilege') == 'stapusr\n'
    assert modinfo(built / 'privu.ko', 'signer') == ''


def test_guest_booted_with_sig_enforce(enforced):
    assert enforced['enforce'].stdout == 'Y\nmodule.sig_enforce=1\n'


def test_root_unsigned_module_refused(enforced):
    r = enforced['root_unsigned']
    assert (r.rc, r.stdout, r.stderr) == (1, '', UNSIGNED_ERR.format(m='/tmp/pm/privu.ko'))


def test_root_signed_module_untrusted_key(enforced):
    r = enforced['root_signed']
    assert (r.rc, r.stdout, r.stderr) == (1, '', UNTRUSTED_ERR.format(m='/tmp/pm/privus.ko'))


def test_stapusr_unsigned_outside_directory_refused_by_staprun(enforced):
    r = enforced['usr_unsigned_outside']
    k = guest.kernel_release()
    assert (r.rc, r.stdout, r.stderr) == (1, '', DIR_ERR.format(k=k, m='privu.ko'))


def test_stapusr_signed_outside_directory_reaches_the_kernel(enforced):
    # staprun's checks pass: only the kernel's key check refuses it
    r = enforced['usr_signed_outside']
    assert (r.rc, r.stdout, r.stderr) == (1, '', UNTRUSTED_ERR.format(m='privus.ko'))


def test_stapusr_inside_directory_under_sig_enforce(enforced):
    k = guest.kernel_release()
    r = enforced['usr_unsigned_inside']
    m = f'/lib/modules/{k}/systemtap/privu.ko'
    assert (r.rc, r.stdout, r.stderr) == (1, '', UNSIGNED_ERR.format(m=m))
    r = enforced['usr_signed_inside']
    m = f'/lib/modules/{k}/systemtap/privus.ko'
    assert (r.rc, r.stdout, r.stderr) == (1, '', UNTRUSTED_ERR.format(m=m))


def test_no_group_refused_even_when_signed(enforced):
    r = enforced['nogroup_signed']
    assert (r.rc, r.stdout, r.stderr) == (1, '', NORMAL_ERR)


def test_kernel_refused_each_and_nothing_loaded(enforced):
    # root's and pusr's unsigned loads; root's and pusr's two signed ones
    assert enforced['dmesg'].stdout == '2\n3\n'
    assert enforced['left'].stdout == '0\n'


def test_without_sig_enforce_signed_outside_directory_refused(unenforced):
    k = guest.kernel_release()
    assert unenforced['enforce'].stdout == 'N\n'
    r = unenforced['usr_signed_outside']
    assert (r.rc, r.stdout, r.stderr) == (1, '', DIR_ERR.format(k=k, m='privus.ko'))
    # in the directory it runs, signed or not
    r = unenforced['usr_signed_inside']
    assert (r.rc, r.stdout, r.stderr) == (0, 'begin\n', '')
    assert unenforced['left'].stdout == '0\n'
