# The module cache (translator/build/cache.c, man stap CACHING): a module
# built once is kept in $SYSTEMTAP_DIR/cache and an identical later run
# skips passes 3 and 4; --poison-cache, --clean-cache, --disable-cache,
# cache_mb_limit and cache_clean_interval_s as 4.8. Host only: the builds
# are -p3/-p4 for the guest's kernel, nothing is loaded here.
import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import STAP

TIMER = 'probe timer.s(1) { println("tick") }'


def stap(args, sysdir, cwd=None, home=None):
    env = dict(os.environ)
    env.pop('SYSTEMTAP_DIR', None)
    if sysdir is not None:
        env['SYSTEMTAP_DIR'] = str(sysdir)
    if home is not None:
        env['HOME'] = str(home)
    return subprocess.run([str(STAP)] + list(args), cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def p4(krel, sysdir, script=TIMER, extra=(), cwd=None):
    r = stap(['-v', '-p4', '-r', krel] + list(extra) + ['-e', script], sysdir, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


def built(r):
    return 'Pass 4: compiled C into' in r.stderr


def module_name(krel, sysdir, extra=(), script=TIMER):
    """The module name -p3 -v reports (the cache key names it)."""
    r = stap(['-v', '-p3', '-r', krel] + list(extra) + ['-e', script], sysdir)
    assert r.returncode == 0, r.stderr
    m = re.search(r'/(stap_[0-9a-f]{32}_[0-9]+)(_src)?\.c', r.stderr)
    assert m, r.stderr
    return m.group(1)


def entry_files(sysdir):
    return sorted(p for p in (Path(sysdir) / 'cache').glob('??/stap_*'))


@pytest.fixture(scope='module')
def filled(krel, tmp_path_factory):
    """A cache with one entry: the first (missing) run and the second."""
    d = tmp_path_factory.mktemp('cache')
    first = p4(krel, d)
    second = p4(krel, d)
    return d, first, second


def test_miss_then_hit(filled):
    d, first, second = filled
    ko = first.stdout.strip()
    assert re.fullmatch(re.escape(str(d)) + r'/cache/([0-9a-f]{2})/stap_\1[0-9a-f]{30}_[0-9]+\.ko', ko)
    assert built(first) and 'Pass 3: translated to C into' in first.stderr
    assert second.stdout.strip() == ko
    assert not built(second) and 'translated' not in second.stderr
    assert (f'Pass 3: using cached {ko[:-3]}.c\n'
            f'Pass 4: using cached {ko}\n') in second.stderr
    assert sorted(p.suffix for p in entry_files(d)) == ['.c', '.ko', '.meta']
    # the module is named after the key, in its .modinfo
    name = Path(ko).stem
    assert b'name=' + name.encode() + b'\0' in Path(ko).read_bytes()


def test_p3_hit_prints_cached_c(krel, filled):
    d, first, _ = filled
    ko = first.stdout.strip()
    r = stap(['-v', '-p3', '-r', krel, '-e', TIMER], d)
    assert r.returncode == 0
    assert r.stdout == Path(ko[:-3] + '.c').read_text()
    assert f'Pass 3: using cached {ko[:-3]}.c\n' in r.stderr
    assert 'Pass 4' not in r.stderr


def test_key_follows_what_changes_the_module(krel, tmp_path):
    base = module_name(krel, tmp_path)
    assert module_name(krel, tmp_path) == base
    # staprun's options do not change the module
    assert module_name(krel, tmp_path, ['-o', 'x.txt', '-s', '2', '-x', '1',
                                        '-G', 'g=1']) == base
    # -D, -g, -u, another script or another kernel do
    others = [module_name(krel, tmp_path, ['-D', 'MAXACTION=1234']),
              module_name(krel, tmp_path, ['-D', 'MAXACTION=1235']),
              module_name(krel, tmp_path, ['-g']),
              module_name(krel, tmp_path, ['-u']),
              module_name(krel, tmp_path, script=TIMER.replace('tick', 'tock')),
              module_name(krel, tmp_path, ['-T', '5'])]
    assert len(set(others + [base])) == len(others) + 1


def test_different_script_or_define_misses(krel, filled):
    d, first, _ = filled
    r = p4(krel, d, extra=['-D', 'MAXACTION=777'])
    assert built(r) and 'using cached' not in r.stderr
    assert r.stdout.strip() != first.stdout.strip()
    assert len(entry_files(d)) == 6


def test_poison_cache_rebuilds_and_replaces(krel, filled):
    d, first, _ = filled
    ko = Path(first.stdout.strip())
    meta = ko.with_suffix('.meta')
    before = meta.stat().st_ino
    r = p4(krel, d, extra=['--poison-cache'])
    assert built(r) and 'using cached' not in r.stderr
    assert r.stdout.strip() == str(ko)
    assert meta.stat().st_ino != before
    assert not built(p4(krel, d))


def corrupt_cases():
    def truncate(ko, meta):
        ko.write_bytes(ko.read_bytes()[:4096])

    def bad_key(ko, meta):
        t = meta.read_text()
        meta.write_text(re.sub(r'key ([0-9a-f])', lambda m: 'key ' + '0123456789abcdef'[
            (int(m.group(1), 16) + 1) % 16], t, count=1))

    def other_kernel(ko, meta):
        # a module of another kernel with a consistent checksum
        import hashlib
        data = ko.read_bytes()
        m = re.search(rb'vermagic=([^ ]+) ', data)
        other = b'9' * len(m.group(1))
        data = data.replace(b'vermagic=' + m.group(1) + b' ', b'vermagic=' + other + b' ')
        ko.write_bytes(data)
        t = meta.read_text()
        t = re.sub(r'ko \d+ [0-9a-f]+', f'ko {len(data)} {hashlib.sha256(data).hexdigest()}', t)
        meta.write_text(t)

    return {'truncated': truncate, 'bad_key': bad_key, 'other_kernel': other_kernel}


@pytest.mark.parametrize('case', sorted(corrupt_cases()))
def test_corrupt_entry_is_rebuilt(krel, filled, case):
    d, first, _ = filled
    ko = Path(first.stdout.strip())
    good = ko.read_bytes()
    corrupt_cases()[case](ko, ko.with_suffix('.meta'))
    r = stap(['-vv', '-p4', '-r', krel, '-e', TIMER], d)
    assert r.returncode == 0, r.stderr
    assert built(r) and 'using cached' not in r.stderr
    assert f'Cache entry {str(ko)[:-3]} not used: ' in r.stderr
    assert len(ko.read_bytes()) == len(good)
    assert not built(p4(krel, d))


def test_m_builds_under_its_name(krel, filled, tmp_path):
    # as 4.8: -m (and -k) neither read nor write the cache
    d, first, _ = filled
    before = entry_files(d)
    r = p4(krel, d, extra=['-m', 'cachedname'], cwd=tmp_path)
    assert built(r) and 'using cached' not in r.stderr
    assert r.stdout == 'cachedname.ko\n'
    assert b'name=cachedname\0' in (tmp_path / 'cachedname.ko').read_bytes()
    assert entry_files(d) == before


def test_disable_cache(krel, filled):
    d, first, _ = filled
    r = stap(['-v', '-p3', '--disable-cache', '-r', krel, '-e', TIMER], d)
    assert r.returncode == 0
    assert 'Pass 3: translated to C into' in r.stderr
    assert 'using cached' not in r.stderr


def fake_entry(sysdir, n, size, age):
    h = f'{n:02x}' + '0' * 30
    sub = Path(sysdir) / 'cache' / h[:2]
    sub.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ('.c', '.ko', '.meta'):
        p = sub / f'stap_{h}_{n}{ext}'
        p.write_bytes(b'x' * size)
        t = time.time() - age
        os.utime(p, (t, t))
        paths.append(p)
    return paths


def test_clean_cache_defaults(tmp_path):
    r = stap(['--clean-cache'], tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, '', '')
    assert (tmp_path / 'cache' / 'cache_mb_limit').read_text() == '256\n'
    assert (tmp_path / 'cache' / 'cache_clean_interval_s').read_text() == '300\n'


def test_clean_cache_by_size_oldest_first(tmp_path):
    old = fake_entry(tmp_path, 1, 300 * 1024, 300)
    mid = fake_entry(tmp_path, 2, 300 * 1024, 200)
    new = fake_entry(tmp_path, 3, 300 * 1024, 100)
    (tmp_path / 'cache' / 'cache_mb_limit').write_text('2\n')
    (tmp_path / 'cache' / 'cache_clean_interval_s').write_text('3600\n')
    # the interval has not passed: nothing goes
    r = stap(['-vv', '--clean-cache'], tmp_path)
    assert r.returncode == 0
    assert 'Cache cleaning skipped, interval not reached' in r.stderr
    assert all(p.exists() for p in old + mid + new)
    (tmp_path / 'cache' / 'cache_clean_interval_s').write_text('0\n')
    r = stap(['-vv', '--clean-cache'], tmp_path)
    assert r.returncode == 0
    assert 'Cache cleaning successful, removed entries:' in r.stderr
    # 2.7 MiB over a 2 MiB limit: the oldest entry goes, whole
    assert not any(p.exists() for p in old)
    assert all(p.exists() for p in mid + new)


def test_store_cleans_first_and_keeps_new_entry(krel, tmp_path):
    old = fake_entry(tmp_path, 1, 1000, 100)
    (tmp_path / 'cache' / 'cache_mb_limit').write_text('0\n')
    (tmp_path / 'cache' / 'cache_clean_interval_s').write_text('0\n')
    r = p4(krel, tmp_path, script='probe timer.s(2) { println("clean") }')
    assert built(r)
    assert not any(p.exists() for p in old)
    assert Path(r.stdout.strip()).exists()
    assert not built(p4(krel, tmp_path, script='probe timer.s(2) { println("clean") }'))


def test_default_dir_is_home_systemtap(krel, tmp_path):
    r = stap(['-p3', '-r', krel, '-e', TIMER], None, home=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / '.systemtap' / 'cache').is_dir()


def test_unusable_dir_warns_and_builds_without(krel, tmp_path):
    (tmp_path / 'file').write_text('')
    r = stap(['-p3', '-r', krel, '-e', TIMER], tmp_path / 'file')
    assert r.returncode == 0
    assert r.stderr.startswith('WARNING: failed to create systemtap data directory')
    assert r.stderr.endswith(', disabling cache support.\n')


def test_two_processes_at_once(krel, tmp_path):
    script = 'probe timer.s(3) { println("twice") }'
    with ThreadPoolExecutor(max_workers=2) as ex:
        rs = list(ex.map(lambda _: p4(krel, tmp_path, script=script), range(2)))
    assert rs[0].stdout == rs[1].stdout
    assert sorted(p.suffix for p in entry_files(tmp_path)) == ['.c', '.ko', '.meta']
    assert not list((Path(tmp_path) / 'cache').glob('??/*.tmp*'))
    r = p4(krel, tmp_path, script=script)
    assert not built(r) and r.stdout == rs[0].stdout


def test_cast_headers_hit_and_follow_the_headers(krel, tmp_path):
    """@cast's "<header>" types come from a program built in the temporary
    directory each run: the key has the headers and what they include,
    not that program, so an identical run hits and a changed header
    (the same -p2 output) misses."""
    h = tmp_path / 'pt.h'
    h.write_text('struct pt { long a; long b; };\n')
    script = f'probe begin {{ println(&@cast(0, "struct pt", "<{h}>")->b); exit() }}'
    d = tmp_path / 'sys'
    first = p4(krel, d, script)
    second = p4(krel, d, script)
    assert built(first) and not built(second)
    assert second.stdout == first.stdout
    meta = Path(first.stdout.strip()).with_suffix('.meta').read_text()
    assert f'@cast header: {h} ' in meta
    h.write_text('struct pt { long a;  long b; };\n')
    os.utime(h, (time.time() + 5, time.time() + 5))
    third = p4(krel, d, script)
    assert built(third) and third.stdout != first.stdout


def test_ldd_libraries_are_keyed(krel, tmp_path):
    """With --ldd the module holds the tables of the libraries a probed
    program needs: a changed library is a miss."""
    lib = tmp_path / 'libcsz.so'
    src = tmp_path / 'lib.c'
    src.write_text('int csz(int x) { return x + 1; }\n')
    subprocess.run(['gcc', '-shared', '-fPIC', '-o', str(lib), str(src)], check=True)
    main = tmp_path / 'main.c'
    main.write_text('int csz(int);\nint main(void) { return csz(1) - 2; }\n')
    prog = tmp_path / 'prog'
    subprocess.run(['gcc', '-g', '-o', str(prog), str(main), str(lib)], check=True)
    script = f'probe process("{prog}").function("main") {{ println(pp()) }}'
    d = tmp_path / 'sys'
    first = p4(krel, d, script, ['--ldd'])
    second = p4(krel, d, script, ['--ldd'])
    assert built(first) and not built(second)
    meta = Path(first.stdout.strip()).with_suffix('.meta').read_text()
    assert f'user object (--ldd): {lib} ' in meta
    src.write_text('int csz(int x) { return x + 2; }\n')
    subprocess.run(['gcc', '-shared', '-fPIC', '-o', str(lib), str(src)], check=True)
    os.utime(lib, (time.time() + 5, time.time() + 5))
    third = p4(krel, d, script, ['--ldd'])
    assert built(third) and third.stdout != first.stdout
