#!/usr/bin/env python3
"""layers.py - the translator's layer rule, checked: its folders form a
dependency order with no cycles, and a file may use only the layers its own
layer allows.

    testsuite/layers.py            print the violations (exit 1 if any), or a
                                   summary (files per layer, largest file)

The rules (test_layers.py runs one test per rule in `make check`):
  1. every .c/.h under translator/ is in a layer of the table below;
  2. a file includes only headers of the layers its layer may use;
  3. no include cycle among the translator's headers;
  4. a file's object references no global symbol defined by a file of a
     layer it may not use (calls that bypass the headers; needs a build:
     the objects are found under STAP_BUILDDIR, default the source tree);
  5. no translator .c/.h is longer than MAX_LINES lines.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

# The layers, lowest first: name, where its files are under translator/ (a
# folder, or main.c), what it holds, and the layers its files may use.
LAYERS = [
    ('base', 'base/', 'arena, util, diag, the session struct',
     ('base',)),
    ('front', 'front/', 'lex, preprocess, parse, ast, tapset loading, '
     'printf formats', ('base', 'front')),
    ('info', 'info/', 'BTF catalog, symbol maps, kernel modules, DWARF '
     'readers', ('base', 'info')),
    ('elab', 'elab/', 'alias, resolve, types, optimize, listing, '
     'probe-point resolution', ('base', 'front', 'info', 'elab')),
    ('gen', 'gen/', 'pass-3 C generation',
     ('base', 'front', 'info', 'elab', 'gen')),
    ('bpf', 'bpf/', 'pass-3 BPF C generation and pass 4 (clang) of '
     '--runtime=bpf, beside gen/', ('base', 'front', 'info', 'elab', 'bpf')),
    ('family', 'family/', 'one file or folder per probe family: pass 2 and '
     'pass 3', ('base', 'front', 'info', 'elab', 'gen', 'family')),
    ('build', 'build/', 'kbuild, run',
     ('base', 'front', 'info', 'elab', 'gen', 'build')),
    ('main', 'main.c', 'the driver',
     ('base', 'front', 'info', 'elab', 'gen', 'bpf', 'family', 'build', 'main')),
]
MAX_LINES = 1500

REPO = Path(__file__).resolve().parent.parent
ALLOWED = {name: set(uses) for name, _, _, uses in LAYERS}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def tdir(src):
    return Path(src) / 'translator'


def layer_of(src, path):
    """The layer of a file under translator/, or None."""
    rel = Path(path).relative_to(tdir(src)).as_posix()
    for name, where, _, _ in LAYERS:
        if where.endswith('/') and rel.startswith(where) or rel == where:
            return name
    return None


def sources(src):
    """Every .c and .h under translator/, sorted."""
    return sorted(p for p in tdir(src).rglob('*')
                  if p.suffix in ('.c', '.h') and p.is_file())


def show(src, path):
    return Path(path).relative_to(src).as_posix()


def check_known(src=REPO):
    """Rule 1: every translator file is in a layer."""
    return [f'{show(src, p)}: not in any layer (see LAYERS in '
            f'testsuite/layers.py)'
            for p in sources(src) if layer_of(src, p) is None]


def folders(src):
    top = tdir(src)
    return [top] + sorted(d for d in top.rglob('*') if d.is_dir()
                          and not d.name.startswith('.'))


def resolve_include(src, includer, name, dirs):
    """The translator file an #include "name" names: relative to the
    includer's folder, else to translator/, else to each folder under it
    (dirs, from folders()). None when it is not a translator file (a
    runtime header, say)."""
    top = tdir(src)
    for d in [includer.parent] + dirs:
        p = (d / name).resolve()
        if p.is_file():
            try:
                p.relative_to(top.resolve())
            except ValueError:
                return None
            return top / p.relative_to(top.resolve())
    return None


def includes(src):
    """(includer, line number, name, included file) of every #include "..."
    of a translator file that names a translator file."""
    found = []
    dirs = folders(src)
    for p in sources(src):
        lines = p.read_text(errors='replace').splitlines()
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if m:
                target = resolve_include(src, p, m.group(1), dirs)
                if target is not None:
                    found.append((p, n, m.group(1), target))
    return found


def check_includes(src=REPO):
    """Rule 2: a file includes only what its layer may use. Files outside
    the table are rule 1's."""
    bad = []
    for p, n, name, target in includes(src):
        mine, theirs = layer_of(src, p), layer_of(src, target)
        if mine is None or theirs is None:
            continue
        if theirs not in ALLOWED[mine]:
            bad.append(f'{show(src, p)}:{n}: includes {name} '
                       f'(layer {theirs}) from layer {mine}')
    return bad


def cycles(graph):
    """One shortest cycle through each strongly connected component of
    graph (node -> set of nodes) that has one, as a list of nodes."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def strong(v):
        # Tarjan's algorithm, iterative so deep graphs do not recurse
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        while work:
            u, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[u] = min(low[u], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[u])
                if low[u] == index[u]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == u:
                            break
                    comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            strong(v)
    found = []
    for comp in comps:
        start = min(comp)
        if len(comp) == 1 and start not in graph.get(start, ()):
            continue
        # breadth-first from start back to start, inside the component
        prev, queue, path = {start: None}, [start], None
        while queue and path is None:
            u = queue.pop(0)
            for w in sorted(graph.get(u, ())):
                if w == start:
                    path = [u]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path.reverse()
                    break
                if w in comp and w not in prev:
                    prev[w] = u
                    queue.append(w)
        found.append(path)
    return sorted(found)


def check_cycles(src=REPO):
    """Rule 3: no include cycle among the translator's headers."""
    graph = {}
    for p, _, _, target in includes(src):
        if p.suffix == '.h' and target.suffix == '.h':
            graph.setdefault(show(src, p), set()).add(show(src, target))
    return ['include cycle: ' + ' -> '.join(c + [c[0]]) for c in cycles(graph)]


def build_dir():
    return Path(os.environ.get('STAP_BUILDDIR', REPO))


def objects(src, build):
    """(object, source) of every translator object of the build whose
    source still exists. Automake names them STEM.o or TARGET-STEM.o
    (translator/stap-lex.o, translator/libkcat_a-kcatalog.o), next to the
    source's place in the build tree."""
    found = []
    top = tdir(build)
    for o in sorted(top.rglob('*.o')):
        d = tdir(src) / o.parent.relative_to(top)
        stems = [o.stem] + ([o.stem.split('-', 1)[1]] if '-' in o.stem else [])
        for stem in stems:
            if (d / (stem + '.c')).is_file():
                found.append((o, d / (stem + '.c')))
                break
    return found


def symbols(objs):
    """defs: global symbol -> the sources defining it; refs: source -> the
    global symbols its objects reference but do not define."""
    defs, refs = {}, {}
    by_obj = {str(o): s for o, s in objs}
    names = list(by_obj)
    for i in range(0, len(names), 200):
        out = subprocess.run(['nm', '-A', '-P', '-g'] + names[i:i + 200],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            head, _, rest = line.partition(': ')
            words = rest.split()
            if head not in by_obj or len(words) < 2:
                continue
            s, sym, kind = by_obj[head], words[0], words[1]
            if kind in ('U', 'w', 'v'):
                refs.setdefault(s, set()).add(sym)
            else:
                defs.setdefault(sym, set()).add(s)
    for s in refs:
        refs[s] = {sym for sym in refs[s] if s not in defs.get(sym, ())}
    return defs, refs


def check_calls(src=REPO, build=None):
    """Rule 4: a file's object uses only symbols of the layers it may use.
    No objects is a failure: the rule cannot be checked without a build."""
    build = build or build_dir()
    objs = objects(src, build)
    if not objs:
        return [f'{show(src, tdir(src))}: no translator object files under '
                f'{tdir(build)} (build first: make; or set STAP_BUILDDIR)']
    defs, refs = symbols(objs)
    bad = set()
    for s, syms in refs.items():
        mine = layer_of(src, s)
        if mine is None:
            continue
        for sym in syms:
            for d in defs.get(sym, ()):
                theirs = layer_of(src, d)
                if theirs is not None and theirs not in ALLOWED[mine]:
                    bad.add(f'{show(src, s)}: uses {sym} (defined in '
                            f'{show(src, d)}, layer {theirs}) from layer '
                            f'{mine}')
    return sorted(bad)


def line_counts(src):
    return {p: len(p.read_text(errors='replace').splitlines())
            for p in sources(src)}


def check_sizes(src=REPO):
    """Rule 5: no translator file is longer than MAX_LINES lines."""
    return [f'{show(src, p)}: {n} lines (more than {MAX_LINES})'
            for p, n in sorted(line_counts(src).items(), key=lambda x: -x[1])
            if n > MAX_LINES]


RULES = [
    ('every file in a layer', check_known),
    ('includes follow the layers', check_includes),
    ('no include cycle among headers', check_cycles),
    ('object symbols follow the layers', check_calls),
    (f'no file over {MAX_LINES} lines', check_sizes),
]


def summary(src):
    counts = line_counts(src)
    lines = []
    for name, where, what, uses in LAYERS:
        files = [p for p in counts if layer_of(src, p) == name]
        lines.append(f'  {name:7} {len(files):3} files '
                     f'{sum(counts[p] for p in files):6} lines  '
                     f'translator/{where}: {what}')
        lines.append(f'{"":29}may use: {", ".join(uses)}')
    cs = [p for p in counts if p.suffix == '.c']
    if cs:
        big = max(cs, key=lambda p: counts[p])
        lines.append(f'  largest .c: {show(src, big)} ({counts[big]} lines; '
                     f'limit {MAX_LINES})')
    return lines


def main():
    src = REPO
    total = 0
    for n, (title, rule) in enumerate(RULES, 1):
        bad = rule(src)
        total += len(bad)
        if bad:
            print(f'rule {n} ({title}): {len(bad)} violation(s)')
            for line in bad:
                print('  ' + line)
    if total:
        print(f'layers.py: {total} violation(s)')
        return 1
    print('layers.py: no violation; the layers (lowest first):')
    print('\n'.join(summary(src)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
