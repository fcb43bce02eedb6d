#!/usr/bin/python3
# corpus.py - the pass-1 corpus: every .stp under Debian's systemtap-doc
# examples and systemtap tapset directories (read in place, never copied).
# `corpus.py --record` runs Debian's SystemTap 4.8 `stap -p1` on each file
# and writes testsuite/corpus/upstream-p1.tsv: the file, the script
# arguments that let upstream parse it (scripts that take $1 need some),
# and upstream's exit status. test_corpus.py checks that our stap agrees.
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

UPSTREAM_ROOT = Path('/usr/share/systemtap')
RECORD = Path(__file__).resolve().parent / 'corpus' / 'upstream-p1.tsv'
ARG_SETS = [[], [str(i) for i in range(1, 9)],
            ['begin'] + [str(i) for i in range(2, 9)]]


def corpus_files():
    files = []
    for sub in ('examples', 'tapset'):
        files += sorted((UPSTREAM_ROOT / sub).rglob('*.stp'))
    return files


def options_for(path):
    """Tapset files are library code: parse them in guru mode, as upstream
    parses its tapsets with privileges."""
    return ['-g'] if 'tapset' in path.parts else []


def upstream_rc(path, args, krel):
    """Upstream refuses to run a file from its own tapset path as a script
    ("cannot be run directly"), so a tapset file is parsed from a copy."""
    with tempfile.TemporaryDirectory() as tmp:
        if 'tapset' in path.parts:
            copy = Path(tmp) / path.name
            shutil.copy(path, copy)
            path = copy
        r = subprocess.run(['/usr/bin/stap', '-r', krel, '-p1', '-g', str(path)]
                           + args if str(path).startswith(tmp) else
                           ['/usr/bin/stap', '-r', krel, '-p1', str(path)] + args,
                           capture_output=True, timeout=60,
                           env=dict(os.environ, SYSTEMTAP_DIR=tmp))
    return r.returncode


def load_record():
    entries = []
    for line in RECORD.read_text().splitlines():
        if line.startswith('#'):
            continue
        rel, args, rc = line.split('\t')
        entries.append((UPSTREAM_ROOT / rel, args.split() if args else [], int(rc)))
    return entries


def record():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import guest
    krel = guest.kernel_release()
    lines = ['# file (under /usr/share/systemtap)\targs\tupstream 4.8 stap -p1 status']
    for path in corpus_files():
        chosen, rc = [], None
        for args in ARG_SETS:
            rc = upstream_rc(path, args, krel)
            if rc == 0:
                chosen = args
                break
        if rc != 0:
            chosen, rc = [], upstream_rc(path, [], krel)
        lines.append(f'{path.relative_to(UPSTREAM_ROOT)}\t{" ".join(chosen)}\t{rc}')
        print(lines[-1], flush=True)
    RECORD.write_text('\n'.join(lines) + '\n')


if __name__ == '__main__':
    if sys.argv[1:] == ['--record']:
        record()
    else:
        sys.exit('usage: corpus.py --record')
