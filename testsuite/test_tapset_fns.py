# The tapset functions added for 4.8's --dump-functions (issue 18), end
# to end in the guest: the fp_* binary64 arithmetic, UTF-16/UTF-32 kernel
# and user strings and the other string readers, the syscall argument
# setters, regparm(), rlimit names, env_var(), umodaddr(), umodbuildid(),
# stp_print_binary(), endian and wait-status helpers, module facts,
# atomic reads, ftrace(), the security band-aid frame (livepatch.stp),
# the scsi, sunrpc and nfs helpers and the mib helpers. Each case of CASES
# is a script, the command that runs its module and what Debian's
# SystemTap 4.8 printed for it in the same guest; those of OURS_ONLY,
# which 4.8 cannot build here (its @cast needs kernel DWARF it does not
# find for these types, or it lacks the function: cpuid() is kept only for
# older language versions; the python helpers need its python probes),
# print what ours must. User addresses, which
# ASLR moves, are compared as 0xUSER (test_tapset_fnbuild.py has the
# builds and the --dump-functions check).
import re

import pytest

from conftest import without_reentrancy
from tapset_cases import RUN, run_cases, untapset

USER_ADDR = re.compile(r"0x5[0-9a-f]{11}\b")

SHELL = {
    'utf16.sh': "exec /usr/bin/printf 'A\\000\\351\\000=\\330\\000\\336\\000\\000' > /dev/null\n",
    'tcp.py': 'import socket\ns = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)\nc = socket.create_connection(s.getsockname()); a, _ = s.accept()\nc.sendall(b"ping"); a.recv(4); a.sendall(b"pong"); c.recv(4)\nc.close(); a.close(); s.close()\n',
}

# name -> (script, command, stdout, stderr, rc)
CASES = {
    'fp': (
        'probe begin {\n\ta = string_to_fp("3.14159"); b = long_to_fp(-7); c = string_to_fp("2.5e-3")\n\tprintln(fp_to_string(a, 5), " ", fp_to_string(b, 2), " ", fp_to_string(c, 6))\n\tprintln(fp_to_string(fp_add(a, b), 4), " ", fp_to_string(fp_sub(a, b), 4), " ", fp_to_string(fp_mul(a, b), 4))\n\tprintln(fp_to_string(fp_div(a, b), 6), " ", fp_to_string(fp_rem(long_to_fp(17), long_to_fp(5)), 1), " ", fp_to_string(fp_sqrt(long_to_fp(2)), 9))\n\tprintln(fp_eq(a, a), fp_eq(a, b), fp_lt(b, a), fp_lt(a, b), fp_le(a, a), fp_le(a, b))\n\tprintln(fp_to_long(a, 0, 0), " ", fp_to_long(fp_mul(a, b), 1, 0), " ", fp_to_long(fp_mul(a, b), 2, 1), " ", fp_to_long(fp_mul(a, b), 3, 0), " ", fp_to_long(string_to_fp("2.5"), 0, 0), " ", fp_to_long(string_to_fp("2.5"), 4, 0))\n\tprintf("%x %x %x %x\\n", a, b, fp_sqrt(b), fp_div(a, long_to_fp(0)))\n\tprintf("%x %x %x\\n", fp32_to_fp64(0x40490fdb), fp32_to_fp64(0x80000001), fp32_to_fp64(0x7fc00001))\n\tprintln(fp_to_string(fp32_to_fp64(0x3fc00000), 3), " ", fp_to_string(long_to_fp(0), 3), " ", fp_to_string(string_to_fp("-0.999"), 2))\n\tprintln(fp_to_long(string_to_fp("1e30"), 0, 0), " ", fp_to_long(string_to_fp("-1e30"), 0, 0), " ", fp_to_long(fp_sqrt(b), 0, 0))\n\ttry { println(string_to_fp("1.5x")) } catch (e) { println("caught ", e) }\n\tprintln(string_to_fp("1e-3"), " ", string_to_fp("-.5"), " ", string_to_fp("+12E2"))\n\texit()\n}\n',
        '{run} {mod}.ko',
        '3.14159 -7.00 0.002500\n-3.8584 10.1416 -21.9911\n-0.448799 2.0 1.414213562\n101010\n3 -21 -22 -21 2 3\n400921f9f01b866e c01c000000000000 7ff8000000000000 7ff0000000000000\n400921fb60000000 b6a0000000000000 7ff8000020000000\n1.500 0.000 -0.910\n9223372036854775807 -9223372036854775808 0\ncaught invalid format\n4562254508917369340 -4620693217682128896 4652992471259676672\n',
        '', 0),
    'scsi': (
        'probe begin {\n\tprintln(describe_data_direction(0), describe_data_direction(1), describe_data_direction(2), describe_data_direction(3), describe_data_direction(4), describe_data_direction(-1))\n\tfor (i = 0; i < 10; i++) print(describe_device_state(i), " ")\n\tprintln("")\n\ttry { println(disk_major_from_request(0)) } catch (e) { println(e) }\n\ttry { println(disk_minor_from_request(0)) } catch (e) { println(e) }\n\ttry { println(get_devstate_from_req(0)) } catch (e) { println(e) }\n\ttry { println(timer_pending(0)) } catch (e) { println(e) }\n\texit()\n}\n',
        '{run} {mod}.ko',
        'BIDIRECTIONALTO_DEVICEFROM_DEVICENONE[INVALID][INVALID]\n[INVALID] CREATED RUNNING CANCEL DEL QUIESCE OFFLINE [INVALID] [INVALID] [INVALID] \nunsupported (PR28634)\nunsupported (PR28634)\nread fault [man error::fault] at 0x80\nread fault [man error::fault] at 0x0\n',
        '', 0),
    'uutf': (
        'probe syscall.write {\n\tif (execname() != "printf") next\n\tprintf("%s|%s|%s\\n", user_string_utf16(buf_uaddr), user_string_quoted_utf16(buf_uaddr), user_string_quoted_utf32(buf_uaddr + 2))\n\ttry { println(user_string_utf32(buf_uaddr)) } catch (e) { println(e) }\n\ttry { println(user_string_utf16(buf_uaddr + 6)) } catch (e) { println(e) }\n\tprintln(user_string2_utf16(buf_uaddr + 4, "x"), " ", user_string_utf32(0, "bad"), " ", kernel_or_user_string_quoted_utf16(buf_uaddr))\n\tprintln(umodaddr(uaddr()) > 0, " ", env_var("STAPTEST"), "|", env_var("NOPE"), "|", env_var(""))\n\tprintln(rlimit_from_str("RLIMIT_NOFILE"), " ", rlimit_from_str("x"), " ", task_rlimit(task_current(), "RLIMIT_NOFILE") == task_rlimit_nofile(task_current()), " ", task_rlimit(task_current(), "bad"))\n\ttry { set_int_arg(9, 1) } catch (e) { println(e) }\n\ttry { regparm(7) } catch (e) { println(e) }\n\tregparm(3)\n\tprintln(user_buffer_quoted_error(buf_uaddr, 6, 40), " ", user_string_n_warn(buf_uaddr, 1), " ", user_string_n_quoted(buf_uaddr, 3, 20))\n\texit()\n}\n',
        "STAPTEST=hello {run} -c 'sh utf16.sh' {mod}.ko",
        'Aé😀|"A\\u00E9\\U0001F600"|0x5616a932d2f2\ninvalid UTF-32 character U+E90041 at 0x5616a932d2f0\ninvalid UTF-16 character U+DE00 at 0x5616a932d2f6\n😀 bad "A\\u00E9\\U0001F600"\n1 hello||\n7 -1 1 -1\ncannot access arg(9)\nFor x86_64, regparm value must be in the range 0-6.\n"A\\0\\351\\0=\\330" A "A"\n',
        '', 0),
    # 4.8 printed 1 for stack_used() + stack_unused() == stack_size(); the
    # frames of the two calls may differ here, so the sum is checked within 1 KiB
    'kmisc': (
        'probe begin {\n\tprintln(big_endian2(0x1234), " ", big_endian4(0x12345678), " ", big_endian8(0x0102030405060708), " ", little_endian2(0x11234), little_endian4(-1), little_endian8(-5))\n\tprintln(WIFEXITED(0x300), WEXITSTATUS(0x300), WTERMSIG(0x8b), WIFEXITED(9))\n\tprintln(module_name() != "", " ", stack_size(), " ", stack_used() > 0 && stack_used() < stack_size(), " ", (d = stack_used() + stack_unused() - stack_size()) < 1024 && d > -1024, " ",  remote_id(), "[", remote_uri(), "] ", probe_type(), " ", arch_bytes())\n\tprintln(sprint_loadavg() =~ "^[0-9]+\\\\.[0-9][0-9] [0-9]+\\\\.[0-9][0-9] [0-9]+\\\\.[0-9][0-9]\\n$", get_loadavg_index(0) >= 0, get_loadavg_index(2) >= 0)\n\ttry { println(get_loadavg_index(3)) } catch (e) { println(e) }\n\ttry { println(uarch_bytes()) } catch (e) { println(e) }\n\tprintln(container_of_task_rcu(0x1000) > 0, " ", container_of_task_rcu(5), " ", container_of_task_rcu(-4096), " ", pnlabel(), ".")\n\ttry { println(atomic_read(0)) } catch (e) { println(e) }\n\ttry { println(atomic_long_read(8)) } catch (e) { println(e) }\n\ttry { println(rcu_dereference(16)) } catch (e) { println(e) }\n\tftrace("stap-ftrace-test")\n\texit()\n}\nprobe timer.ms(10) { println(probe_type()) }\n',
        'echo > /sys/kernel/debug/tracing/trace; {run} {mod}.ko; grep -c stap-ftrace-test /sys/kernel/debug/tracing/trace',
        '13330 2018915346 578437695752307201 46604294967295-5\n13110\n1 16384 1 1 -1[] begin_end 8\n111\nInvalid loadavg index 3 specified.\nrequires user mode\n0 0 0 .\nread fault [man error::fault] at 0x0\nread fault [man error::fault] at 0x8\nread fault [man error::fault] at 0x10\n1\n',
        '', 0),
    'kutf': (
        'probe begin {\n\ttry { println(kernel_string_utf16(0)) } catch (e) { println(e) }\n\ttry { println(kernel_string_utf32(16)) } catch (e) { println(e) }\n\tprintln(kernel_string_utf16(0, "err"), kernel_string2_utf32(0, "e2"), " ", kernel_string_quoted_utf16(0), " ", kernel_string_quoted_utf32(8))\n\ttry { println(kernel_or_user_string_quoted_utf16(0)) } catch (e) { println(e) }\n\ttry { println(kernel_or_user_string_quoted_utf32(0)) } catch (e) { println(e) }\n\ttry { println(user_string_utf16(0)) } catch (e) { println(e) }\n\ttry { println(user_string_utf32(4)) } catch (e) { println(e) }\n\tprintln(user_string_utf16(0, "u16"), user_string2_utf32(0, "u32"), user_string2_utf16(0, "x"), user_string_utf32(0, "y"), " ", user_string_quoted_utf16(0), " ", user_string_quoted_utf32(0))\n\tprintln(kernel_string2(0, "ks2"), " ", kernel_string_quoted(0), " ", kernel_string_quoted(16))\n\ttry { println(kernel_or_user_string_quoted(0)) } catch (e) { println(e) }\n\ttry { println(kernel_buffer_quoted_error(0, 4, 10)) } catch (e) { println(e) }\n\ttry { println(user_buffer_quoted_error(0, 4, 10)) } catch (e) { println(e) }\n\tprintln(user_string_n_warn(0, 5, "w1"), " ", user_string_n_warn(8, 5), ".", user_string2_warn(16, "w2"), " [", user_string2_n_warn(24, 3, "w3"), "] ", user_string_n_quoted(0, 5, 10), " ", user_string_n2_quoted(0, 4, 4))\n\texit()\n}\n',
        '{run} {mod}.ko',
        'kernel string copy fault at 0x0 [man error::fault]\nkernel string copy fault at 0x10 [man error::fault]\nerre2 0x0 0x8\nuser string copy fault at 0x0 [man error::fault]\nuser string copy fault at 0x0 [man error::fault]\nuser string copy fault at 0x0 [man error::fault]\nuser string copy fault at 0x4 [man error::fault]\nu16u32xy 0x0 0x0\nks2 0x0 0x10\nuser string copy fault -14 at 0x0 [man error::fault]\nUnable to access kernel space data at 0x0\nUnable to access user space data at 0x0\nw1 .w2 [] 0x0 0x0\n',
        'WARNING: user string copy fault -14 at 0x0 [man error::fault]\nWARNING: user string copy fault -14 at 0x8 [man error::fault]\nWARNING: user string copy fault -14 at 0x10 [man error::fault]\n', 0),
    # 4.8 named its module up_cve
    'cve': (
        'probe begin { cve_count_metric("hits"); cve_count_metric("hits"); cve_record_metric("x", 5); println(cve_enabled_p); cve_tmpdisable(1); println(cve_enabled_p, " ", cve_tmpdisabled_s) }\nprobe timer.ms(2500) { println(cve_enabled_p); exit() }\n',
        '{run} {mod}.ko',
        '1\n disabling temporarily\n0 1\ncve mitigation loaded\ncve reenabling\n1\ncve mitigation unloaded\n',
        '', 0),
    'pbin': (
        'probe begin { stp_print_binary(2, 0x0a41424344454647, 0x0a31323334353637, 3, 4); stp_print_binary(0, 1, 2, 3, 4); stp_print_binary(4, 0x0a30303030303030, 0x0a31313131313131, 0x0a32323232323232, 0x0a33333333333333); println(""); exit() }',
        '{run} {mod}.ko | od -An -c',
        '   G   F   E   D   C   B   A  \\n   7   6   5   4   3   2   1  \\n\n   0   0   0   0   0   0   0  \\n   1   1   1   1   1   1   1  \\n\n   2   2   2   2   2   2   2  \\n   3   3   3   3   3   3   3  \\n\n  \\n\n',
        '', 0),
    'buildid': (
        'global n\nprobe process("/bin/true").syscall { if (n++ == 0) { a = uaddr(); try { println(umodname(a), " ", umodbuildid(a)) } catch (e) { println(e) } } }',
        '{run} -c /bin/true {mod}.ko; readelf -n /lib64/ld-linux-x86-64.so.2 | grep "Build ID"',
        '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 7ebc65e52f2bbea498b4040fa92f7238377aaba9\n    Build ID: 7ebc65e52f2bbea498b4040fa92f7238377aaba9\n',
        '', 0),
}

OURS_ONLY = {
    'rpc': (
        'probe begin {\n\tprintln(prog_from_clnt(0), vers_from_clnt(0), prot_from_clnt(0), xid_from_clnt(0), port_from_xprt(0), port_from_clnt(0), proc_from_msg(0), vers_from_prog(0, 1), " ", tasks_from_clnt(0), " ", addr_from_rqst(0), " ", addr_from_rqst_str(0))\n\ttry { println(clones_from_clnt(0)) } catch (e) { println(e) }\n\ttry { println(prog_from_clnt(8)) } catch (e) { println(e) }\n\texit()\n}\n',
        '{run} {mod}.ko',
        '00000000 -1 0 Null\nread fault [man error::fault] at 0x0\nread fault [man error::fault] at 0x48\n',
        '', 0),
    'nfs': (
        'probe begin {\n\tprintln(AF_INET(), " ", AF_INET6(), " ", NFS_I(4096) < 4096, " ", ftype(0100644), " ", ftype(040755), " ", ftype(0120777), " ", ftype(0), " ", ftype(020620), ftype(060660), ftype(010600), ftype(0140777))\n\tprintln(nfs3_cmode(0), nfs3_cmode(1), nfs3_cmode(2), nfs3_cmode(3), " ", nfs4_ctype(0), nfs4_ctype(1), nfs4_ctype(10), nfs4_ctype(11), nfs4_ctype(-1))\n\tprintln(nfsderror(0), " ", nfsderror(htonl(2)), " ", nfsderror(htonl(10008)), " ", nfsderror(htonl(12345)), " ", nfsderror(htonl(11)))\n\ttry { println(NFS_SERVER(0)) } catch (e) { println(e) }\n\ttry { println(get_prot_from_client(0)) } catch (e) { println(e) }\n\texit()\n}\n',
        '{run} {mod}.ko',
        '2 10 1 0100644 (ISREG) 040755 (ISDIR) 0120777 (ISLNK) 00 (Unknown) 020620 (ISCHR)060660 (ISBLK)010600 (ISFIFO)0140777 (ISSOCK)\nUNCHECKEDGUARDEDEXCLUSIVEBad Value(3) NF4BADNF4REGBad Value(10)Bad Value(11)Bad Value(-1)\nnfsderr 0(NFS_OK) nfsderr 2(NFSERR_NOENT) nfsderr 10008(NFSERR_JUKEBOX) nfsderr 12345 nfsderr 11(NFSERR_EAGAIN)\nread fault [man error::fault] at 0x28\nread fault [man error::fault] at 0x30\n',
        '', 0),
    # the first established-state segment of a loopback connection; 4.8
    # needs the kernel's DWARF for tcpmib's @cast
    'mib': (
        'global n\nprobe end { println(n > 0) }\nprobe kprobe.function("tcp_rcv_established") {\n\tsk = pointer_arg(1); skb = pointer_arg(2)\n\tif (n++) next\n\tprintf("%x %x %d %d %d\\n", tcpmib_local_addr(sk), tcpmib_remote_addr(sk), tcpmib_local_port(sk) > 0, tcpmib_remote_port(sk) > 0, tcpmib_get_state(sk))\n\tprintf("%x %x %d %d %d %d\\n", ipmib_local_addr(skb, 0), ipmib_remote_addr(skb, 1), ipmib_tcp_local_port(skb, 0) == tcpmib_local_port(sk), ipmib_tcp_remote_port(skb, 0) == tcpmib_remote_port(sk), ipmib_get_proto(skb), tcpmib_filter_key(sk, 1) + ipmib_filter_key(skb, 1, 0) + linuxmib_filter_key(0, 1))\n}\n',
        "ip link set lo up; {run} -c 'python3 tcp.py' {mod}.ko",
        '7f000001 7f000001 1 1 1\n7f000001 7f000001 1 1 6 2\n1\n',
        '', 0),
    # 4.8's CPython helpers need its python probes and libpython's DWARF
    'python': (
        'probe begin {\n\tprintln(python3_initialize(4096))\n\ttry { println(Py3Object_Repr(0)) } catch (e) { println(e) }\n\ttry { println(python_sprint_backtrace()) } catch (e) { println(e) }\n\ttry { println(python2_get_var_obj(0, "x", 1)) } catch (e) { println(e) }\n\texit()\n}\n',
        '{run} {mod}.ko',
        "0\nPy3Object_Repr: needs 4.8's python probes (HelperSDT) and libpython's debuginfo\n"
        "python_sprint_backtrace: needs 4.8's python probes (HelperSDT) and libpython's debuginfo\n"
        "python2_get_var_obj: needs 4.8's python probes (HelperSDT) and libpython's debuginfo\n",
        '', 0),
    'cpuid': (
        'probe begin { println(cpuid() == cpu()); exit() }',
        '{run} {mod}.ko',
        '1\n',
        '', 0),
}

# stap options of the builds
OPTS = {'uutf': ['-g'], 'buildid': ['--ldd']}


@pytest.fixture(scope='module')
def run(krel, tools, tmp_path_factory):
    return run_cases({**CASES, **OURS_ONLY}, krel, tmp_path_factory.mktemp('tapset_fns'),
                     opts=OPTS, files=SHELL)


@pytest.mark.parametrize('name', list(CASES) + list(OURS_ONLY))
def test_tapset_fns(run, name):
    _, _, out, err, rc = {**CASES, **OURS_ONLY}[name]
    r = run[name]
    got = (USER_ADDR.sub('0xUSER', r.stdout),
           USER_ADDR.sub('0xUSER', untapset(without_reentrancy(r.stderr))), r.rc)
    assert got == (USER_ADDR.sub('0xUSER', out), USER_ADDR.sub('0xUSER', err), rc)
