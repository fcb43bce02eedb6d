# testsuite/kbtf.py - struct member offsets of the guest's kernel, read from
# its BTF by this small reader (stdlib only, independent of the translator's
# own BTF code), for tests whose expected output holds a kernel address
# (a read fault at NULL + offsetof(...)): the same test then holds on
# Debian's kernel and on the debug kernel of testsuite/debug-kernel.sh,
# whose structs are laid out otherwise (KASAN, lockdep).
#
#     kbtf.offsetof('file', 'f_flags')      # in the kernel guest.py boots
import functools
import struct
from pathlib import Path

import guest

BTF_MAGIC = 0xeb9f
KIND_STRUCT, KIND_UNION = 4, 5
# bytes after the 12-byte btf_type: fixed, and per vlen item
EXTRA = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8), 13: (0, 8),
         14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}


def elf_section(data, name):
    """The contents of section `name` of a 64-bit little-endian ELF file."""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)

    def header(i):
        at = shoff + i * shentsize
        name_off, = struct.unpack_from('<I', data, at)
        offset, size = struct.unpack_from('<QQ', data, at + 0x18)
        return name_off, offset, size

    _, stroff, _ = header(shstrndx)
    for i in range(shnum):
        name_off, offset, size = header(i)
        end = data.index(b'\0', stroff + name_off)
        if data[stroff + name_off:end].decode() == name:
            return data[offset:offset + size]
    raise KeyError(f'no section {name}')


def kernel_btf():
    """The BTF of the kernel the guest boots: the .BTF section of its
    vmlinux (guest.py's extracted copy, or the debug kernel's build)."""
    vm = guest.Guest()
    if vm.debug:
        vmlinux = guest.debug_kernel() / 'build' / 'vmlinux'
    else:
        vm.prepare()
        vmlinux = vm.vmlinux
    return elf_section(Path(vmlinux).read_bytes(), '.BTF')


def parse(btf):
    """(types, name): types[id] = (kind, name_off, kind_flag, members,
    size), id 1 first, members [(name_off, type, bit offset)] for structs
    and unions, size their byte size; name(off) the string at off."""
    magic, _, _, hdr_len, type_off, type_len, str_off, _ = \
        struct.unpack_from('<HBBIIIII', btf, 0)
    if magic != BTF_MAGIC:
        raise ValueError('not BTF')
    strings = hdr_len + str_off
    types = [None]
    at, end = hdr_len + type_off, hdr_len + type_off + type_len
    while at < end:
        name_off, info, size = struct.unpack_from('<III', btf, at)
        kind, vlen, kflag = (info >> 24) & 0x1f, info & 0xffff, info >> 31
        at += 12
        members = None
        if kind in (KIND_STRUCT, KIND_UNION):
            members = []
            for _ in range(vlen):
                m_name, m_type, m_off = struct.unpack_from('<III', btf, at)
                members.append((m_name, m_type, m_off & 0xffffff if kflag else m_off))
                at += 12
        else:
            fixed, item = EXTRA.get(kind, (0, 0))
            at += fixed + item * vlen
        types.append((kind, name_off, kflag, members, size))

    def name(off):
        return btf[strings + off:btf.index(b'\0', strings + off)].decode()
    return types, name


def member_offset(parsed, struct_name, member):
    """The byte offset of `member` in `struct struct_name` (also inside an
    anonymous struct or union member) of parse()'s result."""
    types, name = parsed

    def find(tid, base):
        for m_name, m_type, bits in types[tid][3]:
            if m_name and name(m_name) == member:
                return base + bits // 8
            if not m_name and types[m_type][0] in (KIND_STRUCT, KIND_UNION):
                found = find(m_type, base + bits // 8)
                if found is not None:
                    return found
        return None

    for tid, (kind, name_off, _, _, _) in enumerate(types[1:], 1):
        if kind == KIND_STRUCT and name(name_off) == struct_name:
            found = find(tid, 0)
            if found is not None:
                return found
    raise KeyError(f'no member {member} in struct {struct_name}')


@functools.lru_cache(maxsize=None)
def _guest_types(_release):
    return parse(kernel_btf())


def offsetof(struct_name, member):
    """offsetof(struct struct_name, member) in the guest's kernel."""
    return member_offset(_guest_types(guest.kernel_release()), struct_name, member)


def sizeof(struct_name):
    """sizeof(struct struct_name) in the guest's kernel."""
    types, name = _guest_types(guest.kernel_release())
    for kind, name_off, _, members, size in types[1:]:
        if kind == KIND_STRUCT and members and name(name_off) == struct_name:
            return size
    raise KeyError(f'no struct {struct_name}')
