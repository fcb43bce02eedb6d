# Shared fixtures: where the built tools are (the build tree, so nothing
# needs installing), the guest kernel release, and helpers that run stap.
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import guest  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get('STAP_BUILDDIR', REPO))
STAP = BUILD / 'translator' / 'stap'
STAPRUN = BUILD / 'staprun' / 'staprun'
STAPIO = BUILD / 'stapio' / 'stapio'


def run_stap(args, stdin=None, cwd=None, timeout=120):
    """Run the build tree's stap; returns CompletedProcess with text output."""
    return subprocess.run([str(STAP)] + list(args), input=stdin, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope='session')
def krel():
    return guest.kernel_release()


@pytest.fixture(scope='session')
def tools():
    for p in (STAP, STAPRUN, STAPIO):
        assert p.exists(), f'{p} is not built: run make first'
    return {'stap': STAP, 'staprun': STAPRUN, 'stapio': STAPIO}
