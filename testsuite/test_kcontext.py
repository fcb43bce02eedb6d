# Context functions of kernel probes without debuginfo: @entry() in .return
# probes, register()/u_register(), int_arg() and friends, returnval(),
# returnstr(), print_regs(), addr(), symname(), symdata(), modname(),
# probemod(), backtrace(), print_backtrace(), sprint_backtrace(),
# print_stack(), sprint_stack(), caller(), caller_addr().
#
# SystemTap 4.8 runs the kprobe.function() scripts of UPSTREAM (given a
# System.map) but has no symbols or unwind data for the kernel without its
# debuginfo: it prints bare addresses, repeats the first frame of a
# backtrace (its fallback unwinder) and cannot name modules. Its outputs,
# recorded once in kcontext/upstream.json (`test_kcontext.py --record`),
# are the reference: values and addresses must be the same, and where
# 4.8 printed an address we print it the way 4.8 does when it has the
# kernel's symbols (` 0xADDR : name+0xoff/0xsize [kernel]`), with the
# symbols checked against the guest's /proc/kallsyms.
import json
import re
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import guest  # noqa: E402
from conftest import STAPRUN, run_stap  # noqa: E402

UPSTREAM_FILE = HERE / 'kcontext' / 'upstream.json'
OPENAT = 'kprobe.function("do_sys_openat2")'
FIRST = 'if (done || execname() != "cat") next\n  done = 1\n'

UPSTREAM = {
    # at the entry of do_sys_openat2 (cat opening its first file)
    'entry': 'global done\nprobe ' + OPENAT + ' {\n  ' + FIRST + '''
  printf("addr %x %s %s\\n", addr(), symname(addr()), symdata(addr()))
  printf("caller %s %x\\n", caller(), caller_addr())
  println("bt ", backtrace())
  print_backtrace()
  println("sbt ", sprint_backtrace())
  print_stack(backtrace())
  println("ss ", sprint_stack(backtrace()))
  println("reg ", register("rdi"), " ", u_register("edi"), " ", register("edi"), " ", register("di"))
  println("args ", int_arg(1), " ", uint_arg(1), " ", long_arg(1), " ", ulong_arg(1), " ",
          pointer_arg(2) != 0, " ", s32_arg(1), " ", u32_arg(1), " ", s64_arg(1), " ", u64_arg(1))
  asmlinkage()
  println("ip ", register("rip") == addr(), " ", register("rsp") != 0, " ", u_register("eflags"))
  print_regs()
}
probe timer.s(60) { exit() }
''',
    # returning from it: returnval(), returnstr(), @entry()
    'return': 'global done, done2\nprobe ' + OPENAT + '.return {\n  ' + FIRST + '''
  println("ret ", returnval(), " ", returnstr(1), " ", returnstr(2), " ", returnstr(3), " ",
          register("rax"), " ", register("eax"))
  println("entry ", @entry(int_arg(1)), " ", @entry(execname()), " ", @entry(int_arg(1) + 1))
  printf("addr %x %s %s\\n", addr(), symname(addr()), symdata(addr()))
  println("caller ", caller())
  print_backtrace()
  println("bt ", backtrace())
  println("sbt ", sprint_backtrace())
}
probe ''' + OPENAT + '''.return {
  if (done2 || execname() != "cat" || returnval() >= 0) next
  done2 = 1
  println("ret2 ", returnval(), " ", returnstr(1), " ", returnstr(2), " ", returnstr(3))
}
probe timer.s(60) { exit() }
''',
    # without registers (begin): the errors, and the no-register results
    'begin': '''probe begin {
  try { println(register("rax")) } catch(e) { println("E1 ", e) }
  try { println(u_register("rax")) } catch(e) { println("E2 ", e) }
  try { println(int_arg(1)) } catch(e) { println("E3 ", e) }
  try { println(returnval()) } catch(e) { println("E4 ", e) }
  try { println(returnstr(1)) } catch(e) { println("E5 ", e) }
  try { println(addr()) } catch(e) { println("E6 ", e) }
  try { println(symname(0), " ", symdata(0), " ", symname(12345), " ", symdata(12345)) } catch(e) { println("E10 ", e) }
  try { println(modname(0)) } catch(e) { println("E11 ", e) }
  try { print_regs() } catch(e) { println("E15 ", e) }
  try { print_stack("") } catch(e) { println("E16 ", e) }
  try { println("[", sprint_stack(""), "]") } catch(e) { println("E17 ", e) }
  try { print_stack("0x0 0x1") } catch(e) { println("E18 ", e) }
  try { println("[", sprint_stack("0x0 0x1"), "]") } catch(e) { println("E19 ", e) }
  exit()
}
''',
    # bad register names and argument numbers, sub-registers
    'errors': 'global done\nprobe ' + OPENAT + ' {\n  ' + FIRST + '''
  try { println(register("foo")) } catch(e) { println("E1 ", e) }
  try { println(int_arg(0)) } catch(e) { println("E2 ", e) }
  try { println(int_arg(7) != 0) } catch(e) { println("E3 ", e) }
  try { println(int_arg(-1)) } catch(e) { println("E3b ", e) }
  try { println(returnval() == register("rax")) } catch(e) { println("E4 ", e) }
  try { println(returnstr(1) == sprint(register("rax"))) } catch(e) { println("E5 ", e) }
  try { println(register("ah"), " ", register("al"), " ", u_register("al"), " ", register("orig_rax"), " ", register("xcs"), " ", register("cs")) } catch(e) { println("E8 ", e) }
  try { println(u_register("ax"), " ", register("ax"), " ", register("ss"), " ", register("flags") == register("eflags")) } catch(e) { println("E9 ", e) }
}
probe timer.s(60) { exit() }
''',
    # 4.8 cannot name the kernel without its symbols: an error there
    'modname': 'global done\nprobe ' + OPENAT + ' {\n  ' + FIRST + '''
  try { println(modname(addr())) } catch(e) { println("E7 ", e) }
  println(probemod())
}
probe timer.s(60) { exit() }
''',
}

OURS = {
    # @entry in kernel.function().return (4.8 needs debuginfo for these):
    # parameters, strings, expressions, and $var meaning its entry value
    'entry_kfunc': '''global done, n2
probe kernel.function("do_sys_openat2").return {
  if (done || execname() != "cat") next
  done = 1
  printf("%d %d %s %s %d %s\\n", @entry($dfd), $dfd, @entry(user_string($filename)),
         @entry(execname()), $return, @entry(sprintf("%d", $dfd + 1)))
}
probe kprobe.function("do_sys_openat2").return {
  if (n2 || execname() != "cat") next
  n2 = 1
  printf("kp %d %s %d\\n", @entry(int_arg(1)), @entry(user_string(pointer_arg(2))), returnval())
}
probe timer.s(60) { exit() }
''',
    # each call has its own @entry values: nested, and many at once
    'entry_nested': '''global bad, n
probe kernel.function("vfs_read").return {
  if (@entry($count) != $count || @entry($file) != $file) bad++
  n++
}
probe end { printf("n>0 %d bad %d\\n", n > 0, bad) }
''',
}

OURS['stack'] = 'global done\nprobe ' + OPENAT + ' {\n  ' + FIRST + '''
  bt = backtrace()
  println(callers(1) == sprintf("0x%x 0x%x", stack(0), stack(1)), " ",
          callers(-1) . " " == bt, " ", stack(0) == addr(), " ", caller_addr() == stack(1))
  try { println(stack(20)) } catch(e) { println(e) }
  try { println(callers(20)) } catch(e) { println(e) }
}
probe timer.s(60) { exit() }
'''

# guru mode: writing a parameter's register at entry and $return
GURU = {
    'write': '''probe kernel.function("do_sys_openat2") {
  if (execname() == "cat" && user_string($filename) == "hostname") {
    $dfd = 12345; $dfd = $dfd + 1; printf("dfd %d %d %d\\n", $dfd, $dfd = 7, $dfd)
  }
}
probe kernel.function("do_sys_openat2").return {
  if (execname() == "cat" && @entry(user_string($filename)) == "/nonexistent-kctx") {
    $return = -13; println("ret ", $return, " ", returnval())
  }
}
probe timer.s(60) { exit() }
''',
}
# a sampled user-mode context has registers but no kernel stack
PROFILE = '''global u, k
probe timer.profile { if (backtrace() == "") u++; else k++ }
probe end { printf("user %d kernel %d\\n", u > 0, k > 0) }
'''
PROFILE_TRIGGER = ("{staprun} -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' "
                   'profile.ko > profile.out 2> profile.err; '
                   'echo "rc=$?"; cat profile.out; cat profile.err >&2')
WRITE_TRIGGER = ("{staprun} -c '(cd /etc && cat hostname) 2>>cat.err; "
                 "cat /nonexistent-kctx 2>>cat.err; true' "
                 'write.ko > write.out 2> write.err; '
                 'rc=$?; cat cat.err; echo "rc=$rc"; cat write.out; cat write.err >&2')

SCRIPTS = {**UPSTREAM, **OURS}


def trigger(name, staprun):
    """Run module `name`; once its probes are armed (staprun -c), cat
    opens files, and the command's end ends the session (a sleep before
    the command lost the race on a loaded host)."""
    command = 'cat /nonexistent-file 2>/dev/null; cat /etc/hostname >/dev/null; /bin/true'
    return (f"{staprun} -c '{command}' {name}.ko > {name}.out 2> {name}.err; "
            f'echo "rc=$?"; cat {name}.out; cat {name}.err >&2')


KALLSYMS = 'grep -v "\\[" /proc/kallsyms | sort'


def parse_kallsyms(text):
    syms = []
    for line in text.splitlines():
        a, _, name = line.split()[:3]
        syms.append((int(a, 16), name))
    syms.sort()
    return syms


def symdata(syms, addr, size=True):
    """name+0xoff/0xsize [kernel], as kallsyms sizes a symbol."""
    lo, hi = 0, len(syms)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if syms[mid][0] <= addr:
            lo = mid
        else:
            hi = mid
    base, name = syms[lo]
    nxt = next(a for a, _ in syms[lo:] if a > base)
    if not size:
        return f'{name}+{addr - base:#x} [kernel]'
    return f'{name}+{addr - base:#x}/{nxt - base:#x} [kernel]'


def symname(syms, addr):
    return symdata(syms, addr).split('+')[0]


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('kcontext')
    for name, script in {**SCRIPTS, **GURU, 'profile': PROFILE}.items():
        r = run_stap(['-p4', '-r', krel, '-m', name, '-e', script] +
                     (['-g'] if name in GURU else []), cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    commands = [trigger(n, STAPRUN) for n in SCRIPTS] + [KALLSYMS] + \
        [WRITE_TRIGGER.format(staprun=STAPRUN), PROFILE_TRIGGER.format(staprun=STAPRUN)]
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=60)
    guest.check_kernel_healthy(batch)
    res = dict(zip(list(SCRIPTS) + ['kallsyms', 'write', 'profile'], batch))
    res['syms'] = parse_kallsyms(res['kallsyms'].stdout)
    return res


@pytest.fixture(scope='module')
def upstream():
    return json.loads(UPSTREAM_FILE.read_text())


def lines_of(r):
    assert r.stdout.startswith('rc=0\n'), (r.stdout, r.stderr)
    return r.stdout[5:].split('\n')


def hexes(line):
    return [int(x, 16) for x in re.findall(r'0x[0-9a-f]+', line)]


def test_entry_values_as_upstream(run, upstream):
    ours, up = lines_of(run['entry']), upstream['entry']['stdout'].split('\n')
    assert run['entry'].stderr == ''
    for key in ('reg ', 'args ', 'ip '):
        assert [x for x in ours if x.startswith(key)] == [x for x in up if x.startswith(key)]


def test_entry_symbols(run, upstream):
    syms, ours = run['syms'], lines_of(run['entry'])
    up = upstream['entry']['stdout'].split('\n')
    addr = hexes(up[0])[0]
    # 4.8's fallback unwinder repeats the probe point: the frames are the
    # rest of its backtrace() after the duplicate
    frames = hexes(up[2])
    assert frames[0] == frames[1] == addr
    frames = frames[1:]
    assert ours[0] == f'addr {addr:x} {symname(syms, addr)} {symdata(syms, addr)}'
    assert ours[1] == f'caller {symname(syms, frames[1])} {frames[1]:#x} {frames[1]:x}'
    assert ours[2] == 'bt ' + ''.join(f'{a:#x} ' for a in frames)
    full = [f' {a:#x} : {symdata(syms, a)}' for a in frames]
    n = len(frames)
    assert ours[3:3 + n] == full
    simple = [symdata(syms, a, size=False) for a in frames]
    assert ours[3 + n:3 + 2 * n + 1] == ['sbt ' + simple[0]] + simple[1:] + ['']
    assert ours[4 + 2 * n:4 + 3 * n] == full
    assert ours[4 + 3 * n:5 + 4 * n] == ['ss ' + full[0]] + full[1:] + ['']


def test_print_regs(run, upstream):
    ours = lines_of(run['entry'])
    up = upstream['entry']['stdout'].split('\n')
    i, j = ours.index(next(x for x in ours if x.startswith('RIP: '))), \
        up.index(next(x for x in up if x.startswith('RIP: ')))
    shape = re.compile(r'[0-9a-f]{4,16}')
    assert [shape.sub('H', x) for x in ours[i:]] == [shape.sub('H', x) for x in up[j:]]
    assert ours[i] == up[j]         # RIP: the probe point
    assert ours[i + 3].split()[-1] == up[j + 3].split()[-1]   # RDI: dfd


def test_return_as_upstream(run, upstream):
    syms, ours = run['syms'], lines_of(run['return'])
    up = upstream['return']['stdout'].split('\n')
    assert run['return'].stderr == ''
    assert ours[:2] == up[:2]       # ret ..., entry ...
    assert ours[-2:] == up[-2:]     # ret2 -2 -2 (ENOENT) ...
    ret_to = hexes(up[2])[0]
    assert ours[2] == f'addr {ret_to:x} {symname(syms, ret_to)} {symdata(syms, ret_to)}'
    frm = hexes(up[4])[0]
    frames = hexes(next(x for x in up if x.startswith('bt ')))
    assert frames[0] == frames[1] == ret_to
    frames = frames[1:]
    assert ours[3] == f'caller {symname(syms, frames[1])} {frames[1]:#x}'
    full = [f' {a:#x} : {symdata(syms, a)}' for a in frames]
    assert ours[4:6 + len(frames)] == [f'Returning from: {frm:#x} : {symdata(syms, frm)}'.replace(': 0x', ':  0x', 1),
                                       'Returning to  : ' + full[0]] + full[1:] + \
        ['bt ' + ''.join(f'{a:#x} ' for a in frames)]


def test_no_registers_as_upstream(run, upstream):
    assert (run['begin'].stdout, run['begin'].stderr) == (
        'rc=0\n' + upstream['begin']['stdout'], upstream['begin']['stderr'])


def test_errors_as_upstream(run, upstream):
    assert (run['errors'].stdout, run['errors'].stderr) == (
        'rc=0\n' + upstream['errors']['stdout'], upstream['errors']['stderr'])


def test_modname(run, upstream):
    # 4.8: "ERROR: Cannot determine kernel module name" (no symbols)
    assert 'Cannot determine kernel module name' in upstream['modname']['stderr']
    assert (run['modname'].stdout, run['modname'].stderr) == ('rc=0\nkernel\nkernel\n', '')


def test_entry_in_kernel_function_return(run):
    # two .return probes of one function run in reverse script order, as
    # 4.8 runs them (test_thread_area.py)
    assert (run['entry_kfunc'].stdout, run['entry_kfunc'].stderr) == (
        'rc=0\nkp -100 /etc/ld.so.cache 3\n-100 -100 /etc/ld.so.cache cat 3 -99\n', '')


def test_entry_per_call(run):
    assert (run['entry_nested'].stdout, run['entry_nested'].stderr) == (
        'rc=0\nn>0 1 bad 0\n', '')


def test_stack_and_callers(run):
    assert (run['stack'].stdout, run['stack'].stderr) == (
        'rc=0\n1 1 1 1\ncannot unwind to depth 20\ncannot unwind to depth 20\n', '')


def test_guru_writes(run):
    # the parameter's new value reaches the function (a bad dfd for a
    # relative path), and the caller sees the new return value
    assert (run['write'].stdout, run['write'].stderr) == (
        'cat: hostname: Bad file descriptor\n'
        'cat: /nonexistent-kctx: Permission denied\n'
        'rc=0\ndfd 12346 7 7\nret -13 -13\n', '')


def test_user_mode_has_no_kernel_backtrace(run):
    assert (run['profile'].stdout, run['profile'].stderr) == ('rc=0\nuser 1 kernel 1\n', '')


@pytest.mark.parametrize('script,guru,message', [
    ('probe kernel.function("do_sys_openat2") { $dfd = 1 }', False,
     'write to target variable not permitted; need stap -g'),
    ('probe kernel.function("do_sys_openat2").return { $return = 1 }', False,
     'write to target variable not permitted; need stap -g'),
    ('probe kernel.trace("sched:sched_process_exec") { $old_pid++ }', False,
     "write to tracepoint variable '$old_pid' not permitted; need stap -g"),
    # a tracepoint's variable is not writable even with -g, as in 4.8
    ('probe kernel.trace("sched:sched_process_exec") { $old_pid = 1 }', True,
     "write to tracepoint variable '$old_pid' not permitted; need stap -g"),
    ('probe kernel.function("do_sys_openat2").return { $dfd = 1 }', True,
     'write to target variable not permitted in .return probes'),
    # '=' alone, as 4.8 (its -p2 on the tracepoint forms)
    ('probe kernel.function("do_sys_openat2") { $dfd += 1 }', True,
     'Only the following assign operator is implemented on target variables:  ='),
    ('probe kernel.function("do_sys_openat2") { $dfd++ }', True,
     'Only the following assign operator is implemented on target variables:  ='),
])
def test_write_errors(krel, script, guru, message):
    # 4.8's messages (checked with its -p2 on the tracepoint ones)
    r = run_stap(['-p2', '-r', krel, '-e', script] + (['-g'] if guru else []))
    assert r.returncode == 1
    assert 'error: ' + message in r.stderr, r.stderr


@pytest.mark.parametrize('script', [
    'probe begin { println(@entry(1)) }',
    'probe kprobe.function("vfs_read") { println(@entry(1)) }',
    'probe kprobe.function("vfs_read"), kprobe.function("vfs_write").return { println(@entry(1)) }',
    'function f() { return @entry(1) } probe kprobe.function("vfs_read").return { println(f()) }',
])
def test_entry_outside_return_probes(krel, script):
    # 4.8: "internal error: @entry is only valid in .return probes"
    r = run_stap(['-p2', '-r', krel, '-e', script])
    assert r.returncode == 1
    assert 'error: internal error: @entry is only valid in .return probes' in r.stderr, r.stderr


# ---- recording 4.8's outputs ---------------------------------------------

def record():
    """Build UPSTREAM with Debian's 4.8 (a -r directory with a System.map of
    the guest's kallsyms, booted without KASLR) and record what it prints."""
    import subprocess
    sys.path.insert(0, str(HERE.parent / 'bench'))
    from passes import patched_runtime
    krel = guest.kernel_release()
    rt = Path('/tmp/stap-rt')
    if not rt.exists():
        patched_runtime(str(rt))
    with tempfile.TemporaryDirectory(prefix='kctx-up-', dir='/var/tmp') as d:
        d = Path(d)
        kb = d / 'kb'
        kb.mkdir()
        hdr = Path(f'/usr/src/linux-headers-{krel}')
        for f in hdr.iterdir():
            (kb / f.name).symlink_to(f)
        (kb / 'source').symlink_to(hdr.parent / ('linux-headers-' + krel.rsplit('-', 1)[0] + '-common'))
        b = guest.run_batch([KALLSYMS + f' > {kb}/System.map'], scratch=str(d), timeout=60)
        assert b[0].rc == 0
        for name, script in UPSTREAM.items():
            (d / f'{name}.stp').write_text(script)
            subprocess.run(['/usr/bin/stap', '-R', str(rt), '-r', str(kb), '-p4', '-m',
                            name, f'{name}.stp'], cwd=d, check=True)
        batch = guest.run_batch([trigger(n, '/usr/bin/staprun') for n in UPSTREAM],
                                scratch=str(d), timeout=60)
        out = {}
        for name, r in zip(UPSTREAM, batch):
            rc, _, stdout = r.stdout.partition('\n')
            out[name] = {'rc': int(rc[3:]), 'stdout': stdout, 'stderr': r.stderr}
    UPSTREAM_FILE.parent.mkdir(exist_ok=True)
    UPSTREAM_FILE.write_text(json.dumps(out, indent=1, sort_keys=True) + '\n')


if __name__ == '__main__' and sys.argv[1:] == ['--record']:
    record()
