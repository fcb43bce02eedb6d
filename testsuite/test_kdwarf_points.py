# More kernel probe points through the kernel's own DWARF (issue 15), with
# the guest kernel's debuginfo installed, compared with what SystemTap 4.8
# printed on this host with it (`/usr/bin/stap -r KVER -l/-L/-p2`, its
# default debuginfo path; goldens in kvmlinux/): .exported (4.8: the first
# symbol of that name is a global or weak function), .callee("G")[.call]
# and .callees(N) (4.8 takes the functions inlined in it, with one code
# range, not DWARF 5 call sites), and module("GLOB").function() through the
# modules' debug .ko files (their functions inlined there, their name.cold
# symbols, 4.8's blacklist by name; over more than 16 modules, those the
# index of their DWARF's function names says define one, so a function
# only inlined is found: module_nf_jhash2.l, 26 nf_* modules).
import pytest

from test_kdwarf_vmlinux import CASES, dbg, stap  # noqa: F401 (fixture)


@pytest.mark.parametrize('option,point,golden', [
    ('-l', 'kernel.function("vfs_*").exported', 'vfs_exported.l'),
    ('-L', 'kernel.function("vfs_read*").exported', 'vfs_read_exported.L'),
    ('-l', 'kernel.function("*@fs/read_write.c").exported', 'read_write_exported.l'),
    ('-l', 'kernel.function("vfs_read").callee("*")', 'vfs_read_callee.l'),
    ('-l', 'kernel.function("vfs_read").callees(2)', 'vfs_read_callees2.l'),
    ('-l', 'module("*").function("p9_client_read")', 'module_any_p9_client_read.l'),
    ('-l', 'module("9p*").function("*read*")', 'module9p_read.l'),
    ('-l', 'module("9p*").function("*")', 'module9p_all.l'),
    ('-l', 'module("nf_*").function("jhash2")', 'module_nf_jhash2.l'),
    ('-l', 'kernel.function("vfs_read@fs/read_write.c:450")', 'vfs_read_line.l'),
    ('-L', 'kernel.function("vfs_read").return', 'vfs_read_return.L'),
    ('-L', 'module("9p").statement("v9fs_file_open@fs/9p/vfs_file.c:*")', 'module9p_stmt.L'),
    # 4.8's blacklist of files holds fs/seq_file.c: only fs/proc's seq_*
    ('-l', 'kernel.function("seq_*@fs/*.c")', 'seq_fs.l'),
])
def test_listing_as_upstream(dbg, krel, option, point, golden):
    r = stap(['-r', krel, option, point], dbg)
    assert (r.stdout, r.returncode) == ((CASES / golden).read_text(), 0), r.stderr


def test_blacklisted_file_is_no_match(dbg, krel):
    """Every function of fs/seq_file.c is in 4.8's blacklist of files:
    listing that file matches nothing (4.8: no output, status 1)."""
    r = stap(['-r', krel, '-l', 'kernel.function("*@fs/seq_file.c")'], dbg)
    assert (r.stdout, r.returncode) == ('', 1), r.stderr


@pytest.mark.parametrize('script,golden', [
    ('probe kernel.function("vfs_read*").exported { next }', 'vfs_read_exported.p2'),
    ('probe kernel.function("vfs_read").callee("*") { next }', 'vfs_read_callee.p2'),
    ('probe kernel.function("vfs_read").callees(2) { next }', 'vfs_read_callees2.p2'),
    ('probe kernel.function("vfs_read").callee("add_rchar").call { next }',
     'vfs_read_callee_call.p2'),
])
def test_p2_as_upstream(dbg, krel, script, golden):
    """Each probe where 4.8 puts it (pc=_stext+OFFSET), named as 4.8 does
    (a callee: the function inlined, from caller.callee(...))."""
    r = stap(['-p2', '-r', krel, '-e', script], dbg)
    assert r.returncode == 0, r.stderr
    assert r.stdout[r.stdout.index('# probes\n') + 9:] == (CASES / golden).read_text()


def test_callee_not_inlined_is_no_match(dbg, krel):
    """rw_verify_area is called, not inlined: 4.8 finds no such callee."""
    r = stap(['-r', krel, '-L', 'kernel.function("vfs_read").callee("rw_verify_area")'], dbg)
    assert (r.stdout, r.returncode) == ('', 1)


def test_module_p2_as_upstream(dbg, krel):
    """Every function of the 9p module, its inlined copies and name.cold
    parts, at 4.8's places and under 4.8's symbols (init_module, not the
    local init_v9fs at the same address; nothing from asm/bitops.h, on
    4.8's blacklist of files). 4.8 orders them by its hash tables:
    compared sorted."""
    r = stap(['-p2', '-r', krel, '-e', 'probe module("9p").function("*") { next }'], dbg)
    assert r.returncode == 0, r.stderr
    probes = r.stdout[r.stdout.index('# probes\n') + 9:]
    assert sorted(probes.splitlines(True)) == \
        (CASES / 'module9p_all.p2').read_text().splitlines(True)
