# stap --runtime=bpf, its probes beyond the first slice (test_bpf.py):
# CO-RE for `->` chains (an object built here runs in the 6.1 test guest,
# another kernel, with the same output), uprobe $params from the
# program's DWARF, kernel.function()/module().function() kprobes (their
# $params from the BTF; this host's kernel has no kprobes, the 6.1 test
# guest runs them, and their fentry/fexit twins under STAP_BPF_ATTACH=fentry),
# perf.* probes and user stacks. Host tests run as root (BPF works
# here); the CO-RE guest test, the kprobe guest test and the guest test
# of loops, strings and user stacks boot the test guest once each.
import os
import re
import subprocess
from pathlib import Path

import pytest

import guest
from conftest import STAP, STAPRUN


@pytest.fixture(autouse=True)
def as_root():
    """make check runs as root (README); loading BPF needs it, so running
    these tests as anyone else is a failure, not a skip."""
    assert os.geteuid() == 0, 'test_bpf_probes.py loads BPF programs: run it as root'


TRACE_WARNING = re.compile(r'stap: warning: no kernel trace headers .*\n')


def stap(*args, timeout=120, cwd=None):
    r = subprocess.run([str(STAP), '--runtime=bpf', *args], capture_output=True,
                       text=True, timeout=timeout, cwd=cwd)
    return r.stdout, TRACE_WARNING.sub('', r.stderr), r.returncode


# ---- CO-RE --------------------------------------------------------------------

# `->` through pointers, embedded structs, arrays of structs and a char
# array, from a tracepoint's task; only values the same on any kernel are
# printed (comparisons, the exec'd file's name length, its argc).
CORE_SCRIPT = '''
probe kernel.trace("sched_process_exec") {
  if ($p->real_parent->tgid == target() && execname() == "true") {
    printf("%s pid %d tgid %d mm %d leader %d rlim %d comm %d\\n", execname(),
      $p->pid == pid(), $p->tgid == pid(), $p->mm->mmap_base != 0,
      $p->group_leader->pid == pid(), $p->signal->rlim[7]->rlim_cur > 0,
      $p->comm[0] == 116)
    printf("prio %d weight %d name %d argc %d\\n", $p->prio - $p->static_prio,
      $p->se->load->weight > 0, $bprm->file->f_path->dentry->d_name->len, $bprm->argc)
    exit()
  }
}
'''
CORE_OUT = ('true pid 1 tgid 1 mm 1 leader 1 rlim 1 comm 1\n'
            'prio 0 weight 1 name 4 argc 1\n')


def test_core_relocations_written():
    """Member offsets are CO-RE relocations against the kernel types the
    script reads, declared with only the members used."""
    out, err, rc = stap('-p3', '-e', CORE_SCRIPT)
    assert (err, rc) == ('', 0)
    assert ('__builtin_preserve_field_info(((struct task_struct *)0)->se.load.weight, 0)'
            in out)
    assert ('__builtin_preserve_field_info(((struct signal_struct *)0)->rlim[7].rlim_cur, 0)'
            in out)
    assert 'struct sched_entity {\n\tstruct load_weight load;\n};\n' in out
    assert 'struct rlimit {\n\t__u64 rlim_cur;\n};\n' in out


def test_core_variable_index():
    """A variable index into an array member: element 0's relocated
    offset plus the index times the relocated element distance."""
    out, err, rc = stap('-p3', '-e', 'probe kernel.trace("sched_process_exec") { '
                        'i = 7; println($p->signal->rlim[i]->rlim_max) }')
    assert (err, rc) == ('', 0)
    assert (' * ((long)__builtin_preserve_field_info(((struct signal_struct *)0)->rlim[1], 0)'
            ' - (long)__builtin_preserve_field_info(((struct signal_struct *)0)->rlim[0], 0));'
            in out)
    assert ('__builtin_preserve_field_info(((struct signal_struct *)0)->rlim[0].rlim_max, 0)'
            in out)


def test_core_host(tmp_path):
    """The object runs here, -c's child exec'ing true."""
    assert stap('-p4', '-m', 'core', '-e', CORE_SCRIPT, cwd=tmp_path) == ('', '', 0)
    r = subprocess.run([str(STAPRUN), '-c', '/bin/true; /bin/true', 'core.bpf.o'],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert (r.stdout, r.stderr, r.returncode) == (CORE_OUT, '', 0)


def test_core_guest(tmp_path):
    """The object built on this host (kernel 6.18) runs unchanged in the
    test guest (6.1, other offsets): libbpf relocates it at load."""
    assert stap('-p4', '-m', 'core', '-e', CORE_SCRIPT, cwd=tmp_path) == ('', '', 0)
    batch = guest.run_batch([f'{STAPRUN} -c "/bin/true; /bin/true" core.bpf.o',
                             'uname -r'], scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    assert batch[1].stdout == guest.kernel_release() + '\n'
    assert batch[1].stdout != os.uname().release + '\n'
    assert (batch[0].stdout, batch[0].stderr, batch[0].rc) == (CORE_OUT, '', 0)


# ---- uprobe $params ------------------------------------------------------------

UPROG = '''struct pt { int x; long y; };
long work(int a, long b, char c, unsigned short d, struct pt *p, long f, long g, int h)
{
	return a + b + c + d + p->x + f + g + h;
}
int one(int v) { return v; }
int main(void)
{
	struct pt p = { 7, -9 };
	one(-5);
	return work(-1, 2, 'z', 65535, &p, 6, 77, -8) == 65740 ? 0 : 1;
}
'''


@pytest.fixture
def uprog(tmp_path):
    (tmp_path / 'prog.c').write_text(UPROG)
    subprocess.run(['gcc', '-g', '-O0', '-o', str(tmp_path / 'prog'),
                    str(tmp_path / 'prog.c')], check=True)
    return tmp_path / 'prog'


def test_uprobe_params(uprog):
    """$params from the program's DWARF: the six register ones, the two on
    the stack, `->` through a pointer parameter in user memory, $return."""
    script = (f'probe process("{uprog}").function("work") {{ '
              'printf("%d %d %d %d %d %d %d %d %d %d\\n", $a, $b, $c, $d, $p->x, $p->y, '
              '$f, $g, $h, $p == 0) } '
              f'probe process("{uprog}").function("work").return {{ '
              'printf("ret %d\\n", $return) } '
              f'probe process("{uprog}").function("one").return {{ '
              'printf("one %d\\n", $return) }')
    assert stap('-c', str(uprog), '-e', script) == (
        'one -5\n-1 2 122 65535 7 -9 6 77 -8 0\nret 65740\n', '', 0)


def test_uprobe_parms(uprog):
    """$$parms: each parameter in hex, masked to its width, as the module
    runtime prints it (the pointer masked here: its address varies)."""
    script = (f'probe process("{uprog}").function("work") {{ println($$parms) }} '
              f'probe process("{uprog}").function("one") {{ println($$parms) }}')
    out, err, rc = stap('-c', str(uprog), '-e', script)
    assert (re.sub(r'p=0x[0-9a-f]+ ', 'p=PTR ', out), err, rc) == (
        'v=0xfffffffb\na=0xffffffff b=0x2 c=0x7a d=0xffff p=PTR f=0x6 g=0x4d h=0xfffffff8\n',
        '', 0)


def return_warning(script, expr, last=False):
    """4.8's pass-2 warning (its words) at expr in a .return probe's body
    (its first or last place in the one-line script)."""
    col = (script.rindex(expr) if last else script.index(expr)) + 1
    return (f'<input>:1:{col}: warning: confusing usage, value is captured as @entry({expr}) '
            f'in .return probe [man stapprobes] RETURN PROBES\n'
            f'    1 | {script}\n      | {" " * (col - 1)}^\n')


def test_uprobe_return_params(uprog, tmp_path):
    """$params in a .return probe: their values at the entry (saved by an
    entry uprobe per thread, a stack of them for recursive calls), as the
    module runtime's; @entry() alike."""
    script = (f'probe process("{uprog}").function("one").return {{ '
              'printf("one(%d) = %d %d\\n", $v, $return, @entry($v + 1)) }')
    assert stap('-c', str(uprog), '-e', script) == ('one(-5) = -5 -4\n',
                                                    return_warning(script, '$v'), 0)
    (tmp_path / 'rec.c').write_text(
        'int work(int x, long y) { if (x > 0 && x < 3) return work(x + 1, y * 2) + 1; '
        'return x + (int)y; }\nint main(int c, char **v) { (void)v; '
        'return work(c, -5) == -15 ? 0 : 1; }\n')
    subprocess.run(['gcc', '-g', '-O0', '-o', str(tmp_path / 'rec'), str(tmp_path / 'rec.c')],
                   check=True)
    script = (f'probe process("{tmp_path}/rec").function("work").return {{ '
              'printf("work(%d, %d) = %d\\n", $x, $y, $return) }')
    assert stap('-c', str(tmp_path / 'rec'), '-e', script) == (
        'work(3, -20) = -17\nwork(2, -10) = -16\nwork(1, -5) = -15\n',
        return_warning(script, '$x') + return_warning(script, '$y'), 0)


def test_uprobe_return_parms(uprog):
    """$$parms in a .return probe: the parameters' values at the entry, as
    4.8 prints them there (its $$parms is their @entry() values), the same
    line as the entry probe's (test_uprobe_parms). The second probe's
    warning has the first's text: as 4.8, it is counted, not printed."""
    script = (f'probe process("{uprog}").function("work").return {{ println($$parms) }} '
              f'probe process("{uprog}").function("one").return {{ println($$parms, " ", '
              '$return) }')
    out, err, rc = stap('-c', str(uprog), '-e', script)
    warned = return_warning(script, '$$parms') + \
        'Number of similar warning messages suppressed: 1.\nRerun with -v to see them.\n'
    assert (re.sub(r'p=0x[0-9a-f]+ ', 'p=PTR ', out), err, rc) == (
        'v=0xfffffffb -5\n'
        'a=0xffffffff b=0x2 c=0x7a d=0xffff p=PTR f=0x6 g=0x4d h=0xfffffff8\n', warned, 0)


# user_string() and friends on a uprobe's char * (stack buffers: the
# pages are resident, as bpf_probe_read_user_str and the module runtime's
# copy_from_user_nofault need), a bad pointer's fault as the module
# runtime reports it; ppid() and pexecname() against the program's own
# getppid() and its parent's /proc comm.
USTR_PROG = r'''#include <stdio.h>
#include <string.h>
#include <unistd.h>
void take(const char *s, long n) { (void)s; (void)n; }
void parent(long pid, const char *comm) { (void)pid; (void)comm; }
void bad(const char *s) { (void)s; }
int main(void)
{
	char a[] = "hello world";
	char b[] = "tab\there \"q\" \\ caf\xc3\xa9 \xe2\x82\xac \x01";
	char path[64], comm[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	f = fopen(path, "r");
	if (!f || !fgets(comm, sizeof(comm), f))
		return 1;
	comm[strcspn(comm, "\n")] = 0;
	take(a, 5);
	take(b, 0);
	parent(getppid(), comm);
	bad((const char *)16);
	return 0;
}
'''


def test_user_string_ppid(tmp_path):
    (tmp_path / 'ustr.c').write_text(USTR_PROG)
    subprocess.run(['gcc', '-g', '-O0', '-o', str(tmp_path / 'ustr'),
                    str(tmp_path / 'ustr.c')], check=True)
    prog = tmp_path / 'ustr'
    script = (f'probe process("{prog}").function("take") {{ '
              'printf("%s|%s|%s|", user_string($s, "bad"), user_string_quoted($s), '
              'user_string_n($s, $n)) '
              'try { println(user_string($s)) } catch (m) { println("caught ", m) } } '
              f'probe process("{prog}").function("parent") {{ '
              'printf("ppid %d pexecname %d\\n", ppid() == $pid, '
              'pexecname() == user_string($comm)) } '
              f'probe process("{prog}").function("bad") {{ '
              'printf("%s|%s|", user_string($s, "bad"), user_string_quoted($s)) '
              'try { println(user_string_n($s, 3)) } catch (m) { println("caught ", m) } '
              'println(user_string($s)) }')
    b = 'tab\there "q" \\ caf\u00e9 \u20ac \x01'
    out, err, rc = stap('-c', str(prog), '-e', script)
    assert out == ('hello world|"hello world"|hello|hello world\n'
                   f'{b}|"tab\\there \\"q\\" \\\\ caf\\u00E9 \\u20AC \\001"||{b}\n'
                   'ppid 1 pexecname 1\n'
                   'bad|0x10|caught user string copy fault -14 at 0x10 [man error::fault]\n')
    assert err.startswith('ERROR: user string copy fault -14 at 0x10 [man error::fault] '
                          "near identifier 'user_string_n' at ")
    assert err.endswith('/linux/syscall_support.stp:216:10\n'
                        'WARNING: Number of errors: 1, skipped probes: 0\n'
                        'Pass 5: run failed.  [man error::pass5]\n')
    assert rc == 1


@pytest.mark.parametrize('probe,expr,message', [
    ('function("main")', '$p', "$p (only the function's parameters, read at its entry) "
     'is not supported by --runtime=bpf'),
    ('function("work").return', '$a', "target variable '$a' is not available in "),
    ('function("one").return', '$$parms$', 'the target variable $$parms$ here is not '
     'supported by --runtime=bpf'),
])
def test_uprobe_param_errors(uprog, probe, expr, message):
    out, err, rc = stap('-p3', '-e', f'probe process("{uprog}").{probe} {{ println({expr}) }}')
    assert rc == 1 and message in err, err


# ---- kernel.function() kprobes ----------------------------------------------------

def test_kprobe_source():
    """kernel.function() points are kprobes, .return ones kretprobes; a
    .return reading parameters or @entry() gets an entry kprobe that saves
    them; the loader's line names the symbol, module, ? mark and point."""
    out, err, rc = stap('-p3', '-e', 'probe kernel.function("vfs_read").return { '
                        'printf("%d %d %d\\n", $return, $count, @entry($count * 2)) } '
                        'probe kernel.function("vfs_write") { println(probefunc()) }')
    assert (err, rc) == ('', 0)
    assert 'SEC("kprobe") int stp_e0(void *ctx)' in out
    assert 'SEC("kretprobe") int stp_p0(void *ctx)' in out
    assert 'SEC("kprobe") int stp_p1(void *ctx)' in out
    assert '\tev[16] = t' in out
    assert '"probe kprobe stp_e0 0 vfs_read - 0 ' in out
    assert '"probe kprobe stp_p0 1 vfs_read - 0 ' in out
    pp = 'kernel.function("vfs_write").call'.encode().hex()
    assert f'"probe kprobe stp_p1 0 vfs_write - 0 {pp}\\n"' in out
    assert '\t[1] = "vfs_write"' in out


def test_kprobe_fentry_source():
    """A kernel.function() point also has an fentry (fexit for .return)
    twin, its parameters the trampoline's ctx slots and $return the slot
    after them, and the entry program of a .return its own; the loader
    loads one of each pair (twin lines). kprobe.function() has none."""
    out, err, rc = stap('-p3', '-e', 'probe kernel.function("vfs_read").return { '
                        'printf("%d %d\\n", $return, $count) } '
                        'probe kprobe.function("vfs_write") { println(1) }')
    assert (err, rc) == ('', 0)
    assert 'SEC("fentry/vfs_read") int stp_fe0(void *ctx)' in out
    assert 'SEC("fexit/vfs_read") int stp_f0(void *ctx)' in out
    assert '\thandler_0_f(S, ctx);\n' in out
    assert 'bpf_probe_read_kernel(&t0_v, 8, (__u64 *)ctx + 4);' in out
    assert '"twin stp_e0 stp_fe0\\n"' in out and '"twin stp_p0 stp_f0\\n"' in out
    assert 'stp_f1' not in out and 'twin stp_p1' not in out


def test_attach_mode_env(tmp_path):
    """STAP_BPF_ATTACH (a testing aid) takes kprobe or fentry."""
    assert stap('-p4', '-m', 'am', '-e', 'probe begin { exit() }', cwd=tmp_path) == ('', '', 0)
    r = subprocess.run([str(STAPRUN), 'am.bpf.o'], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60, env=dict(os.environ, STAP_BPF_ATTACH='x'))
    assert (r.stdout, r.stderr, r.returncode) == (
        '', 'ERROR: STAP_BPF_ATTACH=x: it may be kprobe or fentry\n', 1)


def test_kprobe_maxactive_source():
    """.maxactive(N) of a .return: the last field of its loader line (the
    loader places it through tracefs); none on a .return without it."""
    out, err, rc = stap('-p3', '-e', 'probe kernel.function("vfs_read").return.maxactive(3), '
                        'kernel.function("vfs_write").return { println($return) }')
    assert (err, rc) == ('', 0)
    pp = 'kernel.function("vfs_read").return.maxactive(3)'.encode().hex()
    assert f'"probe kprobe stp_p0 1 vfs_read - 0 {pp} 3\\n"' in out
    pp = 'kernel.function("vfs_write").return'.encode().hex()
    assert f'"probe kprobe stp_p1 1 vfs_write - 0 {pp}\\n"' in out


def test_kprobe_handler_per_point():
    """A probe of several points reading $vars has a handler per point,
    each reading its own point's (kprobes and tracepoints alike)."""
    out, err, rc = stap('-p3', '-e', 'probe kernel.function("vfs_read"), '
                        'kernel.function("vfs_write") { println($count) } '
                        'probe kernel.function("vfs_read"), kernel.function("vfs_write") { '
                        'println(1) }')
    assert (err, rc) == ('', 0)
    for h in ('handler_0_0', 'handler_0_1', 'handler_1'):
        assert f'static __always_inline void {h}(struct stp_scratch *S, void *ctx)' in out
    assert '\thandler_0_1(S, ctx);\n' in out and '\thandler_1(S, ctx);\n' in out


@pytest.mark.parametrize('script,message', [
    ('probe kernel.function("vfs_read").return { println($$parms$$) }',
     'the target variable $$parms$$ here is not supported by --runtime=bpf'),
    ('probe kernel.function("vfs_read").return { println(@entry(execname())) }',
     'this @entry() (only numbers, of parameters, literals and functions) is not supported '
     'by --runtime=bpf'),
    ('probe timer.s(1), kernel.function("vfs_read") { println(probefunc()) }',
     'the function probefunc() is not supported by --runtime=bpf'),
    ('probe begin { print_backtrace() }',
     'the function print_backtrace() outside the handler of kernel function, kernel.trace, '
     'perf, timer.profile or process probes (of one kind) is not supported by --runtime=bpf'),
    ('function f() { return backtrace() } probe kernel.function("vfs_read") { println(f()) }',
     'the function backtrace() outside the handler of kernel function, kernel.trace, perf, '
     'timer.profile or process probes (of one kind) is not supported by --runtime=bpf'),
    ('probe kernel.function("vfs_read"), kernel.function("vfs_read").return { '
     'println(callers(1)) }',
     'the function callers() outside the handler of kernel function, kernel.trace, perf, '
     'timer.profile or process probes (of one kind) is not supported by --runtime=bpf'),
])
def test_kprobe_unsupported(script, message):
    out, err, rc = stap('-p3', '-e', script)
    assert rc == 1 and message in err, err


def test_alias_unsupported():
    """A tapset alias whose body calls embedded C this runtime does not
    have (every syscall.* and nd_syscall.* alias is built since session
    13: test_bpf_syscall.py): one error naming the alias and the
    function, at the user's probe, for the 6.1 guest's kernel."""
    out, err, rc = stap('-p3', '-r', guest.kernel_release(), '-e',
                        'probe scheduler.cpu_on { println(idle) }')
    assert (out, rc) == ('', 1)
    assert err == ('<input>:1:1: error: the probe alias scheduler.cpu_on is not supported '
                   'by --runtime=bpf: its body calls __sched_is_idle() (embedded C); use the '
                   'kernel module runtime (--runtime=kernel)\n'
                   '    1 | probe scheduler.cpu_on { println(idle) }\n'
                   '      | ^\n'
                   'Pass 3: translation failed.  [man error::pass3]\n')


def test_alias_user_body_unsupported():
    """A function this runtime lacks, called in the user's body of a probe
    through an alias, is the error of that call, not the alias's."""
    out, err, rc = stap('-p3', '-r', guest.kernel_release(), '-e',
                        'probe syscall.utime { println(pn()) }')
    assert (out, rc) == ('', 1)
    assert err == ('<input>:1:31: error: the function pn() is not supported by --runtime=bpf: '
                   'use the kernel module runtime (--runtime=kernel)\n'
                   '    1 | probe syscall.utime { println(pn()) }\n'
                   '      |                               ^\n'
                   'Pass 3: translation failed.  [man error::pass3]\n')


def test_kprobe_no_kprobes_host(tmp_path):
    """This host's kernel has no kprobes (and no fentry): the loader says
    so, naming the point, before any probe runs (begin too), status 1 and
    no libbpf output; optional points are left out. (The guest test below
    runs kprobes.)"""
    assert not os.path.exists('/sys/bus/event_source/devices/kprobe'), \
        "the premise: the project's build hosts run a kernel without kprobes"
    message = ('ERROR: cannot probe kernel.function("vfs_read").return: this kernel has no '
               'kprobes (CONFIG_KPROBES), which --runtime=bpf needs for kernel and module '
               'functions; use the kernel module runtime (--runtime=kernel) on a kernel '
               'with kprobes\n')
    script = ('probe begin { println("begin") } '
              'probe kernel.function("vfs_read").return { println($return) }')
    assert stap('-e', script) == ('', message + 'Pass 5: run failed.  [man error::pass5]\n',
                                  1)
    assert stap('-p4', '-m', 'kp', '-e', script, cwd=tmp_path) == ('', '', 0)
    r = subprocess.run([str(STAPRUN), 'kp.bpf.o'], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert (r.stdout, r.stderr, r.returncode) == ('', message, 1)
    assert stap('-e', 'probe kernel.function("vfs_read")? { println(1) } '
                'probe begin { println("begin"); exit() }') == ('begin\n', '', 0)


# Each case: its script and its output in the 6.1 guest, -c's command the
# dd below (target() is dd itself, as with staprun -c). Where 4.8 builds the
# script for 6.1 (the entry probes), the output is 4.8's; its kretprobes do
# not build for 6.1 (struct kretprobe_instance has no rp any more), so the
# .return outputs are our module runtime's on the same script.
KPROBE_CMD = 'dd if=in.txt bs=5 count=2 status=none of=/dev/null'
KPROBE_CASES = {
    # $params, $p[0], a -> chain to a string
    'params': ('''probe kernel.function("vfs_read") {
  if (pid() == target() && kernel_string($file->f_path->dentry->d_name->name) == "in.txt")
    printf("%s count=%d pos=%d flags=%d\\n", probefunc(), $count, $pos[0], $file->f_flags & 3)
}''', 'vfs_read count=5 pos=0 flags=0\nvfs_read count=5 pos=5 flags=0\n'),
    # $return, parameters at the entry (through ->), @entry() (evaluated at
    # every call's entry: never $pos[0], NULL for a pipe's read)
    'return': ('''probe kernel.function("vfs_read").return {
  if (pid() == target() && kernel_string($file->f_path->dentry->d_name->name) == "in.txt")
    printf("%s ret=%d count=%d e=%d pos=%d\\n", probefunc(), $return, $count,
           @entry($count * 2 + 1), @entry($file->f_pos))
}''', 'vfs_read ret=5 count=5 e=11 pos=0\nvfs_read ret=5 count=5 e=11 pos=5\n'),
    # wildcards as pass 2 expands them for the module runtime; probefunc()
    'wildcard': ('''global c
probe kernel.function("vfs_read*"), kernel.function("vfs_write*"),
      kernel.function("vfs_fstat*")? { if (pid() == target()) c[probefunc()]++ }
probe end { foreach (f+ in c) printf("%s %d\\n", f, c[f]) }''',
                 'vfs_fstatat 2\nvfs_read 5\nvfs_write 2\n'),
    # a loaded module's function (9p: the guest's file system), its BTF
    'module': ('''probe module("9p").function("v9fs_file_read_iter").call {
  if (pid() == target() && kernel_string($iocb->ki_filp->f_path->dentry->d_name->name) == "in.txt")
    printf("%s count=%d\\n", probefunc(), $to->count)
}
probe module("9p").function("v9fs_file_read_iter").return {
  if (pid() == target() && kernel_string($iocb->ki_filp->f_path->dentry->d_name->name) == "in.txt")
    printf("%s ret %d\\n", probefunc(), $return)
}''', 'v9fs_file_read_iter count=5\nv9fs_file_read_iter ret 5\n' * 2),
    # $$parms: the pointers masked
    'parms': ('''probe kernel.function("vfs_read") {
  if (pid() == target() && $count == 5) { println($$parms); exit() }
}''', 'file=PTR buf=PTR count=0x5 pos=PTR\n'),
    # $$parms in a .return: the values at the entry (the module runtime's
    # line; 4.8's $$parms there is the parameters' @entry() values too)
    'retparms': ('''probe kernel.function("vfs_read").return {
  if (pid() == target() && $count == 5) println($$parms, " ", $return)
}''', 'file=PTR buf=PTR count=0x5 pos=PTR 5\n' * 2),
    # several points reading $vars: a handler each
    'points': ('''probe kernel.function("vfs_read"), kernel.function("vfs_write") {
  if (pid() == target() && $count == 5) printf("%s %d\\n", probefunc(), $count)
}''', 'vfs_read 5\nvfs_write 5\n' * 2),
    # user strings of a kernel function's __user parameter; ppid() and
    # pexecname() of target() (its parent the loader, begin's pid())
    'ustr': ('''global lp, lc
probe begin { lp = pid(); lc = execname() }
probe kernel.function("do_sys_openat2") {
  if (pid() == target() && user_string($filename, "?") == "in.txt")
    printf("%s %s %s %d %d\\n", user_string($filename), user_string_quoted($filename),
           user_string_n($filename, 2), ppid() == lp, pexecname() == lc)
}''', 'in.txt "in.txt" in 1 1\n'),
    # the kernel stack of the probed call: the addresses vary with the
    # guest's KASLR, so the frames are checked by BT_FRAME below
    'bt': ('''probe kernel.function("vfs_read") {
  if (pid() == target() && $count == 5) { print_backtrace(); println(backtrace()); exit() }
}''', None),
    # a .return's stack: "Returning from:" the probed function, then where
    # it returns to (checked by check_return_backtrace below)
    'rbt': ('''probe kernel.function("vfs_read").return {
  if (pid() == target() && $return == 5) { print_backtrace(); println(backtrace()); exit() }
}''', None),
    # sprint_backtrace(), symname() and symdata() named in BPF (%pS)
    'sbt': ('''probe kernel.function("vfs_read") {
  if (pid() == target() && $count == 5) {
    print(sprint_backtrace()); println(symname(stack(0)), " ", symdata(stack(1))); exit()
  }
}''', None),
    # addr(): the probed address at the entry, where it returns to in .return
    'addr': ('''probe kernel.function("vfs_read") {
  if (pid() == target() && $count == 5) printf("%s %d\\n", symname(addr()), addr() == stack(0))
}
probe kernel.function("vfs_read").return {
  if (pid() == target() && $return == 5) {
    printf("%s %d\\n", symname(addr()), addr() == stack(0)); exit()
  }
}''', 'vfs_read 1\nksys_read 1\n'),
    # kprobe.function(): no $vars; the same kprobe
    'kprobe': ('''global n
probe kprobe.function("vfs_read") { if (pid() == target()) n++ }
probe end { printf("%d\\n", n) }''', '5\n'),
}


# .maxactive(N) kretprobes: lines of tracefs's kprobe_events while the
# session runs (-c's command lists them), gone after it; .maxactive(0) is
# the kernel's default, a kretprobe as any other (not listed). A line a
# SIGKILLed loader left (a pid that no longer runs) is removed at start.
MAXACTIVE_SCRIPT = """global n, m, k
probe kernel.function("vfs_read").return.maxactive(3) { if (execname() == "dd" && $count == 5)
  n++ }
probe kprobe.function("vfs_write").return.maxactive(7) { if (execname() == "dd") m++ }
probe kernel.function("vfs_read").return.maxactive(0) { if (execname() == "dd" && $count == 5)
  k++ }
probe end { printf("%d %d %d\\n", n, m, k) }"""
MAXACTIVE_OUT = ('r3:stapbpf/pPID_0 vfs_read\nr7:stapbpf/pPID_1 vfs_write\n2 2 2\n'
                 'after\n')


# Under STAP_BPF_ATTACH=fentry (a kernel without kprobes), the points
# without a twin: a kprobe.function() (its function may lack BTF) and a
# handler calling backtrace() (the trampoline's frames would show)
FENTRY_WHY = (' through fentry/fexit: only kernel.function() and module().function() points '
              'of functions of at most six integer or pointer parameters, in handlers '
              'without backtraces, can be\n')
FENTRY_NONE = {
    'bt': 'ERROR: cannot probe kernel.function("vfs_read").call' + FENTRY_WHY,
    'kprobe': 'ERROR: cannot probe kprobe.function("vfs_read")' + FENTRY_WHY,
    'rbt': 'ERROR: cannot probe kernel.function("vfs_read").return' + FENTRY_WHY,
    'sbt': 'ERROR: cannot probe kernel.function("vfs_read").call' + FENTRY_WHY,
    'addr': 'ERROR: cannot probe kernel.function("vfs_read").call' + FENTRY_WHY,
}


def test_kprobes_guest(tmp_path):
    """kernel.function() and module().function() probes of objects built
    here (CO-RE, for the guest's kernel: -r, so wildcards expand as there)
    run in the 6.1 test guest as the module runtime's, through kprobes and
    (STAP_BPF_ATTACH=fentry) their fentry/fexit twins; .maxactive(N)
    kretprobes are tracefs's."""
    krel = guest.kernel_release()
    (tmp_path / 'in.txt').write_text('hello world\n')
    for name, (script, _) in KPROBE_CASES.items():
        assert stap('-p4', '-r', krel, '-m', f'k_{name}', '-e', script, cwd=tmp_path) == (
            '', '', 0), name
    assert stap('-p4', '-r', krel, '-m', 'k_maxactive', '-e', MAXACTIVE_SCRIPT,
                cwd=tmp_path) == ('', '', 0)
    events = '/sys/kernel/tracing/kprobe_events'
    batch = guest.run_batch([f"{STAPRUN} -c '{KPROBE_CMD}' k_{name}.bpf.o"
                             for name in KPROBE_CASES] +
                            [f"STAP_BPF_ATTACH=fentry {STAPRUN} -c '{KPROBE_CMD}' "
                             f"k_{name}.bpf.o" for name in KPROBE_CASES] +
                            [f"echo 'r:stapbpf/p999999_0 vfs_read' >> {events}; "
                             f"{STAPRUN} -c '{KPROBE_CMD}; cat {events}' k_maxactive.bpf.o; "
                             f"echo after; cat {events}"],
                            scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    r = batch[-1]
    assert (re.sub(r'/p[0-9]+_', '/pPID_', r.stdout), r.stderr, r.rc) == (
        MAXACTIVE_OUT, '', 0)
    # the same objects through their fentry/fexit twins: the same output,
    # but for the points that have none
    for (name, (_, want)), r in zip(KPROBE_CASES.items(), batch[len(KPROBE_CASES):]):
        out = re.sub(r'=0x[0-9a-f]{9,16}\b', '=PTR', r.stdout)
        if name in FENTRY_NONE:
            want = ('', FENTRY_NONE[name], 1)
        else:
            want = (want, '', 0)
        assert (name, (out, r.stderr, r.rc)) == (name, want)
    for (name, (_, want)), r in zip(KPROBE_CASES.items(), batch):
        out = re.sub(r'=0x[0-9a-f]{9,16}\b', '=PTR', r.stdout)
        if want is None:
            {'rbt': check_return_backtrace, 'sbt': check_sprint_backtrace}.get(
                name, check_backtrace)(r.stdout)
            out = want
        assert (name, out, r.stderr, r.rc) == (name, want, '', 0)


# print_backtrace()'s line, as the module runtime's runtime/sym.c prints it
BT_FRAME = re.compile(r' (0x[0-9a-f]+) : ([A-Za-z_][\w.]*)\+0x([0-9a-f]+)/0x([0-9a-f]+) '
                      r'\[kernel\]')


def check_backtrace(out):
    """vfs_read's stack from the kprobe's registers (read(2) from dd): its
    frames named from the guest's kallsyms, within their symbols, the
    first the probed address (vfs_read+0x0, as the module runtime's kprobe
    handler sets the ip), ksys_read below; backtrace() the same addresses
    as %#x, each followed by a space."""
    *frames, bt = out.split('\n')[:-1]
    matches = [BT_FRAME.fullmatch(f) for f in frames]
    assert frames and all(matches), out
    assert [m.group(2) for m in matches[:2]] == ['vfs_read', 'ksys_read'], out
    assert matches[0].group(3) == '0', out
    assert all(int(m.group(3), 16) < int(m.group(4), 16) for m in matches), out
    assert bt == ''.join(m.group(1) + ' ' for m in matches), out


def check_return_backtrace(out):
    """A .return's print_backtrace(), as runtime/sym.c prints it: the
    probed function's entry after "Returning from: ", then after
    "Returning to  : " the frames from where it returns to (ksys_read);
    backtrace() those frames' addresses."""
    lines = out.split('\n')[:-1]
    assert len(lines) > 3 and lines[0].startswith('Returning from: ') and \
        lines[1].startswith('Returning to  : '), out
    came = BT_FRAME.fullmatch(lines[0][len('Returning from: '):])
    frames = [lines[1][len('Returning to  : '):]] + lines[2:-1]
    matches = [BT_FRAME.fullmatch(f) for f in frames]
    assert came and came.group(2, 3) == ('vfs_read', '0') and all(matches), out
    assert matches[0].group(2) == 'ksys_read', out
    assert lines[-1] == ''.join(m.group(1) + ' ' for m in matches), out


def check_sprint_backtrace(out):
    """sprint_backtrace() at vfs_read's entry: "name+0xoff [kernel]" a
    frame, vfs_read+0x0 then ksys_read; symname() of the first frame and
    symdata() of the second as runtime/sym.c."""
    *frames, syms = out.split('\n')[:-1]
    matches = [re.fullmatch(r'([A-Za-z_][\w.]*)\+0x([0-9a-f]+) \[kernel\]', f)
               for f in frames]
    assert len(frames) > 2 and all(matches), out
    assert frames[0] == 'vfs_read+0x0 [kernel]', out
    assert matches[1].group(1) == 'ksys_read', out
    assert re.fullmatch(r'vfs_read ksys_read\+0x%s/0x[0-9a-f]+ \[kernel\]'
                        % matches[1].group(2), syms), out


def check_frames(out, n):
    """n frames or more of print_backtrace() (each within its symbol), then
    backtrace(): their addresses as %#x, each followed by a space."""
    lines = out.split('\n')[:-1]
    frames, bt = lines[:-1], lines[-1]
    matches = [BT_FRAME.fullmatch(f) for f in frames]
    assert len(frames) >= n and all(matches), out
    assert all(int(m.group(3), 16) < int(m.group(4), 16) for m in matches), out
    assert bt == ''.join(m.group(1) + ' ' for m in matches), out
    return [m.group(2) for m in matches], [m.group(1) for m in matches]


def test_backtrace_tracepoint():
    """A kernel.trace point's stack starts at the tracepoint's caller (the
    program's and bpf_trace_run's frames left out); callers(n) frames 0 to
    n, stack(n) frame n, sprint_backtrace() a "name+0xoff [kernel]" line a
    frame, symname(), symdata() and modname() as runtime/sym.c (hex where
    there is no symbol, modname() an error), past the stack's end the
    module runtime's error."""
    out, err, rc = stap('-e', 'probe kernel.trace("sched_process_exec") { '
                        'if (pid() == target()) { print_backtrace(); println(backtrace()); '
                        'println(callers(1)); printf("%#x\\n", stack(1)); println(callers(-1)); '
                        'print(sprint_backtrace()); a = stack(1); '
                        'println(symname(a), "|", symdata(a), "|", symname(0), "|", symdata(-1), '
                        '"|", modname(a)); try { println(modname(1)) } catch (m) { println(m) } '
                        'println(callers(40)) } }', '-c', '/bin/true')
    lines = out.split('\n')
    k = lines.index(next(x for x in lines if not x.startswith(' ')))
    names, addrs = check_frames('\n'.join(lines[:k + 1]) + '\n', 3)
    assert 'bprm_execve' in names[:3] and '__x64_sys_execve' in names, out
    assert not any(n.startswith('bpf_') for n in names), out
    frames = [BT_FRAME.fullmatch(f) for f in lines[:k]]
    assert lines[k + 1:k + 4] == [' '.join(addrs[:2]), addrs[1], ' '.join(addrs)], out
    assert lines[k + 4:k + 4 + len(frames)] == [
        f'{m.group(2)}+0x{m.group(3)} [kernel]' for m in frames], out
    assert lines[k + 4 + len(frames):] == [
        f'{names[1]}|{names[1]}+0x{frames[1].group(3)}/0x{frames[1].group(4)} [kernel]'
        '|0x0|0xffffffffffffffff|kernel', 'Cannot determine kernel module name', ''], out
    assert re.fullmatch(r"(?:stap: warning: no kernel trace headers.*\n)?"
                        r"ERROR: cannot unwind to depth 40 near identifier 'callers' at "
                        r"\S+/context_symbols.stp:\d+:\d+\n"
                        r"WARNING: Number of errors: 1, skipped probes: 0\n"
                        r"Pass 5: run failed.  \[man error::pass5\]\n", err), err
    assert rc == 1


def test_user_mode(uprog):
    """user_mode(): 1 in a uprobe, 0 at begin and at a tracepoint (no
    registers there in the module runtime), at timer.profile the
    interrupted context's (the -c command spinning in user mode, once it
    has exec'd: not the fork's instants in user mode before)."""
    assert stap('-c', str(uprog), '-e', f'probe process("{uprog}").function("one") {{ '
                'println(user_mode()) }') == ('1\n', '', 0)
    out, err, rc = stap('-c', "sh -c 'while :; do :; done'", '-e',
                        'global execd probe begin { printf("begin %d\\n", user_mode()) } '
                        'probe kernel.trace("sched_process_exec") { if (pid() == target()) { '
                        'printf("trace %d\\n", user_mode()); execd = 1 } } '
                        'probe timer.profile { if (execd && pid() == target() && user_mode()) { '
                        'println("profile 1"); exit() } }')
    assert (out, rc) == ('begin 0\ntrace 0\nprofile 1\n', 0), err


def test_addr(uprog):
    """addr(): 0 without registers (begin, a tracepoint), at timer.profile
    the interrupted ip, frame 0 of the kernel stack (the -c command in the
    kernel); a pass-3 error in a process probe."""
    # the profile tick counts only after the exec (a tick inside the held
    # child's execve() came first on a loaded host)
    out, err, rc = stap('-c', 'dd if=/dev/zero of=/dev/null bs=1M status=none', '-e',
                        'global execd probe begin { printf("begin %d\\n", addr()) } '
                        'probe kernel.trace("sched_process_exec") { if (pid() == target()) { '
                        'printf("trace %d\\n", addr()); execd = 1 } } '
                        'probe timer.profile { if (execd && pid() == target() && !user_mode()) { '
                        'printf("profile %d %d\\n", addr() == stack(0), addr() < 0); exit() } }')
    assert (out, rc) == ('begin 0\ntrace 0\nprofile 1 1\n', 0), err
    out, err, rc = stap('-p3', '-e', f'probe process("{uprog}").function("one") {{ '
                        'println(addr()) }')
    assert rc == 1 and 'the function addr() in a process probe is not supported' in err, err


def test_backtrace_profile():
    """timer.profile and perf.*: the interrupted context's stack, none where
    it was user mode (as the module runtime); the first kernel one each."""
    for point in ('timer.profile', 'perf.sw.cpu_clock.sample(100000)'):
        out, err, rc = stap('-e', f'global n probe {point} {{ b = backtrace(); '
                            'if (b != "" && !n++) { print_backtrace(); println(b); exit() } }')
        assert (err, rc) == ('', 0), point
        check_frames(out, 1)


# ---- perf.* ----------------------------------------------------------------------

def test_perf_software_events():
    """perf.sw.* and perf.type(T).config(C), .sample(N) and .hz(F): perf
    events on every CPU; the cpu clock runs whether or not a CPU is idle."""
    script = ('global n, m, k '
              'probe perf.sw.cpu_clock.sample(100000) { n++ } '
              'probe perf.type(1).config(0).hz(1000) { m++ } '
              'probe perf.type(1).config(0) { k++ } '
              'probe timer.ms(100) { if (n > 0 && m > 0 && k > 0) { println("all fired"); '
              'exit() } } '
              'probe timer.s(60) { printf("%d %d %d\\n", n, m, k); exit() }')
    assert stap('-e', script) == ('all fired\n', '', 0)


def test_perf_source():
    out, err, rc = stap('-p3', '-e', 'global n probe perf.sw.task_clock.sample(5000) { n++ } '
                        'probe perf.type(1).config(0).hz(250) { n++ }')
    assert (err, rc) == ('', 0)
    assert '"probe perf stp_p0 5000 1 1 0\\n"' in out
    assert '"probe perf stp_p1 250 1 0 1\\n"' in out


def test_perf_hardware():
    """perf.hw.*: a hardware event where this machine has a PMU, else the
    loader's error naming the event."""
    script = ('global n probe perf.hw.instructions.sample(100000) { n++ } '
              'probe timer.ms(100) { if (n > 0) { println("fired"); exit() } } '
              'probe timer.s(60) { exit() }')
    if os.path.exists('/sys/bus/event_source/devices/cpu'):
        assert stap('-e', script) == ('fired\n', '', 0)
    else:
        assert stap('-e', script) == (
            '', 'ERROR: cannot open the perf event type 0 config 1: No such file or '
            'directory\nWARNING: Number of errors: 1, skipped probes: 0\n'
            'Pass 5: run failed.  [man error::pass5]\n', 1)


# ---- pass 4's cache ------------------------------------------------------------------

def test_object_cache(tmp_path):
    """The object clang made for the same BPF C is reused (the first line,
    which names the module, aside); -m and --disable-cache leave it."""
    env = dict(os.environ, SYSTEMTAP_DIR=str(tmp_path / 'sd'))
    script = 'probe begin { println("cached"); exit() }'
    for _ in range(2):
        r = subprocess.run([str(STAP), '--runtime=bpf', '-e', script], env=env,
                           capture_output=True, text=True, timeout=60)
        assert (r.stdout, r.stderr, r.returncode) == ('cached\n', '', 0)
    entries = sorted(p.suffix for p in (tmp_path / 'sd' / 'cache' / 'bpf').iterdir())
    assert entries == ['.c', '.o']
    r = subprocess.run([str(STAP), '--runtime=bpf', '--disable-cache', '-e',
                        'probe begin { println("not cached"); exit() }'], env=env,
                       capture_output=True, text=True, timeout=60)
    assert (r.stdout, r.stderr, r.returncode) == ('not cached\n', '', 0)
    assert len(list((tmp_path / 'sd' / 'cache' / 'bpf').iterdir())) == 2


def test_object_cache_headers(tmp_path):
    """The cache key has every header of runtime/bpf/ the C includes:
    changing stapbpf_maps.h (not only stapbpf.h) makes a new object."""
    env = dict(os.environ, SYSTEMTAP_DIR=str(tmp_path / 'sd'))
    rt = tmp_path / 'rt'
    rt.mkdir()
    (rt / 'stp_runtime.h').write_text('')
    (rt / 'bpf').mkdir()
    src = Path(__file__).resolve().parent.parent / 'runtime' / 'bpf'
    for h in ('stapbpf.h', 'stapbpf_maps.h'):
        (rt / 'bpf' / h).write_text((src / h).read_text())
    cache = tmp_path / 'sd' / 'cache' / 'bpf'
    script = 'probe begin { println("cached"); exit() }'

    def run():
        r = subprocess.run([str(STAP), '--runtime=bpf', '-R', str(rt), '-e', script], env=env,
                           capture_output=True, text=True, timeout=60)
        assert (r.stdout, r.stderr, r.returncode) == ('cached\n', '', 0)
        return len(list(cache.iterdir()))
    assert (run(), run()) == (2, 2)
    with open(rt / 'bpf' / 'stapbpf_maps.h', 'a') as f:
        f.write('/* changed */\n')
    assert run() == 4


USTACK_PROG = r'''
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) long leaf(long x)
{
	printf("ret0 %p\n", __builtin_return_address(0));
	return x + getppid();
}

__attribute__((noinline)) long mid(long x)
{
	long r = leaf(x + 1);

	printf("ret1 %p\n", __builtin_return_address(0));
	return r;
}

int main(void)
{
	printf("leaf %p\n", (void *)leaf);
	return mid(1) > 0 ? 0 : 1;
}
'''


def test_user_stack(tmp_path):
    """ubacktrace(), ucallers(n), ustack(n) and uaddr() at a uprobe on a
    function's entry, in a program built with frame pointers (the walk
    bpf_get_stack() does): the probed function, the return addresses into
    its caller and the caller's caller, as the program itself prints them
    (__builtin_return_address); past the stack's end the module runtime's
    error; at a tracepoint the user pc (frame 0). Elsewhere (begin) they
    are pass-3 errors."""
    src = tmp_path / 'fp.c'
    src.write_text(USTACK_PROG)
    prog = tmp_path / 'fp'
    subprocess.run(['gcc', '-O0', '-fno-omit-frame-pointer', '-o', str(prog), str(src)],
                   check=True)
    out, err, rc = stap('-c', str(prog), '-e', f'probe process("{prog}").function("leaf") {{ '
                        'printf("bt %s\\n", ubacktrace()); printf("c2 %s\\n", ucallers(2)); '
                        'printf("pc 0x%x 0x%x\\n", uaddr(), ustack(1)); '
                        'try { println(ucallers(25)) } catch (e) { printf("e %s\\n", e) } }')
    assert (err, rc) == ('', 0)
    got = dict(line.split(' ', 1) for line in out.splitlines())
    frames = '%s %s %s' % (got['leaf'], got['ret0'], got['ret1'])
    assert got['c2'] == frames
    assert got['bt'].startswith(frames + ' ')
    assert got['pc'] == '%s %s' % (got['leaf'], got['ret0'])
    assert got['e'] == 'reached end of stack before unwinding to level 25'
    out, err, rc = stap('-c', '/bin/true', '-e', 'probe kernel.trace("sys_enter") { '
                        'if (pid() == target()) { println(uaddr() > 0 && ustack(0) == uaddr() '
                        '&& uaddr() < 0x800000000000); exit() } }')
    assert (out, rc) == ('1\n', 0), err
    out, err, rc = stap('-p3', '-e', 'probe begin { println(ucallers(1)) }')
    assert rc == 1 and 'the function ucallers() outside the handler of kernel function' in err, err


def test_loops_strings_ustack_guest(tmp_path):
    """Objects built here run in the test guest (6.1, whose verifier has
    bpf_loop() but takes its context on the stack as unchanged): a loop
    bounded by a global (each iteration a global function), bpf_strfn.c's
    string scans and the user stack at a uprobe on a function's entry,
    where 6.1's frame-pointer walk misses the caller (put back from the
    stack pointer)."""
    diff = Path(__file__).resolve().parent / 'diff' / 'control'
    assert stap('-p4', '-m', 'lg', '-DMAXACTION=20000', str(diff / 'loop_global_bound.stp'),
                cwd=tmp_path) == ('', '', 0)
    assert stap('-p4', '-m', 'st', '-e', 'probe begin { println(text_strn("a\\tb", 0, 1), " ", '
                'str_replace("aXbX", "X", "--"), " ", strtol("-0x1f", 16), " ", '
                'tokenize(",a,,b", ","), tokenize("", ","), " ", ctime(951782400)); exit() }',
                cwd=tmp_path) == ('', '', 0)
    src = tmp_path / 'fp.c'
    src.write_text(USTACK_PROG)
    subprocess.run(['gcc', '-O0', '-fno-omit-frame-pointer', '-o', str(tmp_path / 'fp'),
                    str(src)], check=True)
    assert stap('-p4', '-m', 'us', '-e', f'probe process("{tmp_path}/fp").function("leaf") {{ '
                'printf("c2 %s\\n", ucallers(2)) }', cwd=tmp_path) == ('', '', 0)
    batch = guest.run_batch([f'{STAPRUN} lg.bpf.o', f'{STAPRUN} st.bpf.o',
                             f'{STAPRUN} -c ./fp us.bpf.o'], scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    assert (batch[0].stdout, batch[0].stderr, batch[0].rc) == (
        (diff / 'loop_global_bound.out').read_text(), '', 0)
    assert (batch[1].stdout, batch[1].stderr, batch[1].rc) == (
        '"a\\tb" a--b-- -31 ab Tue Feb 29 00:00:00 2000\n', '', 0)
    got = dict(line.split(' ', 1) for line in batch[2].stdout.splitlines())
    assert batch[2].rc == 0, batch[2].stderr
    assert got['c2'] == '%s %s %s' % (got['leaf'], got['ret0'], got['ret1'])
