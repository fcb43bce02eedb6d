# Pass 1 unit tests: the lexer and parser of the language slice, through
# `stap -p1` (the canonical re-print) and its diagnostics. Exact text.
import pytest

from conftest import run_stap

PARSE_OK = [
    ('probe begin { printf("hello %s %d\\n", "world", 6*7); exit() }',
     'probe begin {\n'
     '\tprintf("hello %s %d\\n", "world", (6 * 7));\n'
     '\texit();\n'
     '}\n'),
    # number forms: hex, octal, 2^64-1 wraps to -1
    ('probe begin { a = 0x10 + 010 + 18446744073709551615 }',
     'probe begin {\n\ta = ((16 + 8) + 18446744073709551615);\n}\n'),
    # string escapes and adjacent-literal joining
    ('probe begin { b = "x\\ty" "z\\101\\x41\\q" }',
     'probe begin {\n\tb = "x\\tyzAAq";\n}\n'),
    # shifts are left-associative; >>> is the logical shift
    ('probe begin { c = 1 << 2 >> 3 >>> 4 }',
     'probe begin {\n\tc = (((1 << 2) >> 3) >>> 4);\n}\n'),
    # unary binds tighter than && which binds tighter than ||
    ('probe begin { d = !a && ~b || -c }',
     'probe begin {\n\td = ((!(a) && ~(b)) || -(c));\n}\n'),
    # comparisons chain left to right
    ('probe begin { e = a < b == c }',
     'probe begin {\n\te = ((a < b) == c);\n}\n'),
    # the ternary's false branch nests to the right
    ('probe begin { f = a ? b : c ? d : e }',
     'probe begin {\n\tf = (a ? b : (c ? d : e));\n}\n'),
    # '.' binds looser than '+', tighter than shifts
    ('probe begin { x = 1 + 2 . "a" }',
     'probe begin {\n\tx = ((1 + 2) . "a");\n}\n'),
    ('probe begin { x = 1 * 2 + 3 % 4 - 5 / 6 }',
     'probe begin {\n\tx = (((1 * 2) + (3 % 4)) - (5 / 6));\n}\n'),
    ('probe begin { x = 1 | 2 ^ 3 & 4 }',
     'probe begin {\n\tx = (1 | (2 ^ (3 & 4)));\n}\n'),
    # assignment is right-associative
    ('probe begin { a = b = 3; g .= "s"; h += 2; h++; --h }',
     'probe begin {\n\ta = (b = 3);\n\tg .= "s";\n\th += 2;\n\th++;\n\t--h;\n}\n'),
    # all three comment forms
    ('# shell\nprobe begin { } // c++\n/* c */ probe end {}',
     'probe begin {\n}\nprobe end {\n}\n'),
    ('probe timer.ms(100), begin?, end! { if (1) x = 1; else x = 2 }',
     'probe timer.ms(100), begin?, end! {\n'
     '\tif (1)\n\t\tx = 1;\n\telse\n\t\tx = 2;\n}\n'),
    ('probe begin { while (x < 3) { x++; continue; break } '
     'for (i = 0; i < 3; i++) next }',
     'probe begin {\n'
     '\twhile ((x < 3)) {\n\t\tx++;\n\t\tcontinue;\n\t\tbreak;\n\t}\n'
     '\tfor (i = 0; (i < 3); i++)\n\t\tnext;\n}\n'),
    ('function f:string(a:long, b:string) { return b . "x"; }\n'
     'global g = 5, h = "s", k\nprobe begin { print(f(1, "y")) }',
     'global g = 5\nglobal h = "s"\nglobal k\n'
     'function f:string(a:long, b:string) {\n\treturn (b . "x");\n}\n'
     'probe begin {\n\tprint(f(1, "y"));\n}\n'),
    ('probe begin { println("a", 1); sprint(2); printd(",", 1, 2) }',
     'probe begin {\n\tprintln("a", 1);\n\tsprint(2);\n'
     '\tprintd(",", 1, 2);\n}\n'),
    ('probe timer.s(1) { x = -9223372036854775808 }',
     'probe timer.s(1) {\n\tx = -(9223372036854775808);\n}\n'),
]


@pytest.mark.parametrize('script,body', PARSE_OK)
def test_parse_ok(script, body):
    r = run_stap(['-p1', '-e', script])
    assert r.returncode == 0, r.stderr
    assert r.stderr == ''
    assert r.stdout == '# file <input>\n' + body


# Membership and regex matches bind as in 4.8: 'in' takes the comparison on
# its left; after 'in NAME' or '=~ LITERAL' only looser operators follow.
@pytest.mark.parametrize('expr,want', [
    ('a < k in arr', '((a < k) in arr)'),
    ('[1,2] in arr && b', '(([1, 2] in arr) && b)'),
    ('a & [1] in arr | 2', '((a & (1 in arr)) | 2)'),
    ('a =~ "x" || b !~ "y"', '((a =~ "x") || (b !~ "y"))'),
])
def test_in_and_regex_binding(expr, want):
    r = run_stap(['-p1', '-e', 'global arr; probe begin { x = %s }' % expr])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('# file <input>\nglobal arr\nprobe begin {\n'
                        '\tx = %s;\n}\n' % want)


@pytest.mark.parametrize('expr,col', [
    ('k in arr in b', 40), ('a =~ "x" . "y"', 40), ('a < [1] in arr', 35)])
def test_in_and_regex_bind_nothing_tighter(expr, col):
    r = run_stap(['-p1', '-e', 'global arr; probe begin { x = %s }' % expr])
    assert r.returncode == 1
    assert r.stderr.startswith('<input>:1:%d: error: ' % col), r.stderr


def test_deep_nesting():
    """997 parenthesised levels parse (each once walked every operator level;
    sanitize.sh runs this under ASan, whose frames are large); one more
    level (the probe body and its statement count too) is a clear error,
    not a stack overflow."""
    def script(n):
        return 'probe begin { x = %s1%s }' % ('(' * n, ')' * n)
    r = run_stap(["-p1", "-e", script(997)])
    assert r.returncode == 0, r.stderr[:300]
    assert r.stdout == '# file <input>\nprobe begin {\n\tx = 1;\n}\n'
    r = run_stap(['-p1', '-e', script(998)])
    assert r.returncode == 1
    assert r.stderr.startswith('<input>:1:1017: error: expressions or '
                               'statements nested too deeply (over 1000 '
                               'levels)\n'), r.stderr[:300]


def test_script_arguments():
    r = run_stap(['-p1', '-e', 'probe begin { print($1 + $2, @1, $#, @#) }',
                  '5', '7'])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('# file <input>\nprobe begin {\n'
                        '\tprint((5 + 7), "5", 2, "2");\n}\n')


def test_script_from_file_and_stdin(tmp_path):
    f = tmp_path / 'x.stp'
    f.write_text('probe end { print(1) }\n')
    r = run_stap(['-p1', str(f)])
    assert r.returncode == 0, r.stderr
    assert r.stdout == f'# file {f}\nprobe end {{\n\tprint(1);\n}}\n'
    r = run_stap(['-p1', '-'], stdin='probe end { print(2) }\n')
    assert r.returncode == 0, r.stderr
    assert r.stdout == '# file <input>\nprobe end {\n\tprint(2);\n}\n'


FAIL = '\nPass 1: parse failed.  [man error::pass1]\n'

PARSE_KO = [
    ('probe begin { x = "abc',
     '<input>:1:19: error: unterminated string literal\n'
     '    1 | probe begin { x = "abc\n'
     '      |                   ^'),
    # an unclosed comment runs to the end of the file, as upstream
    ('probe begin { /* x ',
     "<input>:1:14: error: expected '}', got end of input\n"
     '    1 | probe begin { /* x \n'
     '      |              ^'),
    ('probe begin { x = 5 ` }',
     "<input>:1:21: error: unexpected character '`'\n"
     '    1 | probe begin { x = 5 ` }\n'
     '      |                     ^'),
    ('probe begin { x = 09 }',
     "<input>:1:19: error: invalid number '09'\n"
     '    1 | probe begin { x = 09 }\n'
     '      |                   ^'),
    ('probe begin { x = 18446744073709551616 }',
     "<input>:1:19: error: invalid number '18446744073709551616' "
     '(out of 64-bit range)\n'
     '    1 | probe begin { x = 18446744073709551616 }\n'
     '      |                   ^'),
    ('probe begin { printf("hello %s %d\\n", "world" 6*7); exit() }',
     "<input>:1:47: error: expected ',' or ')', got number '6'\n"
     '    1 | probe begin { printf("hello %s %d\\n", "world" 6*7); exit() }\n'
     '      | ' + ' ' * 46 + '^'),
    # two errors: the parser recovers at the next top-level keyword
    ('probe begin { x = 1 +  }\nprobe end { y = }',
     "<input>:1:24: error: expected an expression, got '}'\n"
     '    1 | probe begin { x = 1 +  }\n'
     '      |                        ^\n'
     "<input>:2:17: error: expected an expression, got '}'\n"
     '    2 | probe end { y = }\n'
     '      |                 ^'),
    ('probe begin { printf(x) }',
     '<input>:1:15: error: printf: the first argument must be a string '
     'literal (the format)\n'
     '    1 | probe begin { printf(x) }\n'
     '      |               ^'),
    ('probe begin { print(1) ',
     "<input>:1:23: error: expected '}', got end of input\n"
     '    1 | probe begin { print(1) \n'
     '      |                       ^'),
    ('begin { }',
     "<input>:1:1: error: expected 'probe', 'global', 'private', 'function' or "
     "embedded C, got identifier 'begin'\n"
     '    1 | begin { }\n'
     '      | ^'),
    ('probe begin { if x }',
     "<input>:1:18: error: expected '(', got identifier 'x'\n"
     '    1 | probe begin { if x }\n'
     '      |                  ^'),
    ('probe begin { else }',
     "<input>:1:15: error: expected a statement, got keyword 'else'\n"
     '    1 | probe begin { else }\n'
     '      |               ^'),
    ('probe begin { x = %{ 1 %} }',
     '<input>:1:19: error: embedded expression code in unprivileged script; need stap -g\n'
     '    1 | probe begin { x = %{ 1 %} }\n'
     '      |                   ^'),
    ('%{ int x; %} probe begin { }',
     '<input>:1:1: error: embedded code in unprivileged script; need stap -g\n'
     '    1 | %{ int x; %} probe begin { }\n'
     '      | ^'),
    ('probe begin { return 1 }',
     "<input>:1:15: error: 'return' outside a function\n"
     '    1 | probe begin { return 1 }\n'
     '      |               ^'),
    ('function f(a, b c) { }',
     "<input>:1:17: error: expected ',', got identifier 'c'\n"
     '    1 | function f(a, b c) { }\n'
     '      |                 ^'),
]


@pytest.mark.parametrize('script,err', PARSE_KO)
def test_parse_errors(script, err):
    r = run_stap(['-p1', '-e', script])
    assert r.returncode == 1
    assert r.stdout == ''
    assert r.stderr == err + FAIL


def test_argument_out_of_range():
    r = run_stap(['-p1', '-e', 'probe begin { print($3) }', 'a'])
    assert r.returncode == 1
    assert r.stderr == (
        '<input>:1:21: error: command line argument index 3 out of range [1-1]\n'
        '    1 | probe begin { print($3) }\n'
        '      |                     ^' + FAIL)


def test_error_in_file_names_the_file(tmp_path):
    f = tmp_path / 'bad.stp'
    f.write_text('probe begin {\n  x = = 1\n}\n')
    r = run_stap(['-p1', str(f)])
    assert r.returncode == 1
    assert r.stderr.startswith(
        f"{f}:2:7: error: expected an expression, got '='\n"
        '    2 |   x = = 1\n'
        '      |       ^\n')


@pytest.mark.parametrize('script,body', PARSE_OK)
def test_round_trip(script, body, tmp_path):
    """print(parse(print(parse(s)))) == print(parse(s))"""
    first = run_stap(['-p1', '-e', script]).stdout
    src = first.split('\n', 1)[1]
    second = run_stap(['-p1', '-e', src])
    assert second.returncode == 0, second.stderr
    assert second.stdout == first


def test_usage_errors():
    r = run_stap([])
    assert r.returncode == 1
    assert 'no script given' in r.stderr
    r = run_stap(['-p', '9', '-e', 'probe begin {}'])
    assert r.returncode == 1
    assert r.stderr.startswith('stap: -p takes a pass number from 1 to 5\n')
    r = run_stap(['-m', 'Bad-Name', '-e', 'probe begin {}'])
    assert r.returncode == 1
    assert '[A-Za-z0-9_]' in r.stderr


def test_help_and_version():
    r = run_stap(['-h'])
    assert r.returncode == 0 and r.stdout.startswith('Usage: stap')
    r = run_stap(['-V'])
    assert r.returncode == 0 and r.stdout.startswith('stap 0.1.0')
