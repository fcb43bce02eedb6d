# test_script_opt.py - the optimisation level of the generated code
# (issue 17, runtime/stp_runtime.h): a big script's handlers, stubs and
# functions are compiled at -O0 (the translator defines STP_SCRIPT_O0),
# a small script's at -Og; embedded C stays at the kernel's -O2 (an
# embedded-C function of a big script at -O1: STP_OPT_EMBED), and a
# function or handler holding an embedded-C expression at -Og. At -O0 the
# generated code must call no fortified string function (their
# compile-time checks are folded only when optimising): modules with the
# constructs that write into frames, @entry strings, the exit display of
# globals and embedded expressions build with -DSTP_SCRIPT_O0. And the
# module's own flags: no -Wmisleading-indentation (it only warns, and
# rereads the source around every if and loop: 10% of gcc's time on a
# big module).
import re
import shutil
from pathlib import Path

from conftest import REPO, run_stap

ONELINER = 'probe syscall.* { printf("%s(%s)\\n", name, argstr) }'
O0 = '#ifndef STP_SCRIPT_O0\n#define STP_SCRIPT_O0\n#endif\n#include "stp_runtime.h"\n'

# the constructs whose C at -O0 once called memset() or strscpy()
FORCED = (
    'global a, shown '
    'function f(x) { return x + %{ /* pure */ MAXSTRINGLEN %} } '
    'function g(s) { a[s] <<< strlen(s) return s . "!" } '
    'probe kernel.function("vfs_read").return { println(@entry(execname())) } '
    'probe begin { shown[1] = f(1) println(g("x")) foreach (k in a) println(k) '
    'println(%{ /* pure */ 7 %}) exit() }'
)


def p3(krel, args, cwd=None):
    r = run_stap(['-p3', '-r', krel] + args, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_big_script_at_O0_small_at_Og(krel):
    assert O0 in p3(krel, ['-e', ONELINER])
    small = p3(krel, ['hanoi.stp'], cwd=REPO / 'testsuite' / 'diff' / 'functions')
    assert 'define STP_SCRIPT_O0' not in small
    assert '\nSTP_OPT_SCRIPT\n' in small


def test_embedded_functions_between_embed_marks(krel):
    for c in (p3(krel, ['-e', ONELINER]), p3(krel, ['-e', 'probe begin { println(ctime(0)) }'])):
        f = re.search(r'STP_OPT_KERNEL\nSTP_OPT_EMBED\nSTP_FUNCTION\(ctime__1\)\n.*?\n\}\n'
                      r'STP_OPT_KERNEL\nSTP_OPT_SCRIPT\n', c, re.S)
        assert f, c[-3000:]
    rt = (REPO / 'runtime' / 'stp_runtime.h').read_text()
    o0 = rt[rt.index('#ifdef STP_SCRIPT_O0\n#define STP_OPT_SCRIPT'):]
    assert re.match(r'[^\n]*\n[^\n]*\n#define STP_OPT_EMBED _Pragma\("GCC push_options"\) '
                    r'_Pragma\("GCC optimize \(\\"O1\\"\)"\)\n#else\n', o0), o0[:400]


def test_consecutive_embedded_functions_share_marks(krel):
    """The one-liner's embedded-C functions come in runs: each run is one
    STP_OPT_EMBED bracket (a bracket closed and opened again with only
    parameter #define/#undef lines between them was 8 KB of its C), and
    only embedded-C functions are inside one."""
    c = p3(krel, ['-e', ONELINER])
    assert not re.search(r'STP_OPT_KERNEL\nSTP_OPT_SCRIPT\n\n(?:#(?:define|undef) STAP_ARG_'
                         r'[^\n]*\n)*STP_OPT_KERNEL\nSTP_OPT_EMBED\n', c)
    runs = re.findall(r'STP_OPT_KERNEL\nSTP_OPT_EMBED\n(.*?)STP_OPT_KERNEL\nSTP_OPT_SCRIPT\n',
                      c, re.S)
    inside = [f for r in runs for f in re.findall(r'^STP_FUNCTION\((\w+)\)\n', r, re.M)]
    assert len(runs) < 20 and len(inside) > 140, (len(runs), len(inside))
    for name in inside:	# the frame of an embedded-C function has no temporaries
        body = c[c.index(f'STP_FUNCTION({name})\n{{'):]
        body = body[:body.index('\nSTP_OUT;\n')]
        assert 'STP_TRY(' not in body and 'stp_locs' not in body, body


def test_embedded_expressions_at_Og(krel):
    c = p3(krel, ['-g', '-e', FORCED])
    # f and the begin probe hold an embedded-C expression: -Og around them
    f = re.search(r'STP_OPT_KERNEL\nSTP_OPT_EXPR\nSTP_FUNCTION\(f__1\)\n.*?\n\}\n'
                  r'STP_OPT_KERNEL\nSTP_OPT_SCRIPT\n', c, re.S)
    assert f, c[-3000:]
    assert 'STP_OPT_EXPR\nSTP_FUNCTION(g__1)' not in c
    assert c.count('STP_OPT_KERNEL\nSTP_OPT_EXPR\n') == 2
    assert 'memset(l' not in c.replace('__builtin_memset(l', '')
    assert 'stp_str_copy((char *)c->entry_data' in c	# @entry(execname())


def test_forced_O0_builds(krel, tmp_path):
    # -DSTP_SCRIPT_O0: the -O0 form of the handlers too
    assert O0 in p3(krel, ['-g', '-DSTP_SCRIPT_O0', '-e', FORCED])
    r = run_stap(['-p4', '-g', '-DSTP_SCRIPT_O0', '-r', krel, '-e', FORCED],
                 cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr


def test_module_flags(krel, tmp_path):
    r = run_stap(['-p4', '-k', '-r', krel, '-e', 'probe begin { exit() }'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    kept = re.search(r'Keeping temporary directory "([^"]+)"', r.stderr).group(1)
    mk = (Path(kept) / 'Makefile').read_text()
    shutil.rmtree(kept)
    flags = re.search(r'^ccflags-y := (.*)$', mk, re.M).group(1).split()
    assert '-Wno-misleading-indentation' in flags
