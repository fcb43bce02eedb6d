# test_rtobj.py - the runtime's object of a split module (issue 17,
# translator/build/rtobj.c): with the module cache on, the runtime is
# compiled into an object of its own, kept in $SYSTEMTAP_DIR/cache/kbuild/
# under a key of all that changes it, and linked into later modules
# (kdirect.c's replay). A kept object serves only builds of the same key
# (families, -D options, the runtime's sources...); a damaged one is
# compiled again, never linked. Host only: -p4 for the guest's kernel,
# nothing is loaded (guest runs of such modules: test_kprobes.py,
# test_diff.py).
import os
import shutil
import subprocess
from pathlib import Path

from conftest import STAP, REPO

KPROBE = 'probe kernel.function("vfs_read") { printf("%s\\n", pp()) exit() }'
TIMER = 'probe timer.s(1) { println("tick") }'
USED = 'Pass 4: using the kept runtime object '
KEPT = 'Pass 4: kept the runtime object as '
DAMAGED = 'is damaged: compiling it'


def build(krel, sysdir, script=KPROBE, extra=()):
    """(stderr of a -vv -p4 run with an empty module cache, module bytes)"""
    for f in (Path(sysdir) / 'cache').glob('??/stap_*'):
        f.unlink()
    env = dict(os.environ, SYSTEMTAP_DIR=str(sysdir))
    r = subprocess.run([str(STAP), '-vv', '-p4', '-r', krel] + list(extra) + ['-e', script],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    # (-vv: make's lines first, on a make build)
    return r.stderr, Path(r.stdout.strip().splitlines()[-1]).read_bytes()


def kept(sysdir):
    return sorted((Path(sysdir) / 'cache' / 'kbuild').glob('*.rt-*.o'))


def test_hit_and_misses(krel, tmp_path):
    # the first build of a tree (make) keeps its runtime object
    err, made = build(krel, tmp_path)
    assert KEPT in err and USED not in err
    assert len(kept(tmp_path)) == 1
    obj = kept(tmp_path)[0].read_bytes()
    assert obj.startswith(b'stprtobj1 ') and b'\x7fELF' in obj[:100]
    # replayed: the kept object is linked; the module is make's
    err, again = build(krel, tmp_path)
    assert USED in err and KEPT not in err
    assert again == made
    # another script of the same families: the same object
    err, _ = build(krel, tmp_path, KPROBE.replace('vfs_read', 'vfs_write'))
    assert USED in err and len(kept(tmp_path)) == 1
    # another family (timers, no kprobes): another object
    err, _ = build(krel, tmp_path, TIMER)
    assert KEPT in err and USED not in err and len(kept(tmp_path)) == 2
    # a -D option: another object, then that one
    err, _ = build(krel, tmp_path, extra=['-DMAXSKIPPED=7'])
    assert KEPT in err and USED not in err and len(kept(tmp_path)) == 3
    err, _ = build(krel, tmp_path, extra=['-DMAXSKIPPED=7'])
    assert USED in err and len(kept(tmp_path)) == 3
    # the script's own sizes are not in the key: more probes, deeper calls
    err, _ = build(krel, tmp_path, 'function f(n) { return n ? f(n - 1) : 0 } '
                   'probe kernel.function("vfs_read"), kernel.function("vfs_write") '
                   '{ println(f(3)) }')
    assert USED in err and len(kept(tmp_path)) == 3


def test_damaged_object_is_compiled_again(krel, tmp_path):
    _, made = build(krel, tmp_path)
    path = kept(tmp_path)[0]
    whole = path.read_bytes()
    for damage in (whole[:-1] + bytes([whole[-1] ^ 1]),	# a flipped bit
                   whole[:len(whole) // 2],		# cut short
                   b'garbage\n'):
        path.write_bytes(damage)
        err, again = build(krel, tmp_path)
        assert DAMAGED in err and USED not in err and KEPT in err
        assert again == made
        assert path.read_bytes() == whole
    err, _ = build(krel, tmp_path)
    assert USED in err


def test_runtime_sources_are_in_the_key(krel, tmp_path):
    rt = tmp_path / 'runtime'
    shutil.copytree(REPO / 'runtime', rt)
    sysdir = tmp_path / 'sys'
    sysdir.mkdir()
    build(krel, sysdir, extra=['-R', str(rt)])
    err, _ = build(krel, sysdir, extra=['-R', str(rt)])
    assert USED in err
    # a changed line of a runtime file (same size, same mtime): compiled again
    f = rt / 'map.c'
    st = f.stat()
    text = f.read_text()
    assert ' the ' in text
    f.write_text(text.replace(' the ', ' thE ', 1))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    err, _ = build(krel, sysdir, extra=['-R', str(rt)])
    assert KEPT in err and USED not in err and len(kept(sysdir)) == 2


def test_make_builds_keep_the_runtime_in(krel, tmp_path):
    """-B (make): one object, the runtime compiled with the script's C."""
    env = dict(os.environ, SYSTEMTAP_DIR=str(tmp_path))
    r = subprocess.run([str(STAP), '-p4', '-k', '-r', krel, '-B', 'V=0', '-e', KPROBE],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert not kept(tmp_path)
    tmpdir = Path(r.stderr.split('Keeping temporary directory "')[1].split('"')[0])
    try:
        assert not (tmpdir / 'stp_rt.o').exists()
        assert '-objs := ' in (tmpdir / 'Makefile').read_text()
        assert 'stp_rt' not in (tmpdir / 'Makefile').read_text()
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


# In the guest: modules of the split runtime (the kept object linked in,
# as the module cache builds them) run as those that make builds. The
# syscall.* one-liner (kprobes and the tracepoint family, 695 table rows,
# the -O0 script code), a timer with a global array and a sorted foreach,
# a kretprobe with a regex match (the regex sizes in the object's key).
GUEST = {
    'syscalls': ('probe syscall.* { if (name == "openat" && isinstr(argstr, "nonexistent")) '
                 'printf("%s(%s)\\n", name, argstr) }',
                 'rc=0\nopenat(AT_FDCWD, "/nonexistent-file", O_RDONLY)\n'),
    'timer': ('global a probe timer.ms(10) { a[++n % 3] += n; if (n == 9) exit() } '
              'global n probe end { foreach (k+ in a) printf("%d=%d\\n", k, a[k]) }',
              'rc=0\n0=18\n1=12\n2=15\n'),
    'kretregex': ('global done probe kernel.function("do_sys_openat2").return { '
                  'if (!done && $return == -2 && user_string($filename) =~ "^/non(ex)ist") '
                  '{ done = 1; printf("%s %s %d\\n", ppfunc(), matched(1), $return) } }',
                  'rc=0\ndo_sys_openat2 ex -2\n'),
}


def test_split_modules_run_in_the_guest(krel, tools, tmp_path):
    import guest
    sysdir, scratch = tmp_path / 'sys', tmp_path / 'run'
    sysdir.mkdir()
    scratch.mkdir()
    build(krel, sysdir, 'probe begin { exit() }')	# make: the commands kept
    commands = []
    for name, (script, _) in GUEST.items():
        err, ko = build(krel, sysdir, script)
        assert KEPT in err or USED in err, err
        (scratch / f'{name}.ko').write_bytes(ko)
        # -c: the probes see cat's open; the timer's script ends itself
        cmd = "-c 'cat /nonexistent-file 2>/dev/null; true' " if name != 'timer' else ''
        commands.append(f"{tools['staprun']} {cmd}{name}.ko > {name}.out 2> {name}.err; "
                        f'echo "rc=$?"; cat {name}.out; cat {name}.err >&2')
    # the same families again: the kept object (syscalls's) serves
    err, _ = build(krel, sysdir, GUEST['syscalls'][0].replace('nonexistent', 'nothing'))
    assert USED in err
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=180)
    guest.check_kernel_healthy(batch)
    got = {name: (r.stdout, r.stderr) for name, r in zip(GUEST, batch)}
    assert got == {name: (want, '') for name, (_, want) in GUEST.items()}


def test_each_family_builds_split(krel, tmp_path):
    """test_families.py's scripts (each family alone, the runtime's
    services) with the runtime's object: every one links (modpost finds
    nothing undefined)."""
    from test_families import FAMILIES
    build(krel, tmp_path, 'probe begin { exit() }')
    failed = {}
    for name, (script, _) in sorted(FAMILIES.items()):
        try:
            err, _ = build(krel, tmp_path, script)
            assert KEPT in err or USED in err
        except AssertionError as e:
            failed[name] = str(e)[-1500:]
    assert failed == {}
