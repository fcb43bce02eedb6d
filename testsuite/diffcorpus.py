# The differential corpus (testsuite/diff/): small scripts, each with the
# stdout, stderr and exit status SystemTap 4.8 gave for it, kept next to it
# as NAME.out, NAME.err and NAME.rc. Shared by record_upstream.py (which
# writes them) and test_diff.py (which compares our stap with them): find
# the scripts, build them on the host (2 at a time), run the modules in the
# test guest in batches, and check the guest kernel after each batch.
#
# A script whose output 4.8 does not fix (the order of a statistics array's
# rows, or of ties when it is sorted, follows 4.8's hash table, whose seed is
# random at each module load) says `# golden: runs N`: upstream's module is
# then run N times and each distinct stdout is kept, as NAME.out, NAME.out.2,
# ...; ours must print one of them. A script built with extra options (the
# same for both implementations) names them on a line `# options: -DX=1 ...`.
#
# Scripts are built from a scratch copy of testsuite/diff with their path
# relative to it (e.g. `arrays/in.stp`), so messages that name the script
# file read the same for both implementations.
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import guest

DIFF = Path(__file__).resolve().parent / 'diff'
BATCH_SIZE = 120          # modules per guest boot
RUN_TIMEOUT = 30          # seconds per module in the guest


class Case:
    """One corpus script: .rel ('arrays/in'), .path, .module ('d_arrays_in')
    and its golden files."""

    def __init__(self, path):
        self.path = path
        self.rel = str(path.relative_to(DIFF).with_suffix(''))
        # module names: lower-case C identifiers of at most 55 characters,
        # so script names are lower case too
        self.module = 'd_' + re.sub(r'[^a-z0-9_]', '_', self.rel)

    def golden(self, ext):
        return self.path.with_suffix('.' + ext)

    def runs(self):
        """How many times upstream's module is run when recording."""
        m = re.search(r'^# golden: runs (\d+)', self.path.read_text(), re.M)
        return int(m.group(1)) if m else 1

    def options(self):
        """The extra stap options of its `# options:` line, if any."""
        m = re.search(r'^# options:(.*)$', self.path.read_text(), re.M)
        return m.group(1).split() if m else []

    def outs(self):
        """Every stdout recorded from upstream (see the top of the file)."""
        found = [self.golden('out').read_text()]
        i = 2
        while self.golden(f'out.{i}').exists():
            found.append(self.golden(f'out.{i}').read_text())
            i += 1
        return found

    def expected(self):
        """(stdout, stderr, rc) recorded from upstream, or None."""
        if not self.golden('rc').exists():
            return None
        return (self.golden('out').read_text(), self.golden('err').read_text(),
                int(self.golden('rc').read_text()))

    def __repr__(self):
        return self.rel


def cases(names=None):
    """Every script under diff/, sorted; or those named ('arrays/in',
    'arrays/in.stp' or a path)."""
    found = [Case(p) for p in sorted(DIFF.rglob('*.stp'))]
    if not names:
        return found
    by_rel = {c.rel: c for c in found}
    picked = []
    for n in names:
        key = str(Path(n).resolve().relative_to(DIFF)) if Path(n).exists() else n
        key = key[:-4] if key.endswith('.stp') else key
        if key not in by_rel:
            raise KeyError(f'no corpus script {n}')
        picked.append(by_rel[key])
    return picked


def stage(scratch):
    """Copy the corpus scripts into scratch (same relative paths)."""
    for p in DIFF.rglob('*.stp'):
        dest = Path(scratch) / p.relative_to(DIFF)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(p, dest)


def build_all(build_argv, todo, scratch, workers=2):
    """Build each case with build_argv(case) (run in scratch). Returns
    case -> CompletedProcess."""
    def one(case):
        try:
            return subprocess.run(build_argv(case), cwd=scratch, text=True,
                                  capture_output=True, timeout=600)
        except subprocess.TimeoutExpired as e:
            return subprocess.CompletedProcess(e.cmd, -1, '', 'build timed out')
    with ThreadPoolExecutor(max_workers=workers) as ex:
        return dict(zip(todo, ex.map(one, todo)))


def run_all(staprun, todo, scratch, batch_size=BATCH_SIZE, runs=None):
    """Run the built modules of `todo` with `staprun NAME.ko` in as few
    guest boots as batch_size allows; the kernel must stay healthy after
    each boot. Returns case -> guest.Result; with runs (case -> count),
    case -> [guest.Result, ...], each module run that many times."""
    results = {}
    for i in range(0, len(todo), batch_size):
        chunk = todo[i:i + batch_size]
        counts = [runs(c) if runs else 1 for c in chunk]
        batch = _boot(staprun, [c for c, n in zip(chunk, counts)
                                for _ in range(n)], scratch)
        guest.check_kernel_healthy(batch)
        at = 0
        for c, n in zip(chunk, counts):
            results[c] = list(batch[at:at + n]) if runs else batch[at]
            at += n
    return results


def _boot(staprun, chunk, scratch):
    """One guest boot for chunk; booted again once if the guest died before
    running anything (a TCG boot on a loaded host can fail its timer check)."""
    commands = [f'{staprun} {c.module}.ko' for c in chunk]
    try:
        return guest.run_batch(commands, scratch=str(scratch),
                               timeout=RUN_TIMEOUT)
    except guest.GuestDied as e:
        if any(r.rc is not None or r.timed_out for r in e.batch):
            raise
        return guest.run_batch(commands, scratch=str(scratch),
                               timeout=RUN_TIMEOUT)
