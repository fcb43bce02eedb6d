# Shared fixtures: where the built tools are (the build tree, so nothing
# needs installing), the guest kernel release, helpers that run stap, and
# the debuginfo and module cache every stap of the session sees.
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import guest  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get('STAP_BUILDDIR', REPO))
STAP = BUILD / 'translator' / 'stap'
STAPRUN = BUILD / 'staprun' / 'staprun'
STAPIO = BUILD / 'stapio' / 'stapio'

# The suite's own module cache (man stap, CACHING): no test hits an entry
# left by an earlier run or in the user's ~/.systemtap.
CACHE_HOME = tempfile.mkdtemp(prefix='stap-test-cache-')
os.environ['SYSTEMTAP_DIR'] = CACHE_HOME
atexit.register(shutil.rmtree, CACHE_HOME, True)


# The debuginfo the suite sees is the test set-up's and nothing else:
# what setup.sh installs (libc6-dbg, for the libc probes of test_uprobes),
# linked into a directory that SYSTEMTAP_DEBUGINFO_PATH names for every
# stap the session runs, ours and 4.8's. Debuginfo installed besides (the
# kernel's linux-image-*-dbg: module DWARF, which would give module probes
# their @file:line names) is hidden, so the BTF-only cases (module probes
# typed from the BTF, the example scripts that need DWARF) behave the same
# on every machine. DWARF inside a binary (the -g test module of
# test_kdwarf, the test programs) is read whatever the path.
SETUP_DEBUGINFO = ('libc6-dbg',)
DEBUG_ROOT = '/usr/lib/debug'


def debuginfo_tree(root, packages=SETUP_DEBUGINFO):
    """root/... linking the files the packages install under /usr/lib/debug."""
    for pkg in packages:
        files = subprocess.run(['dpkg', '-L', pkg], capture_output=True, text=True,
                               check=True).stdout.splitlines()
        for f in files:
            if f.startswith(DEBUG_ROOT + '/') and os.path.isfile(f):
                link = Path(root) / os.path.relpath(f, DEBUG_ROOT)
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(f)
    return root


def pytest_configure(config):
    config.stap_debuginfo = tempfile.mkdtemp(prefix='stap-debuginfo-')
    os.environ['SYSTEMTAP_DEBUGINFO_PATH'] = debuginfo_tree(config.stap_debuginfo)
    warm_build_cache()


def warm_build_cache():
    """Build one module for the guest's kernel without -m, into the suite's
    cache: pass 4 learns its kbuild commands (build/kdirect.c) only from a
    module the cache names, and the suite's -m builds then replay them
    rather than each running make (man stap, CACHING). A failure here
    shows in the tests that build."""
    try:
        krel = guest.kernel_release()
    except FileNotFoundError:
        return
    if STAP.exists():
        subprocess.run([str(STAP), '-p4', '-r', krel, '-e', 'probe begin { exit() }'],
                       capture_output=True, timeout=300)


def pytest_unconfigure(config):
    shutil.rmtree(config.stap_debuginfo, ignore_errors=True)


# A probe that fires on a CPU whose context is busy with another handler
# (an interrupt during a handler: the timer probe, or kmalloc in an IRQ
# while a vm.kmalloc handler runs) is skipped; with -t it is counted and
# the session ends with these two lines, as 4.8's does (test_reentrancy.py;
# without -t neither reports it). How often depends on where interrupts
# land, so tests of hot functions accept them and nothing else.
REENTRANT = re.compile(r'WARNING: Number of errors: 0, skipped probes: 0\n'
                       r'WARNING: Skipped due to reentrancy: \d+\n\Z')


def without_reentrancy(stderr):
    """stderr less the end-of-session reentrancy report, if that is all."""
    return REENTRANT.sub('', stderr)


def run_stap(args, stdin=None, cwd=None, timeout=120):
    """Run the build tree's stap; returns CompletedProcess with text output."""
    return subprocess.run([str(STAP)] + list(args), input=stdin, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def stap_listing(krel, option, point):
    """stdout of `stap -l/-L POINT` for the guest's kernel; it must succeed."""
    r = run_stap(['-r', krel, option, point])
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope='session')
def krel():
    return guest.kernel_release()


@pytest.fixture(scope='session')
def tools():
    for p in (STAP, STAPRUN, STAPIO):
        assert p.exists(), f'{p} is not built: run make first'
    return {'stap': STAP, 'staprun': STAPRUN, 'stapio': STAPIO}


def build_module(name, script, krel, scratch):
    """stap -p4 -m NAME on the host, for the guest's kernel."""
    return build_args(name, ['-e', script], scratch, krel)


def build_args(name, args, scratch, krel=None):
    """stap -p4 -m NAME ARGS... on the host, for the guest's kernel."""
    r = run_stap(['-p4', '-r', krel or guest.kernel_release(), '-m', name] + list(args),
                 cwd=scratch)
    assert r.returncode == 0, f'{name}: {r.stderr}'
    return name


def run_case_table(cases, krel, scratch, prefix=''):
    """A table name -> (script, stdout, rc, stderr) of what upstream
    printed: build and run every script in one guest boot (modules named
    prefix + name) and return name -> (stdout, rc, stderr) of ours."""
    res = run_scripts({prefix + n: c[0] for n, c in cases.items()}, krel, scratch)
    return {n[len(prefix):]: (r.stdout, r.rc, r.stderr) for n, r in res.items()}


def run_scripts(scripts, krel, scratch, extra=(), timeout=60):
    """Build every script (name -> text) on the host, run each module with
    staprun in one guest boot, then the extra shell commands (name ->
    command); the guest kernel must stay healthy. Returns name -> Result."""
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(lambda n: build_module(n, scripts[n], krel, scratch), scripts))
    names = list(scripts) + list(extra)
    commands = [f'{STAPRUN} {n}.ko' for n in scripts] + list(extra.values() if extra else [])
    batch = guest.run_batch(commands, scratch=str(scratch), timeout=timeout)
    guest.check_kernel_healthy(batch)
    return dict(zip(names, batch))
