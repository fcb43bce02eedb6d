#!/usr/bin/python3
# examples.py - pass 2 over Debian's systemtap-doc example scripts.
#
# Each example is elaborated (`stap -p2 -r KREL`) with the options and
# arguments its .meta file's test_check line gives (pass changed to 2, run
# from the example's directory so `-Itapset/` works). An example either
# elaborates, or fails only because it needs something not built yet: a
# tapset function, a probe point family, or a kind of target variable.
# `examples.py --record` writes corpus/examples-p2.tsv: the example, "ok"
# or "needs", and the sorted names of what it is missing (a column each),
# so that
# test_examples.py notices both regressions and newly working examples.
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = Path('/usr/share/systemtap/examples')
RECORD = HERE / 'corpus' / 'examples-p2.tsv'
STAP = Path(os.environ.get('STAP_BUILDDIR', HERE.parent)) / 'translator' / 'stap'

# what an error line says is missing, by the message's shape
MISSING = [
    (re.compile(r"error: unresolved function '([^']+)'"), 'function {}'),
    (re.compile(r"error: no match for probe point '([^'(]+)"), 'probe {}'),
    # process("/lib*/libc.so.6") finding only the 32-bit /usr/lib32 one
    (re.compile(r"error: cannot probe '[^']+': a (32)-bit program"), 'probe process'),
    (re.compile(r"error: unresolved arity-\d+ global array (\w+)"), 'global {}'),
    (re.compile(r"error: target variable '([^']+)' is not supported by this version"),
     'target {}'),
    (re.compile(r"error: unknown macro or operator '(@[^']+)'"), 'macro {}'),
    (re.compile(r"error: (\S+) probes are not supported by this version yet"),
     'probe {}'),
    (re.compile(r"error: '(@\w+|->)'(?: and '\[\]' on values)? is not supported by this version"),
     'operator {}'),
    (re.compile(r"error: '(->)' and '\[\]' on values are not supported by this version"),
     'operator {}'),
    (re.compile(r"error: cannot resolve '([^']+)': a source file or line"),
     'dwarf {}'),
    (re.compile(r"error: '([^']+)' needs the kernel's DWARF debuginfo"), 'dwarf {}'),
    # a $var in a syscall.* probe: upstream reads it from the DWARF of the
    # syscall's function; ours are kprobes
    (re.compile(r"error: target variable '([^']+)' is not available in kprobe"),
     'dwarf {}'),
    (re.compile(r"error: ([\w.]+) probes are not supported by this version yet"),
     'probe {}'),
    # a process() probe on a program installed without its debuginfo
    (re.compile(r"error: target variable '([^']+)' is not available in process.*"
                r"has no DWARF debuginfo"), 'dwarf {}'),
    (re.compile(r"error: cannot write target variable '([^']+)' in process.*"
                r"has no DWARF debuginfo"), 'dwarf {}'),
    (re.compile(r"error: writing target variable '([^']+)' is not supported by this version"),
     'target-write {}'),
]


def meta_args(script):
    """The options and arguments of the example's test_check line, with
    the pass removed (the caller chooses it)."""
    for meta in sorted(script.parent.glob('*.meta')):
        for line in meta.read_text(errors='replace').splitlines():
            if not line.startswith('test_check:'):
                continue
            line = line.replace('`which stap`', '/usr/bin/stap')
            line = re.sub(r'(?<!\S)\$\$(?!\S)', '1', line)
            line = re.sub(r'`[^`]*`', '0', line)
            words = shlex.split(line[len('test_check:'):])
            if script.name not in words:
                continue
            return strip_pass(words[1:])
    return []


def strip_pass(words):
    out = []
    for w in words:
        m = re.fullmatch(r'-([a-zA-Z]*)p\d([a-zA-Z]*)', w)
        if m:
            flags = m.group(1) + m.group(2)
            if flags:
                out.append('-' + flags)
            continue
        out.append(w)
    return out


def examples():
    """The example scripts (not the library files under */tapset/)."""
    return sorted(p for p in EXAMPLES.rglob('*.stp')
                  if p.parent.name != 'tapset')


def elaborate(script, krel):
    args = ['-p2', '-r', krel] + meta_args(script)
    if script.name not in args:
        args.append(script.name)
    return subprocess.run([str(STAP)] + args, cwd=script.parent,
                          capture_output=True, text=True, timeout=120)


def missing(stderr):
    """The sorted set of what the errors name as missing; an error of any
    other shape is kept whole so the record shows it."""
    names = set()
    for line in stderr.splitlines():
        if ': error: ' not in line and not line.startswith('error: '):
            continue
        for rx, fmt in MISSING:
            m = rx.search(line)
            if m:
                names.add(fmt.format(m.group(1)))
                break
        else:
            names.add('error ' + line.split('error: ', 1)[1])
    return sorted(names)


def verdict(script, krel):
    r = elaborate(script, krel)
    if r.returncode == 0:
        return 'ok', []
    return 'needs', missing(r.stderr)


def rel(script):
    return str(script.relative_to(EXAMPLES))


def load_record():
    rows = {}
    for line in RECORD.read_text().splitlines():
        name, status, *needs = line.split('\t')
        rows[name] = (status, needs)
    return rows


def record(krel):
    lines = []
    for script in examples():
        status, needs = verdict(script, krel)
        lines.append('\t'.join([rel(script), status] + needs))
    RECORD.write_text('\n'.join(lines) + '\n')
    ok = sum(1 for line in lines if line.split('\t')[1] == 'ok')
    print(f'{ok} of {len(lines)} examples elaborate; written {RECORD}')


if __name__ == '__main__':
    krel = sys.argv[2] if len(sys.argv) > 2 else \
        subprocess.run(['sh', '-c', "ls /lib/modules | grep -m1 amd64"],
                       capture_output=True, text=True).stdout.strip()
    if len(sys.argv) > 1 and sys.argv[1] == '--record':
        record(krel)
    else:
        for script in examples():
            status, needs = verdict(script, krel)
            print(rel(script), status, *needs, sep='\t')
