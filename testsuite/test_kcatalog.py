# The kernel probe-point catalog (translator/info/kcatalog.h) through its test
# driver kcat-dump, for the installed Debian 6.1 kernel: function names and
# prototypes from the BTF inside /boot/vmlinuz-*, tracepoints with the
# subsystem and parameter names of the kernel's trace headers. The expected
# facts come from the 6.1 sources (fs/read_write.c, include/trace/events/
# *.h, arch/x86/include/asm/trace/*.h) and agree with what Debian's
# SystemTap 4.8 lists for the same kernel (stap -L 'kernel.trace("*:*")').
import os
import subprocess
from pathlib import Path

import pytest

import guest
from conftest import BUILD

KCAT = BUILD / 'translator' / 'kcat-dump'


@pytest.fixture(scope='module')
def cache(tmp_path_factory):
    """A private $SYSTEMTAP_DIR: the first run extracts, later ones hit."""
    return tmp_path_factory.mktemp('systemtap_dir')


def kcat(cache, *args, release=None):
    env = dict(os.environ, SYSTEMTAP_DIR=str(cache))
    argv = [str(KCAT)] + (['-r', release] if release else []) + list(args)
    return subprocess.run(argv, capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.fixture(scope='module')
def dump(cache, krel):
    """kcat-dump for the guest kernel; the first call fills the cache."""
    assert KCAT.exists(), f'{KCAT} is not built: run make first'

    def run(*args):
        return kcat(cache, *args, release=krel)
    return run


def info(proc):
    assert proc.returncode == 0, proc.stderr
    return dict(line.split(': ', 1) for line in proc.stdout.splitlines())


def lines(proc):
    return proc.stdout.splitlines()


# ---- where the BTF comes from, and the cache ------------------------------------

def test_cold_then_cached(dump, cache, krel):
    vmlinuz = Path('/boot') / f'vmlinuz-{krel}'
    cold = info(dump('info'))
    assert cold['btf'] == str(vmlinuz)
    btf = cache / 'cache' / krel / 'vmlinux.btf'
    assert btf.read_bytes()[:4] == b'\x9f\xeb\x01\x00'   # raw BTF, v1
    key = (cache / 'cache' / krel / 'vmlinux.btf.key').read_text()
    assert key.startswith(f'{vmlinuz} {vmlinuz.stat().st_size} ')
    warm = info(dump('info'))
    assert warm['btf'] == f'{btf} (from {vmlinuz})'
    for k in ('functions', 'tracepoints', 'tracepoints_without_system'):
        assert warm[k] == cold[k]
    assert (cache / 'cache' / krel / 'tracepoints').exists()


def test_cached_tracepoints_match_fresh_ones(dump, cache, tmp_path, krel):
    warm = dump('tpargs', '*:*')
    cold = kcat(tmp_path, 'tpargs', '*:*', release=krel)
    assert cold.returncode == 0, cold.stderr
    assert warm.stdout == cold.stdout
    table = (cache / 'cache' / krel / 'tracepoints').read_text().splitlines()
    assert table[0] == 'stap-kcatalog-tracepoints 3'
    assert table[1].startswith('S /')
    assert 'T sched sched_switch preempt prev next prev_state' in table


def test_stale_tracepoint_cache_is_rebuilt(dump, cache, krel):
    dump('info')
    table = cache / 'cache' / krel / 'tracepoints'
    lines_ = table.read_text().splitlines()
    lines_[1] = 'S /nonexistent'
    lines_ = [ln.replace(' prev_state', ' bogus') for ln in lines_]
    table.write_text('\n'.join(lines_) + '\n')
    assert lines(dump('tpargs', 'sched:sched_switch'))[0].endswith(
        '$prev_state:unsigned int')
    assert table.read_text().splitlines()[1] != 'S /nonexistent'


def test_stale_cache_is_rebuilt(dump, cache, krel):
    dump('info')
    keyfile = cache / 'cache' / krel / 'vmlinux.btf.key'
    keyfile.write_text('/boot/vmlinuz-other 1 1.0\n')
    assert info(dump('info'))['btf'] == f'/boot/vmlinuz-{krel}'
    assert keyfile.read_text().startswith(f'/boot/vmlinuz-{krel} ')


def test_build_dir_vmlinux(tmp_path, krel):
    """-r DIR: a vmlinux in the build directory is read directly."""
    g = guest.Guest(krel)
    g.prepare()
    (tmp_path / 'include' / 'config').mkdir(parents=True)
    (tmp_path / 'include' / 'config' / 'kernel.release').write_text(krel + '\n')
    (tmp_path / 'vmlinux').symlink_to(g.vmlinux)
    p = kcat(tmp_path / 'sd', 'info', release=str(tmp_path))
    got = info(p)
    assert got['btf'] == f'{tmp_path}/vmlinux'
    assert int(got['functions']) > 40000
    # the headers are found through /lib/modules/RELEASE/source
    assert int(got['tracepoints']) - int(got['tracepoints_without_system']) > 580
    assert p.stderr == ''
    assert not (tmp_path / 'sd' / 'cache' / krel / 'vmlinux.btf').exists()


def test_running_kernel_uses_sysfs(cache):
    p = kcat(cache, 'info')
    if Path('/sys/kernel/btf/vmlinux').exists():
        assert info(p)['btf'] == '/sys/kernel/btf/vmlinux'
    else:
        assert 'btf: /sys/kernel/btf/vmlinux' not in p.stdout


def test_unknown_release_says_what_was_tried(cache):
    p = kcat(cache, 'info', release='0.0-nosuch')
    assert p.returncode == 2
    assert p.stdout == ''
    assert p.stderr == (
        'stap: error: cannot read the BTF of kernel 0.0-nosuch (function and '
        'tracepoint names come from it); tried /sys/kernel/btf/vmlinux (not '
        'the running kernel), /lib/modules/0.0-nosuch/build/vmlinux (No such '
        'file or directory), /boot/vmlinuz-0.0-nosuch (No such file or '
        'directory)\n')


# ---- functions ------------------------------------------------------------------------

def test_counts(dump):
    got = info(dump('info'))
    assert int(got['functions']) > 40000
    assert int(got['tracepoints']) > 600
    assert int(got['tracepoints_without_system']) < 60


def test_function_exists(dump):
    assert lines(dump('functions', 'vfs_read')) == ['vfs_read']
    assert lines(dump('functions', 'ksys_read')) == ['ksys_read']


def test_function_wildcards(dump):
    assert lines(dump('functions', 'vfs_rea?')) == ['vfs_read']
    assert lines(dump('functions', 'vfs_[rw]rite')) == ['vfs_write']
    got = lines(dump('functions', 'vfs_*'))
    assert {'vfs_read', 'vfs_write', 'vfs_open', 'vfs_fsync'} <= set(got)
    assert got == sorted(set(got))
    everything = lines(dump('functions', '*'))
    assert everything == sorted(set(everything))
    assert len(everything) > 40000


def test_no_such_function(dump):
    for pattern in ['no_such_function_xyz', 'no_such_*', 'vfs_read?x']:
        p = dump('functions', pattern)
        assert (p.returncode, p.stdout) == (1, '')
    p = dump('proto', 'no_such_function_xyz')
    assert (p.returncode, p.stdout) == (1, '')


def test_vfs_read_proto(dump):
    assert lines(dump('proto', 'vfs_read')) == [
        'vfs_read(struct file* file, char* buf, size_t count, loff_t* pos)',
        'kernel.function("vfs_read") $file:struct file* $buf:char* '
        '$count:size_t $pos:loff_t*',
        'kernel.function("vfs_read").return $return:ssize_t '
        '$file:struct file* $buf:char* $count:size_t $pos:loff_t*',
    ]


def test_const_void_and_varargs_protos(dump):
    assert lines(dump('proto', 'do_sys_open'))[0] == \
        'do_sys_open(int dfd, char const* filename, int flags, umode_t mode)'
    assert lines(dump('proto', 'schedule')) == [
        'schedule(void)', 'kernel.function("schedule")',
        'kernel.function("schedule").return']
    assert lines(dump('proto', '_printk'))[0] == '_printk(char const* fmt, ...)'


# ---- tracepoints ------------------------------------------------------------------------

def test_sched_switch(dump):
    assert lines(dump('tpargs', 'sched:sched_switch')) == [
        'kernel.trace("sched:sched_switch") $preempt:bool '
        '$prev:struct task_struct* $next:struct task_struct* '
        '$prev_state:unsigned int']
    # a bare name matches in any subsystem
    assert lines(dump('tracepoints', 'sched_switch')) == \
        ['kernel.trace("sched:sched_switch")']


def test_sched_glob(dump):
    got = lines(dump('tracepoints', 'sched:sched_process_*'))
    assert got == [f'kernel.trace("sched:sched_process_{n}")' for n in
                   ['exec', 'exit', 'fork', 'free', 'hang', 'wait']]
    assert lines(dump('tpargs', 'sched:sched_process_exec')) == [
        'kernel.trace("sched:sched_process_exec") $p:struct task_struct* '
        '$old_pid:pid_t $bprm:struct linux_binprm*']


def test_declare_trace_without_event(dump):
    """DECLARE_TRACE tracepoints (no trace event) still have a subsystem."""
    assert lines(dump('tpargs', 'sched_update_nr_running_tp')) == [
        'kernel.trace("sched:sched_update_nr_running_tp") $rq:struct rq* '
        '$change:int']


def test_wrapper_macros_and_arch_headers(dump):
    # arch/x86/include/asm/trace/irq_vectors.h: name##_entry in a wrapper
    assert lines(dump('tpargs', 'irq_vectors:local_timer_*')) == [
        'kernel.trace("irq_vectors:local_timer_entry") $vector:int',
        'kernel.trace("irq_vectors:local_timer_exit") $vector:int']
    # include/trace/events/rcu.h: TRACE_EVENT_RCU, defined by the header
    assert lines(dump('tpargs', 'rcu:rcu_utilization')) == [
        'kernel.trace("rcu:rcu_utilization") $s:char const*']
    # include/trace/events/module.h sets TRACE_SYSTEM under CREATE_TRACE_POINTS
    assert lines(dump('tracepoints', 'module_load')) == \
        ['kernel.trace("module:module_load")']


def test_function_pointer_and_volatile_types(dump):
    assert lines(dump('tpargs', 'cpuhp:cpuhp_multi_enter')) == [
        'kernel.trace("cpuhp:cpuhp_multi_enter") $cpu:unsigned int '
        '$target:int $idx:int $fun:int (*) (unsigned int, struct hlist_node*) '
        '$node:struct hlist_node*']
    assert lines(dump('tpargs', 'raw_syscalls:sys_enter')) == [
        'kernel.trace("raw_syscalls:sys_enter") $regs:struct pt_regs* '
        '$id:long int']


def test_tracepoint_without_shipped_header(dump):
    """drivers/base/trace.h is not in the headers package: no subsystem;
    the names come from the BTF function of the tracepoint's class."""
    assert lines(dump('tpargs', 'devres_log')) == [
        'kernel.trace("devres_log") $dev:struct device* $op:char const* '
        '$node:void* $name:char const* $size:size_t']
    assert lines(dump('tracepoints', '*:devres_log')) == \
        ['kernel.trace("devres_log")']


def test_every_header_tracepoint_has_named_args(dump):
    """Where a header declares the tracepoint, its TP_PROTO and the BTF
    agree on the arity, so no argument falls back to $argN."""
    with_system = [t for t in lines(dump('tpargs', '*:*'))
                   if t.startswith('kernel.trace("') and ':' in t.split('"')[1]]
    assert len(with_system) > 580
    assert [t for t in with_system if ' $arg1:' in t] == []


def test_tracepoints_sorted_and_systems(dump):
    got = lines(dump('tracepoints', '*:*'))
    keys = [tuple(t.split('"')[1].rpartition(':')[::2]) for t in got]
    assert keys == sorted(keys)
    systems = {k[0] for k in keys if k[0]}
    assert {'sched', 'raw_syscalls', 'irq', 'block', 'net',
            'skb', 'timer', 'workqueue', 'signal', 'kmem', 'writeback',
            'irq_vectors', 'mce'} <= systems
    assert len(systems) > 80


def test_no_such_tracepoint(dump):
    for pattern in ['sched:no_such_tp', 'no_such_system:*', 'no_such_tp_xyz']:
        p = dump('tracepoints', pattern)
        assert (p.returncode, p.stdout) == (1, '')
    p = dump('tpargs', 'sched:no_such_tp')
    assert (p.returncode, p.stdout) == (1, '')
