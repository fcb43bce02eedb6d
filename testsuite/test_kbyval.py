# Kernel function parameters that are structs passed by value in one or
# two argument registers (x86-64's INTEGER class), typed from BTF: kuid_t
# (4 bytes, one register) of from_kuid_munged() and struct timespec64
# (16 bytes, two registers) of timespec64_add_safe(). Their members read
# through '->', their pretty prints, and $$parms naming them "{...}" as
# 4.8 does. 4.8 cannot probe these without the kernel's debuginfo, so the
# expected values are the known arguments: a file chowned to 4321, and a
# select() timeout of 1.25 s.
import guest
from conftest import STAPRUN, run_stap

SCRIPT = r'''
probe kernel.function("from_kuid_munged") {
	if ($kuid->val == 4321) {
		println($kuid->val, " ", $kuid$, " ", $kuid$$)
		println(sprint($$parms) =~ "^targ=0xffff[0-9a-f]{12} kuid=\\{\\.\\.\\.\\}$")
		println(sprint($$parms$) =~ "^targ=\\{\\.uid_map=\\{\\.\\.\\.\\}, .* kuid=\\{\\.val=4321\\}$")
		exit()
	}
}
probe kernel.function("timespec64_add_safe") {
	if (execname() == "python3")
		println($rhs->tv_sec, " ", $rhs->tv_nsec, " ", $rhs$, " ", $lhs->tv_sec > 0)
}
'''
# staprun -c starts the work once the probes are armed
WORK_SH = ('/usr/bin/python3 -c "import select; select.select([], [], [], 1.25)"\n'
           'stat -c %u f > uid.txt\n')
WORK = 'touch f && chown 4321 f && {staprun} -c "sh work.sh" kbyval.ko; echo rc=$?; cat uid.txt'


def test_struct_parameters_by_value(krel, tmp_path):
    (tmp_path / 'kbyval.stp').write_text(SCRIPT)
    (tmp_path / 'work.sh').write_text(WORK_SH)
    r = run_stap(['-p4', '-r', krel, '-m', 'kbyval', 'kbyval.stp'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    batch = guest.run_batch([WORK.format(staprun=STAPRUN)], scratch=str(tmp_path), timeout=90)
    guest.check_kernel_healthy(batch)
    assert (batch[0].stdout, batch[0].stderr) == (
        '1 250000000 {.tv_sec=1, .tv_nsec=250000000} 1\n'
        '4321 {.val=4321} {.val=4321}\n1\n1\nrc=0\n4321\n', '')


def test_listing(krel):
    r = run_stap(['-r', krel, '-L', 'kernel.function("timespec64_add_safe")'])
    assert (r.returncode, r.stdout) == (
        0, 'kernel.function("timespec64_add_safe") $lhs:struct timespec64 const '
           '$rhs:struct timespec64 const\n')
