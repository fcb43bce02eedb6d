# staprun and stapio when an allocation or a look-up fails with ENOMEM
# (issue 19's fault injection, which the debug guest kernel does by
# failing the kernel's allocations), on the host without the debug kernel:
# an LD_PRELOAD shim built here makes access()/readlink() of chosen paths
# fail with ENOMEM, or the Nth malloc/calloc/realloc of each process
# return NULL. The errors must name the real cause, and no failure may
# kill staprun or stapio with a signal.
import os
import subprocess

import pytest

from conftest import BUILD, STAPRUN, run_stap

HELLO = 'probe begin { println("hello"); exit() }'

SHIM_C = r'''
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SHIM_ENOMEM_PATH: access()/readlink() of a path containing it fail */
static int enomem_path(const char *path)
{
	const char *want = getenv("SHIM_ENOMEM_PATH");

	if (want && *want && path && strstr(path, want)) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

int access(const char *path, int mode)
{
	static int (*real)(const char *, int);

	if (enomem_path(path))
		return -1;
	if (!real)
		real = (int (*)(const char *, int))dlsym(RTLD_NEXT, "access");
	return real(path, mode);
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
	static ssize_t (*real)(const char *, char *, size_t);

	if (enomem_path(path))
		return -1;
	if (!real)
		real = (ssize_t (*)(const char *, char *, size_t))
			dlsym(RTLD_NEXT, "readlink");
	return real(path, buf, size);
}

/* SHIM_FAIL_NTH=N: the Nth allocation of main()'s process fails (the
 * count starts at main: the loader's and libc's start-up are not ours) */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static long nth = -1, count;
static int started;

__attribute__((constructor)) static void shim_init(void)
{
	const char *n = getenv("SHIM_FAIL_NTH");

	if (n)
		nth = atol(n);
	started = 1;
}

static int fail_now(void)
{
	if (!started || nth < 0)
		return 0;
	if (++count != nth)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fail_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	return fail_now() ? NULL : __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __libc_realloc(p, n);
}
'''


@pytest.fixture(scope='module')
def shim(tmp_path_factory):
    d = tmp_path_factory.mktemp('enomem')
    (d / 'shim.c').write_text(SHIM_C)
    so = d / 'shim.so'
    subprocess.run(['gcc', '-shared', '-fPIC', '-O1', '-o', str(so), str(d / 'shim.c'),
                    '-ldl'], check=True)
    return so


def staprun(shim, args, cwd, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith(('STAP_STAPIO', 'SHIM_'))}
    e.update(env, LD_PRELOAD=str(shim))
    return subprocess.run([str(STAPRUN)] + args, capture_output=True, text=True,
                          cwd=cwd, env=e, timeout=60)


def test_stapio_lookup_enomem(tools, shim, tmp_path):
    # the look-up of stapio failed: its error, not the fallback's ENOENT
    r = staprun(shim, ['-A', 'f_none'], tmp_path, SHIM_ENOMEM_PATH='stapio')
    assert r.returncode == 1
    assert r.stderr == (f"ERROR: cannot run stapio '{BUILD}/staprun/../stapio/stapio': "
                        'Cannot allocate memory\n')
    r = staprun(shim, ['-A', 'f_none'], tmp_path, SHIM_ENOMEM_PATH='/proc/self/exe')
    assert r.returncode == 1
    assert r.stderr == "ERROR: cannot run stapio '/proc/self/exe': Cannot allocate memory\n"
    # without a failure: stapio runs, and says the module is not there
    r = staprun(shim, ['-A', 'f_none'], tmp_path)
    assert r.returncode == 1
    assert r.stderr == 'ERROR: Cannot attach to module f_none control channel; not running?\n'


def test_proc_modules_enomem(tools, shim, krel, tmp_path):
    # ENOMEM looking at /proc/modules is not "no loadable-module support"
    r = run_stap(['-p4', '-r', krel, '-m', 'f_enomem', '-e', HELLO], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = staprun(shim, ['f_enomem.ko'], tmp_path, SHIM_ENOMEM_PATH='/proc/modules')
    assert r.returncode == 1
    assert r.stderr == 'ERROR: cannot look at /proc/modules: Cannot allocate memory\n'


def test_allocation_failures_never_crash(tools, shim, krel, tmp_path):
    # each of the first 60 allocations of staprun, then of the stapio it
    # runs (the count starts again at exec), fails in turn: an error or
    # success, never a signal
    r = run_stap(['-p4', '-r', krel, '-m', 'f_nth', '-e', HELLO], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    seen = set()
    for args in (['f_nth.ko'], ['-A', 'f_nth'], ['-A', 'f_nth', '-o', 'out.txt'],
                 ['-d', 'f_nth']):
        for n in range(1, 61):
            r = staprun(shim, args, tmp_path, SHIM_FAIL_NTH=str(n))
            assert 0 <= r.returncode <= 1, (args, n, r.returncode, r.stderr)
            assert 'ld.so' not in r.stderr, r.stderr	# the shim is loaded
            assert r.stderr.startswith('ERROR: ') or r.returncode == 0, (args, n, r.stderr)
            seen.add(r.stderr.splitlines()[0] if r.stderr else '')
    # the shim did fail allocations: reading the module is one
    assert "ERROR: out of memory reading 'f_nth.ko'" in seen, seen
