# stap --runtime=bpf: the symbolic user-stack and user-symbol functions
# (print_ubacktrace(), print_ubacktrace_brief(), sprint_ubacktrace(),
# usymname(), usymdata(), umodname(), print_usyms(), sprint_usyms(),
# print_ustack(), sprint_ustack()), which the BPF program captures as
# addresses and the loader names (staprun/stapbpf_usym.c) from the
# process's /proc/PID/maps and the symbol tables of the objects the module
# runtime carries (-d, --ldd, the probed binary). On the host: a program
# built with frame pointers, every line computed here from its symbol
# table (readelf), its calls (objdump) and the maps it leaves behind; in
# the test guest: the same script and program under our module runtime
# and as a BPF object, the same output.
import os
import re
import subprocess
from pathlib import Path

import pytest

import guest
from conftest import STAP, STAPRUN


@pytest.fixture(autouse=True)
def as_root():
    """Loading BPF needs root (make check runs as root)."""
    assert os.geteuid() == 0, 'test_bpf_ustack.py loads BPF programs: run it as root'


TRACE_WARNING = re.compile(r'stap: warning: no kernel trace headers .*\n')
LIBC_WARNING = "WARNING: Missing unwind data for a module, rerun with 'stap -d %s'\n"

# leaf() is called through mid() and top() from main(), with the address
# of a data object; the program then copies its maps where argv[1] says
# (the test's view of the mappings the loader read) and stays a moment:
# the loader reads /proc/PID/maps of a process while it runs.
PROG = r'''
#include <stdio.h>
#include <unistd.h>

volatile long sink;
long table[4] = { 1, 2, 3, 4 };

__attribute__((noinline)) long leaf(long *p, long n) { sink += n + p[0]; return sink; }
__attribute__((noinline)) long mid(long n) { long r = leaf(table, n + 1); sink += r; return r * 2; }
__attribute__((noinline)) long top(long n) { long r = mid(n * 3); sink ^= r; return r + 1; }

int main(int argc, char **argv)
{
	long r = top(table[1]);
	FILE *in = fopen("/proc/self/maps", "r"), *out = argc > 1 ? fopen(argv[1], "w") : NULL;
	int c;

	while (in && out && (c = getc(in)) != EOF)
		putc(c, out);
	if (out)
		fclose(out);
	usleep(500000);
	return (int)(r & 0);
}
'''

SCRIPT = '''
global g, h
probe process("%s").function("leaf") {
	printf("pc %%x libc %%x\\n", uaddr(), ustack(4))
	print_ubacktrace()
	println("--")
	print_ubacktrace_brief()
	println("--")
	print(sprint_ubacktrace())
	println("--")
	a = uaddr()
	println(usymname(a), " ", usymdata(a), " ", umodname(a))
	println(usymname($p), " ", usymdata($p + 8), " ", umodname($p))
	println(usymname(4096), " ", usymdata(4096))
	try { println(umodname(4096)) } catch (e) { println("caught: ", e) }
	print_ustack(ucallers(1))
	print(sprint_ustack(ucallers(1)))
	print_usyms("0x1000  junk")
	printf("[%%-8s|%%8s]\\n", usymname(a), usymname(ustack(1)))
	g = usymname(ustack(2))
	h[usymname(ustack(1))] = usymdata(ustack(2))
}
'''


def stap(*args, timeout=120, cwd=None):
    r = subprocess.run([str(STAP), '--runtime=bpf', *args], capture_output=True,
                       text=True, timeout=timeout, cwd=cwd)
    return r.stdout, TRACE_WARNING.sub('', r.stderr), r.returncode


def build(tmp_path):
    src = tmp_path / 'prog.c'
    src.write_text(PROG)
    prog = tmp_path / 'prog'
    subprocess.run(['gcc', '-g', '-O0', '-fno-omit-frame-pointer', '-o', str(prog), str(src)],
                   check=True)
    (tmp_path / 'us.stp').write_text(SCRIPT % prog)
    return prog


def symbols(path):
    """The module runtime's table of an object (info/uobjs.c): FUNC, OBJECT
    and IFUNC symbols of .symtab, defined, not absolute, at a non-zero
    address; of several at one address the last; a symbol's size reaches
    the next one's address, the last's its own size."""
    rows = []
    for i, line in enumerate(subprocess.run(['readelf', '-sW', str(path)], capture_output=True,
                                            text=True, check=True).stdout.split(
                                                "Symbol table '.symtab'")[1].splitlines()):
        f = line.split()
        if len(f) == 8 and f[3] in ('FUNC', 'OBJECT', 'IFUNC') and f[6] not in ('UND', 'ABS') \
                and int(f[1], 16):
            rows.append((int(f[1], 16), i, int(f[2], 0), f[7]))
    rows.sort()
    by_addr = {}
    for addr, _, size, name in rows:
        by_addr[addr] = (name, size)
    addrs = sorted(by_addr)
    table = {}
    for k, addr in enumerate(addrs):
        name, size = by_addr[addr]
        table[name] = (addr, (addrs[k + 1] if k + 1 < len(addrs) else addr + size) - addr)
    return table


def return_address(prog, caller, callee):
    """The address after caller's call of callee (objdump)."""
    text = subprocess.run(['objdump', '-d', '--no-show-raw-insn', str(prog)],
                          capture_output=True, text=True, check=True).stdout
    body = text.split('<%s>:\n' % caller)[1].split('\n\n')[0].splitlines()
    for i, line in enumerate(body):
        if re.search(r'\bcall\s+[0-9a-f]+ <%s>' % callee, line):
            return int(body[i + 1].split(':')[0], 16)
    raise AssertionError('%s calls no %s' % (caller, callee))


def libc_raw(maps, pc):
    """ 0xPC [PATH+0xOFF/0xSIZE], the module runtime's line for an object
    without tables: the offset from its mapping of offset 0, the size its
    mappings' extent with the anonymous one right after (its bss: the
    process started in the session), not the heap."""
    rows = []
    for line in maps.splitlines():
        f = line.split(None, 5)
        s, e = (int(x, 16) for x in f[0].split('-'))
        rows.append((s, e, int(f[2], 16), f[5] if len(f) > 5 else ''))
    path = next(p for s, e, o, p in rows if s <= pc < e)
    start, end, base = None, 0, None
    for s, e, o, p in rows:
        if p == path:
            start = s if start is None else min(start, s)
            end = max(end, e)
            if o == 0 and base is None:
                base = s
        elif end and s == end and not p.startswith('/') and p != '[heap]':
            end = e
    base = start if base is None else base
    return path, ' %#x [%s+%#x/%#x]\n' % (pc, path, pc - base, end - base)


def test_user_symbols(tmp_path):
    """Without -d or --ldd: the program's own frames named (the probed
    binary's table), libc's frame in the raw form that ends a backtrace,
    with 4.8's warning once; usymname(), usymdata() (a data object too),
    umodname() (its error where nothing is mapped, caught), the usyms and
    ustack functions, a width applied to the name, and globals (an array's
    key and value too) shown at exit after the process is gone."""
    prog = build(tmp_path)
    maps = tmp_path / 'maps'
    out, err, rc = stap('-c', '%s %s' % (prog, maps), str(tmp_path / 'us.stp'))
    assert rc == 0, err
    syms = symbols(prog)
    m = re.match(r'pc ([0-9a-f]+) libc ([0-9a-f]+)\n', out)
    assert m, out
    pc, lpc = int(m.group(1), 16), int(m.group(2), 16)
    base = pc - syms['leaf'][0]
    assert base % 4096 == 0
    libc, raw = libc_raw(maps.read_text(), lpc)
    assert err == LIBC_WARNING % libc
    frames = [('leaf', syms['leaf'][0])] + [
        (caller, return_address(prog, caller, callee))
        for caller, callee in (('mid', 'leaf'), ('top', 'mid'), ('main', 'top'))]

    def line(name, addr):
        return ' %#x : %s+%#x/%#x [%s]\n' % (base + addr, name, addr - syms[name][0],
                                              syms[name][1], prog)

    def brief(name, addr):
        return '%s+%#x' % (name, addr - syms[name][0])
    full = ''.join(line(n, a) for n, a in frames) + raw
    simple = ''.join('%s [prog]\n' % brief(n, a) for n, a in frames)
    simple += '%#x [libc.so.6+%s\n' % (lpc, raw.split('+')[1].split('/')[0] + ']')
    data = 'table+0x8/%#x [%s]' % (syms['table'][1], prog)
    two = line(*frames[0]) + line(*frames[1])
    assert out == (m.group(0) + full + '--\n' + ''.join(brief(n, a) + '\n' for n, a in frames) +
                   '%#x\n--\n' % lpc + simple + '--\n' +
                   'leaf leaf+0x0/%#x [%s] %s\n' % (syms['leaf'][1], prog, prog) +
                   'table %s %s\n' % (data, prog) +
                   '0x1000 0x1000\ncaught: module cannot be found\n' + two + two +
                   ' 0x1000 : 0x1000\n junk : 0x0\n' +
                   '[leaf    |     mid]\n' + 'g="top"\n' +
                   'h["mid"]="%s [%s]"\n' % (line(*frames[2]).split(' : ')[1].split(' [')[0],
                                             prog))


def debug_file(path):
    """The separate debuginfo of path by its build ID, in the test set-up's
    debuginfo path (libc6-dbg: conftest.py)."""
    notes = subprocess.run(['readelf', '-n', str(path)], capture_output=True, text=True,
                           check=True).stdout
    bid = re.search(r'Build ID: ([0-9a-f]+)', notes).group(1)
    f = Path(os.environ['SYSTEMTAP_DEBUGINFO_PATH']) / '.build-id' / bid[:2] / (bid[2:] + '.debug')
    assert f.exists(), f
    return f


def test_user_symbols_ldd(tmp_path):
    """With --ldd libc has its table too (the symbols of its separate
    debuginfo, found by build ID, as the module runtime reads them): its
    frame is named, no warning. The walk by frame pointers ends there
    (Debian's libc is built without them), where the module runtime
    unwinds on through .eh_frame."""
    prog = build(tmp_path)
    maps = tmp_path / 'maps'
    (tmp_path / 'ldd.stp').write_text(
        'probe process("%s").function("leaf") { printf("libc %%x\\n", ustack(4)); '
        'print_ubacktrace_brief(); println(usymdata(ustack(4))) }' % prog)
    out, err, rc = stap('--ldd', '-c', '%s %s' % (prog, maps), str(tmp_path / 'ldd.stp'))
    assert (err, rc) == ('', 0)
    lpc = int(re.match(r'libc ([0-9a-f]+)\n', out).group(1), 16)
    libc = next(f.split(None, 5)[5] for f in maps.read_text().splitlines()
                if len(f.split()) == 6 and
                int(f.split('-')[0], 16) <= lpc < int(f.split()[0].split('-')[1], 16))
    base = min(int(f.split('-')[0], 16) for f in maps.read_text().splitlines()
               if f.endswith(' ' + libc) and f.split()[2] == '00000000')
    table = symbols(debug_file(libc))
    name, (addr, size) = max(((n, v) for n, v in table.items() if v[0] <= lpc - base),
                             key=lambda nv: nv[1][0])
    assert lpc - base < addr + size
    syms = symbols(prog)
    frames = ['leaf+0x0'] + ['%s+%#x' % (c, return_address(prog, c, e) - syms[c][0])
                             for c, e in (('mid', 'leaf'), ('top', 'mid'), ('main', 'top'))]
    assert name == '__libc_start_call_main'
    assert out == ('libc %x\n' % lpc + '\n'.join(frames) + '\n%s+%#x\n' % (name, lpc - base - addr) +
                   '%s+%#x/%#x [%s]\n' % (name, lpc - base - addr, size, libc))


KERNEL_SCRIPT = '''
probe kernel.trace("sys_enter") {
	if (pid() == target() && $id == 230) {
		print_ubacktrace()
		print(sprint_ubacktrace())
		println(usymdata(uaddr()), " ", umodname(uaddr()))
	}
}
'''


def canon(text):
    """Number the distinct randomized addresses in order of appearance."""
    seen = {}
    return re.sub(r'\b(0x)?[0-9a-f]{12}\b',
                  lambda m: 'A%d' % seen.setdefault(m.group(0).replace('0x', ''), len(seen)),
                  text)


def test_user_symbols_guest(krel, tmp_path):
    """In the test guest (6.1), the same scripts on the same program under
    our module runtime (whose output is 4.8's: test_ustack.py) and as a
    BPF object: the same output and warnings, addresses aside (ASLR); at a
    uprobe, and at a tracepoint (its stack unwound from the saved user
    registers)."""
    prog = build(tmp_path)
    (tmp_path / 'kt.stp').write_text(KERNEL_SCRIPT)
    for name in ('us', 'kt'):
        r = subprocess.run([str(STAP), '-p4', '-r', krel, '-m', name + '_mod',
                            str(tmp_path / (name + '.stp'))],
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert stap('-p4', '-m', name + '_bpf', str(tmp_path / (name + '.stp')),
                    cwd=tmp_path) == ('', '', 0)
    batch = guest.run_batch([f'{STAPRUN} -c "./prog maps" {name}_{kind}'
                             for name in ('us', 'kt') for kind in ('mod.ko', 'bpf.bpf.o')],
                            scratch=str(tmp_path), timeout=120)
    guest.check_kernel_healthy(batch)
    for mod, bpf in (batch[0:2], batch[2:4]):
        assert (mod.rc, bpf.rc) == (0, 0), (mod.stderr, bpf.stderr)
        assert 'libc.so.6+0x' in mod.stdout
        assert (canon(bpf.stdout), bpf.stderr) == (canon(mod.stdout), mod.stderr)
    assert 'leaf+0x0/' in batch[0].stdout


def test_user_symbols_kernel_probes(tmp_path):
    """At a tracepoint in a user task the stack is unwound from its saved
    registers, with 4.8's warning that the kernel has no tables, then the
    warning for libc (no table: no -d, no process probe); in a kernel
    thread the module runtime's "<no user backtrace at PP>" and no
    warning."""
    prog = build(tmp_path)
    maps = tmp_path / 'maps'
    out, err, rc = stap('-c', '%s %s' % (prog, maps), '-e',
                        'probe kernel.trace("sys_enter") { if (pid() == target() && $id == 230) '
                        '{ printf("pc %x\\n", uaddr()); print_ubacktrace(); '
                        'print(sprint_ubacktrace()); exit() } }')
    assert rc == 0, err
    pc = int(re.match(r'pc ([0-9a-f]+)\n', out).group(1), 16)
    libc, raw = libc_raw(maps.read_text(), pc)
    assert out == 'pc %x\n' % pc + raw + '%#x [libc.so.6+%s]\n' % (
        pc, raw.split('+')[1].split('/')[0])
    assert err == LIBC_WARNING % 'kernel' + LIBC_WARNING % libc
    out, err, rc = stap('-e', 'probe kernel.trace("sched_switch") { '
                        'if (substr(execname(), 0, 8) == "kworker/") { print_ubacktrace(); '
                        'print_ubacktrace_brief(); print(sprint_ubacktrace()); exit() } }')
    assert (out, err, rc) == (
        '<no user backtrace at kernel.trace("sched:sched_switch")>\n' * 3, '', 0)


def test_missing_object_warning():
    """A -d name that is no ELF file: the module runtime's pass-3 warning,
    whether or not the script names user addresses."""
    for script in ('probe begin { exit() }', 'probe begin { println(usymname(0)) }'):
        out, err, rc = stap('-p3', '-d', '/nonexistent/lib.so', '-e', script)
        assert (err, rc) == ("WARNING: missing unwind/symbol data for module "
                             "'/nonexistent/lib.so'\n", 0)
