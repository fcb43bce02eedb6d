# The workload of the vfs test, in the scratch directory: dd copies
# mnt/f.txt ("hello") to mnt/out.txt; python3 writes mnt/v.txt with
# writev() and reads it with readv(); dd reads the directory mnt (EISDIR)
# and cat reads g.txt on the 9p scratch directory.
dd if=mnt/f.txt of=mnt/out.txt bs=64 2>/dev/null
/usr/bin/python3 -c "
import os
fd = os.open('mnt/v.txt', os.O_CREAT | os.O_RDWR, 0o644)
os.writev(fd, [b'ab', b'cde'])
os.lseek(fd, 0, 0)
os.readv(fd, [bytearray(1), bytearray(10)])
"
dd if=mnt of=/dev/null bs=64 2>/dev/null
cat g.txt
