# User-space functions probed by the names users know: the C library's
# malloc, free and open are symbol-table aliases of functions its DWARF
# (Debian's libc6-dbg) names __libc_malloc, __libc_free and __libc_open64.
# A .function("NAME") or wildcard resolves through those aliases to the
# DWARF function, listed and probed under its DWARF name with its
# parameters, as Debian's SystemTap 4.8 does: its -l output and its run
# of ualias/alias.stp on ualias/ualias.c in the guest are the expected
# values here. Versioned names (fopen@@GLIBC_2.2.5) are resolved too,
# where 4.8 finds no match (it compares the versioned name): ours only,
# with the output our run gave.
import shutil
import subprocess
from pathlib import Path

import guest
from conftest import STAPRUN, run_stap

HERE = Path(__file__).resolve().parent / 'ualias'
LIBC = '/lib/x86_64-linux-gnu/libc.so.6'
LISTED = 'process("/usr/lib/x86_64-linux-gnu/libc.so.6").function("{}")'

# /usr/bin/stap -l, 4.8 with libc6-dbg
UPSTREAM_LISTING = {
    'malloc': ['__libc_malloc@./malloc/malloc.c:3280'],
    'free': ['__libc_free@./malloc/malloc.c:3345'],
    'open': ['__libc_open64@../sysdeps/unix/sysv/linux/open64.c:29'],
    'mallo?': ['__libc_malloc@./malloc/malloc.c:3280'],
    'mallo*': ['__libc_malloc@./malloc/malloc.c:3280',
               '__libc_mallopt@./malloc/malloc.c:5448',
               '__malloc_info@./malloc/malloc.c:5703',
               '__malloc_stats@./malloc/malloc.c:5263',
               '__malloc_trim@./malloc/malloc.c:5095',
               '__malloc_usable_size@./malloc/malloc.c:5136',
               'malloc_consolidate@./malloc/malloc.c:4710',
               'malloc_default_hugepage_size@../sysdeps/unix/sysv/linux/malloc-hugepages.c:79',
               'malloc_init_state@./malloc/malloc.c:1954',
               'malloc_printerr@./malloc/malloc.c:5659'],
}

# 4.8's output of alias.stp with `staprun -c 'ualias 2'` in the guest
MALLOC = LISTED.format('__libc_malloc@./malloc/malloc.c:3280')
ROUND = ('{m} {n}\nmalloc returned a pointer\n' +
         '__libc_open64 /dev/null 0\nopen returned a descriptor\n' * 2 +
         '__libc_free mem\n' * 2)
UPSTREAM_RUN = ROUND.format(m=MALLOC, n=40) + ROUND.format(m=MALLOC, n=41)

FOPEN = LISTED.format('_IO_new_fopen@./libio/iofopen.c:84')
LOCK = LISTED.format('___pthread_mutex_lock@./nptl/pthread_mutex_lock.c:76')
VERS_ROUND = f'{FOPEN} /dev/null r\nfopen returned a FILE\n{LOCK} mutex\n'
# and the C library locks once more as the program exits
VERS_RUN = VERS_ROUND * 2 + f'{LOCK} mutex\n'


def test_listing_as_upstream():
    for name, funcs in UPSTREAM_LISTING.items():
        r = run_stap(['-l', f'process("{LIBC}").function("{name}")'])
        assert (r.returncode, r.stdout.splitlines()) == \
            (0, [LISTED.format(f) for f in funcs]), name
    r = run_stap(['-l', f'process("{LIBC}").function("mallo*").return'])
    assert r.stdout.splitlines()[:2] == [
        LISTED.format('__libc_malloc@./malloc/malloc.c:3280') + '.return',
        LISTED.format('__libc_mallopt@./malloc/malloc.c:5448') + '.return']
    # the DWARF function's parameters (4.8's -L)
    r = run_stap(['-L', f'process("{LIBC}").function("malloc")'])
    assert r.stdout == (LISTED.format('__libc_malloc@./malloc/malloc.c:3280') +
                        ' $bytes:size_t $__PRETTY_FUNCTION__:char const[] const\n')


def test_versioned_names():
    for name, func in (('fopen', '_IO_new_fopen@./libio/iofopen.c:84'),
                       ('pthread_mutex_lock',
                        '___pthread_mutex_lock@./nptl/pthread_mutex_lock.c:76')):
        r = run_stap(['-l', f'process("{LIBC}").function("{name}")'])
        assert (r.returncode, r.stdout) == (0, LISTED.format(func) + '\n'), name


def test_alias_probes_run_as_upstream(krel, tmp_path):
    shutil.copy(HERE / 'ualias.c', tmp_path)
    subprocess.run(['gcc', '-g', '-O2', '-o', 'ualias', 'ualias.c'], cwd=tmp_path,
                   check=True)
    for name in ('alias', 'vers'):
        r = run_stap(['-p4', '-r', krel, '-m', f'ua_{name}', str(HERE / f'{name}.stp')],
                     cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    batch = guest.run_batch([f"{STAPRUN} -c '{tmp_path}/ualias 2' ua_{n}.ko"
                             for n in ('alias', 'vers')], scratch=str(tmp_path))
    guest.check_kernel_healthy(batch)
    assert [(r.stdout, r.stderr, r.rc) for r in batch] == [
        (UPSTREAM_RUN, '', 0), (VERS_RUN, '', 0)]


def elf32_stub(path):
    """A minimal 32-bit ELF header (an i386 shared object, no sections)."""
    import struct
    ident = b'\x7fELF\x01\x01\x01' + bytes(9)
    path.write_bytes(ident + struct.pack('<HHIIIIIHHHHHH', 3, 3, 1, 0, 0, 0, 0,
                                         52, 0, 0, 0, 0, 0))


def test_glob_matching_only_32_bit(tmp_path):
    # 4.8 probes /usr/lib32/libc.so.6 for process("/lib*/libc.so.6"); this
    # version refuses 32-bit programs, and says so rather than "no match"
    (tmp_path / 'lib32').mkdir()
    (tmp_path / 'lib64').mkdir()
    elf32_stub(tmp_path / 'lib32' / 'libx.so')
    r = run_stap(['-p2', '-e', f'probe process("{tmp_path}/lib*/libx.so").function("f") {{}}'])
    assert r.returncode == 1
    assert f"error: cannot probe '{tmp_path}/lib32/libx.so': a 32-bit program " \
        "(only x86_64 ones are supported)\n" in r.stderr
    # a 64-bit match comes first
    shutil.copy('/bin/true', tmp_path / 'lib64' / 'libx.so')
    r = run_stap(['-l', f'process("{tmp_path}/lib*/libx.so").begin'])
    assert (r.returncode, r.stdout) == (0, f'process("{tmp_path}/lib64/libx.so").begin\n')
