# The kernel's own DWARF (issue 15): with the guest kernel's debuginfo
# package installed (linux-image-KVER-dbg, which make check's
# kernel-dbg.sh installs), kernel.function()/.statement() resolve through
# the debug vmlinux as SystemTap 4.8's do. These tests point
# SYSTEMTAP_DEBUGINFO_PATH at 4.8's default path (the session's is a
# libc6-dbg-only tree, conftest.py) and compare with what 4.8 printed on
# this host (kvmlinux/*.l, *.L, *.p2: `/usr/bin/stap -r KVER -l/-L/-p2`
# with the same path) and in the guest (kvmlinux/expected.json: 4.8's
# modules, built with `/usr/bin/stap -R RUNTIME -r KVER -p4`, run with
# `staprun -c 'cat /etc/hostname'`; module9p probes the 9p module the
# guest's root is mounted with, through its debug .ko in /usr/lib/debug;
# globals reads @var("name@kernel/fork.c") and a $file->...->len chain;
# entryfn reads @entry values in function copies (4.8 fails it at pass
# 3: its expected output is that of the values in the probe's body);
# fnnext calls overloads chained by `next` that read $vars; jiffies
# reads @var of a global the DWARF only declares;
# cast reads @cast(p, "T", "kernel") and "kernel<linux/sched.h>" and "9p"
# types through the DWARF; inline fires at the inlined copies of
# fdget_pos; parms prints $$parms$/$$parms$$ of points
# whose parameters differ; pretty prints 4.8's dwarf_pretty_print of
# pointers: char* as strings, a pointer to an integer as that integer
# type's decimal of the pointer, <function>:ADDR).
# Addresses (pointers, kernel and user) are compared as 0xADDR, and as
# DEC when printed in decimal (13 to 20 digits, 4.8's pointers to
# integers: stacks and user addresses differ from run to run). The same
# points with the debuginfo hidden keep the BTF behaviour; the scripts of
# kboth/ run both ways in the same boot: built with the debuginfo they
# print what 4.8 printed with it in the guest (kboth/expected.json
# "dwarf": pp() with file:line, 4.8's pretty printing of $pos$ and of a
# char* in $$parms$), built without it what they printed before the
# kernel's DWARF was read ("btf", recorded from this implementation; 4.8
# cannot build them without debuginfo: "missing x86_64 kernel/module
# debuginfo").
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

import guest
from conftest import STAP, STAPRUN, build_module
from test_btf_deref import MODULE_CAST_DEFAULT

HERE = Path(__file__).resolve().parent
CASES = HERE / 'kvmlinux'
EXPECTED = json.loads((CASES / 'expected.json').read_text())
RUN = sorted(EXPECTED)
BOTH_CASES = HERE / 'kboth'
BOTH = json.loads((BOTH_CASES / 'expected.json').read_text())
BOTH_RUN = [f'{n}_{way}' for n in sorted(BOTH) for way in ('dwarf', 'btf')]
# kvmlinux/ cases whose output is 4.8's with BTF only too
BTF_TOO = ['fncopy', 'entryfn', 'fnnext']
DEFAULT_PATH = '+:.debug:/usr/lib/debug:/var/cache/abrt-di/usr/lib/debug:build'
ADDR = re.compile(r'0x[0-9a-f]{8,16}')
DEC = re.compile(r'(?<![0-9A-Za-z])-?[0-9]{13,20}(?![0-9])')


def have_dbg(krel):
    return os.path.exists(f'/usr/lib/debug/boot/vmlinux-{krel}')


@pytest.fixture(scope='module')
def dbg(krel):
    if not have_dbg(krel):
        pytest.fail(f'linux-image-{krel}-dbg is not installed: run testsuite/kernel-dbg.sh')
    return DEFAULT_PATH


def stap(args, path, **kw):
    return subprocess.run([str(STAP)] + args, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, SYSTEMTAP_DEBUGINFO_PATH=path), **kw)


@pytest.mark.parametrize('option,point,golden', [
    ('-l', 'kernel.function("*@fs/read_write.c")', 'read_write.l'),
    ('-L', 'kernel.function("vfs_read")', 'vfs_read.L'),
    ('-L', 'kernel.statement("vfs_read@fs/read_write.c:*")', 'vfs_read_stmt.L'),
    ('-L', 'kernel.function("*@mm/filemap.c")', 'filemap.L'),
    ('-l', 'kernel.function("*@fs/read_write.c").return', 'read_write_return.l'),
    ('-L', 'kernel.function("fdget_pos").inline', 'fdget_pos_inline.L'),
    ('-l', 'kernel.statement("vfs_read@fs/read_write.c:454-458")', 'vfs_read_range.l'),
    ('-l', 'kernel.statement("vfs_read@fs/read_write.c+5")', 'vfs_read_plus.l'),
    ('-l', 'kernel.function("vfs_*")', 'vfs.l'),
    ('-l', 'kernel.function("*@fs/read_write.c").label("*")', 'labels.l'),
    ('-L', 'module("9p").function("v9fs_acl_*")', 'module9p_acl.L'),
])
def test_listing_as_upstream(dbg, krel, option, point, golden):
    r = stap(['-r', krel, option, point], dbg)
    assert (r.stdout, r.returncode) == ((CASES / golden).read_text(), 0), r.stderr


def test_statement_p2_as_upstream(dbg, krel):
    """Every line of vfs_read, at 4.8's addresses (pc=_stext+OFFSET)."""
    r = stap(['-p2', '-r', krel, '-e', 'probe kernel.statement("vfs_read@fs/read_write.c:*")'
              ' { println($$locals) }'], dbg)
    assert r.returncode == 0, r.stderr
    probes = r.stdout[r.stdout.index('# probes\n') + 9:]
    assert probes == (CASES / 'vfs_read_stmt.p2').read_text()


def test_points_p2_as_upstream(dbg, krel):
    """A function probe on the entry (the kernel is optimized code), a
    .nearest statement, as 4.8 places and shows them."""
    r = stap(['-p2', '-r', krel, '-e',
              'probe kernel.function("vfs_read") { printf("%d", $count) } '
              'probe kernel.statement("vfs_read@fs/read_write.c:452").nearest { println($$vars) } '
              'probe kernel.function("ksys_read") { println($$parms) }'], dbg)
    assert r.returncode == 0, r.stderr
    probes = r.stdout[r.stdout.index('# probes\n') + 9:]
    assert probes == (CASES / 'points.p2').read_text()


def test_module_functions_at_entry_as_upstream(dbg, krel):
    """A module built with -O (its CUs' DW_AT_producer): its functions
    are probed at their entry (+0) as 4.8 probes them, not after the
    prologue; variables are read after the __fentry__ call."""
    r = stap(['-p2', '-r', krel, '-e',
              'probe module("9p").function("v9fs_file_open"), module("9p").function("p9mode2unixmode"), '
              'module("9p").function("v9fs_acl_*") { println($$parms) }'], dbg)
    assert r.returncode == 0, r.stderr
    probes = r.stdout[r.stdout.index('# probes\n') + 9:]
    assert probes == (CASES / 'module9p_entry.p2').read_text()


def test_labels_p2_as_upstream(dbg, krel):
    """.label() of functions and of their inlined copies, at 4.8's
    addresses (4.8 orders them by its hash tables: compared sorted)."""
    r = stap(['-p2', '-r', krel, '-e',
              'probe kernel.function("*@fs/read_write.c").label("*") { next }'], dbg)
    assert r.returncode == 0, r.stderr
    probes = r.stdout[r.stdout.index('# probes\n') + 9:]
    assert sorted(probes.splitlines(True)) == \
        (CASES / 'labels.p2').read_text().splitlines(True)


@pytest.mark.parametrize('cast,shown', [
    # not in vmlinux's DWARF (4.8 finds neither; BTF has p9_fid)
    ('"no_such_type", "kernel"', "'no_such_type' not found in 'kernel'"),
    ('"union thread_union", "kernel"', "'union thread_union' not found in 'kernel'"),
    ('"p9_fid", "kernel"', "'p9_fid' not found in 'kernel'"),
])
def test_cast_missing_type_as_upstream(dbg, krel, cast, shown):
    """@cast to a kernel type through the debug vmlinux: a type it does
    not define is 4.8's error (4.8: "semantic error: type definition
    'T' not found in 'kernel': operator '@cast' at ...")."""
    r = stap(['-p2', '-r', krel, '-e', f'probe begin {{ println(@cast(0, {cast})->x) }}'], dbg)
    assert r.returncode == 1
    assert r.stderr.startswith(f'<input>:1:23: error: type definition {shown}\n'), r.stderr


def test_cast_without_module_as_upstream(dbg, krel):
    """@cast(p, "T") without a module: the probe's module (the kernel's
    DWARF) in a kernel.function body, none in a begin or kprobe one (4.8:
    "type definition 'task_struct' not found in ''" at the @cast)."""
    cast = '@cast(0, "task_struct")->pid'
    r = stap(['-p2', '-r', krel, '-e', f'probe kernel.function("vfs_read") {{ println({cast}) }}'],
             dbg)
    assert r.returncode == 0, r.stderr
    r = stap(['-p2', '-r', krel, '-e',
              'probe kernel.function("vfs_read") { println(@cast(0, "nosuch_t")->x) }'], dbg)
    assert r.stderr.startswith("<input>:1:45: error: type definition 'nosuch_t' not found "
                               "in 'kernel'\n"), r.stderr
    for point, col in (('begin', 23), ('kprobe.function("vfs_read")', 45)):
        r = stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println({cast}) }}'], dbg)
        assert r.returncode == 1
        assert r.stderr.startswith(f"<input>:1:{col}: error: type definition 'task_struct' "
                                   "not found in ''\n"), r.stderr


def test_cast_found_through_dwarf(dbg, krel):
    """Types of the kernel and of a module, found through their DWARF
    (the index names the CU defining each; a struct a CU only declares,
    through the CU defining it); a scalar type needs no member
    (4.8 reads it at the address); a missing member is 4.8's error (4.8
    lists the alternatives in another order)."""
    r = stap(['-p2', '-r', krel, '-e', 'probe begin { println(@cast(0, "p9_fid", "9p")->fid, '
              '@cast(0, "enum pid_type", "kernel"), @cast(0, "pid_t", "kernel"), '
              '@cast(0, "file", "kernel")->f_path$$) }'], dbg)
    assert r.returncode == 0, r.stderr
    # a struct only declared in the CU defining task_struct (files_struct,
    # fdtable): its definition in another CU, as 4.8 resolves it
    r = stap(['-p2', '-r', krel, '-e', 'probe begin { println(@cast(0, "task_struct", '
              '"kernel")->files->fdt->max_fds, @cast(0, "task_struct", "kernel")->fs->pwd$) }'],
             dbg)
    assert r.returncode == 0, r.stderr
    r = stap(['-p2', '-r', krel, '-e', 'probe begin { println(@cast(0, "file", "kernel")) }'],
             dbg)
    assert r.returncode == 1     # 4.8: "'struct file' (include/linux/fs.h:948) is being
    # accessed instead of a member such as '->f_count'" (its place and member differ)
    assert r.stderr.startswith("<input>:1:23: error: 'struct file' "), r.stderr
    assert "is being accessed instead of a member such as '->" in r.stderr
    r = stap(['-p2', '-r', krel, '-e', 'probe begin { println(@cast(0, "p9_fid", "9p")->fid, '
              '@cast(0, "file", "kernel")->f_path$$) }'], dbg)
    assert r.returncode == 0, r.stderr
    r = stap(['-p2', '-r', krel, '-e',
              'probe begin { println(@cast(0, "task_struct", "kernel")->nosuch) }'], dbg)
    assert r.returncode == 1
    assert "error: unable to find member 'nosuch' for struct task_struct (alternatives: " \
        "thread_info, __state, stack, " in r.stderr


# a module probe's @cast naming no module: the module's DWARF, with no
# kernel fallback, as 4.8 (its words recorded with the debuginfo)
@pytest.mark.parametrize('point,cast,said', MODULE_CAST_DEFAULT + [
    ('module("9pnet").function("p9_client_create")', '@cast(0, "nosuch_t")->x',
     "type definition 'nosuch_t' not found in '9pnet'"),
])
def test_module_cast_default_as_upstream(dbg, krel, point, cast, said):
    r = stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println({cast}) }}'], dbg)
    if said is None:
        assert r.returncode == 0, r.stderr
        assert '/* pc=<' in r.stdout
    else:
        assert r.returncode == 1
        col = len(f'probe {point} {{ println(') + 1
        assert r.stderr.splitlines()[0] == f'<input>:1:{col}: error: {said}'


RET_RANGES = ('        alternative locations: [0xffffffff81366a52,0xffffffff81366a8d], '
              '[0xffffffff81366ad1,0xffffffff81366b55], [0xffffffff81366b55,0xffffffff81366b95], '
              '[0xffffffff81366c36,0xffffffff81366c42], [0xffffffff81366c47,0xffffffff81366c73]')


@pytest.mark.parametrize('point,var,col,pc,details', [
    ('kernel.statement("vfs_read@fs/read_write.c:461")', '$ret', 66, '0xffffffff81366a3c',
     ['        dieoffset: 0x32cb818 from /usr/lib/debug/boot/vmlinux-KVER',
      '        function: vfs_read at fs/read_write.c:461:8', RET_RANGES]),
    ('kernel.function("vfs_read").return', '@entry($ret)', 59, '0xffffffff813669e5',
     ['        dieoffset: 0x32cb818 from /usr/lib/debug/boot/vmlinux-KVER',
      '        function: vfs_read at fs/read_write.c:451:1', RET_RANGES]),
    ('kernel.function("vfs_read").return', '$ret', 52, '0xffffffff813669e5',
     ['        dieoffset: 0x32cb818 from /usr/lib/debug/boot/vmlinux-KVER',
      '        function: vfs_read at fs/read_write.c:451:1', RET_RANGES]),
    ('kernel.function("vfs_read").call', '$ret', 50, '0xffffffff813669e5',
     ['        dieoffset: 0x32cb818 from /usr/lib/debug/boot/vmlinux-KVER',
      '        function: vfs_read at fs/read_write.c:451:1', RET_RANGES]),
])
def test_optimized_out_as_upstream(dbg, krel, point, var, col, pc, details):
    """A local with no location at the probe's address: 4.8's words
    ("not accessible at this address (pc: ...) [man error::dwarf]"),
    then its lines byte for byte: the variable's DIE and file, the
    function and source position of the pc (its line-table row), the
    ranges where the variable has a location. A function's variables,
    its .return's entry values and @entry's too, are read after the call
    to __fentry__: 4.8 names that pc (0xffffffff813669e5), not the entry."""
    r = stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println({var}) }}'], dbg)
    assert r.returncode == 1
    shown = point.replace('"vfs_read"', '"vfs_read@fs/read_write.c:450"')
    assert r.stderr.splitlines()[0] == (
        f"<input>:1:{col}: error: target variable '$ret' is not available in {shown}: "
        f"not accessible at this address (pc: {pc}) [man error::dwarf]")
    assert r.stderr.splitlines()[1:4] == [line.replace('KVER', krel) for line in details]


@pytest.mark.parametrize('options,script,rc,said', [
    # 4.8 with the debuginfo: rc 0, 0, 0, 0 (warning "Bad $context variable
    # being substituted with literal 0"), 1 ("write to target variable not
    # permitted; need stap -g")
    ([], 'probe kernel.function("vfs_read").return { println(@entry($count), $return) }',
     0, ''),
    ([], 'probe kernel.function("vfs_read") { println($file$, $file$$, $$vars$, $$locals$$) }',
     0, ''),
    (['-g'], 'probe kernel.function("vfs_read") { $count = 1 }', 0, ''),
    (['--skip-badvars'], 'probe kernel.statement("vfs_read@fs/read_write.c:461") { println($ret) }',
     0, "<input>:1:66: warning: bad $context variable '$ret' being substituted with literal 0\n"),
    # 4.8: "WARNING: Bad $context variable being substituted with literal
    # 0: identifier '$file' at <input>:1:45" for a member it lacks too
    (['--skip-badvars'], 'probe kernel.function("vfs_read") { println($file->nosuch) }',
     0, "<input>:1:45: warning: bad $context variable '$file' being substituted with literal 0\n"),
    ([], 'probe kernel.function("vfs_read") { $count = 1 }',
     1, '<input>:1:37: error: write to target variable not permitted; need stap -g\n'),
])
def test_target_forms_as_upstream(dbg, krel, options, script, rc, said):
    """@entry, $var$ and $var$$, $$vars$, guru writes, --skip-badvars:
    elaborated (or refused) through the DWARF as 4.8 does."""
    r = stap(options + ['-p2', '-r', krel, '-e', script], dbg)
    assert r.returncode == rc, r.stderr
    assert r.stderr.startswith(said), r.stderr


ENTRY_P2 = """# globals
__global_entry_tvar_entry_0:long [long, long]
__global_entry_tvar_entry_0_ctr:long [long]
# functions
tid:long ()
# probes
kernel.function("ksys_read@fs/read_write.c:602").call /* pc=_stext+0x367550 */ \
/* <- kernel.function("ksys_read@fs/read_write.c:602").return */
  # locals
  _entry_tvar_tid:long
kernel.function("ksys_read@fs/read_write.c:602").return /* pc=_stext+0x367550 */ \
/* <- kernel.function("ksys_read@fs/read_write.c:602").return */
  # locals
  _entry_tvar_tid:long
  __global_entry_tvar_entry_0_tmp:long
"""


ENTRY_P2_9P = ENTRY_P2.replace(
    'kernel.function("ksys_read@fs/read_write.c:602")',
    'module("9p").function("v9fs_file_open@fs/9p/vfs_file.c:42")').replace(
    '.call /* pc=_stext+0x367550 */', '.call /* pc=.text+0x5bd0 */').replace(
    '/* pc=_stext+0x367550 */', '/* pc=<9p:v9fs_file_open+0> */')


@pytest.mark.parametrize('script,shown', [
    ('probe kernel.function("ksys_read").return { println(@entry($fd)) }', ENTRY_P2),
    # 4.8 names a module's .call half by section and offset
    ('probe module("9p").function("v9fs_file_open").return { println(@entry($file)) }',
     ENTRY_P2_9P),
])
def test_entry_p2_as_upstream(dbg, krel, script, shown):
    """@entry in a kernel or module .return: 4.8's -p2 with the
    debuginfo, its entry half as a .call probe with the entry value's
    globals (4.8 also lists its variable's getter,
    __private__input___dwarf_tvar_get_fd_0, which this translator does
    not make)."""
    r = stap(['-p2', '-r', krel, '-e', script], dbg)
    assert (r.stdout, r.returncode) == (shown, 0), r.stderr


@pytest.mark.parametrize('point,var,said', [
    # 4.8's first line with the debuginfo, byte for byte ("semantic error:
    # unable to find local 'fdd', [man error::dwarf] ...: identifier '$fdd'
    # at <input>:1:46"): the innermost scope's DIE (a lexical block's has no
    # name), the probe's pc, the unit's file, five nearest names
    ('kernel.function("ksys_read")', 'fdd',
     "dieoffset 0x32ca2dd in kernel, near pc 0xffffffff81367550 in ksys_read fs/read_write.c "
     "(alternatives: $fd, $f, $buf, $ret, $count))"),
    # 4.8's distance counts a changed letter as two: $count, then $f
    # before $ret (edit distances 2, 3, 2)
    ('kernel.function("ksys_read")', 'cnt',
     "dieoffset 0x32ca2dd in kernel, near pc 0xffffffff81367550 in ksys_read fs/read_write.c "
     "(alternatives: $count, $f, $ret, $fd, $buf))"),
    ('kernel.function("vfs_read").return', 'zzz',
     "dieoffset 0x32cb7a6 in kernel, near pc 0xffffffff813669e0 in vfs_read fs/read_write.c "
     "(alternatives: $buf, $pos, $ret, $file, $count))"),
    ('kernel.statement("filemap_read@mm/filemap.c:2800")', 'zzz',
     "dieoffset 0x27dbeea in kernel, near pc 0xffffffff81285926 in <unknown> mm/filemap.c "
     "(alternatives: $fsize, $bytes, $folio, $copied, $offset))"),
    ('module("9p").function("v9fs_file_open")', 'zzz',
     "dieoffset 0x80098 in 9p, near pc 0x15c30 in v9fs_file_open fs/9p/vfs_file.c "
     "(alternatives: $err, $fid, $file, $inode, $omode))"),
])
def test_unknown_local_as_upstream(dbg, krel, point, var, said):
    """A variable the scope does not hold: 4.8's words, which users
    grep for."""
    r = stap(['-p2', '-r', krel, '-e', f'probe {point} {{ println(${var}) }}'], dbg)
    assert r.returncode == 1
    col = len(f'probe {point} {{ println(') + 1
    assert r.stderr.splitlines()[0] == (f"<input>:1:{col}: error: unable to find local '{var}', "
                                        f"[man error::dwarf] {said}")


CAPTURED = ('warning: confusing usage, value is captured as @entry({}) in .return probe '
            '[man stapprobes] RETURN PROBES')


@pytest.mark.parametrize('point,body,warned', [
    # 4.8 with the debuginfo: "WARNING: confusing usage, value is captured
    # as @entry($file->f_path->$$) in .return probe [man stapprobes] RETURN
    # PROBES: identifier '$file' at <input>:1:52", once per expression
    # (the second $file$ too), none for @entry(), $return or @defined()
    ('kernel.function("vfs_read")',
     'println($file->f_path$$, $pos[0], $file$, @entry($count), $return, $$parms, $file$, '
     '@defined($buf))',
     [(52, '$file->f_path->$$'), (69, '$pos[0]'), (78, '$file->$'), (111, '$$parms')]),
    ('module("9p").function("v9fs_file_open")', 'println($inode->i_ino)',
     [(64, '$inode->i_ino')]),
])
def test_return_param_warning_as_upstream(dbg, krel, point, body, warned):
    """A parameter read in a .return probe is its entry value: 4.8's
    warning, at each expression; -w leaves it out."""
    script = f'probe {point}.return {{ {body} }}'
    r = stap(['-p2', '-r', krel, '-e', script], dbg)
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stderr.splitlines() if 'warning:' in line] == \
        [f'<input>:1:{col}: ' + CAPTURED.format(e) for col, e in warned]
    r = stap(['-w', '-p2', '-r', krel, '-e', script], dbg)
    assert (r.returncode, r.stderr) == (0, '')


def test_without_debuginfo_btf_as_before(krel):
    """The session's path (no kernel debuginfo): BTF, as before."""
    r = stap(['-r', krel, '-L', 'kernel.function("vfs_read")'],
             os.environ['SYSTEMTAP_DEBUGINFO_PATH'])
    assert (r.stdout, r.returncode) == (
        'kernel.function("vfs_read") $file:struct file* $buf:char* $count:size_t '
        '$pos:loff_t*\n', 0), r.stderr
    r = stap(['-r', krel, '-l', 'kernel.function("vfs_read@fs/read_write.c")'],
             os.environ['SYSTEMTAP_DEBUGINFO_PATH'])
    assert (r.stdout, r.returncode) == ('', 1)


def test_build_id_mismatch_is_an_error(dbg, krel, tmp_path):
    """A -r tree whose vmlinux has another build ID than the debuginfo
    found: an error naming both, never probes at wrong addresses."""
    (tmp_path / 'include' / 'config').mkdir(parents=True)
    (tmp_path / 'include' / 'config' / 'kernel.release').write_text(krel + '\n')
    subprocess.run(['cp', '/bin/true', str(tmp_path / 'vmlinux')], check=True)
    r = stap(['-r', str(tmp_path), '-p2', '-e',
              'probe kernel.function("vfs_read@fs/read_write.c") { next }'], dbg)
    assert r.returncode == 1
    assert f'the kernel debuginfo /usr/lib/debug/boot/vmlinux-{krel} (build ID ' in r.stderr
    assert f'is not for kernel {krel} (build ID ' in r.stderr


@pytest.fixture(scope='module')
def run(dbg, krel, tmp_path_factory):
    """Every script built on the host with the kernel's DWARF, kboth/'s
    both with it and without (the session's path), run in one guest
    boot."""
    d = tmp_path_factory.mktemp('kvmlinux')
    old = os.environ['SYSTEMTAP_DEBUGINFO_PATH']
    for n in BOTH:
        build_module(f'kv_{n}_btf', (BOTH_CASES / f'{n}.stp').read_text(), krel, d)
    for n in BTF_TOO:
        build_module(f'kv_{n}_btf', (CASES / f'{n}.stp').read_text(), krel, d)
    os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = dbg
    try:
        for n in RUN:
            build_module(f'kv_{n}', (CASES / f'{n}.stp').read_text(), krel, d)
        for n in BOTH:
            build_module(f'kv_{n}_dwarf', (BOTH_CASES / f'{n}.stp').read_text(), krel, d)
    finally:
        os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = old
    build_mismatched(d, krel)
    names = RUN + BOTH_RUN + [f'{n}_btf' for n in BTF_TOO]
    commands = [f"{STAPRUN} -c 'cat /etc/hostname' kv_{n}.ko" for n in names]
    commands += [f'{STAPRUN} kv_bad.ko', 'dmesg | grep stap:']
    batch = guest.run_batch(commands, scratch=str(d), timeout=60)
    guest.check_kernel_healthy(batch)
    return dict(zip(names + ['bad', 'dmesg'], batch))


def build_mismatched(d, krel):
    """kv_bad.ko: the count script built with a copy of the debug vmlinux
    whose build ID has one byte changed (the translator cannot tell: the
    target is not the running kernel and -r KVER has no vmlinux)."""
    src = Path(f'/usr/lib/debug/boot/vmlinux-{krel}')
    fake = d / 'fake' / 'boot' / src.name
    fake.parent.mkdir(parents=True)
    note = subprocess.run(['readelf', '-n', str(src)], capture_output=True, text=True,
                          check=True).stdout
    bid = bytes.fromhex(re.search(r'Build ID: ([0-9a-f]+)', note).group(1))
    subprocess.run(['cp', str(src), str(fake)], check=True)
    with open(fake, 'r+b') as f:
        at = f.read(64 << 20).find(bid)
        assert at > 0
        f.seek(at)
        f.write(bytes([bid[0] ^ 0xff]))
    old = os.environ['SYSTEMTAP_DEBUGINFO_PATH']
    os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = str(d / 'fake')
    try:
        build_module('kv_bad', (CASES / 'count.stp').read_text(), krel, d)
    finally:
        os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = old
        fake.unlink()


def test_build_id_checked_at_load(run):
    """A module placed by another build's DWARF does not start: the
    runtime compares the kernel's build ID (vmlinux_build_id) with it."""
    assert run['bad'].rc == 1
    assert run['dmesg'].stdout.endswith(
        'stap: this module was built with the DWARF of another build of the kernel '
        '(build ID mismatch)\n')


def norm(text):
    """Addresses as 0xADDR, without the line cat printed (the guest shares
    the host's /etc/hostname), which lands among the probes' lines
    wherever the output buffers meet."""
    host = Path('/etc/hostname').read_text().strip()
    text = DEC.sub('DEC', ADDR.sub('0xADDR', text))
    return ''.join(line for line in text.splitlines(True)
                   if line.rstrip('\n') != host)


@pytest.mark.parametrize('name', RUN)
def test_run_as_upstream(run, name):
    r, want = run[name], EXPECTED[name]
    assert (norm(r.stdout), r.stderr, r.rc) == (norm(want['stdout']), want['stderr'], want['rc'])


@pytest.mark.parametrize('name', BTF_TOO)
def test_run_as_upstream_with_btf(run, name):
    """The BTF implementation prints what 4.8 prints with the debuginfo."""
    r, want = run[f'{name}_btf'], EXPECTED[name]
    assert (norm(r.stdout), r.stderr, r.rc) == (norm(want['stdout']), want['stderr'], want['rc'])


@pytest.mark.parametrize('name', sorted(BOTH))
@pytest.mark.parametrize('way', ['dwarf', 'btf'])
def test_both_ways(run, name, way):
    """The same script with the debuginfo (4.8's output with it) and with
    BTF only (the output of the BTF implementation)."""
    r, want = run[f'{name}_{way}'], BOTH[name][way]
    assert (norm(r.stdout), r.stderr, r.rc) == (norm(want['stdout']), want['stderr'], want['rc'])


@pytest.mark.parametrize('name', sorted(BOTH))
def test_both_ways_differ(name):
    """What each way shows differs (names, pretty printing): the BTF run
    is not the DWARF one."""
    assert norm(BOTH[name]['dwarf']['stdout']) != norm(BOTH[name]['btf']['stdout'])
