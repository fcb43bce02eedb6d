# Typed target variables without debuginfo, from the kernel's BTF:
# $var->member->sub, $ptr[i], arrays, bit fields, @cast(p, "type")->member,
# &...->member, @defined(...), kernel_string(), and the pretty-printed
# $var$, $var$$, $$parms$. Pass-2 errors are checked on the host; the
# rest runs in one boot of the test guest, triggered by commands run there
# while the modules are loaded. Every read of kernel memory is fault
# tolerant: a bad pointer is a script error, and the kernel stays healthy.
#
# The begin-probe scripts (UPSTREAM_SAME) need no kprobes, so SystemTap 4.8
# can run them too (its @cast builds the type from the kernel headers);
# their expected output is what 4.8 printed in the guest, byte for byte.
import re

import pytest

import guest
import kbtf
from conftest import STAPRUN, build_module, run_stap, without_reentrancy

VFS_READ = 'kernel.function("vfs_read")'
SCHED = '"task_struct", "kernel<linux/sched.h>"'

# ---- pass 2 ------------------------------------------------------------------

@pytest.mark.parametrize('expr,message', [
    ('$file->nosuch', "unable to find member 'nosuch' for struct file (alternatives: "),
    ('$file->f_path->x', "unable to find member 'x' for struct path (alternatives: mnt, dentry)"),
    ('$count->x', "invalid access '->x' vs. long unsigned int"),
    ('$file->f_path->dentry->d_iname->x', "invalid access '->x' for array type"),
    ('$file->f_path', "'struct path' is being accessed instead of a member such as '->mnt'"),
    ('$file[0]', "'struct file' is being accessed instead of a member such as '->f_llist'"),
    ('$nosuch->x', "target variable '$nosuch' is not available in "
     'kernel.function("vfs_read").call: no such parameter'),
])
def test_member_errors(krel, expr, message):
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {VFS_READ} {{ println({expr}) }}'])
    assert r.returncode == 1
    assert 'error: ' + message in r.stderr, r.stderr


@pytest.mark.parametrize('expr,message', [
    # upstream 4.8 gives the same text (it adds the alternatives and the
    # header's file:line), checked with /usr/bin/stap -p2
    (f'@cast(0, {SCHED})->nosuch', "unable to find member 'nosuch' for struct task_struct"),
    (f'@cast(0, {SCHED})->pid->x', "invalid access '->x' vs. int"),
    (f'@cast(0, {SCHED})->pid[1]', "invalid access '[1]' vs. int"),
    (f'@cast(0, {SCHED})->se[0]', "invalid access '[0]' for struct sched_entity"),
    (f'@cast(0, {SCHED})->comm->x', "invalid access '->x' for array type"),
    (f'&@cast(0, {SCHED})->in_execve', 'cannot take the address of a bit field'),
    (f'@cast(0, {SCHED})->se',
     "'struct sched_entity' is being accessed instead of a member such as '->load'"),
    (f'@cast(0, {SCHED})',
     "'struct task_struct' is being accessed instead of a member such as '->thread_info'"),
    ('@cast(0, "nosuch_t", "kernel<linux/sched.h>")->x',
     "type definition 'nosuch_t' not found in 'kernel<linux/sched.h>'"),
])
def test_cast_errors(krel, expr, message):
    r = run_stap(['-p2', '-r', krel, '-e', f'probe begin {{ println({expr}) }}'])
    assert r.returncode == 1
    assert 'error: ' + message in r.stderr, r.stderr


def test_cast_to_a_module_type(krel):
    # a module's own BTF (split on the kernel's): its types and the kernel's
    r = run_stap(['-p2', '-r', krel, '-e', 'probe begin { println(@cast(0, "p9_client", '
                  '"9pnet")->msize, @cast(0, "task_struct", "9pnet")->pid) }'])
    assert r.returncode == 0, r.stderr
    r = run_stap(['-p2', '-r', krel, '-e',
                  'probe begin { println(@cast(0, "p9_client", "kernel")->msize) }'])
    assert "error: type definition 'p9_client' not found in 'kernel'" in r.stderr


# 4.8 gives @cast(p, "T") without a module the probe's module only in a
# kernel or module function (or statement) body and a process DWARF one;
# elsewhere it has none (4.8, with or without the kernel's debuginfo:
# "semantic error: type definition 'task_struct' not found in '':
# operator '@cast' at <input>:1:23", then "unresolved type")
NO_MODULE = '@cast(0, "task_struct")->pid'


@pytest.mark.parametrize('point', ['begin', 'timer.s(1)', 'perf.sw.cpu_clock',
                                   'kprobe.function("vfs_read")',
                                   'kernel.trace("sched_switch")'])
def test_cast_without_module_refused(krel, point):
    script = f'probe {point} {{ println({NO_MODULE}) }}'
    r = run_stap(['-p2', '-r', krel, '-e', script])
    assert r.returncode == 1
    col = len(f'probe {point} {{ println(') + 1
    assert r.stderr.splitlines()[:3] == [
        f"<input>:1:{col}: error: type definition 'task_struct' not found in ''",
        f'    1 | {script}',
        '      | ' + ' ' * (col - 1) + '^'], r.stderr


@pytest.mark.parametrize('point,module', [('kernel.function("vfs_read")', 'kernel'),
                                          ('kernel.function("vfs_read").return', 'kernel'),
                                          ('module("9pnet").function("p9_client_create")',
                                           '9pnet')])
def test_cast_without_module_in_a_function_probe(krel, point, module):
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println({NO_MODULE}, '
                  '&@cast(0, "file")) }'])
    assert r.returncode == 0, r.stderr
    # 4.8 names the module it looked in: a module probe's own (its DWARF
    # there; here its BTF, split on the kernel's), with no kernel fallback
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println(@cast(0, "nosuch_t")->x) }}'])
    assert r.returncode == 1
    assert f"error: type definition 'nosuch_t' not found in '{module}'\n" in r.stderr, r.stderr


# 4.8 with the debuginfo: "type definition 'struct p9_fid' not found in 'ext4'"
# (each module's types, not another's nor only the kernel's);
# test_kdwarf_vmlinux.py checks them with the debuginfo
MODULE_CAST_DEFAULT = [
    ('module("9p").function("v9fs_vfs_lookup")', '@cast($dir, "struct p9_fid")->fid', None),
    ('module("ext4").function("ext4_file_open")',
     '@cast($inode, "struct ext4_sb_info")->s_mount_opt', None),
    ('module("ext4").function("ext4_file_open")', '@cast($inode, "struct p9_fid")->fid',
     "type definition 'struct p9_fid' not found in 'ext4'"),
    ('module("9p").function("v9fs_vfs_lookup")',
     '@cast($dir, "struct ext4_sb_info")->s_mount_opt',
     "type definition 'struct ext4_sb_info' not found in '9p'"),
]


@pytest.mark.parametrize('point,cast,said', MODULE_CAST_DEFAULT)
def test_cast_without_module_reads_the_module_btf(krel, point, cast, said):
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println({cast}) }}'])
    if said is None:
        assert r.returncode == 0, r.stderr
    else:
        assert r.returncode == 1
        col = len(f'probe {point} {{ println(') + 1
        assert r.stderr.splitlines()[0] == f'<input>:1:{col}: error: {said}'


def test_error_points_at_the_member_arrow(krel):
    # at the '->' before the member, as 4.8 says it ("operator '->' at
    # <input>:1:58")
    r = run_stap(['-p2', '-r', krel, '-e',
                  f'probe {VFS_READ} {{ println($file->f_path->x) }}'])
    assert '<input>:1:58: error: unable to find member' in r.stderr
    assert r.stderr.splitlines()[2].index('^') == r.stderr.splitlines()[1].index('->x) }')


def test_typed_accesses_pass2(krel):
    script = (f'probe {VFS_READ} {{ println($file->f_path->dentry->d_name->name[0], '
              '$file->f_path->dentry->d_iname, &$file->f_pos, $file$, $file$$, '
              '$$parms$, $$parms$$, $count$, $file->f_path$) }')
    r = run_stap(['-p2', '-r', krel, '-e', script])
    assert r.returncode == 0, r.stderr


def test_defined_folds_in_pass2(krel):
    # @defined is decided in pass 2: the unresolvable branch is dropped
    r = run_stap(['-p2', '-r', krel, '-e',
                  f'probe {VFS_READ} {{ println(@defined($file->nosuch) ? $file->nosuch : 7, '
                  '@defined($nosuch) ? $nosuch : 8) } '
                  'probe begin { println(@defined($file) ? $file : 9) }'])
    assert r.returncode == 0, r.stderr


def test_listing_shows_types(krel):
    r = run_stap(['-r', krel, '-L', VFS_READ])
    assert r.stdout == (f'{VFS_READ} $file:struct file* $buf:char* '
                        '$count:size_t $pos:loff_t*\n')
    r = run_stap(['-r', krel, '-L', 'kernel.trace("sched:sched_process_exec")'])
    assert r.stdout == ('kernel.trace("sched:sched_process_exec") $p:struct task_struct* '
                        '$old_pid:pid_t $bprm:struct linux_binprm*\n')


# ---- in the guest ---------------------------------------------------------------

UPSTREAM_SAME = {
    # @cast on task_current() in a begin probe: values, strings, arrays,
    # bit fields, addresses, @defined, pretty printing ('$' and '$$')
    'cast_begin': 'probe begin { t = task_current()\n'
                  f'printf("pid %d\\n", @cast(t, {SCHED})->pid == pid())\n'
                  f'println(@cast(t, {SCHED})->comm$)\n'
                  f'println(@cast(t, {SCHED})->pid$ == sprint(pid()))\n'
                  f'println(@cast(t, {SCHED})->comm[1])\n'
                  f'println(&@cast(t, {SCHED})->pid - t)\n'
                  f'println(@defined(@cast(t, {SCHED})->pid))\n'
                  f'println(@defined(@cast(t, {SCHED})->nosuch))\n'
                  # in_execve: 0 for stapio; 4.8 printed 0 when recorded, 1
                  # in a later run (its bit field read is at the task's
                  # first word, without the member's offset)
                  f'println(@cast(t, {SCHED})->in_execve)\n'
                  f'println(kernel_string(@cast(t, {SCHED})->comm))\n'
                  # a raw_spinlock_t and a union rcu_special over the
                  # stable comm bytes ("stap"), not the task's own pi_lock
                  # (held by another CPU waking the task) or
                  # rcu_read_unlock_special (need_qs, exp_hint: RCU state
                  # that lingers after a read-side section while a grace
                  # period is old, as on a loaded host)
                  f'println(@cast(&@cast(t, {SCHED})->comm, "raw_spinlock_t", '
                  '"kernel<linux/sched.h>")$$)\n'
                  f'println(@cast(t, {SCHED})->pi_lock$)\n'
                  f'println(@cast(t, {SCHED})->cpus_mask->bits$)\n'
                  'println(@cast(t, "qspinlock", "kernel<linux/sched.h>")$)\n'
                  f'println(@cast(t, {SCHED})->thread_pid->numbers$)\n'
                  f'println(@cast(t, {SCHED})->thread_pid$)\n'
                  f'println(@cast(t, {SCHED})->se->load$$)\n'
                  f'println(@cast(t, {SCHED})->cpus_mask$, " ", @cast(t, {SCHED})->cpus_mask$$)\n'
                  f'println(@cast(&@cast(t, {SCHED})->comm, "rcu_special", '
                  '"kernel<linux/sched.h>")$$)\n'
                  f'println(@cast(t, {SCHED})->perf_event_ctxp$, " ", '
                  f'@cast(t, {SCHED})->tlb_ubc$$)\n'
                  f'println(@cast(t, {SCHED})->policy$, " ", @cast(t, {SCHED})->prio$$)\n'
                  'exit() }',
    # @cast(p, "T")[i]: p as an array of T (a sizeof idiom of the examples)
    'cast_index': 'probe begin { println(&@cast(0, "uintptr_t", "kernel<linux/types.h>")[1], '
                  f'" ", @cast(task_current(), {SCHED})[0]->pid == pid(), " ", '
                  f'&@cast(16, {SCHED})[2]->pid - 16); exit() }}',
    # pretty printing through NULL or bad pointers gives "ERROR", no error
    'pretty_fault': 'probe begin { t = task_current()\n'
                    f'println(@cast(t, {SCHED})->pi_top_task$)\n'
                    f'println(@cast(t, {SCHED})->pi_top_task->pid$)\n'
                    f'println(@cast(t, {SCHED})->comm$$)\n'
                    'println(@cast(16, "list_head", "kernel<linux/sched.h>")$)\n'
                    'println("end"); exit() }',
    # a bad pointer: the script error, the session ends (MAXERRORS 0)
    'cast_fault': 'probe begin { println("a"); '
                  f'println(@cast(16, {SCHED})->pid); println("b") }} '
                  'probe begin(5) { exit() }',
}
UPSTREAM_OUTPUT = {
    'cast_begin': ('pid 1\n"stapio"\n1\n116\n{pid_off}\n1\n0\n0\nstapio\n'
                   "{.raw_lock={<union>={.val={.counter=1885434995}, <class>={.locked='s', "
                   ".pending='t'}, <class>={.locked_pending=29811, .tail=28769}}}}\n"
                   '{.raw_lock={...}}\n[1, ...]\n{<union>={...}}\n[{...}, ...]\n'
                   '{.count={...}, .level=0, .lock={...}, .tasks=[...], .inodes={...}, '
                   '.wait_pidfd={...}, .rcu={...}, .numbers=[...]}\n'
                   '{.weight=1048576, .inv_weight=4194304}\n'
                   '{.bits=[...]} {.bits=[1, ...]}\n'
                   "{.b={.blocked='s', .need_qs='t', .exp_hint='a', .need_mb='p'}, "
                   ".s=1885434995}\n"
                   '[0x0, ...] {.arch={.cpumask={.bits=[0, ...]}}, .flush_required=0, '
                   '.writable=0}\n0 120\n', '', 0),
    'cast_index': ('8 1 {pid_2}\n', '', 0),
    'pretty_fault': ('ERROR\nERROR\n"stapio"\nERROR\nend\n', '', 0),
    'cast_fault': ('a\n', 'ERROR: read fault [man error::fault] at {pid_16} near operator '
                   "'@cast' at <input>:1:37\nWARNING: Number of errors: 1, skipped probes: 0\n",
                   1),
}

KPROBES = {
    # $file->f_path->dentry->d_name->name: the file `cat` reads
    'vfs_read': 'global done probe kernel.function("vfs_read") {\n'
                'if (execname() == "cat" && !done &&\n'
                '    kernel_string($file->f_path->dentry->d_name->name) == "hostname") {\n'
                'done = 1\n'
                'println(kernel_string($file->f_path->dentry->d_name->name))\n'
                'println($file->f_path->dentry->d_name->len, " ", $file->f_path->dentry->d_name$)\n'
                'println($file->f_path->dentry->d_parent->d_iname$, " ", '
                'kernel_string($file->f_path->dentry->d_parent->d_iname))\n'
                'printf("%o %d %d\\n", $file->f_path->dentry->d_inode->i_mode & 0170000, '
                '$count > 0, $file->f_path->dentry->d_name->name[1])\n'
                'println(@defined($file->f_path->dentry), @defined($file->nosuch), '
                '@defined($nosuch), @defined($count))\n'
                'println($count$, " ", $count$$, " ", sprint($count) == $count$$)\n'
                'println($$parms)\nprintln($$parms$)\n'
                '} } probe timer.s(30) { exit() }',
    # a struct filename* parameter, its array member's address, atomic_t,
    # and @cast of $return in the .return probe
    'filp_open': 'global done probe kernel.function("do_filp_open") {\n'
                 'if (execname() == "cat" && !done && kernel_string($pathname->name) == "/etc/hostname") {\n'
                 'done = 1\n'
                 'printf("%s %d %s\\n", kernel_string($pathname->name), $dfd, $pathname->name$)\n'
                 'printf("%d %d\\n", &$pathname->iname[0] - $pathname, $pathname->refcnt->counter)\n'
                 '} }\n'
                 'probe kernel.function("do_filp_open").return { if (execname() == "cat" && done == 1) {\n'
                 'done = 2\n'
                 'printf("ret %d %d\\n", $return != 0, @cast($return, "file")->f_path->dentry->d_name->len)\n'
                 'println(substr($$return$, 0, 21))\n'
                 '} } probe timer.s(30) { exit() }',
    # a user-space char* parameter: user_string() and $filename$ (quoted),
    # a struct open_how* pretty printed
    'user_str': 'global done probe kernel.function("do_sys_openat2") {\n'
                'if (execname() == "cat" && !done && user_string($filename, "?") == "/etc/hostname") {\n'
                'done = 1\n'
                'printf("%s %s %d\\n", user_string($filename), $filename$, $how->flags)\n'
                'println($how$)\n'
                '} } probe timer.s(30) { exit() }',
    # a tracepoint's struct arguments
    'tp_exec': 'global n probe kernel.trace("sched:sched_process_exec") { if (n++ == 0) {\n'
               'println(kernel_string($bprm->filename), " ", $p->pid == pid(), " ", $old_pid == pid())\n'
               'println($p->comm$, " ", @cast(task_current(), "task_struct", "kernel")->pid == pid())\n'
               'println(kernel_string($p->comm))\n'
               '} } probe timer.s(30) { exit() }',
    # bad pointers in a kprobe handler: a user address as a struct file*,
    # and a computed index far outside any mapping
    'bad_cast': 'probe kernel.function("vfs_read") { if (execname() == "cat") '
                'println(@cast($buf, "file")->f_path->dentry) } '
                'probe timer.s(30) { println("not reached"); exit() }',
    'bad_index': 'probe kernel.function("vfs_read") { if (execname() == "cat") '
                 'println($file->f_path->dentry->d_name->name[$count * 4096 + 0x7fff00000000]) } '
                 'probe timer.s(30) { println("not reached"); exit() }',
}


def trigger(name, command):
    # -c: the command starts once the probes are armed, and its end ends
    # the session (a sleep before it lost the race on a loaded host)
    return (f"{STAPRUN} -c '{command}' {name}.ko > {name}.out 2> {name}.err; "
            f'echo "rc=$?"; cat {name}.out; cat {name}.err >&2')


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('btfderef')
    scripts = {**UPSTREAM_SAME, **KPROBES}
    for name, script in scripts.items():
        build_module(name, script, krel, scratch)
    commands = [f'{STAPRUN} {n}.ko' for n in UPSTREAM_SAME]
    for name in KPROBES:
        commands.append(trigger(name, '/bin/true' if name == 'tp_exec'
                                else 'cat /etc/hostname > /dev/null'))
    commands.append('grep -c -E "^(' + '|'.join(scripts) + ') " /proc/modules; true')
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=120)
    guest.check_kernel_healthy(batch)
    return dict(zip(list(scripts) + ['lsmod'], batch))


def upstream_output(name):
    """UPSTREAM_OUTPUT[name] with the guest kernel's offsets: 4.8 printed
    offsetof(task_struct, pid), 2 * sizeof(task_struct) + that offset, and
    16 + it in hex (2416, 22000, 0x980 on Debian's 6.1 kernel)."""
    pid = kbtf.offsetof('task_struct', 'pid')
    subst = {'{pid_off}': str(pid), '{pid_2}': str(2 * kbtf.sizeof('task_struct') + pid),
             '{pid_16}': f'0x{16 + pid:x}'}
    out, err, rc = UPSTREAM_OUTPUT[name]
    for k, v in subst.items():
        out, err = out.replace(k, v), err.replace(k, v)
    return out, err, rc


@pytest.mark.parametrize('name', list(UPSTREAM_SAME))
def test_same_as_upstream(run, name):
    r = run[name]
    assert (r.stdout, r.stderr, r.rc) == upstream_output(name)


def test_vfs_read_file_name(run):
    r = run['vfs_read']
    assert without_reentrancy(r.stderr) == ''
    lines = r.stdout.splitlines()
    assert lines[:7] == [
        'rc=0', 'hostname', '8 {<union>={...}, .name="hostname"}', '"etc" etc',
        '100000 1 111', '1001', '524288 524288 1']
    assert re.fullmatch(r'file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x80000 pos=0x[0-9a-f]+',
                        lines[7]), lines[7]
    # $$parms$: the struct file one level deep, the user buffer as an address
    assert re.fullmatch(r'file=\{<union>=\{\.\.\.\}, \.f_path=\{\.\.\.\}, \.f_inode=0x[0-9a-f]+, '
                        r'.*, \.f_flags=32768, .*\} buf=0x[0-9a-f]+ count=524288 '
                        r'pos=0x[0-9a-f]+', lines[8]), lines[8]
    assert len(lines) == 9


def test_filename_struct_and_return_cast(run):
    r = run['filp_open']
    assert (r.stdout, r.stderr) == (
        'rc=0\n/etc/hostname -100 "/etc/hostname"\n32 1\nret 1 8\nreturn={<union>={...}\n', '')


def test_user_string_and_pretty_struct(run):
    r = run['user_str']
    assert (r.stdout, r.stderr) == (
        'rc=0\n/etc/hostname "/etc/hostname" 32768\n{.flags=32768, .mode=0, .resolve=0}\n', '')


def test_tracepoint_struct_args(run):
    r = run['tp_exec']
    assert (r.stdout, r.stderr) == ('rc=0\n/bin/true 1 1\n"true" 1\ntrue\n', '')


def test_bad_user_pointer_is_a_script_error(run):
    r = run['bad_cast']
    assert r.stdout == 'rc=1\n'
    assert re.fullmatch(r"ERROR: read fault \[man error::fault\] at 0x[0-9a-f]+ near operator "
                        r"'@cast' at <input>:1:70\n"
                        r'WARNING: Number of errors: 1, skipped probes: 0\n', r.stderr), r.stderr


def test_bad_index_is_a_script_error(run):
    r = run['bad_index']
    assert r.stdout == 'rc=1\n'
    assert re.fullmatch(r"ERROR: read fault \[man error::fault\] at 0x[0-9a-f]+ near identifier "
                        r"'\$file' at <input>:1:70\n"
                        r'WARNING: Number of errors: 1, skipped probes: 0\n', r.stderr), r.stderr


def test_all_modules_unloaded(run):
    assert run['lsmod'].stdout == '0\n'


def test_misspelt_parameter_hint(krel):
    # a parameter name with a typo: the nearest one is suggested, as for
    # tapset variables (4.8 lists its "alternatives" in its DWARF error)
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {VFS_READ} {{ println($fle) }}'])
    assert r.returncode == 1
    assert ("error: target variable '$fle' is not available in kernel.function(\"vfs_read\")"
            ".call: no such parameter; did you mean '$file'?\n") in r.stderr
    r = run_stap(['-p2', '-r', krel, '-e', f'probe {VFS_READ} {{ println($cont) }}'])
    assert "no such parameter; did you mean '$count'?\n" in r.stderr
