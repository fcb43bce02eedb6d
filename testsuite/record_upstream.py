#!/usr/bin/python3
# record_upstream.py - record the golden outputs of the differential corpus
# (testsuite/diff/) from Debian's SystemTap 4.8: build each script with
# `/usr/bin/stap -R /tmp/stap-rt -r KREL -p4 -m NAME` (2 at a time), run
# the modules with /usr/bin/staprun in the test guest, and write NAME.out,
# NAME.err and NAME.rc next to each script.
#
#   record_upstream.py                 every script
#   record_upstream.py --missing       scripts without a golden yet
#   record_upstream.py arrays/in ...   the scripts named
#
# A script whose golden was written by hand (upstream cannot build it, or
# is wrong) says so with a line `# golden: by hand, <reason>`; it is never
# re-recorded. A script upstream fails to build is reported and left
# without a golden.
import argparse
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP / 'testsuite'))
sys.path.insert(0, str(TOP / 'bench'))
import diffcorpus  # noqa: E402
import guest  # noqa: E402

UPSTREAM_STAP = '/usr/bin/stap'
UPSTREAM_STAPRUN = '/usr/bin/staprun'
RUNTIME = Path('/tmp/stap-rt')
HAND_MARK = '# golden: by hand'


def upstream_runtime():
    if not RUNTIME.exists():
        from passes import patched_runtime
        patched_runtime(str(RUNTIME))
    return str(RUNTIME)


def write_golden(case, runs):
    """NAME.out/.err/.rc from the first run; each other distinct stdout of
    a `# golden: runs N` script as NAME.out.2, NAME.out.3, ..."""
    first = runs[0]
    outs = list(dict.fromkeys(r.stdout for r in runs))
    for r in runs[1:]:
        if (r.stderr, r.rc) != (first.stderr, first.rc):
            print(f'{case.rel}: stderr or status differ between runs', flush=True)
    case.golden('out').write_text(outs[0])
    case.golden('err').write_text(first.stderr)
    case.golden('rc').write_text(f'{first.rc}\n')
    for old in case.path.parent.glob(case.path.stem + '.out.*'):
        old.unlink()
    for i, out in enumerate(outs[1:], start=2):
        case.golden(f'out.{i}').write_text(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--missing', action='store_true',
                    help='only scripts without a recorded golden')
    ap.add_argument('names', nargs='*')
    args = ap.parse_args()
    todo = [c for c in diffcorpus.cases(args.names)
            if HAND_MARK not in c.path.read_text()]
    if args.missing:
        todo = [c for c in todo if c.expected() is None]
    if not todo:
        print('nothing to record')
        return 0
    krel = guest.kernel_release()
    rt = upstream_runtime()
    failed = []
    with tempfile.TemporaryDirectory(prefix='stap-diff-up-', dir='/var/tmp') as scratch:
        diffcorpus.stage(scratch)
        print(f'building {len(todo)} scripts with {UPSTREAM_STAP}', flush=True)
        built = diffcorpus.build_all(
            lambda c: [UPSTREAM_STAP, '-R', rt, '-r', krel, '-p4', '-m',
                       c.module, *c.options(), c.rel + '.stp'], todo, scratch)
        for c, r in built.items():
            if r.returncode != 0:
                failed.append(c)
                print(f'{c.rel}: upstream build failed:\n{r.stderr}', flush=True)
        ok = [c for c in todo if c not in failed]
        print(f'running {len(ok)} modules in the guest', flush=True)
        results = diffcorpus.run_all(UPSTREAM_STAPRUN, ok, scratch,
                                     runs=lambda c: c.runs())
        for c, rs in results.items():
            if any(r.rc is None for r in rs):
                failed.append(c)
                print(f'{c.rel}: did not finish in the guest', flush=True)
                continue
            write_golden(c, rs)
    print(f'recorded {len(todo) - len(failed)}, failed {len(failed)}'
          + (': ' + ' '.join(c.rel for c in failed) if failed else ''))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
