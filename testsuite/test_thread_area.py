# get_thread_area and set_thread_area, which x86_64 has only as ia32 calls
# (syscall_64.tbl has no 64-bit entry for 205 and 211: a 64-bit
# syscall(211) is sys_ni_syscall, ENOSYS), so __x64_sys_get_thread_area
# never runs; an int 0x80 call reaches __ia32_sys_get_thread_area. As
# 4.8's "__{ia32,x64}_sys_" prefix, syscall.NAME and nd_syscall.NAME probe
# both entries, and read a 32-bit task's arguments from bx cx dx si di bp
# (a 64-bit task's int 0x80 call is read as x86_64, from di: 4.8's choice).
# The programs: ta64, a 64-bit task making both 64-bit calls and the ia32
# ones through int 0x80 (di 0), then exec'ing ta32, a 32-bit static
# program making ia32 calls. Several probes on one address (ta_order) run
# in script order at entry and in reverse at return, as in 4.8 (the
# runtime registers them last first). The expected outputs are what
# SystemTap 4.8 printed for the same scripts and programs in the same guest
# (`/usr/bin/stap -R /tmp/stap-rt -r BUILD -p4`, BUILD with a System.map of
# the guest's kallsyms; run with /usr/bin/staprun -c).
import subprocess

import guest
from conftest import STAPRUN, build_module, run_stap

TA64 = '''#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <asm/ldt.h>

/* an ia32 syscall from this 64-bit task; rdi, which 4.8 reads, is 0 */
static long int80(long nr, unsigned long a1)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a1), "D"(0L)
		     : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
	return ret;
}

int main(int argc, char **argv)
{
	struct user_desc *u = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	if (u == MAP_FAILED || argc < 2)
		return 1;
	u->entry_number = 12;
	syscall(211, u);	/* no x86_64 get_thread_area: ENOSYS */
	syscall(205, u);
	int80(244, (unsigned long)u);	/* get_thread_area */
	u->entry_number = -1;
	u->base_addr = 0x2000;
	u->limit = 0xff;
	u->seg_32bit = 1;
	int80(243, (unsigned long)u);	/* set_thread_area */
	execv(argv[1], argv + 1);
	return 1;
}
'''

TA32 = '''/* a 32-bit task: get_thread_area, set_thread_area, get_thread_area, exit */
struct desc {
	unsigned int entry_number, base_addr, limit, flags;
};

static struct desc d, s;

static int sys1(int nr, volatile void *a)
{
	int r;

	asm volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a) : "memory");
	return r;
}

void _start(void)
{
	volatile struct desc *vd = &d, *vs = &s;

	vd->entry_number = 13;
	vs->entry_number = -1;
	vs->base_addr = 0x1000;
	vs->limit = 0xfff;
	vs->flags = 0x41;	/* seg_32bit, useable */
	sys1(244, vd);
	sys1(243, vs);
	vd->entry_number = vs->entry_number;
	sys1(244, vd);
	sys1(1, 0);
	for (;;)
		;
}
'''

SCRIPTS = {
    'ta_nd': '''probe nd_syscall.get_thread_area, nd_syscall.set_thread_area
{
	if (pid() == target())
		printf("%s: %s(%s) %d\\n", execname(), name, argstr, u_info_uaddr != 0)
}
probe nd_syscall.get_thread_area.return, nd_syscall.set_thread_area.return
{
	if (pid() == target())
		printf("%s: %s = %s\\n", execname(), name, retstr)
}
''',
    'ta_kp': '''probe kprobe.function("__x64_sys_get_thread_area"), kprobe.function("__x64_sys_set_thread_area"),
	kprobe.function("__ia32_sys_get_thread_area"), kprobe.function("__ia32_sys_set_thread_area").return
{
	if (pid() == target())
		printf("%s: %s\\n", execname(), ppfunc())
}
''',
}

# several probes on one address run in script order at entry and in
# reverse at return, as in 4.8 (ta32 alone: two get_thread_area calls)
ORDER = '''probe kprobe.function("__ia32_sys_get_thread_area") { if (pid() == target()) println("A") }
probe nd_syscall.get_thread_area { if (pid() == target()) println("nd") }
probe kprobe.function("__ia32_sys_get_thread_area") { if (pid() == target()) println("C") }
probe kprobe.function("__ia32_sys_get_thread_area").return { if (pid() == target()) println("rA") }
probe nd_syscall.get_thread_area.return { if (pid() == target()) println("rnd") }
probe kprobe.function("__ia32_sys_get_thread_area").return { if (pid() == target()) println("rC") }
'''

# 4.8's stdout (its stderr was empty, its exit status 0)
UPSTREAM = {
    'ta_order': 'A\nnd\nC\nrC\nrnd\nrA\nA\nnd\nC\nrC\nrnd\nrA\n',
    'ta_nd': '''ta64: get_thread_area(NULL) 0
ta64: get_thread_area = 0
ta64: set_thread_area(NULL) 0
ta64: set_thread_area = -22 (EINVAL)
ta32: get_thread_area({entry_number=13, base_addr=0, limit=0, seg_32bit=0, contents=0, read_exec_only=0, limit_in_pages=0, seg_not_present=0, useable=0, lm=0}) 1
ta32: get_thread_area = 0
ta32: set_thread_area({entry_number=4294967295, base_addr=4096, limit=4095, seg_32bit=1, contents=0, read_exec_only=0, limit_in_pages=0, seg_not_present=0, useable=1, lm=0}) 1
ta32: set_thread_area = 0
ta32: get_thread_area({entry_number=12, base_addr=0, limit=0, seg_32bit=0, contents=0, read_exec_only=1, limit_in_pages=0, seg_not_present=1, useable=0, lm=0}) 1
ta32: get_thread_area = 0
''',
    'ta_kp': '''ta64: __ia32_sys_get_thread_area
ta64: __ia32_sys_set_thread_area
ta32: __ia32_sys_get_thread_area
ta32: __ia32_sys_set_thread_area
ta32: __ia32_sys_get_thread_area
''',
}


def test_points_as_upstream(krel):
    # as 4.8's -p2: the ia32 entry, then the x86_64 one
    r = run_stap(['-p2', '-r', krel, '-e',
                  'probe nd_syscall.set_thread_area { print(argstr) }'])
    assert r.returncode == 0, r.stderr
    points = [line.split(' ')[0] for line in r.stdout.splitlines()
              if line.startswith('kprobe.')]
    assert points == ['kprobe.function("__ia32_sys_set_thread_area")?',
                      'kprobe.function("__x64_sys_set_thread_area")?']


def test_guest_as_upstream(krel, tmp_path):
    (tmp_path / 'ta64.c').write_text(TA64)
    (tmp_path / 'ta32.c').write_text(TA32)
    subprocess.run(['gcc', '-O2', '-Wall', '-Werror', '-o', 'ta64', 'ta64.c'],
                   cwd=tmp_path, check=True)
    subprocess.run(['gcc', '-m32', '-O2', '-Wall', '-Werror', '-nostdlib', '-static',
                    '-ffreestanding', '-fno-pie', '-no-pie', '-o', 'ta32', 'ta32.c'],
                   cwd=tmp_path, check=True)
    for name, script in {**SCRIPTS, 'ta_order': ORDER}.items():
        build_module(name, script, krel, tmp_path)
    cmd = f'{tmp_path}/ta64 {tmp_path}/ta32'
    commands = [f"{STAPRUN} -c '{cmd}' {n}.ko" for n in SCRIPTS]
    commands.append(f'{STAPRUN} -c {tmp_path}/ta32 ta_order.ko')
    batch = guest.run_batch(commands, scratch=str(tmp_path), timeout=60)
    guest.check_kernel_healthy(batch)
    for name, r in zip(list(SCRIPTS) + ['ta_order'], batch):
        assert (r.stdout, r.stderr, r.rc) == (UPSTREAM[name], '', 0), name
