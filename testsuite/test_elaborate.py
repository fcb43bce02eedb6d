# Pass 2-4 tests on the host: elaboration errors and -p2 output, the C of
# pass 3, and kbuild in pass 4 (the module is built, never loaded, here).
import os
from pathlib import Path

import pytest

from conftest import run_stap

FAIL2 = 'Pass 2: analysis failed.  [man error::pass2]\n'


def caret(line_no, text, col):
    return f'{line_no:5d} | {text}\n      | ' + ' ' * (col - 1) + '^\n'


SEM_KO = [
    ('probe begin { foo() }', 15, "unresolved function 'foo'"),
    ('probe begin { x = 1; x = "a" }', 22,
     "type mismatch: variable 'x' is string here but long elsewhere"),
    ('probe foo { }', 7, "no match for probe point 'foo'"),
    ('probe timer.xs(5) { }', 7, "no match for probe point 'timer.xs(5)'; did you mean 'timer.s(5)'?"),
    ('probe begin { printf("%d %s\\n", 1) }', 15,
     "wrong number of arguments to 'printf': the format needs 2, got 1"),
    ('probe begin { printf("%d\\n", "a") }', 30,
     'type mismatch: the expression is string, but long is needed here'),
    ('function f(a) { return a } probe begin { f(1, 2) }', 42,
     "function 'f' takes 1 argument, got 2"),
    ('probe timer.ms(0) {}', 16, 'interval value out of range (1, 86400000)'),
    ('probe begin { printf("%q", 1) }', 22, "invalid format directive '%q'"),
    ('global g probe begin { g = "x" } probe end { g = 1 }', 46,
     "type mismatch: variable 'g' is long here but string elsewhere"),
    ('probe begin { x = "a" . 1 }', 25,
     'type mismatch: the expression is long, but string is needed here'),
    ('probe begin { if ("s") print(1) }', 19,
     'type mismatch: the expression is string, but long is needed here'),
    ('probe begin { 3 = x }', 17, "the left side of '=' must be a variable"),
    ('probe begin { x = 1; (x + 1)++ }', 29, "'++' needs a variable operand"),
    ('probe begin { --5 }', 15, "'--' needs a variable operand"),
    ('probe begin { x = exit() }', 19, "function 'exit' returns no value"),
    ('probe begin { prntln(1) }', 15,
     "unresolved function 'prntln'; did you mean 'println'?"),
    ('function f(a) { return a } probe begin { f() }', 42,
     "function 'f' takes 1 argument, got 0"),
]


# where a type was first set, for the mismatch notes
NOTES = {
    'probe begin { x = 1; x = "a" }': (15, "'x' is long from here"),
    # an arity error shows the declaration, as 4.8 does
    'function f(a) { return a } probe begin { f() }': (10, "'f' is declared here"),
    'function f(a) { return a } probe begin { f(1, 2) }': (10, "'f' is declared here"),
    'global g probe begin { g = "x" } probe end { g = 1 }': (24, "'g' is string from here"),
}


@pytest.mark.parametrize('script,col,msg', SEM_KO)
def test_semantic_errors(script, col, msg):
    r = run_stap(['-p2', '-e', script])
    assert r.returncode == 1
    assert r.stdout == ''
    note = ''
    if script in NOTES:
        ncol, ntext = NOTES[script]
        note = f'<input>:1:{ncol}: note: {ntext}\n' + caret(1, script, ncol)
    assert r.stderr == (f'<input>:1:{col}: error: {msg}\n' +
                        caret(1, script, col) + note + FAIL2)


def test_p2_output():
    # upstream's listing, byte for byte: the assignments to unused locals
    # go, then the call of the side-effect-free f, then f and g with it,
    # and the timer probe left empty
    r = run_stap(['-p2', '-e',
                  'global g = 1 function f:string(a) { b = a; return sprint(b) }'
                  ' probe begin { s = f(g); exit() } probe timer.ms(10) { t = 1 }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('# functions\n'
                        'exit:unknown ()\n'
                        '# probes\n'
                        'begin /* <- begin */\n')
    r = run_stap(['-p2', '-u', '-e',
                  'global g = 1 function f:string(a) { b = a; return sprint(b) }'
                  ' probe begin { s = f(g); exit() } probe timer.ms(10) { t = 1 }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('# globals\ng:long\n'
                        '# functions\n'
                        'exit:unknown ()\n'
                        'f:string (a:long)\n  # locals\n  b:long\n'
                        '# probes\n'
                        'begin /* <- begin */\n  # locals\n  s:string\n'
                        'timer.ms(10) /* <- timer.ms(10) */\n  # locals\n  t:long\n')


def test_never_assigned_warning():
    # a never-assigned local read as a number: a warning, and 0
    r = run_stap(['-p2', '-e', 'probe begin { print(y + 1) }'])
    assert r.returncode == 0
    assert r.stderr == ("<input>:1:21: warning: never-assigned local variable 'y'\n"
                        + caret(1, 'probe begin { print(y + 1) }', 21))
    r = run_stap(['-w', '-p2', '-e', 'probe begin { print(y + 1) }'])
    assert r.stderr == ''
    # with nothing to give it a type, it is an error, as upstream
    r = run_stap(['-w', '-p2', '-e', 'probe begin { print(y) }'])
    assert r.returncode == 1
    assert r.stderr.startswith("<input>:1:21: error: unresolved type for local 'y'\n")


def test_guru_mode_allows_embedded_c():
    r = run_stap(['-g', '-p2', '-e', 'probe begin { x = %{ 1 %} }'])
    assert r.returncode == 0, r.stderr


def test_guru_functions_need_g():
    # raise() and printk() are guru-only tapset functions, as in 4.8
    for call in ('raise(1)', 'printk(1, "x")'):
        text = f'probe begin {{ {call} }}'
        r = run_stap(['-p2', '-e', text])
        assert r.returncode == 1
        assert r.stderr.startswith('<input>:1:15: error: function may not be used '
                                   'unless -g is specified\n')
        r = run_stap(['-g', '-p2', '-e', text])
        assert r.returncode == 0, r.stderr


def test_p3_writes_c():
    r = run_stap(['-p3', '-e', 'probe begin { printf("%d\\n", 6 * 7) }'])
    assert r.returncode == 0, r.stderr
    c = r.stdout
    assert c.startswith('/* generated by stap 0.1.0 from <input> */\n')
    assert '#include "stp_runtime.h"' in c
    assert '{ .kind = STP_PROBE_BEGIN, .handler = probe_0, .pp = "begin"' in c
    assert c.rstrip().endswith('#include "stp_runtime.c"')


def test_break_outside_loop():
    r = run_stap(['-p3', '-e', 'probe begin { break }'])
    assert r.returncode == 1
    assert r.stderr.startswith("<input>:1:15: error: 'break' outside a loop\n")
    assert r.stderr.endswith('Pass 3: translation failed.  [man error::pass3]\n')


def test_p4_builds_module(krel, tmp_path):
    r = run_stap(['-p4', '-r', krel, '-m', 'p4test', '-e',
                  'probe begin { printf("%s\\n", "x"); exit() }'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == 'p4test.ko\n'
    ko = tmp_path / 'p4test.ko'
    assert ko.read_bytes()[:4] == b'\x7fELF'


def test_verbose_and_keep(krel, tmp_path):
    r = run_stap(['-v', '-k', '-p3', '-r', krel, '-m', 'vk', '-e',
                  'probe begin { exit() }'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0].startswith('Pass 1: parsed user script')
    assert lines[1].startswith('Pass 2: analyzed script: 1 probe, 1 function, '
                               '0 embeds, 0 globals using ')
    assert lines[2].startswith('Pass 3: translated to C into "')
    assert lines[3].startswith('Keeping temporary directory "')
    tmpdir = lines[3].split('"')[1]
    assert (Path(tmpdir) / 'vk_src.c').exists()
    for f in Path(tmpdir).iterdir():
        f.unlink()
    os.rmdir(tmpdir)


def test_kbuild_failure_shows_compiler_error(krel, tmp_path):
    r = run_stap(['-g', '-p4', '-r', krel, '-e',
                  'probe begin { %{ this is not C; %} }'], cwd=tmp_path)
    assert r.returncode == 1
    assert 'error:' in r.stderr
    assert "error: unknown type name 'this'" in r.stderr
    assert 'stap: error: kbuild failed with status 2' in r.stderr
    assert r.stderr.endswith('Pass 4: compilation failed.  [man error::pass4]\n')


def test_missing_kernel_tree(tmp_path):
    r = run_stap(['-p4', '-r', '0.0.0-none', '-e', 'probe begin { exit() }'],
                 cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == (
        'stap: error: kernel build tree not found at /lib/modules/0.0.0-none/build;'
        ' install the headers for 0.0.0-none (Debian: apt-get install '
        'linux-headers-0.0.0-none)\n'
        'Pass 4: compilation failed.  [man error::pass4]\n')


def test_dump_functions_and_aliases(tmp_path):
    r = run_stap(['--dump-functions'])
    assert r.returncode == 0, r.stderr
    # sorted, one line per function, each as 4.8's --dump-functions prints it
    # for the same function (more tapset functions may come: a subset check)
    lines = r.stdout.splitlines()
    assert lines == sorted(set(lines))
    assert set(lines) >= {
        'HZ:long () /* unprivileged */',
        'cpu:long () /* unprivileged */',
        'ctime:string ()',
        'ctime:string (epochsecs:long)',
        'egid:long () /* unprivileged */',
        'error:unknown (msg:string) /* unprivileged */',
        'euid:long () /* unprivileged */',
        'execname:string () /* unprivileged */',
        'exit:unknown () /* unprivileged */',
        'get_cycles:long () /* unprivileged */',
        'gettimeofday_ms:long ()',
        'gettimeofday_ns:long () /* unprivileged */',
        'gettimeofday_s:long ()',
        'gettimeofday_us:long ()',
        'gid:long () /* unprivileged */',
        'isdigit:long (str:string) /* unprivileged */',
        'isinstr:long (s1:string, s2:string) /* unprivileged */',
        'jiffies:long () /* unprivileged */',
        'pexecname:string () /* unprivileged */',
        'pid:long () /* unprivileged */',
        'pp:string () /* unprivileged */',
        'ppfunc:string () /* unprivileged */',
        'ppid:long () /* unprivileged */',
        'probefunc:string ()',
        'str_replace:string (prnt_str:string, srch_str:string, rplc_str:string) /* unprivileged */',
        'string_quoted:string (str:string)',
        'stringat:long (str:string, pos:long) /* unprivileged */',
        'strlen:long (s:string) /* unprivileged */',
        'strpos:long (s1:string, s2:string) /* unprivileged */',
        'strtol:long (str:string, base:long) /* unprivileged */',
        'substr:string (str:string, start:long, length:long) /* unprivileged */',
        'target:long () /* unprivileged */',
        'text_str:string (input:string) /* unprivileged */',
        'text_strn:string (input:string, len:long, quoted:long) /* unprivileged */',
        'tid:long () /* unprivileged */',
        'tokenize:string (delim:string)',
        'tokenize:string (input:string, delim:string) /* unprivileged */',
        'uid:long () /* unprivileged */',
        'warn:unknown (msg:string) /* unprivileged */',
    }
    (tmp_path / 'lib.stp').write_text(
        'probe my.alias = begin { x = 1 }\n'
        'probe my.other += end?, begin! { }\n'
        'probe __internal = begin { }\n'
        'probe _helper = begin { }\n'
        'function f:long(a:long, b:string) { return a }\n'
        'function _h:long() { return 1 }\n'
        'function __i:long() { return 1 }\n'
        'function j_k:long() { return 1 }\n'
        'private function g() { }\n')
    r = run_stap(['-I', str(tmp_path), '--dump-probe-aliases'])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert 'my.alias = begin' in lines and 'my.other += end?, begin!' in lines
    # 4.8 leaves out every name that starts with '_'
    assert not any(line.startswith('_') for line in lines)
    assert lines == sorted(lines)
    r = run_stap(['-I', str(tmp_path), '--dump-functions'])
    assert 'f:long (a:long, b:string)\n' in r.stdout
    assert '\ng:' not in r.stdout
    assert 'j_k:long ()\n' in r.stdout
    assert not any(line.startswith('_') for line in r.stdout.splitlines())


def test_broken_tapset_reported_once(tmp_path):
    """A tapset file that fails to parse is reported once; the functions and
    aliases it declares are not reported again as unresolved."""
    (tmp_path / 'bad.stp').write_text('function good() { return 1 }\n'
                                      'function broken() { return 1 +  }\n'
                                      'probe myalias = begin { }\n')
    r = run_stap(['-I', str(tmp_path), '-p2', '-e',
                  'probe myalias { print(broken()) } probe begin { print(good()) }'])
    assert r.returncode == 1
    assert r.stderr == (f"{tmp_path}/bad.stp:2:33: error: expected an expression, got '}}'\n"
                        + caret(2, 'function broken() { return 1 +  }', 33) + FAIL2)


def test_choose_defined_library_macro(krel):
    """@choose_defined (tapsets/macros.stpm) picks the target variable the
    probe has, else the alternative, which never reaches later passes."""
    r = run_stap(['-r', krel, '-p2', '-e',
                  'probe kernel.function("vfs_read") { x = @choose_defined($count, 0); '
                  'y = @choose_defined($nosuch, 7); printf("%d %d\\n", x, y) }'])
    assert r.returncode == 0, r.stderr
    r = run_stap(['-r', krel, '-p2', '-e', 'probe begin { print(@choose_defined($x, 3)) }'])
    assert r.returncode == 0, r.stderr


LIB_A = '''%{
#define LIB_A_MAGIC 42
%}
global lib_a_count
probe begin(-1) { lib_a_count = 1 }
function lib_a_magic:long () %{ STAP_RETURN(LIB_A_MAGIC); %}
function lib_a_next:long () { return lib_a_count++ }
'''
LIB_B = '''%{
#define LIB_B_UNUSED 1
%}
probe begin { println("lib_b should not run") }
function lib_b_unused () { }
'''


def test_used_tapset_file_comes_in_whole(tmp_path):
    """A tapset file something is taken from brings its embedded C and its
    own probes (upstream's -p2 listing, byte for byte); an unused file
    brings nothing."""
    (tmp_path / 'lib_a.stp').write_text(LIB_A)
    (tmp_path / 'lib_b.stp').write_text(LIB_B)
    r = run_stap(['-g', '-p2', '-I', str(tmp_path), '-e',
                  '%{ #define X 1 %} probe begin { println(lib_a_magic()) }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('# global embedded code\n%{ #define X 1 %}\n'
                        '%{\n#define LIB_A_MAGIC 42\n%}\n'
                        '# globals\nlib_a_count:long\n'
                        '# functions\nlib_a_magic:long ()\n'
                        '# probes\nbegin /* <- begin */\nbegin(-1) /* <- begin(-1) */\n')
    r = run_stap(['-p3', '-I', str(tmp_path), '-e',
                  'probe begin { println(lib_a_magic()) }'])
    assert r.returncode == 0, r.stderr
    assert '#define LIB_A_MAGIC 42' in r.stdout
    assert 'LIB_B' not in r.stdout and 'lib_b should not run' not in r.stdout


def test_empty_probes_are_elided():
    r = run_stap(['-p2', '-e', 'probe begin { if (0) println(1) } probe end { println(1) }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == '# probes\nend /* <- end */\n'
    assert r.stderr == ("<input>:1:1: warning: probe 'begin' has been elided\n"
                        + caret(1, 'probe begin { if (0) println(1) } probe end { println(1) }', 1))
    r = run_stap(['-p2', '-w', '-e', 'probe timer.s(1) { }'])
    assert r.returncode == 1
    assert r.stderr == 'stap: error: no probes found\nPass 2: analysis failed.  [man error::pass2]\n'
    r = run_stap(['-p2', '-u', '-e', 'probe timer.s(1) { }'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == '# probes\ntimer.s(1) /* <- timer.s(1) */\n'


@pytest.mark.parametrize('point,hint', [
    ('syscal.open', 'syscall.open'),
    ('kernel.functon("vfs_read")', 'kernel.function("vfs_read")'),
])
def test_misspelt_probe_point_hint(point, hint):
    # issue 18's examples: a family name one letter off
    r = run_stap(['-p2', '-e', f'probe {point} {{ }}'])
    assert r.returncode == 1
    assert (f"error: no match for probe point '{point}'; did you mean '{hint}'?\n"
            in r.stderr)


def test_misspelt_tapset_variable_hint():
    r = run_stap(['-p2', '-e', 'probe syscall.openat { println(filenme) }'])
    assert ("<input>:1:32: warning: never-assigned local variable 'filenme'; "
            "did you mean 'filename'?\n") in r.stderr


def test_alias_warning_given_once():
    # a warning in an alias body expanded into two probes: once, and the
    # repeat counted as 4.8 counts it
    r = run_stap(['-p2', '-e', 'probe myal = timer.s(1), timer.s(2) { println(zz) } '
                  'probe myal { }'])
    assert r.stderr.count("warning: never-assigned local variable 'zz'") == 1
    assert 'Number of similar warning messages suppressed: 1.\n' in r.stderr


# `>>>` of two literals: 4.8's void statement reducer (which runs with -u
# too) splits an operator whose value is unused into its operands before
# its constant folder fails on `1 >>> 2`. Each form checked on 4.8:
# statement -> rejected without -u, with -u.
USHIFT_FORMS = {
    '1 >>> 2;': (False, False),
    '(1 >>> 2) + 3;': (False, False),
    '1 >>> 2 == 3;': (False, False),
    '!(1 >>> 2);': (False, False),
    '~(1 >>> 2);': (False, False),
    'x ? 1 >>> 2 : 0;': (False, False),
    'x && (1 >>> 2);': (False, False),
    'x || (1 >>> 2);': (False, False),
    '(x ? 1 >>> 2 : 0) + 1;': (False, False),
    'x++ + (1 >>> 2);': (False, False),
    'x++ + -(1 >>> 2);': (False, False),
    '(1 >>> 2) || x;': (False, True),
    '(1 >>> 2) ? x : 1;': (False, True),
    'if (1 >>> 2) x = 2;': (True, True),
    'println(1 >>> 2);': (True, True),
    'y = 1 >>> 2;': (False, True),	# y unused: elided without -u
    'x = 1 >>> 2;': (True, True),
}


@pytest.mark.parametrize('stmt', list(USHIFT_FORMS))
def test_ushift_literals_unused(stmt):
    for opt, rejected in zip(([], ['-u']), USHIFT_FORMS[stmt]):
        r = run_stap(['-p2', *opt, '-e',
                      f'probe begin {{\n\tx = 1;\n\t{stmt}\n\tprintln(x)\n}}\n'])
        assert (r.returncode == 1 and 'unsupported binary operator >>>' in r.stderr) \
            == rejected, (opt, r.stderr)
        if not rejected:
            assert r.returncode == 0, (opt, r.stderr)
