# process("PATH") probes end to end: the test program uprobes/uprog.c is
# built here with gcc -g at -O0 and -O2, each script of uprobes/*.stp is
# built for both binaries (@1 is the binary's path) and run in the guest
# with `staprun -c 'BINARY 3'`; stdout, stderr and exit status must be what
# Debian's SystemTap 4.8 printed for the same program and script in the
# same guest (uprobes/expected.json, the directory written as @DIR@).
# Function probes, .call, .return with $return and entry values of the
# parameters, @entry, wildcards, statements by FILE:LINE with locals and by
# address (-O0 only), SDT
# marks with $argN and $$name, struct members through pointers, globals
# by @var, @cast to the program's types (also in functions the probe calls,
# copied for it as 4.8 copies them, fncast.stp), the pretty printers, target(),
# usymname()/umodname() of uaddr(),
# the faults of bad pointers, guru writes of locals, members, globals
# and parameters (guru.stp, with -g), and a function of libc, as process("LIB")
# and process("PATH").library("LIB") (its DWARF from the libc6-dbg
# package, found by build ID; the library mapped after exec).
# The guest's root is a 9p share, whose running programs get another
# inode than the path's: this also tests the probes' arming at exec.
# Host-side: stap -L and -l of the same points, as 4.8 lists them.
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import guest
from conftest import STAP, STAPRUN, run_stap

HERE = Path(__file__).resolve().parent / 'uprobes'
EXPECTED = json.loads((HERE / 'expected.json').read_text())
OPTS = ('O0', 'O2')
# stack addresses differ from run to run (ASLR)
STACK = re.compile(r'0x7ff[0-9a-f]{9}')
TAPSET = re.compile(r"(near identifier '[^']+' at )(/usr/share/systemtap/tapset/|\S*tapsets/)\S+:\d+:\d+")


def norm(text, d):
    return TAPSET.sub(r'\1<tapset>', STACK.sub('0x7ff...', text.replace(str(d), '@DIR@')))


def build_programs(d):
    shutil.copy(HERE / 'uprog.c', d / 'uprog.c')
    for o in OPTS:
        subprocess.run(['gcc', '-g', f'-{o}', '-o', f'uprog_{o}', 'uprog.c'], cwd=d,
                       check=True)


def build_module(d, name, krel, o):
    guru = ['-g'] if name == 'guru' else []	# its target variable writes
    r = run_stap(['-p4', '-r', krel, '-m', f'u_{name}_{o.lower()}'] + guru +
                 [f'{name}.stp', str(d / f'uprog_{o}')], cwd=d)
    assert r.returncode == 0, f'{name} {o}: {r.stderr}'


def test_uprobes_as_upstream(krel, tmp_path):
    build_programs(tmp_path)
    cases = [(n, o) for n in sorted(EXPECTED) for o in OPTS if o in EXPECTED[n]]
    # the scripts named as 4.8 saw them: NAME.stp in the current directory
    for n in EXPECTED:
        shutil.copy(HERE / f'{n}.stp', tmp_path / f'{n}.stp')
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(lambda c: build_module(tmp_path, c[0], krel, c[1]), cases))
    cmds = [f"{STAPRUN} -c '{tmp_path}/uprog_{o} 3' u_{n}_{o.lower()}.ko" for n, o in cases]
    batch = guest.run_batch(cmds, scratch=str(tmp_path), timeout=60)
    guest.check_kernel_healthy(batch)
    got, want = {}, {}
    for (n, o), r in zip(cases, batch):
        got[f'{n} {o}'] = (norm(r.stdout, tmp_path), norm(r.stderr, tmp_path), r.rc)
        e = EXPECTED[n][o]
        want[f'{n} {o}'] = (norm(e[0], tmp_path), norm(e[1], tmp_path), e[2])
    assert got == want


def test_listing_as_upstream(tmp_path):
    build_programs(tmp_path)
    b = tmp_path / 'uprog_O0'
    r = run_stap(['-L', 'process("./uprog_O0").function("*")'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = str(tmp_path)
    # /usr/bin/stap -L 'process("./uprog_O0").function("*")' (4.8)
    assert r.stdout.replace(d, '@DIR@').splitlines() == [
        'process("@DIR@/uprog_O0").function("__do_global_dtors_aux")',
        'process("@DIR@/uprog_O0").function("_fini")',
        'process("@DIR@/uprog_O0").function("_init")',
        'process("@DIR@/uprog_O0").function("_start")',
        'process("@DIR@/uprog_O0").function("add@@DIR@/uprog.c:22") $a:int $b:int $sum:int',
        'process("@DIR@/uprog_O0").function("deregister_tm_clones")',
        'process("@DIR@/uprog_O0").function("frame_dummy")',
        'process("@DIR@/uprog_O0").function("main@@DIR@/uprog.c:57") $argc:int $argv:char** '
        '$second:struct point $pt:struct point $n:int $t:long int',
        'process("@DIR@/uprog_O0").function("name_of@@DIR@/uprog.c:38") $p:struct point*',
        'process("@DIR@/uprog_O0").function("neg@@DIR@/uprog.c:43") $v:short int $c:unsigned char',
        'process("@DIR@/uprog_O0").function("register_tm_clones")',
        'process("@DIR@/uprog_O0").function("scale@@DIR@/uprog.c:30") $p:struct point* $k:long int $r:long int',
        'process("@DIR@/uprog_O0").function("touch@@DIR@/uprog.c:49") $s:char const* $sink:char volatile',
    ]
    r = run_stap(['-L', f'process("{b}").mark("*")'], cwd=tmp_path)
    assert r.stdout.replace(d, '@DIR@').splitlines() == [
        'process("@DIR@/uprog_O0").mark("done")',
        'process("@DIR@/uprog_O0").mark("scaled") $arg1:long $arg2:long',
        'process("@DIR@/uprog_O0").mark("start") $arg1:long',
    ]
    # a bare name is looked up in $PATH
    r = subprocess.run([str(STAP), '-L', 'process("uprog_O2").statement("add@uprog.c:26")'],
                       cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, 'PATH': f'{tmp_path}:{os.environ["PATH"]}'})
    assert r.stdout.replace(d, '@DIR@').splitlines() == [
        'process("@DIR@/uprog_O2").statement("add@@DIR@/uprog.c:26") $a:int $b:int $sum:int']
    r = run_stap(['-L', 'process("./uprog_O2").function("add").return'], cwd=tmp_path)
    assert r.stdout.replace(d, '@DIR@').splitlines() == [
        'process("@DIR@/uprog_O2").function("add@@DIR@/uprog.c:22").return $return:int $a:int $b:int']
    # FUNC@FILE: declared in FILE; a :LINE after it is ignored, as by 4.8
    for pat, names in (('*@uprog.c', 'add main name_of neg scale touch'),
                       ('*@uprog.c:30', 'add main name_of neg scale touch'),
                       ('scale@uprog.c:22', 'scale'), ('add@*.c', 'add')):
        r = run_stap(['-l', f'process("./uprog_O0").function("{pat}")'], cwd=tmp_path)
        assert [ln.split('function("')[1].split('@')[0] for ln in r.stdout.splitlines()] == \
            names.split(), pat
    r = run_stap(['-l', 'process("./uprog_O2").function("atoi@stdlib.h")'], cwd=tmp_path)
    assert r.stdout == f'process("{d}/uprog_O2").function("atoi@/usr/include/stdlib.h:362")\n'
    # .library(): the libraries the program needs, by glob (4.8's -l)
    r = run_stap(['-l', 'process("./uprog_O0").library("libc.so*").function("ato[il]")'],
                 cwd=tmp_path)
    lib = 'process("@DIR@/uprog_O0").library("/usr/lib/x86_64-linux-gnu/libc.so.6")'
    assert r.stdout.replace(d, '@DIR@').splitlines() == [
        f'{lib}.function("atoi@../stdlib/stdlib.h:362")',
        f'{lib}.function("atoi@./stdlib/atoi.c:25")',
        f'{lib}.function("atol@./stdlib/atol.c:25")']
    r = run_stap(['-l', 'process("./uprog_O0").function("n*")'], cwd=tmp_path)
    assert (r.stdout.replace(d, '@DIR@'), r.returncode) == (
        'process("@DIR@/uprog_O0").function("name_of@@DIR@/uprog.c:38")\n'
        'process("@DIR@/uprog_O0").function("neg@@DIR@/uprog.c:43")\n', 0)


def test_statement_nearest_as_upstream(tmp_path):
    # .nearest: the line of the file with code nearest to the one asked
    # for (a later one on a tie), if in a matching function; -l lists the
    # line asked for, pp() the line probed (4.8's output for each)
    build_programs(tmp_path)
    d = str(tmp_path)
    pre = 'process("@DIR@/uprog_O0").statement("add@@DIR@/uprog.c:'
    for pat, listed, probed in (
            ('add@uprog.c:25', [25], [26]), ('*@uprog.c:25', [25], [26]),
            ('*@uprog.c:29', [29], [28]), ('*@uprog.c:21', [21], [23]),
            ('add@uprog.c:24-26', [24, 26], [24, 26]), ('scale@uprog.c:25', [], []),
            ('add@uprog.c+3', [25], [26])):
        point = f'process("./uprog_O0").statement("{pat}").nearest'
        r = run_stap(['-l', point], cwd=d)
        assert r.stdout.replace(d, '@DIR@').splitlines() == [
            f'{pre}{n}").nearest' for n in listed], pat
        r = run_stap(['-p2', '-e', f'probe {point} {{ print(pp()) }}'], cwd=d)
        got = r.stdout.split('# probes\n')[-1].replace(d, '@DIR@').splitlines() \
            if r.returncode == 0 else []
        assert [p.split(' /*')[0] for p in got] == [f'{pre}{n}")' for n in probed], pat


def test_statement_relative_line(tmp_path):
    # FUNC@FILE+N: N lines after each function's declaration (4.8's -l)
    build_programs(tmp_path)
    r = run_stap(['-l', 'process("./uprog_O0").statement("*@uprog.c+2")'], cwd=tmp_path)
    assert r.stdout.replace(str(tmp_path), '@DIR@').splitlines() == [
        f'process("@DIR@/uprog_O0").statement("{f}@@DIR@/uprog.c:{n}")'
        for f, n in (('add', 24), ('main', 59), ('name_of', 40), ('neg', 45), ('scale', 32))]


def test_statement_lines_as_upstream(tmp_path):
    """.statement("FUNC@FILE:LINES") and "FUNC@FILE+N": the lines and
    addresses 4.8 chose (its -l, and its -p2 lines with their pc and origin) on
    uprog.c at -O0 and -O2 (inlined touch()), ufile_prog.c (also not PIE:
    pc=.absolute+) and upieces.c (uprobes/statements.json, recorded with
    /usr/bin/stap)."""
    build_programs(tmp_path)
    shutil.copy(HERE / 'upieces.c', tmp_path)
    shutil.copy(HERE.parent / 'ufile' / 'ufile_prog.c', tmp_path)
    for args in (['-O2', '-o', 'upieces', 'upieces.c'],
                 ['-gdwarf-4', '-O2', '-fomit-frame-pointer', '-o', 'ufile_prog', 'ufile_prog.c'],
                 ['-gdwarf-4', '-O2', '-fomit-frame-pointer', '-no-pie', '-o', 'ufile_np',
                  'ufile_prog.c']):
        subprocess.run(['gcc', '-g'] + args, cwd=tmp_path, check=True)
    d = str(tmp_path)
    for key, (lrc, lout, prc, plines) in json.loads((HERE / 'statements.json').read_text()).items():
        prog, spec = key.split(' ', 1)
        pp = f'process("./{prog}").statement("{spec}")'
        r = run_stap(['-l', pp], cwd=tmp_path)
        assert (r.returncode, r.stdout.replace(d, '@DIR@')) == (lrc, lout), key
        r = run_stap(['-p2', '-e', f'probe {pp} {{ print(1) }}'], cwd=tmp_path)
        got = sorted({ln.replace(d, '@DIR@')
                      for ln in r.stdout.splitlines() if ln.startswith('process(')})
        assert (r.returncode, got) == (prc, plines), key


def test_statement_address_as_upstream(tmp_path):
    """.statement(ADDRESS): a line-table row's link-time address inside a
    function, its variables there; 4.8's -L and -p2 on ufile_prog.c (as
    built in test_ufile), and its refusal of an address inside a row."""
    shutil.copy(HERE.parent / 'ufile' / 'ufile_prog.c', tmp_path)
    subprocess.run(['gcc', '-g', '-gdwarf-4', '-O2', '-fomit-frame-pointer', '-o', 'prog',
                    'ufile_prog.c'], cwd=tmp_path, check=True)
    d = str(tmp_path)
    for addr, listed in (('0x1233', ' $n:long int $r:long int'), ('0x11b1', ' $n:long int')):
        want = f'process("{d}/prog").statement({addr})'
        r = run_stap(['-L', f'process("./prog").statement({addr})'], cwd=tmp_path)
        assert (r.returncode, r.stdout) == (0, want + listed + '\n')
        r = run_stap(['-p2', '-e', f'probe process("./prog").statement({addr}) {{ print(1) }}'],
                     cwd=tmp_path)
        assert r.stdout.splitlines()[-1] == f'{want} /* pc=.dynamic+{addr} */ /* <- {want} */'
    r = run_stap(['-p2', '-e', 'probe process("./prog").statement(0x1234) { print(1) }'],
                 cwd=tmp_path)
    assert r.returncode == 1
    assert 'error: address 0x1234 does not match the beginning of a statement (try 0x1233)' \
        in r.stderr
    r = run_stap(['-L', 'process("./prog").statement(0x5)'], cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, '')


def test_statement_no_line_records_as_upstream(tmp_path):
    """A single line without code: 4.8's "no line records" with the lines
    at most 5 away that have some in the function(s); a range or a file
    that matches nothing: no match. (4.8's messages on ufile_prog.c.)"""
    shutil.copy(HERE.parent / 'ufile' / 'ufile_prog.c', tmp_path)
    subprocess.run(['gcc', '-g', '-gdwarf-4', '-O2', '-fomit-frame-pointer', '-o', 'prog',
                    'ufile_prog.c'], cwd=tmp_path, check=True)
    src = f'{tmp_path}/ufile_prog.c'
    for spec, msg in (('twice@ufile_prog.c:1', f'no line records for {src}:1 [man error::dwarf]\n'),
                      ('twice@ufile_prog.c:15', f'no line records for {src}:15 [man error::dwarf] (try :20)\n'),
                      ('main@ufile_prog.c:50', f'no line records for {src}:50 [man error::dwarf] (try :45)\n'),
                      ('*@ufile_prog.c:22', f'no line records for {src}:22 [man error::dwarf] (try :21 or :23)\n'),
                      ('twice@ufile_prog.c+3', f'no line records for {src}:22 [man error::dwarf] (try :21 or :23)\n'),
                      ('twice@ufile_prog.c:22-22', 'no match for probe point'),
                      ('twice@ufile_prog.c:22,24', 'no match for probe point'),
                      ('twice@nosuch.c:22', 'no match for probe point')):
        r = run_stap(['-p2', '-e', f'probe process("./prog").statement("{spec}") {{ print(1) }}'],
                     cwd=tmp_path)
        assert r.returncode == 1 and f'error: {msg}' in r.stderr, (spec, r.stderr)


def test_errors(tmp_path):
    # 4.8 words these differently (its DWARF errors); ours say why in the
    # project's diagnostic format, at the variable
    build_programs(tmp_path)
    d = str(tmp_path)

    def err(script):
        r = run_stap(['-p2', '-e', script], cwd=tmp_path)
        assert r.returncode == 1
        return r.stderr.replace(d, '@DIR@').splitlines()[0]

    add = 'process("@DIR@/uprog_O{}").function("add@@DIR@/uprog.c:22")'
    assert err('probe process("./uprog_O2").function("add") { println($sum) }') == \
        ("<input>:1:55: error: target variable '$sum' is not available in "
         f"{add.format(2)}: it was optimized out at this address (0x12f0)")
    assert err('probe process("./uprog_O0").function("add") { println($nosuch) }') == \
        ("<input>:1:55: error: target variable '$nosuch' is not available in "
         f"{add.format(0)}: no such variable (alternatives: $a, $b, $sum)")
    assert err('probe process("./uprog_O0").function("add").return { println($sum) }') == \
        ("<input>:1:62: error: target variable '$sum' is not available in "
         f"{add.format(0)}.return: a .return probe cannot read the function's locals")
    assert err('probe process("./uprog_O0").function("add") { println($return) }') == \
        ("<input>:1:55: error: target variable '$return' is not available in "
         f"{add.format(0)}: only .return probes have $return")
    assert err('probe process("./uprog_O0").mark("start") { println($arg3) }') == \
        ("<input>:1:53: error: target variable '$arg3' is not available in "
         'process("@DIR@/uprog_O0").statement(0x12af): the marker has 1 argument')
    # 4.8: "internal error: @entry is only valid in .return probes"
    assert err('probe process("./uprog_O0").function("add") { println(@entry($a)) }') == \
        '<input>:1:55: error: internal error: @entry is only valid in .return probes'
    assert err('probe process("./uprog_O0").mark("start") { println(@entry(1)) }') == \
        '<input>:1:53: error: internal error: @entry is only valid in .return probes'
    assert err('probe process("./nosuch").function("add") { println(1) }') == \
        """<input>:1:7: error: no match for probe point 'process("./nosuch").function("add")'"""
    assert err('probe process("./uprog_O0").function("nosuch") { println(1) }') == \
        """<input>:1:7: error: no match for probe point 'process("./uprog_O0").function("nosuch")'"""


# 4.8's output of uprobes/uptr.stp on uptr.c built with gcc -g -O0, in the
# guest: a program's pointers as its dwarf_pretty_print shows them (int *
# and long * as the pointer's value in decimal, void * in hex, every
# pointer to chars (char *, const char *, signed char *, unsigned char *,
# char **) through user_string_quoted: the string at the pointer, or the
# pointer in hex when it cannot be read there, as f's s, whose .rodata
# page no access has faulted in yet when f is entered (h's s, the same
# string, is read); a function pointer as <function>:ADDR)
UPTR_UPSTREAM = (
    'ip=0x5572d8132010 lp=0x7fff6e051a88 vp=0x5572d8132010 s=0x5572d813000a '
    'sv=0x7fff6e051a70 fn=0x5572d812f129 ucp=0x7fff6e051a6f\n'
    'ip=93951739764752 lp=140735039216264 vp=0x5572d8132010 s=0x5572d813000a '
    'sv="\\004" fn=<function>:0x5572d812f129 ucp="\\310\\004"\n'
    'ip=93951739764752 lp=140735039216264 vp=0x5572d8132010 s=0x5572d813000a '
    'sv="\\004" fn=<function>:0x5572d812f129 ucp="\\310\\004"\n'
    '93951739764752|<function>:0x5572d812f129|"\\004"|"\\310\\004"\n'
    'scp=0x7fff6e051a6e ccp=0x5572d813000e s=0x5572d813000a\n'
    'scp="A\\310\\004" ccp="cstr" s="str"\n'
    'scp="A\\310\\004" ccp="cstr" s="str"\n'
    '"A\\310\\004"|"cstr"|"str"\n')


def uptr_mask(text):
    """Addresses (ASLR) masked, in hex and in decimal; of a string only
    its first byte is kept: sv's is the low byte of a string's address
    (the same in every run), ucp's the char, what follows it stack bytes."""
    text = re.sub(r'0x[0-9a-f]{8,}', '0x@', text)
    text = re.sub(r'\b\d{10,}\b', '@', text)
    # the stack bytes may hold escapes, a quote's too (\")
    return re.sub(r'"(\\[0-7]{3}|\\.|[^"\\])(?:\\.|[^"\\])*"', r'"\1..."', text)


def test_pointer_pretty_as_upstream(krel, tmp_path):
    shutil.copy(HERE / 'uptr.c', tmp_path / 'uptr.c')
    shutil.copy(HERE / 'uptr.stp', tmp_path / 'uptr.stp')
    subprocess.run(['gcc', '-g', '-O0', '-o', 'uptr', 'uptr.c'], cwd=tmp_path, check=True)
    r = run_stap(['-p4', '-r', krel, '-m', 'u_uptr', 'uptr.stp', str(tmp_path / 'uptr')],
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    [res] = guest.run_batch([f'{STAPRUN} -c {tmp_path}/uptr u_uptr.ko'], scratch=str(tmp_path),
                            timeout=60)
    assert (res.stderr, res.rc) == ('', 0)
    assert uptr_mask(res.stdout) == uptr_mask(UPTR_UPSTREAM), res.stdout
    # what the masks hide: ip's decimal is &g, vp's hex
    # (a string's bytes may hold a space, so the row is not split on spaces)
    m = re.match(r'ip=(\d+) lp=\d+ vp=(0x[0-9a-f]+) ', res.stdout.splitlines()[1])
    assert m and int(m[1]) == int(m[2], 16), res.stdout
