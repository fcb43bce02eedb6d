# The I/O tapsets without debuginfo (tapsets/linux/vfs.stp, vfs_generic.stp,
# vfs_cache.stp, ioblock.stp, dentry.stp, dev.stp): vfs.*, generic.fop.* and
# ioblock.*/ioblock_trace.* fired in the test guest by dd, cat and python3
# on an ext2 file system on a RAM disk (brd, /dev/ram0 = 1:0), a minix one
# (/dev/ram1, whose file operations are the generic ones) and the 9p
# scratch directory. The values are
# checked against what stat(1) says of the same files (inode, device)
# and what the workload did (sizes, offsets, results, EISDIR).
#
# SystemTap 4.8 needs the kernel's debuginfo for vfs.* and ioblock.*
# (kernel.function probes) and for the devname of ioblock_trace.* (its
# bdevname() @casts to "kernel"); without it, it can run ioblock_trace.*
# with the other variables: ktap/ioblock_trace.stp, whose 4.8 output (in
# the same guest, for the same commands) is ktap/ioblock_trace.upstream.
import re
import shutil
from pathlib import Path

import pytest

import guest
from conftest import STAPRUN, build_module, run_stap, stap_listing

KTAP = Path(__file__).resolve().parent / 'ktap'
MODULES = {'k_vfs': 'vfs.stp', 'k_ioblock': 'ioblock.stp', 'k_iotrace': 'ioblock_trace.stp',
           'k_fop': 'generic.stp', 'k_cache': 'cache.stp'}
# SystemTap's example scripts (systemtap-doc) that use these tapsets, with
# their arguments: the first file made on a fresh ext2 is inode 12, on
# /dev/ram0 (1:0; 0x100 as user space encodes it)
EXAMPLES = Path('/usr/share/systemtap/examples/io')
EXAMPLE_MODULES = {'x_inodewatch': ('inodewatch.stp', ['1', '0', '12']),
                   'x_traceio2': ('traceio2.stp', ['0x100']),
                   'x_deviceseeks': ('deviceseeks.stp', []),
                   'x_ioblktime': ('ioblktime.stp', [])}
RAW_IO = ('dd if=/dev/zero of=/dev/ram0 bs=4096 count=1 seek=6 oflag=direct 2>/dev/null; '
          'dd if=/dev/ram0 of=/dev/null bs=4096 count=1 skip=5 iflag=direct 2>/dev/null')
FILE_IO = ('dd if=/dev/zero of=mnt/data bs=4096 count=2 conv=fsync 2>/dev/null; '
           'dd if=/dev/ram0 of=/dev/null bs=4096 count=1 skip=5 iflag=direct 2>/dev/null')
COMMANDS = {
    'setup': 'modprobe brd rd_nr=2 rd_size=4096 && modprobe ext4 && modprobe minix',
    # raw I/O on the device first (it would overwrite the file system)
    'iotrace': f"{STAPRUN} -c '{RAW_IO}' k_iotrace.ko",
    'mkfs': 'mkfs.ext2 -q -F /dev/ram0 && mkdir -p mnt && mount /dev/ram0 mnt && '
            'printf hello > mnt/f.txt && mkfs.minix /dev/ram1 > /dev/null && mkdir -p mnt2 && '
            'mount /dev/ram1 mnt2 && printf hello > mnt2/f.txt && sync && echo ok',
    'vfs': f"{STAPRUN} -c 'sh vfs-work.sh' k_vfs.ko",
    'ioblock': f"{STAPRUN} -c '{FILE_IO}' k_ioblock.ko",
    'fop': f"{STAPRUN} -c '/usr/bin/python3 fop-work.py' k_fop.ko",
    'cache': f"{STAPRUN} -c '/usr/bin/python3 cache-work.py' k_cache.ko",
    'inodewatch': f"{STAPRUN} -c 'sh vfs-work.sh' x_inodewatch.ko",
    'traceio2': f"{STAPRUN} -c 'sh vfs-work.sh' x_traceio2.ko",
    'deviceseeks': f"{STAPRUN} -c '{FILE_IO}' x_deviceseeks.ko",
    'ioblktime': f"{STAPRUN} -c '{FILE_IO}' x_ioblktime.ko",
    'stat': "stat -c '%n %i %d' mnt/f.txt mnt/out.txt mnt/v.txt mnt mnt/data g.txt "
            "mnt/w.txt mnt2/f.txt mnt2/w.txt",
}


def test_listing(krel):
    # the variables of 4.8's aliases (generic.fop.llseek's origin was for
    # scripts older than 2.3), then the parameters from the kernel's BTF
    assert stap_listing(krel, '-L', 'vfs.read') == (
        'vfs.read file:long pathname:string pos:long buf:long bytes_to_read:long dev:long '
        'devname:string ino:long name:string argstr:string $file:struct file* $buf:char* '
        '$count:size_t $pos:loff_t*\n')
    assert stap_listing(krel, '-L', 'vfs.write.return') == (
        'vfs.write.return name:string retstr:string file:long pathname:string pos:long '
        'buf:long bytes_to_write:long dev:long devname:string ino:long ret:long '
        'bytes_written:long error:long error_str:string $return:ssize_t $file:struct file* '
        '$buf:char const* $count:size_t $pos:loff_t*\n')
    assert stap_listing(krel, '-L', 'ioblock.request') == (
        'ioblock.request name:string devname:string ino:long sector:long flags:long rw:long '
        'opf:long vcnt:long idx:long phys_segments:long hw_segments:long size:long bdev:long '
        'bdev_contains:long p_start_sect:long $bio:struct bio*\n')
    assert stap_listing(krel, '-l', 'vfs.*').split() == [
        'vfs.__set_page_dirty_buffers', 'vfs.add_to_page_cache', 'vfs.buffer_migrate_page',
        'vfs.do_mpage_readpage', 'vfs.do_sync_read', 'vfs.do_sync_write', 'vfs.open',
        'vfs.read', 'vfs.readv', 'vfs.remove_from_page_cache', 'vfs.write', 'vfs.writev']
    assert len(stap_listing(krel, '-l', 'generic.fop.*.return').split()) == 7
    assert stap_listing(krel, '-l', 'ioblock*.*').split() == [
        'ioblock.end', 'ioblock.request', 'ioblock_trace.bounce', 'ioblock_trace.end',
        'ioblock_trace.request']


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    scratch = tmp_path_factory.mktemp('ktapio')
    for f in KTAP.iterdir():
        shutil.copy(f, scratch)
    (scratch / 'g.txt').write_text('g\n')
    for name, script in MODULES.items():
        build_module(name, (KTAP / script).read_text(), krel, scratch)
    for name, (script, args) in EXAMPLE_MODULES.items():
        r = run_stap(['-p4', '-r', krel, '-m', name, str(EXAMPLES / script)] + args,
                     cwd=scratch)
        assert r.returncode == 0, f'{name}: {r.stderr}'
    batch = guest.run_batch(list(COMMANDS.values()), scratch=str(scratch), timeout=120)
    guest.check_kernel_healthy(batch)
    res = dict(zip(COMMANDS, batch))
    for name in ('setup', 'mkfs', 'stat'):
        assert res[name].rc == 0, (name, res[name].stderr)
    stat = {}
    for line in res['stat'].stdout.splitlines():
        path, ino, dev = line.split()
        dev = int(dev)		# user space's encoding of the device number
        stat[path] = (int(ino), (dev >> 8) & 0xfff, (dev & 0xff) | ((dev >> 12) & 0xfff00))
    return res, stat, str(scratch)


def test_vfs(run):
    res, stat, S = run
    r = res['vfs']
    assert r.rc == 0 and r.stderr == '', (r.rc, r.stdout, r.stderr)
    ino = {p: stat[p][0] for p in stat}
    g_dev = '%d:%d' % stat['g.txt'][1:]
    assert stat['mnt/f.txt'][1:] == (1, 0)	# ext2 on ram0
    f = f'f.txt {S}/mnt/f.txt dev=1:0 devname=ram0 ino={ino["mnt/f.txt"]}'
    o = f'out.txt {S}/mnt/out.txt dev=1:0 devname=ram0 ino={ino["mnt/out.txt"]}'
    v = f'v.txt {S}/mnt/v.txt dev=1:0 devname=ram0 ino={ino["mnt/v.txt"]}'
    d = f'/ {S}/mnt dev=1:0 devname=ram0 ino={ino["mnt"]}'
    g = f'g.txt {S}/g.txt dev={g_dev} devname=N/A ino={ino["g.txt"]}'
    # the probes of one function run in script order at entry and in
    # reverse at return, as 4.8 runs them (test_thread_area.py)
    expected = [
        # dd if=mnt/f.txt of=mnt/out.txt bs=64
        f'vfs.open {S}/mnt/f.txt argstr_ok=1',
        f'vfs.open.return {S}/mnt/f.txt ret=0',
        f'vfs.read {f} bytes_to_read=64 pos=0',
        'do_sync_read f.txt len=64 size=64 units=bytes',
        f'names f.txt {S}/mnt/f.txt f.txt 1',
        'do_sync_read.return bytes_read=5',
        f'vfs.read.return {f} bytes_to_read=64 ret=5 bytes_read=5 error=0 error_str= retstr=5',
        f'vfs.write {o} bytes_to_write=5 pos=0',
        f'vfs.write.return {o} bytes_to_write=5 ret=5 bytes_written=5 error=0',
        f'vfs.read {f} bytes_to_read=64 pos=5',
        'do_sync_read f.txt len=64 size=64 units=bytes',
        f'names f.txt {S}/mnt/f.txt f.txt 1',
        'do_sync_read.return bytes_read=0',
        f'vfs.read.return {f} bytes_to_read=64 ret=0 bytes_read=0 error=0 error_str= retstr=0',
        # python3: writev(ab, cde), readv(1 + 10 bytes)
        f'vfs.writev {v} bytes_to_write=5 pos=0',
        f'vfs.writev.return {v} bytes_to_write=5 ret=5 bytes_written=5 error=0',
        f'vfs.readv {v} bytes_to_read=11 pos=0',
        'vfs.readv vlen=2 vec=1 argstr=11, NUM, PTR',
        f'vfs.readv.return {v} bytes_to_read=11 ret=5 bytes_read=5 error=0 error_str= retstr=5',
        # dd if=mnt: a directory (read through ->read: no do_sync_read)
        f'vfs.read {d} bytes_to_read=64 pos=0',
        f'vfs.read.return {d} bytes_to_read=64 ret=-21 bytes_read=0 error=-21 '
        'error_str=EISDIR retstr=-21',
        # cat g.txt (9p: no block device); cat's buffer size is 9p's
        f'vfs.read {g} bytes_to_read=N pos=0',
        'do_sync_read g.txt len=N size=N units=bytes',
        'do_sync_read.return bytes_read=2',
        f'vfs.read.return {g} bytes_to_read=N ret=2 bytes_read=2 error=0 error_str= retstr=2',
        f'vfs.read {g} bytes_to_read=N pos=2',
        'do_sync_read g.txt len=N size=N units=bytes',
        'do_sync_read.return bytes_read=0',
        f'vfs.read.return {g} bytes_to_read=N ret=0 bytes_read=0 error=0 error_str= retstr=0',
    ]
    got = []
    for line in r.stdout.splitlines():
        if line == 'g':
            continue
        line = re.sub(r'argstr=11, -\d+, 0x[0-9a-f]+$', 'argstr=11, NUM, PTR', line)
        if ' g.txt' in line:
            line = re.sub(r'(len|size|bytes_to_read)=\d+', r'\1=N', line)
        got.append(line)
    assert got == expected


def test_ioblock(run):
    res, stat, S = run
    r = res['ioblock']
    assert r.rc == 0 and r.stderr == '', (r.rc, r.stdout, r.stderr)
    lines = r.stdout.splitlines()
    data = stat['mnt/data'][0]
    # the two blocks of mnt/data, written back by fsync, as one bio
    # (in one or two segments: the page cache may hold them as one folio)
    w = [line for line in lines if f' ino={data} ' in line]
    assert w, r.stdout
    sect = re.search(r'sector=(\d+)', w[0]).group(1)
    assert re.search(r' vcnt=[12] ', w[0]), w[0]
    w[0] = re.sub(r' vcnt=[12] ', ' vcnt=N ', w[0])
    assert w == [
        f'ioblock.request ram0 ino={data} rw=W size=8192 sector={sect} vcnt=N start=0 bdev=1',
        f'ioblock_trace.request ram0 ino={data} rw=W size=8192 sector={sect} q=1',
        f'ioblock.end ram0 ino={data} rw=W size=8192 sector={sect} bytes_done=8192 error=0',
        f'ioblock_trace.end ram0 ino={data} rw=W size=8192 sector={sect} q=1',
    ]
    # the direct read of the device: user memory, no file (ino -1)
    assert lines[-4:] == [
        'ioblock.request ram0 ino=-1 rw=R size=4096 sector=40 vcnt=1 start=0 bdev=1',
        'ioblock_trace.request ram0 ino=-1 rw=R size=4096 sector=40 q=1',
        'ioblock.end ram0 ino=-1 rw=R size=4096 sector=40 bytes_done=4096 error=0',
        'ioblock_trace.end ram0 ino=-1 rw=R size=4096 sector=40 q=1',
    ]


def test_ioblock_trace_as_upstream(run):
    res, _, _ = run
    r = res['iotrace']
    assert r.rc == 0 and r.stderr == '', (r.rc, r.stdout, r.stderr)
    assert r.stdout == (KTAP / 'ioblock_trace.upstream').read_text()


def test_generic_fop(run):
    # generic.aop.writepages is built (k_fop) but not fired: none of the
    # file systems the guest can make uses mpage_writepages()
    res, stat, S = run
    r = res['fop']
    assert r.rc == 0 and r.stderr == '', (r.rc, r.stdout, r.stderr)
    f2, w2 = stat['mnt2/f.txt'][0], stat['mnt2/w.txt'][0]
    f, w = stat['mnt/f.txt'][0], stat['mnt/w.txt'][0]
    assert (f2, w2) != (f, w)
    assert r.stdout.splitlines() == [
        'generic_file_llseek f.txt offset=2 whence=0 SEEK_SET maxbyte>0=1 argstr=2, 0',
        'generic_file_llseek.return SEEK_SET retstr=2 error=0',
        f'generic_file_read_iter f.txt {S}/mnt2/f.txt devname=ram1 pos=2 count=10 buf=1 '
        'size=10 bytes',
        'generic_file_read_iter.return bytes_read=3 error=0 retstr=3',
        'generic_file_mmap f.txt length=4096 argstr_ok=1',
        'generic_file_mmap.return retstr=0',
        # splice reads through read_iter into the pipe's pages (no user buffer)
        'generic_file_splice_read f.txt len=5 argstr=5, 0',
        f'generic_file_read_iter f.txt {S}/mnt2/f.txt devname=ram1 pos=0 count=5 buf=0 '
        'size=5 bytes',
        'generic_file_read_iter.return bytes_read=5 error=0 retstr=5',
        'generic_file_splice_read.return ret=5 size=5',
        f'generic_file_write_iter w.txt {S}/mnt2/w.txt devname=ram1 pos=0 count=4 buf=1 '
        'size=4 bytes',
        'generic_file_write_iter.return size=4 retstr=4',
        f'generic_file_open w.txt ino={w} devname=ram0 flag=01 size=0 argstr_ok=1',
        'generic_file_splice_write w.txt len=5 argstr=5, 0',
        'generic_file_splice_write.return retstr=5',
        f'generic_file_open f.txt ino={f} devname=ram0 flag=00 size=5 argstr_ok=1',
    ]


def test_examples(run):
    res, stat, S = run
    assert stat['mnt/f.txt'][:3] == (12, 1, 0)
    for name in ('inodewatch', 'traceio2', 'deviceseeks', 'ioblktime'):
        assert res[name].rc == 0 and res[name].stderr == '', (name, res[name].stderr)
    # inodewatch.stp 1 0 12: dd's two reads of mnt/f.txt
    # (the workload's cat prints g.txt's "g")
    got = [re.sub(r'\(\d+\)', '(PID)', line) for line in res['inodewatch'].stdout.splitlines()
           if line != 'g']
    assert got == ['dd(PID) vfs_read 0x100000/12'] * 2
    # traceio2.stp 0x100: every read and write on /dev/ram0's file system
    got = [re.sub(r'\(\d+\)', '(PID)', line) for line in res['traceio2'].stdout.splitlines()
           if line != 'g']
    assert got == ['dd(PID) vfs_read 0x100000', 'dd(PID) vfs_write 0x100000',
                   'dd(PID) vfs_read 0x100000', 'dd(PID) vfs_read 0x100000'], got
    # deviceseeks.stp: a histogram of the seeks on ram0, at the end
    out = res['deviceseeks'].stdout
    assert 'Device: ram0\n' in out and 'value |' in out, out
    # ioblktime.stp: the time of ram0's reads and writes, at the end
    rows = [line.split() for line in res['ioblktime'].stdout.splitlines()
            if line.strip().startswith('ram0')]
    assert sorted(row[1] for row in rows) == ['R', 'W'], rows
    assert all(int(row[3]) >= 1 for row in rows), rows


def test_page_cache(run):
    # (k_cache also probes vfs.buffer_migrate_page, vfs.do_mpage_readpage
    # and the .return probes, but nothing here migrates pages, reads
    # through mpage, or prints a return from those)
    res, stat, S = run
    r = res['cache']
    assert r.rc == 0 and r.stderr == '', (r.rc, r.stdout, r.stderr)
    assert stat['mnt2/f.txt'][0] == 2
    lines = r.stdout.splitlines()
    # drop_caches takes mnt2/f.txt's page out (and those of the others)
    assert 'vfs.remove_from_page_cache ram1 ino=2 index=0 argstr=2' in lines
    first = next(i for i, line in enumerate(lines) if ' ino=2 ' in line and 'add_to' in line)
    # reading it brings it back (into an empty mapping); writing it
    # through a shared mapping dirties it once (then it stays dirty)
    assert lines[first:first + 4] == [
        'vfs.add_to_page_cache ram1 ino=2 index=0 nrpages=0 size=0 pages argstr=2, 0',
        'vfs.add_to_page_cache.return retstr=0 size=1 pages',
        '__set_page_dirty_buffers ram1 ino=2 index=0 argstr=0',
        '__set_page_dirty_buffers.return retstr=1 size=1 pages',
    ]
    assert all(line in ('__set_page_dirty_buffers ram1 ino=2 index=0 argstr=0',
                        '__set_page_dirty_buffers.return retstr=0 size=0 ')
               for line in lines[first + 4:]), lines
