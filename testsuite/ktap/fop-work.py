# The workload of the generic.fop test: on the minix file system in mnt2/
# (whose file operations are the generic ones), lseek, read, mmap and
# splice (to a pipe) mnt2/f.txt ("hello"), write mnt2/w.txt; then, on
# ext2 in mnt/ (mounted by ext4, whose splice_write and open are the
# generic ones, minix has none), splice the pipe into mnt/w.txt and open
# mnt/f.txt.
import mmap
import os

fd = os.open('mnt2/f.txt', os.O_RDONLY)
os.lseek(fd, 2, os.SEEK_SET)
assert os.read(fd, 10) == b'llo'
m = mmap.mmap(fd, 5, prot=mmap.PROT_READ)
assert m[:5] == b'hello'
m.close()
r, w = os.pipe()
assert os.splice(fd, w, 5, offset_src=0) == 5
out = os.open('mnt2/w.txt', os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
assert os.write(out, b'abcd') == 4
os.close(out)
os.close(fd)
out = os.open('mnt/w.txt', os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
assert os.splice(r, out, 5) == 5
os.close(out)
os.close(os.open('mnt/f.txt', os.O_RDONLY))
