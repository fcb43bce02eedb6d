# The workload of the page cache test, on the minix file system in mnt2/:
# drop the caches (mnt2/f.txt, "hello", leaves the page cache), read
# mnt2/f.txt (it comes back) and write it through a shared mapping (its
# page is dirtied).
import mmap
import os

with open('/proc/sys/vm/drop_caches', 'w') as f:
    f.write('3\n')
fd = os.open('mnt2/f.txt', os.O_RDWR)
assert os.read(fd, 10) == b'hello'
m = mmap.mmap(fd, 5)
m[0:1] = b'H'
m.close()
os.close(fd)
