#!/usr/bin/python3
# randgen.py - a seeded, reproducible generator of random, valid SystemTap
# scripts for differential testing against SystemTap 4.8 (randdiff.py).
#
# A script is a list of independent test blocks; block N is one
# `probe begin(N)` with its own globals and functions (names prefixed
# bN_), so blocks can be packed into one module and each can be cut out
# alone. Each block prints a marker line `#N` first and keeps its work
# under MAXACTION; whatever may raise an error (division, string indexing,
# error(), empty aggregates) sits in try/catch. A last `probe begin`
# calls exit(). In limits mode a last block hits a limit on purpose
# (MAXACTION, MAXNESTING, MAXMAPENTRIES, an uncaught division by zero or
# error()), whose message and exit status are compared too.
#
# The script is kept as a tree (Node) so that randdiff.py can reduce it:
# a Node is a line, or a compound statement of parts (header, body).
#
#   randgen.py --seed S [--blocks N] [--limits]   print one script
import argparse
import random
import sys

# ---------------------------------------------------------------- the tree


class Node:
    """A statement or top-level item: .head (a line) alone, or compound
    .parts [(header, [Node...]), ...] rendered `header {` body `} header2
    {` body `}`. .block is the block id of a top-level item."""

    def __init__(self, head=None, parts=None, block=None):
        self.head, self.parts, self.block = head, parts, block

    def render(self, out, indent=0):
        pad = '\t' * indent
        if self.parts is None:
            out.append(pad + self.head)
            return
        line = pad
        for i, (hdr, body) in enumerate(self.parts):
            line += (hdr + ' {') if i == 0 else ('} ' + hdr + ' {')
            out.append(line)
            for n in body:
                n.render(out, indent + 1)
            line = pad
        out.append(pad + '}')

    def copy(self):
        if self.parts is None:
            return Node(self.head, None, self.block)
        return Node(self.head, [(h, [n.copy() for n in b]) for h, b in self.parts],
                    self.block)


def render(items):
    out = []
    for it in items:
        it.render(out)
    return '\n'.join(out) + '\n'


def leaf(s):
    return Node(s)


def comp(*parts):
    return Node(parts=list(parts))


# ---------------------------------------------------------------- values

INT64_MAX = '9223372036854775807'
EDGE = ['0', '1', '-1', '2', '3', '7', '10', '63', '64', '65', '100', '-100',
        '255', '256', '1000', '-7', INT64_MAX, '(-9223372036854775807 - 1)',
        '(1 << 63)', '0x7fffffff', '0x80000000', '4294967295', '0xff', '0777',
        '123456789', '-123456789', '(1 << 62)', '0x10']
SMALL = ['0', '1', '2', '3', '-1', '5', '10', '-2', '4']
STRINGS = ['""', '"a"', '"hello"', '"Hello World"', '"a,b,,c"', '"  x  "',
           '"abcabc"', '"0123456789"', '"42"', '"-17"', '"0x1f"', '"077"',
           '"tab\\there"', '"nl\\nx"', '"q\\"uote"', '"back\\\\slash"',
           '"%d%s"', '"xyz"', '"ab"', '"b"', '"12abc"', '"  7"',
           '"\\001\\177"', '"caf\\303\\251"']
DELIMS = ['","', '" "', '"b"', '"ab"', '",b"']
REGEXES = ['"^a"', '"b+"', '"[0-9]+"', '"^$"', '"(ab)+c?"', '"o W"', '"x|y"',
           '"^[^,]*,"']
def may_fail(text):
    """Whether an expression may raise an error (stringat() out of
    range, a division by 0): it then goes under try/catch, else its
    error would end the run and the blocks after it would not run."""
    return 'stringat(' in text or '/' in text or '%' in text


ARITH = ['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>', '>>>']
BINOPS = ['+', '-', '*', '/', '%', '<<', '>>', '>>>', '&', '|', '^', '<', '<=',
          '>', '>=', '==', '!=', '&&', '||']
ASSIGNOPS = ['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '|=', '^=']
CONVS = 'diuxXocbps'


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    # ----------------------------------------------------- expressions

    def lexpr(self, b, d=2, top=True):
        """A long expression over block b's long locals. Only a top-level
        one (printed, assigned) may be a comparison or logical operator:
        4.8's C of `(a < b) > 255` or `!(a * b)` trips gcc's -Werror."""
        r = self.r.random()
        if d <= 0 or r < 0.25:
            if b.lvars and self.chance(0.6):
                return self.pick(b.lvars)
            return self.pick(EDGE)
        if r < 0.6:
            op = self.pick(BINOPS if top else ARITH)
            if op in ('<<', '>>', '>>>'):
                return self.shift(b, op, d)
            if op in ('&&', '||'):
                return f'({self.cond(b, d - 1)} {op} {self.cond(b, d - 1)})'
            e = f'{self.lexpr(b, d - 1, False)} {op} {self.lexpr(b, d - 1, False)}'
            return f'({e})' if self.chance(0.85) or not top else e
        if r < 0.68:
            op = self.pick(['-', '~', '!'] if top else ['-', '~'])
            e = self.lexpr(b, d - 1, False) if op != '!' else self.pick(b.lvars or EDGE)
            if e[0] in '-~!+':
                e = f'({e})'
            return f'{op}{e}'
        if r < 0.74:
            return f'({self.cond(b, d - 1)} ? {self.lexpr(b, d - 1, False)} : {self.lexpr(b, d - 1, False)})'
        if r < 0.88:
            s = self.sexpr(b, d - 1)
            f = self.r.randrange(7 if top else 6)
            if f == 0:
                return f'strlen({s})'
            if f == 1:
                return f'isinstr({s}, {self.sexpr(b, 0)})'
            if f == 2:
                return f'strpos({s}, {self.sexpr(b, 0)})'
            if f == 3:
                return f'stringat({s}, {self.pick(SMALL)})'
            if f == 4:
                return f'strtol({self.pick(STRINGS)}, {self.pick(["0", "10", "16", "8", "2", "36"])})'
            if f == 5:
                return f'isdigit({s})'
            return f'({self.slhs(b)} {self.pick(["==", "!=", "<", ">", "<=", ">="])} {s})'
        if r < 0.94 and b.lfuncs:
            fn, arity = self.pick(b.lfuncs)
            return f'{fn}({", ".join(self.lexpr(b, 0) for _ in range(arity))})'
        if b.lvars and self.chance(0.5):
            v = self.pick(b.lvars)
            return self.pick([f'{v}++', f'++{v}', f'{v}--', f'--{v}',
                              f'({v} += {self.pick(SMALL)})'])
        return self.pick(EDGE)

    def shift(self, b, op, d):
        """l OP count: a count outside 0..63 only on a literal (which both
        fold; 4.8's C of `x << 65` trips gcc's -Werror), `>>>` only of a
        variable (4.8's folder rejects it on two literals)."""
        if op == '>>>' and b.lvars:
            lhs = self.pick(b.lvars)
        elif op == '>>>':
            op, lhs = '>>', self.lexpr(b, d - 1, False)
        else:
            lhs = self.lexpr(b, d - 1, False)
        r = self.r.random()
        if r < 0.4:
            n = str(self.r.randrange(64))
        elif r < 0.6 and op != '>>>' and lhs.lstrip('-').isdigit():
            n = self.pick(['64', '65', '100', '-1', '128'])
        elif r < 0.8 and b.lvars:
            n = self.pick(b.lvars)
        else:
            n = self.pick(['0', '1', '7', '31', '32', '62', '63'])
        return f'({lhs} {op} {n})'

    def cond(self, b, d=1):
        r = self.r.random()
        if r < 0.15 and b.lvars:
            return self.pick(b.lvars)
        if r < 0.6:
            op = self.pick(['<', '<=', '>', '>=', '==', '!='])
            return f'{self.lexpr(b, d, False)} {op} {self.lexpr(b, d, False)}'
        if r < 0.8:
            return f'{self.sexpr(b, 0)} {self.pick(["=~", "!~"])} {self.pick(REGEXES)}'
        return f'{self.slhs(b)} {self.pick(["==", "!=", "<", ">"])} {self.sexpr(b, 0)}'

    def slhs(self, b):
        """The left side of a string comparison: not two literals, which
        4.8 folds comparing their escaped source text (`"\\001" < "%"` is
        0 there)."""
        return self.pick(b.svars) if b.svars else self.pick(['"a"', '"hello"', '""'])

    def sexpr(self, b, d=2):
        """A string expression over block b's string locals."""
        r = self.r.random()
        if d <= 0 or r < 0.3:
            if b.svars and self.chance(0.5):
                return self.pick(b.svars)
            return self.pick(STRINGS)
        f = self.r.randrange(13)
        s = self.sexpr(b, d - 1)
        if f == 0:
            return f'{s} . {self.sexpr(b, d - 1)}'
        if f == 1:
            return f'substr({s}, {self.pick(SMALL + ["100", "-5"])}, {self.pick(SMALL + ["100", "-5", INT64_MAX])})'
        if f == 2:
            fmt, args = self.format(b, self.r.randrange(1, 3))
            return f'sprintf({fmt}{"".join(", " + a for a in args)})'
        if f == 3:
            return f'sprint({self.lexpr(b, 1)})'
        if f == 4:
            return f'str_replace({s}, {self.pick(STRINGS[1:])}, {self.pick(STRINGS)})'
        if f == 5:
            return f'text_str({s})'
        if f == 6:
            return f'text_strn({s}, {self.pick(SMALL + ["20"])}, {self.pick(["0", "1"])})'
        if f == 7:
            return f'string_quoted({s})'
        if f == 8:
            return f'tokenize({s}, {self.pick(DELIMS)})'
        if f == 9:
            return f'({self.cond(b, 0)} ? {s} : {self.sexpr(b, d - 1)})'
        if f == 10:
            return f'sprintln({self.lexpr(b, 0)}, {s})'
        if f == 11 and b.sfuncs:
            fn, arity = self.pick(b.sfuncs)
            return f'{fn}({", ".join(self.sexpr(b, 0) for _ in range(arity))})'
        if f == 12:
            fn = self.pick(['msecs_to_string', 'usecs_to_string', 'nsecs_to_string'])
            return f'{fn}({self.pick(["0", "1", "999", "1000", "61001", "3600000", "86400123"])})'
        return s

    def format(self, b, n):
        """A printf format of n conversions and its argument list."""
        fmt, args = '', []
        for _ in range(n):
            c = self.pick(CONVS)
            spec = '%'
            if c != 'c' and self.chance(0.5):
                # 4.8 takes one flag, or '-' then '0'
                spec += self.pick(['-', '+', ' ', '0', '#', '-0'])
            star = self.chance(0.4)
            if star:
                if self.chance(0.2) and not spec.endswith('-0'):
                    spec += '*'
                    args.append(self.pick(['0', '1', '5', '12', '-3']))
                else:
                    spec += str(self.r.randrange(0, 22))
            if c in 'diuxXos' and self.chance(0.3):
                if self.chance(0.2):
                    spec += '.*'
                    args.append(self.pick(['0', '2', '5']))
                else:
                    spec += '.' + str(self.r.randrange(0, 12))
            spec += c
            if c == 's':
                args.append(self.sexpr(b, 1))
            elif c == 'c':
                args.append(self.pick(['65', '97', '48', '126', '32', '10']))
            elif c == 'b':
                args.append(self.pick(['65', '0x4142', '0x41424344']))
            else:
                args.append(self.lexpr(b, 1))
            fmt += spec + self.pick([' ', '|', ',', ' %% ', ''])
        return '"' + fmt + '\\n"', args

    # ----------------------------------------------------- statements

    def risky(self, b, body):
        """body under try/catch, the message printed."""
        if self.chance(0.1):
            return comp(('try', body), ('catch', [leaf('println("caught")')]))
        return comp(('try', body), (f'catch ({b.p}e)', [leaf(f'println("caught: ", {b.p}e)')]))

    def simple(self, b):
        r = self.r.random()
        if r < 0.3:
            v = self.pick(b.lvars)
            op = self.pick(ASSIGNOPS)
            rhs = str(self.r.randrange(64)) if op in ('<<=', '>>=') else self.lexpr(b)
            return self.risky(b, [leaf(f'{v} {op} {rhs}'),
                                  leaf(f'printf("{v}=%d\\n", {v})')])
        if r < 0.45:
            v = self.pick(b.svars)
            op = self.pick(['=', '.='])
            rhs = self.sexpr(b)
            st = leaf(f'{v} {op} {rhs}')
            return self.risky(b, [st]) if may_fail(rhs) else st
        if r < 0.6:
            fmt, args = self.format(b, self.r.randrange(1, 4))
            return self.risky(b, [leaf(f'printf({fmt}{"".join(", " + a for a in args)})')])
        if r < 0.72:
            return self.risky(b, [leaf(f'println({self.lexpr(b)})')])
        if r < 0.82:
            return self.risky(b, [leaf(f'println({self.sexpr(b)})')])
        if r < 0.86:
            sep = self.pick(['", "', '":"', '""'])
            return self.risky(b, [leaf(f'printdln({sep}, '
                                       f'{self.lexpr(b, 1)}, {self.sexpr(b, 1)})')])
        if r < 0.92:
            return self.risky(b, [leaf(f'if ({self.cond(b)}) error({self.sexpr(b, 1)})'),
                                  leaf('println("no error")')])
        return leaf(f'println({self.pick(b.lvars)}, " ", {self.pick(b.svars)})')

    def stmts(self, b, n, depth):
        out = []
        for _ in range(n):
            if b.cost > 350:
                break
            out.append(self.stmt(b, depth))
        return out

    def stmt(self, b, depth):
        r = self.r.random()
        b.cost += 1
        if depth <= 0 or r < 0.55:
            return self.simple(b)
        if r < 0.68:
            c = self.cond(b)
            parts = [(f'if ({c})', self.stmts(b, self.r.randrange(1, 3), depth - 1))]
            if self.chance(0.5):
                parts.append(('else', self.stmts(b, self.r.randrange(1, 3), depth - 1)))
            return self.risky(b, [comp(*parts)]) if may_fail(c) else comp(*parts)
        if r < 0.82:
            i = f'{b.p}i{b.nloop}'
            b.nloop += 1
            n = self.r.randrange(0, 6)
            saved = b.cost
            b.cost = b.cost + 5
            body = []
            if self.chance(0.3):
                body.append(leaf(f'if ({i} == {self.r.randrange(0, 5)}) '
                                 f'{self.pick(["break", "continue"])}'))
            body += self.stmts(b, self.r.randrange(1, 3), depth - 1)
            body.append(leaf(f'printf("{i}=%d\\n", {i})'))
            b.cost = saved + (b.cost - saved) * (n + 1)
            return comp((f'for ({i} = 0; {i} < {n}; {i}++)', body))
        if r < 0.9:
            w = f'{b.p}w{b.nloop}'
            b.nloop += 1
            n = self.r.randrange(0, 5)
            b.pre.append(leaf(f'{w} = 0'))
            saved = b.cost
            body = [leaf(f'{w}++')]
            if self.chance(0.4):
                body.append(leaf(f'if ({w} == {self.r.randrange(1, 4)}) '
                                 f'{self.pick(["break", "continue"])}'))
            body += self.stmts(b, self.r.randrange(1, 3), depth - 1)
            b.cost = saved + (b.cost - saved) * (n + 1)
            return comp((f'while ({w} < {n})', body))
        return self.risky(b, self.stmts(b, self.r.randrange(1, 3), depth - 1))

    # ----------------------------------------------------- blocks

    def block(self, n):
        kind = self.pick(['arith', 'arith', 'string', 'string', 'printf', 'arrays',
                          'arrays', 'stats', 'control', 'functions', 'recursion',
                          'overload', 'trycatch', 'foreach'])
        b = Block(n, kind)
        getattr(self, 'b_' + kind)(b)
        return b

    def locals_(self, b, nl=3, ns=2):
        for i in range(nl):
            v = f'{b.p}l{i}'
            b.pre.append(leaf(f'{v} = {self.pick(EDGE)}'))
            b.lvars.append(v)
        for i in range(ns):
            v = f'{b.p}s{i}'
            b.pre.append(leaf(f'{v} = {self.pick(STRINGS)}'))
            b.svars.append(v)

    def b_arith(self, b):
        self.locals_(b, 4, 1)
        for _ in range(self.r.randrange(4, 10)):
            op = self.pick(BINOPS)
            if op in ('<<', '>>', '>>>'):
                e = self.shift(b, op, 1)
            else:
                e = f'{self.pick(EDGE + b.lvars)} {op} {self.pick(EDGE + b.lvars)}'
            b.body.append(self.risky(b, [leaf(f'println({e})')]))
        b.body += self.stmts(b, self.r.randrange(3, 8), 1)

    def b_string(self, b):
        self.locals_(b, 2, 3)
        for _ in range(self.r.randrange(4, 10)):
            b.body.append(self.risky(b, [leaf(f'println({self.sexpr(b, 2)})')]))
            if self.chance(0.5):
                b.body.append(self.risky(b, [leaf(f'println({self.lexpr(b, 1)})')]))
        if self.chance(0.5):
            t = f'{b.p}t'
            b.body.append(leaf(f'{t} = tokenize({self.pick(STRINGS)}, {self.pick(DELIMS)})'))
            b.body.append(comp((f'while ({t} != "")', [
                leaf(f'println("tok: ", {t})'), leaf(f'{t} = tokenize("", {self.pick(DELIMS)})')])))
        if self.chance(0.3):
            # strings at and past MAXSTRINGLEN (512 with the NUL)
            v, i = f'{b.p}big', f'{b.p}j'
            b.body += [leaf(f'{v} = {self.pick(STRINGS[1:])}'),
                       comp((f'for ({i} = 0; {i} < {self.r.randrange(3, 10)}; {i}++)',
                             [leaf(f'{v} .= {self.pick([v, self.pick(STRINGS)])}')])),
                       leaf(f'println(strlen({v}), " ", substr({v}, {self.pick(["500", "505", "0", "511"])}, 20))'),
                       leaf(f'printf("%s|%d\\n", substr({v}, 100, 30), strlen({v} . {v}))')]
        b.body += self.stmts(b, self.r.randrange(2, 5), 1)

    def b_printf(self, b):
        self.locals_(b, 3, 2)
        for _ in range(self.r.randrange(5, 12)):
            fmt, args = self.format(b, self.r.randrange(1, 5))
            b.body.append(self.risky(b, [leaf(f'printf({fmt}{"".join(", " + a for a in args)})')]))

    def array(self, b, name=None):
        # mostly 1-3 keys; now and then up to the language's 9
        arity = self.r.randrange(1, 4) if self.chance(0.85) else self.r.randrange(4, 10)
        types = [self.pick(['l', 's']) for _ in range(arity)]
        vtype = self.pick(['l', 's'])
        name = name or f'{b.p}a{len(b.globals)}'
        size = ''
        b.globals.append(leaf(f'global {name}{size}'))
        return name, types, vtype

    def key(self, b, t):
        if t == 'l':
            return self.pick(['0', '1', '-1', '2', '3', '10', '100', INT64_MAX] + b.lvars[:1])
        return self.pick(['""', '"a"', '"b"', '"ab"', '"hello"', '"Z"'] + b.svars[:1])

    def val(self, b, t):
        return self.lexpr(b, 1) if t == 'l' else self.sexpr(b, 1)

    def b_arrays(self, b):
        self.locals_(b, 2, 1)
        name, types, vt = self.array(b)
        for _ in range(self.r.randrange(2, 8)):
            keys = ', '.join(self.key(b, t) for t in types)
            b.body.append(self.risky(b, [leaf(f'{name}[{keys}] = {self.val(b, vt)}')]))
        for _ in range(self.r.randrange(2, 6)):
            keys = ', '.join(self.key(b, t) for t in types)
            f = self.r.randrange(6)
            if f == 0:
                b.body.append(leaf(f'println([{keys}] in {name}, " ", !([{keys}] in {name}))'))
            elif f == 1:
                b.body.append(leaf(f'delete {name}[{keys}]'))
            elif f == 2 and vt == 'l':
                b.body.append(self.risky(b, [leaf(f'{name}[{keys}] {self.pick(["++", "--", "+= 5", "*= 3"])}'),
                                             leaf(f'println({name}[{keys}])')]))
            elif f == 3:
                b.body.append(leaf(f'println({name}[{keys}])' if vt == 'l'
                                   else f'println("<", {name}[{keys}], ">")'))
            elif f == 4:
                b.body.append(self.foreach(b, name, types, vt))
            else:
                b.body.append(leaf(f'printf("%d\\n", [{keys}] in {name})'))
        b.body.append(self.foreach(b, name, types, vt))
        if self.chance(0.3):
            b.body.append(leaf(f'delete {name}'))
            b.body.append(self.foreach(b, name, types, vt))

    def foreach(self, b, name, types, vt, stats=False):
        ks = [f'{b.p}k{i}' for i in range(len(types))]
        # a statistics array's row order is 4.8's hash order: sort on a key
        sort = self.r.randrange(len(types) + 2) if not stats else 0
        kl = []
        for i, k in enumerate(ks):
            kl.append(k + (self.pick('+-') if sort == i else ''))
        vsort = self.pick('+-') if sort == len(types) and not stats else ''
        keys = kl[0] if len(kl) == 1 and self.chance(0.5) else '[' + ', '.join(kl) + ']'
        v = f'{b.p}v'
        head = 'foreach ('
        usev = not stats and self.chance(0.3)
        if usev:
            head += f'{v} = '
        head += f'{keys} in {name}{vsort}'
        if self.chance(0.3):
            head += f' limit {self.pick(["0", "1", "2", "3", "10"])}'
        head += ')'
        fmt = ' '.join('%d' if t == 'l' else '<%s>' for t in types)
        if stats:
            val = f'@count({name}[{", ".join(ks)}]), @sum({name}[{", ".join(ks)}])'
            fmt += ': %d %d'
        else:
            val = v if usev else f'{name}[{", ".join(ks)}]'
            fmt += ': ' + ('%d' if vt == 'l' else '%s')
        body = [leaf(f'printf("{fmt}\\n", {", ".join(ks)}, {val})')]
        if self.chance(0.2):
            body.insert(0, leaf(f'if ({ks[0]} == {self.key(b, types[0])}) '
                                f'{self.pick(["break", "continue"])}'))
        return comp((head, body))

    def b_foreach(self, b):
        self.locals_(b, 1, 1)
        name, types, vt = self.array(b)
        n = self.r.randrange(3, 9)
        i = f'{b.p}i'
        keys = ', '.join(f'{i} * {self.pick(["3", "-1", "7"])} % 5' if t == 'l' else
                         f'sprint({i} % 3)' for t in types)
        val = f'{i} * {self.pick(["2", "-3", "1"])}' if vt == 'l' else f'sprintf("v%d", {i} % 4)'
        b.body.append(comp((f'for ({i} = 0; {i} < {n}; {i}++)', [leaf(f'{name}[{keys}] = {val}')])))
        for _ in range(self.r.randrange(2, 5)):
            b.body.append(self.foreach(b, name, types, vt))

    def b_stats(self, b):
        self.locals_(b, 2, 0)
        s = f'{b.p}st'
        b.globals.append(leaf(f'global {s}'))
        for _ in range(self.r.randrange(0, 8)):
            b.body.append(leaf(f'{s} <<< {self.pick(EDGE[:16] + ["1000000", "-5000", "17"])}'))
        if self.chance(0.5):
            i = f'{b.p}i'
            b.body.append(comp((f'for ({i} = 0; {i} < {self.r.randrange(1, 30)}; {i}++)',
                                [leaf(f'{s} <<< {i} * {self.pick(["1", "3", "-2", "17", "100"])}')])))
        for op in ['@count', '@sum', '@min', '@max', '@avg', '@variance']:
            if self.chance(0.6):
                b.body.append(self.risky(b, [leaf(f'println("{op} ", {op}({s}))')]))
        if self.chance(0.6):
            b.body.append(self.risky(b, [leaf(f'print(@hist_log({s}))')]))
        if self.chance(0.6):
            # a statistic has one kind of histogram: a second one for linear
            s2 = f'{b.p}st2'
            b.globals.append(leaf(f'global {s2}'))
            for v in self.r.sample(['0', '5', '7', '-3', '50', '99', '100', '1000',
                                    '-11', '19', '20'], self.r.randrange(0, 8)):
                b.body.append(leaf(f'{s2} <<< {v}'))
            lo = self.pick(['0', '-10', '5'])
            hi = self.pick(['100', '50', '20'])
            st = self.pick(['10', '5', '7'])
            b.body.append(self.risky(b, [leaf(f'print(@hist_linear({s2}, {lo}, {hi}, {st}))')]))
        if self.chance(0.5):
            name = f'{b.p}sa'
            t = self.pick(['l', 's'])
            b.globals.append(leaf(f'global {name}'))
            i = f'{b.p}j'
            key = f'{i} % 4' if t == 'l' else f'sprint({i} % 3)'
            b.body.append(comp((f'for ({i} = 0; {i} < {self.r.randrange(1, 12)}; {i}++)',
                                [leaf(f'{name}[{key}] <<< {i} * {self.pick(["1", "5", "-3"])}')])))
            b.body.append(self.foreach(b, name, [t], 'l', stats=True))
            k = f'{b.p}h'
            sortk = self.pick('+-')
            b.body.append(comp((f'foreach ({k}{sortk} in {name})',
                                [leaf(f'print(@hist_log({name}[{k}]))')])))

    def b_control(self, b):
        self.locals_(b, 3, 2)
        b.body += self.stmts(b, self.r.randrange(3, 8), 3)

    def b_trycatch(self, b):
        self.locals_(b, 2, 1)
        e = f'{b.p}e'
        f = f'{b.p}f'
        b.funcs.append(comp((f'function {f}(x)', [
            leaf(f'if (x > {self.r.randrange(0, 4)}) error(sprintf("too big %d", x))'),
            leaf('return x * 2')])))
        b.lfuncs.append((f, 1))
        for _ in range(self.r.randrange(2, 6)):
            inner = comp(('try', [leaf(f'println({f}({self.pick(SMALL)}))'),
                                  leaf(f'println({self.lexpr(b)})')]),
                         (f'catch ({e}2)', [leaf(f'println("inner: ", {e}2)'),
                                            leaf(f'if ({self.lexpr(b, 0)}) error("again: " . {e}2)')]))
            b.body.append(comp(('try', [inner, leaf('println("after inner")')]),
                               (f'catch ({e})', [leaf(f'println("outer: ", {e})')])))
        b.body += self.stmts(b, 2, 2)

    def b_functions(self, b):
        self.locals_(b, 2, 2)
        for i in range(self.r.randrange(1, 4)):
            fn = f'{b.p}fn{i}'
            if self.chance(0.5):
                fb = Block(b.n, 'fn')
                fb.p = f'{b.p}q{i}'
                fb.lvars = ['x', 'y']
                fb.svars = ['s']
                body = self.stmts(fb, self.r.randrange(1, 4), 1)
                b.funcs.append(comp((f'function {fn}:long (x:long, y:long, s:string)',
                                     fb.pre + body + [leaf(f'return {self.lexpr(fb, 2)}')])))
                call = f'{fn}({self.lexpr(b, 1)}, {self.lexpr(b, 1)}, {self.sexpr(b, 1)})'
                b.body.append(self.risky(b, [leaf(f'println({call})')]))
            else:
                fb = Block(b.n, 'fn')
                fb.p = f'{b.p}q{i}'
                fb.svars = ['s']
                fb.lvars = ['n']
                b.funcs.append(comp((f'function {fn}:string (s:string, n:long)',
                                     [leaf(f'if (n > 2) return s . "!"'),
                                      leaf(f'return {self.sexpr(fb, 2)}')])))
                b.body.append(self.risky(b, [leaf(f'println({fn}({self.sexpr(b, 1)}, {self.pick(SMALL)}))')]))
        b.body += self.stmts(b, 2, 1)

    def b_recursion(self, b):
        f = f'{b.p}r'
        k = self.r.randrange(3)
        if k == 0:
            b.funcs.append(comp((f'function {f}(n)', [
                leaf('if (n <= 1) return 1'),
                leaf(f'return n * {f}(n - 1)')])))
        elif k == 1:
            b.funcs.append(comp((f'function {f}(n)', [
                leaf('if (n < 2) return n'),
                leaf(f'return {f}(n - 1) + {f}(n - 2)')])))
        else:
            b.funcs.append(comp((f'function {f}(n)', [
                leaf('if (n <= 0) return ""'),
                leaf(f'return sprintf("%d.", n) . {f}(n - 1)')])))
        for _ in range(self.r.randrange(1, 4)):
            b.body.append(leaf(f'println({f}({self.r.randrange(0, 8)}))'))

    def b_overload(self, b):
        f = f'{b.p}o'
        n = self.r.randrange(2, 4)
        for i in range(n):
            lim = self.r.randrange(-3, 4)
            body = []
            if i < n - 1 or self.chance(0.3):
                body.append(leaf(f'if (x {self.pick(["<", ">", "=="])} {lim}) next'))
            body.append(leaf(f'return "{f}#{i} " . sprint(x)'))
            b.funcs.append(comp((f'function {f}(x:long)', body)))
        if self.chance(0.5):
            b.funcs.append(comp((f'function {f}(x:long, y:long)', [leaf('return sprint(x + y)')])))
            b.body.append(leaf(f'println({f}(1, {self.pick(SMALL)}))'))
        for _ in range(self.r.randrange(2, 6)):
            b.body.append(self.risky(b, [leaf(f'println({f}({self.pick(SMALL + ["-3", "100"])}))')]))

    # ----------------------------------------------------- limits

    def limit_block(self, n):
        b = Block(n, 'limit')
        k = self.r.randrange(7)
        if k == 0:
            b.body += [leaf(f'{b.p}x = 0'), comp(('while (1)', [leaf(f'{b.p}x++')]))]
        elif k == 1:
            i = f'{b.p}i'
            b.body.append(comp((f'for ({i} = 0; {i} < 100000; {i}++)', [])))
        elif k == 2:
            f = f'{b.p}r'
            b.funcs.append(comp((f'function {f}(n)', [leaf(f'return {f}(n + 1) + 1')])))
            b.body.append(leaf(f'println({f}(0))'))
        elif k == 3:
            name = f'{b.p}m'
            b.globals.append(leaf(f'global {name}[{self.r.randrange(1, 6)}]'))
            i = f'{b.p}i'
            b.body.append(comp((f'for ({i} = 0; {i} < 10; {i}++)',
                                [leaf(f'{name}[{i}] = {i}'), leaf(f'println({i})')])))
        elif k == 4:
            b.body += [leaf(f'{b.p}z = {self.pick(["0", "1 - 1"])}'),
                       leaf(f'println({self.pick(EDGE)} {self.pick(["/", "%"])} {b.p}z)')]
        elif k == 5:
            b.body.append(leaf(f'error({self.pick(STRINGS)})'))
        else:
            b.body.append(leaf(f'println(stringat("abc", {self.pick(["3", "-1", "100"])}))'))
        b.body.append(leaf('println("not reached")'))
        if self.chance(0.5):
            b.end = True
        return b


class Block:
    def __init__(self, n, kind):
        self.n, self.kind = n, kind
        self.p = f'b{n}_'
        self.lvars, self.svars, self.lfuncs, self.sfuncs = [], [], [], []
        self.pre, self.body, self.globals, self.funcs = [], [], [], []
        self.cost = 0
        self.nloop = 0
        self.end = False

    def items(self):
        """Top-level items: globals, functions, the probe."""
        probe = comp((f'probe begin({self.n})',
                      [leaf(f'println("#{self.n} {self.kind}")')] + self.pre + self.body))
        out = self.globals + self.funcs + [probe]
        if self.end:
            out.append(comp(('probe end', [leaf(f'println("end {self.n}")')])))
        for it in out:
            it.block = self.n
        return out


def generate(seed, blocks=20, limits=False):
    """The items of a script: `blocks` test blocks, and in limits mode a
    last one that hits a limit; then the begin probe that exits."""
    g = Gen(seed)
    items = []
    for n in range(1, blocks + 1):
        items += g.block(n).items()
    if limits:
        items += g.limit_block(blocks + 1).items()
    exitp = comp((f'probe begin({blocks + 2})', [leaf('exit()')]))
    exitp.block = 0
    return items + [exitp]


def main():
    ap = argparse.ArgumentParser(description='print a random SystemTap script')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--blocks', type=int, default=20)
    ap.add_argument('--limits', action='store_true')
    a = ap.parse_args()
    sys.stdout.write(render(generate(a.seed, a.blocks, a.limits)))


if __name__ == '__main__':
    main()
