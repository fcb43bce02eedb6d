/*
 * bpf_syscall.c - the embedded-C helpers of the syscall.* and
 * nd_syscall.* tapset aliases (tapsets/linux/syscall_support.stp,
 * errno.stp), written for --runtime=bpf with the module runtime's
 * results: the readers of a system call's arguments (_sc_i() and
 * friends: the user pt_regs the __x64_sys_NAME and __ia32_sys_NAME
 * wrappers take as their first argument, read with
 * bpf_probe_read_kernel, x86-64's or a 32-bit task's registers; in the
 * aliases on the raw_syscalls tracepoints their first argument, and
 * _sc_regs_nr() its orig_ax), its return value (_sc_ret(), the
 * kretprobe's ax), errno_str()/errno_p(),
 * user_buffer_quoted() (stapbpf.h's quoting in its buffer mode), the
 * user structures of time, itimers, rlimits and signal sets
 * (_struct_timespec_u() and the like) and the flag decoders argstr
 * shows, each a table of names (struct stp_scf) of the x86-64 kernel's
 * values. bpf_tapfn.c asks here (bsc_has,
 * bsc_call); bsc_types() writes the C they need.
 */
#include <errno.h>
#include <string.h>

#include "bpf.h"

/* a flag decoder: its table (values and names, in the module runtime's
 * order), the access mode first (open's flags) */
struct scf {
	unsigned long val;
	const char *name;
};

#define F(v, n) { v, n }
static const struct scf open_flags[] = {
	F(0100, "O_CREAT"), F(0200, "O_EXCL"), F(0400, "O_NOCTTY"), F(01000, "O_TRUNC"),
	F(02000, "O_APPEND"), F(04000, "O_NONBLOCK"), F(04010000, "O_SYNC"),
	F(010000, "O_DSYNC"), F(020000, "O_ASYNC"), F(040000, "O_DIRECT"),
	F(0100000, "O_LARGEFILE"), F(0200000, "O_DIRECTORY"), F(0400000, "O_NOFOLLOW"),
	F(01000000, "O_NOATIME"), F(02000000, "O_CLOEXEC"), F(010000000, "O_PATH"),
	{ 0, NULL }
};
static const struct scf at_flags[] = {
	F(0x100, "AT_SYMLINK_NOFOLLOW"), F(0x200, "AT_REMOVEDIR"), F(0x400, "AT_SYMLINK_FOLLOW"),
	F(0x800, "AT_NO_AUTOMOUNT"), F(0x1000, "AT_EMPTY_PATH"), { 0, NULL }
};
static const struct scf access_modes[] = {
	F(4, "R_OK"), F(2, "W_OK"), F(1, "X_OK"), { 0, NULL }
};
static const struct scf seek_whence[] = {
	F(0, "SEEK_SET"), F(1, "SEEK_CUR"), F(2, "SEEK_END"), F(3, "SEEK_DATA"),
	F(4, "SEEK_HOLE"), { 0, NULL }
};
static const struct scf wait4_opts[] = {
	F(1, "WNOHANG"), F(4, "WEXITED"), F(2, "WSTOPPED"), F(8, "WCONTINUED"),
	F(0x1000000, "WNOWAIT"), F(0x20000000, "__WNOTHREAD"), F(0x40000000, "__WALL"),
	F(0x80000000, "__WCLONE"), { 0, NULL }
};
static const struct scf prot_flags[] = {
	F(1, "PROT_READ"), F(2, "PROT_WRITE"), F(4, "PROT_EXEC"), F(8, "PROT_SEM"),
	F(0x1000000, "PROT_GROWSDOWN"), F(0x2000000, "PROT_GROWSUP"), { 0, NULL }
};
static const struct scf prio_which[] = {
	F(0, "PRIO_PROCESS"), F(1, "PRIO_PGRP"), F(2, "PRIO_USER"), { 0, NULL }
};
static const struct scf mfd_flags[] = {
	F(1, "MFD_CLOEXEC"), F(2, "MFD_ALLOW_SEALING"), F(0x80000, "O_CLOEXEC"), { 0, NULL }
};
static const struct scf splice_flags[] = {
	F(1, "SPLICE_F_MOVE"), F(2, "SPLICE_F_NONBLOCK"), F(4, "SPLICE_F_MORE"),
	F(8, "SPLICE_F_GIFT"), { 0, NULL }
};
/* the signals as 4.8 names and orders them (syscall_support.stp's) */
static const struct scf signals[] = {
	F(0, "SIG_0"), F(1, "SIGHUP"), F(2, "SIGINT"), F(3, "SIGQUIT"), F(4, "SIGILL"),
	F(5, "SIGTRAP"), F(6, "SIGABRT"), F(7, "SIGBUS"), F(8, "SIGFPE"), F(9, "SIGKILL"),
	F(10, "SIGUSR1"), F(11, "SIGSEGV"), F(13, "SIGPIPE"), F(12, "SIGUSR2"),
	F(14, "SIGALRM"), F(15, "SIGTERM"), F(17, "SIGCHLD"), F(18, "SIGCONT"),
	F(19, "SIGSTOP"), F(20, "SIGTSTP"), F(21, "SIGTTIN"), F(22, "SIGTTOU"),
	F(23, "SIGURG"), F(24, "SIGXCPU"), F(25, "SIGXFSZ"), F(26, "SIGVTALRM"),
	F(27, "SIGPROF"), F(28, "SIGWINCH"), F(29, "SIGIO/SIGPOLL"), F(30, "SIGPWR"),
	F(31, "SIGSYS"), F(0x85, "TRACESYSGOOD"), { 0, NULL }
};
/* the same signals as the bits of a sigset_t (signal s bit s - 1) */
static const struct scf sigset_bits[] = {
	F(0x1, "SIGHUP"), F(0x2, "SIGINT"), F(0x4, "SIGQUIT"), F(0x8, "SIGILL"),
	F(0x10, "SIGTRAP"), F(0x20, "SIGABRT"), F(0x40, "SIGBUS"), F(0x80, "SIGFPE"),
	F(0x100, "SIGKILL"), F(0x200, "SIGUSR1"), F(0x400, "SIGSEGV"),
	F(0x1000, "SIGPIPE"), F(0x800, "SIGUSR2"), F(0x2000, "SIGALRM"),
	F(0x4000, "SIGTERM"), F(0x10000, "SIGCHLD"), F(0x20000, "SIGCONT"),
	F(0x40000, "SIGSTOP"), F(0x80000, "SIGTSTP"), F(0x100000, "SIGTTIN"),
	F(0x200000, "SIGTTOU"), F(0x400000, "SIGURG"), F(0x800000, "SIGXCPU"),
	F(0x1000000, "SIGXFSZ"), F(0x2000000, "SIGVTALRM"), F(0x4000000, "SIGPROF"),
	F(0x8000000, "SIGWINCH"), F(0x10000000, "SIGIO/SIGPOLL"), F(0x20000000, "SIGPWR"),
	F(0x40000000, "SIGSYS"), { 0, NULL }
};
static const struct scf msg_flags[] = {
	F(1, "MSG_OOB"), F(2, "MSG_PEEK"), F(4, "MSG_DONTROUTE"), F(8, "MSG_CTRUNC"),
	F(0x10, "MSG_PROBE"), F(0x20, "MSG_TRUNC"), F(0x40, "MSG_DONTWAIT"), F(0x80, "MSG_EOR"),
	F(0x100, "MSG_WAITALL"), F(0x200, "MSG_FIN"), F(0x400, "MSG_SYN"),
	F(0x800, "MSG_CONFIRM"), F(0x1000, "MSG_RST"), F(0x2000, "MSG_ERRQUEUE"),
	F(0x4000, "MSG_NOSIGNAL"), F(0x8000, "MSG_MORE"), F(0x10000, "MSG_WAITFORONE"),
	F(0x20000, "MSG_SENDPAGE_NOTLAST"), F(0x20000000, "MSG_FASTOPEN"),
	F(0x40000000, "MSG_CMSG_CLOEXEC"), { 0, NULL }
};
static const struct scf rlimits[] = {
	F(0xffffffff, "RLIM_INFINITY"), F(0, "RLIMIT_CPU"), F(1, "RLIMIT_FSIZE"),
	F(2, "RLIMIT_DATA"), F(3, "RLIMIT_STACK"), F(4, "RLIMIT_CORE"), F(5, "RLIMIT_RSS"),
	F(6, "RLIMIT_NPROC"), F(7, "RLIMIT_NOFILE"), F(8, "RLIMIT_MEMLOCK"), F(9, "RLIMIT_AS"),
	F(10, "RLIMIT_LOCKS"), F(11, "RLIMIT_SIGPENDING"), F(12, "RLIMIT_MSGQUEUE"),
	F(13, "RLIMIT_NICE"), F(14, "RLIMIT_RTPRIO"), F(15, "RLIMIT_RTTIME"),
	F(16, "RLIM_NLIMITS"), { 0, NULL }
};
static const struct scf itimers[] = {
	F(0, "ITIMER_REAL"), F(1, "ITIMER_VIRTUAL"), F(2, "ITIMER_PROF"), { 0, NULL }
};
static const struct scf fadvice[] = {
	F(0, "POSIX_FADV_NORMAL"), F(1, "POSIX_FADV_RANDOM"), F(2, "POSIX_FADV_SEQUENTIAL"),
	F(3, "POSIX_FADV_WILLNEED"), F(4, "POSIX_FADV_DONTNEED"), F(5, "POSIX_FADV_NOREUSE"),
	{ 0, NULL }
};
static const struct scf xattr_flags[] = {
	F(1, "XATTR_CREATE"), F(2, "XATTR_REPLACE"), { 0, NULL }
};
/* the other decoders of the tapset (sc_flags_*.stp, syscall_support.stp), in
 * its order, their values the 6.1 x86-64 kernel's */
static const struct scf sc_arch_prctl_code[] = {
	F(0x1001, "ARCH_SET_GS"), F(0x1002, "ARCH_SET_FS"), F(0x1003, "ARCH_GET_FS"),
	F(0x1004, "ARCH_GET_GS"), F(0x1011, "ARCH_GET_CPUID"), F(0x1012, "ARCH_SET_CPUID"),
	F(0x2001, "ARCH_MAP_VDSO_X32"), F(0x2002, "ARCH_MAP_VDSO_32"),
	F(0x2003, "ARCH_MAP_VDSO_64"), { 0, NULL }
};
static const struct scf sc_epoll_create1_flag[] = {
	F(0x80000, "EPOLL_CLOEXEC"), { 0, NULL }
};
static const struct scf sc_eventfd2_flag[] = {
	F(0x800, "EFD_NONBLOCK"), F(0x80000, "EFD_CLOEXEC"), F(1, "EFD_SEMAPHORE"),
	{ 0, NULL }
};
static const struct scf sc_faccessat2_flags[] = {
	F(0x100, "AT_SYMLINK_NOFOLLOW"), F(0x200, "AT_EACCESS"), { 0, NULL }
};
static const struct scf sc_fanotify_mark_flags[] = {
	F(1, "FAN_MARK_ADD"), F(2, "FAN_MARK_REMOVE"), F(0x80, "FAN_MARK_FLUSH"),
	F(4, "FAN_MARK_DONT_FOLLOW"), F(8, "FAN_MARK_ONLYDIR"), F(0x10, "FAN_MARK_MOUNT"),
	F(0x20, "FAN_MARK_IGNORED_MASK"), F(0x40, "FAN_MARK_IGNORED_SURV_MODIFY"),
	{ 0, NULL }
};
static const struct scf sc_fcntl_cmd[] = {
	F(0, "F_DUPFD"), F(1, "F_GETFD"), F(2, "F_SETFD"), F(3, "F_GETFL"),
	F(4, "F_SETFL"), F(5, "F_GETLK"), F(6, "F_SETLK"), F(7, "F_SETLKW"),
	F(8, "F_SETOWN"), F(9, "F_GETOWN"), F(0xa, "F_SETSIG"), F(0xb, "F_GETSIG"),
	F(0xf, "F_SETOWN_EX"), F(0x10, "F_GETOWN_EX"), F(0x11, "F_GETOWNER_UIDS"),
	F(0x400, "F_SETLEASE"), F(0x401, "F_GETLEASE"), F(0x406, "F_DUPFD_CLOEXEC"),
	F(0x402, "F_NOTIFY"), F(0x407, "F_SETPIPE_SZ"), F(0x408, "F_GETPIPE_SZ"),
	{ 0, NULL }
};
static const struct scf sc_finit_module_flags[] = {
	F(1, "MODULE_INIT_IGNORE_MODVERSIONS"), F(2, "MODULE_INIT_IGNORE_VERMAGIC"),
	{ 0, NULL }
};
static const struct scf sc_flock_cmd[] = {
	F(1, "LOCK_SH"), F(2, "LOCK_EX"), F(4, "LOCK_NB"), F(8, "LOCK_UN"),
	F(0x20, "LOCK_MAND"), F(0x40, "LOCK_READ"), F(0x80, "LOCK_WRITE"),
	F(0xc0, "LOCK_RW"), { 0, NULL }
};
static const struct scf sc_futex_op[] = {
	F(0, "FUTEX_WAIT"), F(1, "FUTEX_WAKE"), F(2, "FUTEX_FD"), F(3, "FUTEX_REQUEUE"),
	F(4, "FUTEX_CMP_REQUEUE"), F(5, "FUTEX_WAKE_OP"), F(6, "FUTEX_LOCK_PI"),
	F(7, "FUTEX_UNLOCK_PI"), F(8, "FUTEX_TRYLOCK_PI"), F(9, "FUTEX_WAIT_BITSET"),
	F(0xa, "FUTEX_WAKE_BITSET"), F(0xb, "FUTEX_WAIT_REQUEUE_PI"),
	F(0xc, "FUTEX_CMP_REQUEUE_PI"), F(0x80, "FUTEX_WAIT_PRIVATE"),
	F(0x81, "FUTEX_WAKE_PRIVATE"), F(0x83, "FUTEX_REQUEUE_PRIVATE"),
	F(0x84, "FUTEX_CMP_REQUEUE_PRIVATE"), F(0x85, "FUTEX_WAKE_OP_PRIVATE"),
	F(0x86, "FUTEX_LOCK_PI_PRIVATE"), F(0x87, "FUTEX_UNLOCK_PI_PRIVATE"),
	F(0x88, "FUTEX_TRYLOCK_PI_PRIVATE"), F(0x89, "FUTEX_WAIT_BITSET_PRIVATE"),
	F(0x8a, "FUTEX_WAKE_BITSET_PRIVATE"), F(0x8b, "FUTEX_WAIT_REQUEUE_PI_PRIVATE"),
	F(0x8c, "FUTEX_CMP_REQUEUE_PI_PRIVATE"), { 0, NULL }
};
static const struct scf sc_get_wc[] = {
	F(0, "CLOCK_REALTIME"), F(1, "CLOCK_MONOTONIC"), F(2, "CLOCK_PROCESS_CPUTIME_ID"),
	F(3, "CLOCK_THREAD_CPUTIME_ID"), F(4, "CLOCK_MONOTONIC_RAW"),
	F(5, "CLOCK_REALTIME_COARSE"), F(6, "CLOCK_MONOTONIC_COARSE"),
	F(7, "CLOCK_BOOTTIME"), F(8, "CLOCK_REALTIME_ALARM"), F(9, "CLOCK_BOOTTIME_ALARM"),
	F(0xa, "CLOCK_SGI_CYCLE"), F(0xb, "CLOCK_TAI"), { 0, NULL }
};
static const struct scf sc_getrandom_flags[] = {
	F(1, "GRND_NONBLOCK"), F(2, "GRND_RANDOM"), { 0, NULL }
};
static const struct scf sc_inotify_init1_flag[] = {
	F(0x800, "IN_NONBLOCK"), F(0x80000, "IN_CLOEXEC"), { 0, NULL }
};
static const struct scf sc_inotify_watch_mask[] = {
	F(1, "IN_ACCESS"), F(2, "IN_MODIFY"), F(4, "IN_ATTRIB"), F(8, "IN_CLOSE_WRITE"),
	F(0x10, "IN_CLOSE_NOWRITE"), F(0x20, "IN_OPEN"), F(0x40, "IN_MOVED_FROM"),
	F(0x80, "IN_MOVED_TO"), F(0x100, "IN_CREATE"), F(0x200, "IN_DELETE"),
	F(0x400, "IN_DELETE_SELF"), F(0x800, "IN_MOVE_SELF"), F(0x2000, "IN_UNMOUNT"),
	F(0x4000, "IN_Q_OVERFLOW"), F(0x8000, "IN_IGNORED"), F(0x1000000, "IN_ONLYDIR"),
	F(0x2000000, "IN_DONT_FOLLOW"), F(0x4000000, "IN_EXCL_UNLINK"),
	F(0x20000000, "IN_MASK_ADD"), F(0x40000000, "IN_ISDIR"),
	F(0x80000000, "IN_ONESHOT"), { 0, NULL }
};
static const struct scf sc_kcmp_type[] = {
	F(0, "KCMP_FILE"), F(1, "KCMP_VM"), F(2, "KCMP_FILES"), F(3, "KCMP_FS"),
	F(4, "KCMP_SIGHAND"), F(5, "KCMP_IO"), F(6, "KCMP_SYSVSEM"), F(8, "KCMP_TYPES"),
	{ 0, NULL }
};
static const struct scf sc_kexec_file_load_flags[] = {
	F(1, "KEXEC_FILE_UNLOAD"), F(2, "KEXEC_FILE_ON_CRASH"),
	F(4, "KEXEC_FILE_NO_INITRAMFS"), { 0, NULL }
};
static const struct scf sc_madvice_advice[] = {
	F(0, "MADV_NORMAL"), F(1, "MADV_RANDOM"), F(2, "MADV_SEQUENTIAL"),
	F(3, "MADV_WILLNEED"), F(4, "MADV_DONTNEED"), F(8, "MADV_FREE"),
	F(9, "MADV_REMOVE"), F(0xa, "MADV_DONTFORK"), F(0xb, "MADV_DOFORK"),
	F(0x64, "MADV_HWPOISON"), F(0x65, "MADV_SOFT_OFFLINE"), F(0xc, "MADV_MERGEABLE"),
	F(0xd, "MADV_UNMERGEABLE"), F(0xe, "MADV_HUGEPAGE"), F(0xf, "MADV_NOHUGEPAGE"),
	F(0x10, "MADV_DONTDUMP"), F(0x11, "MADV_DODUMP"), { 0, NULL }
};
static const struct scf sc_membarrier_cmd[] = {
	F(0, "MEMBARRIER_CMD_QUERY"), F(1, "MEMBARRIER_CMD_SHARED"), { 0, NULL }
};
static const struct scf sc_mempolicy_flags[] = {
	F(1, "MPOL_F_NODE"), F(2, "MPOL_F_ADDR"), F(4, "MPOL_F_MEMS_ALLOWED"), { 0, NULL }
};
static const struct scf sc_mlockall_flags[] = {
	F(1, "MCL_CURRENT"), F(2, "MCL_FUTURE"), F(4, "MCL_ONFAULT"), { 0, NULL }
};
static const struct scf sc_module_flags[] = {
	F(0x200, "O_TRUNC"), F(0x800, "O_NONBLOCK"), { 0, NULL }
};
static const struct scf sc_mountflags[] = {
	F(1, "MS_RDONLY"), F(2, "MS_NOSUID"), F(4, "MS_NODEV"), F(8, "MS_NOEXEC"),
	F(0x10, "MS_SYNCHRONOUS"), F(0x20, "MS_REMOUNT"), F(0x40, "MS_MANDLOCK"),
	F(0x80, "MS_DIRSYNC"), F(0x400, "MS_NOATIME"), F(0x800, "MS_NODIRATIME"),
	F(0x1000, "MS_BIND"), F(0x2000, "MS_MOVE"), F(0x4000, "MS_REC"),
	F(0x8000, "MS_SILENT"), F(0x10000, "MS_POSIXACL"), F(0x20000, "MS_UNBINDABLE"),
	F(0x40000, "MS_PRIVATE"), F(0x80000, "MS_SLAVE"), F(0x100000, "MS_SHARED"),
	F(0x200000, "MS_RELATIME"), F(0x400000, "MS_KERNMOUNT"),
	F(0x800000, "MS_I_VERSION"), F(0x1000000, "MS_STRICTATIME"), { 0, NULL }
};
static const struct scf sc_mremap_flags[] = {
	F(1, "MREMAP_MAYMOVE"), F(2, "MREMAP_FIXED"), { 0, NULL }
};
static const struct scf sc_msync_flag[] = {
	F(1, "MS_ASYNC"), F(2, "MS_INVALIDATE"), F(4, "MS_SYNC"), { 0, NULL }
};
static const struct scf sc_opoll_op[] = {
	F(1, "EPOLL_CTL_ADD"), F(3, "EPOLL_CTL_MOD"), F(2, "EPOLL_CTL_DEL"), { 0, NULL }
};
static const struct scf sc_perf_event_open_flags[] = {
	F(1, "PERF_FLAG_FD_NO_GROUP"), F(2, "PERF_FLAG_FD_OUTPUT"),
	F(4, "PERF_FLAG_PID_CGROUP"), F(8, "PERF_FLAG_FD_CLOEXEC"), { 0, NULL }
};
static const struct scf sc_pkey_alloc_init_val[] = {
	F(1, "PKEY_DISABLE_ACCESS"), F(2, "PKEY_DISABLE_WRITE"), { 0, NULL }
};
static const struct scf sc_preadv2_flags[] = {
	F(1, "RWF_HIPRI"), { 0, NULL }
};
static const struct scf sc_ptrace_arch_request[] = {
	F(0xc, "PTRACE_GETREGS"), F(0xd, "PTRACE_SETREGS"), F(0xe, "PTRACE_GETFPREGS"),
	F(0xf, "PTRACE_SETFPREGS"), F(0x12, "PTRACE_GETFPXREGS"),
	F(0x13, "PTRACE_SETFPXREGS"), F(0x15, "PTRACE_OLDSETOPTIONS"),
	F(0x19, "PTRACE_GET_THREAD_AREA"), F(0x1a, "PTRACE_SET_THREAD_AREA"),
	F(0x1e, "PTRACE_ARCH_PRCTL"), F(0x1f, "PTRACE_SYSEMU"),
	F(0x20, "PTRACE_SYSEMU_SINGLESTEP"), F(0x21, "PTRACE_SINGLEBLOCK"), { 0, NULL }
};
static const struct scf sc_reboot_magic[] = {
	F(0xfee1dead, "LINUX_REBOOT_MAGIC1"), F(0x28121969, "LINUX_REBOOT_MAGIC2"),
	F(0x5121996, "LINUX_REBOOT_MAGIC2A"), F(0x16041998, "LINUX_REBOOT_MAGIC2B"),
	F(0x20112000, "LINUX_REBOOT_MAGIC2C"), { 0, NULL }
};
static const struct scf sc_renameat2_flags[] = {
	F(1, "RENAME_NOREPLACE"), F(2, "RENAME_EXCHANGE"), F(4, "RENAME_WHITEOUT"),
	{ 0, NULL }
};
static const struct scf sc_rusage_who[] = {
	F(0, "RUSAGE_SELF"), F(0xffffffff, "RUSAGE_CHILDREN"),
	F(0xfffffffe, "RUSAGE_BOTH"), F(1, "RUSAGE_THREAD"), { 0, NULL }
};
static const struct scf sc_seccomp_op[] = {
	F(0, "SECCOMP_SET_MODE_STRICT"), F(1, "SECCOMP_SET_MODE_FILTER"), { 0, NULL }
};
static const struct scf sc_shmat_flags[] = {
	F(0x1000, "SHM_RDONLY"), F(0x2000, "SHM_RND"), F(0x4000, "SHM_REMAP"),
	F(0x8000, "SHM_EXEC"), { 0, NULL }
};
static const struct scf sc_shutdown_how[] = {
	F(0, "SHUT_RD"), F(1, "SHUT_WR"), F(2, "SHUT_RDWR"), { 0, NULL }
};
static const struct scf sc_sighandler[] = {
	F(0, "SIG_DFL"), F(1, "SIG_IGN"), { 0, NULL }
};
static const struct scf sc_signalfd4_flags[] = {
	F(0x800, "SFD_NONBLOCK"), F(0x80000, "SFD_CLOEXEC"), { 0, NULL }
};
static const struct scf sc_sigprocmask_how[] = {
	F(0, "SIG_BLOCK"), F(1, "SIG_UNBLOCK"), F(2, "SIG_SETMASK"), { 0, NULL }
};
static const struct scf sc_sock_family[] = {
	F(0, "PF_UNSPEC"), F(1, "PF_LOCAL"), F(2, "PF_INET"), F(3, "PF_AX25"),
	F(4, "PF_IPX"), F(5, "PF_APPLETALK"), F(6, "PF_NETROM"), F(7, "PF_BRIDGE"),
	F(8, "PF_ATMPVC"), F(9, "PF_X25"), F(0xa, "PF_INET6"), F(0xb, "PF_ROSE"),
	F(0xc, "PF_DECnet"), F(0xd, "PF_NETBEUI"), F(0xe, "PF_SECURITY"), F(0xf, "PF_KEY"),
	F(0x10, "PF_NETLINK"), F(0x11, "PF_PACKET"), F(0x12, "PF_ASH"),
	F(0x13, "PF_ECONET"), F(0x14, "PF_ATMSVC"), F(0x15, "PF_RDS"), F(0x16, "PF_SNA"),
	F(0x17, "PF_IRDA"), F(0x18, "PF_PPPOX"), F(0x19, "PF_WANPIPE"), F(0x1a, "PF_LLC"),
	F(0x1b, "PF_IB"), F(0x1c, "PF_MPLS"), F(0x1d, "PF_CAN"), F(0x1e, "PF_TIPC"),
	F(0x1f, "PF_BLUETOOTH"), F(0x20, "PF_IUCV"), F(0x21, "PF_RXRPC"),
	F(0x22, "PF_ISDN"), F(0x23, "PF_PHONET"), F(0x24, "PF_IEEE802154"),
	F(0x25, "PF_CAIF"), F(0x26, "PF_ALG"), F(0x27, "PF_NFC"), F(0x28, "PF_VSOCK"),
	F(0x29, "PF_KCM"), F(0x2a, "PF_QIPCRTR"), F(0x2b, "PF_SMC"), F(0x2c, "PF_XDP"),
	{ 0, NULL }
};
static const struct scf sc_sock_flags[] = {
	F(0x800, "SOCK_NONBLOCK"), F(0x80000, "SOCK_CLOEXEC"), { 0, NULL }
};
static const struct scf sc_sockopt_level[] = {
	F(0, "SOL_IP"), F(1, "SOL_SOCKET"), F(6, "SOL_TCP"), F(0x11, "SOL_UDP"),
	F(0x29, "SOL_IPV6"), F(0x3a, "SOL_ICMPV6"), F(0x84, "SOL_SCTP"),
	F(0x88, "SOL_UDPLITE"), F(0xff, "SOL_RAW"), F(0x100, "SOL_IPX"),
	F(0x101, "SOL_AX25"), F(0x102, "SOL_ATALK"), F(0x103, "SOL_NETROM"),
	F(0x104, "SOL_ROSE"), F(0x105, "SOL_DECNET"), F(0x106, "SOL_X25"),
	F(0x107, "SOL_PACKET"), F(0x108, "SOL_ATM"), F(0x109, "SOL_AAL"),
	F(0x10a, "SOL_IRDA"), F(0x10b, "SOL_NETBEUI"), F(0x10c, "SOL_LLC"),
	F(0x10d, "SOL_DCCP"), F(0x10e, "SOL_NETLINK"), F(0x10f, "SOL_TIPC"),
	F(0x110, "SOL_RXRPC"), F(0x111, "SOL_PPPOL2TP"), F(0x112, "SOL_BLUETOOTH"),
	F(0x113, "SOL_PNPIPE"), F(0x114, "SOL_RDS"), F(0x115, "SOL_IUCV"),
	F(0x116, "SOL_CAIF"), F(0x117, "SOL_ALG"), F(0x118, "SOL_NFC"), { 0, NULL }
};
static const struct scf sc_fallocate_mode[] = {
	F(1, "FALLOC_FL_KEEP_SIZE"), F(2, "FALLOC_FL_PUNCH_HOLE"),
	F(4, "FALLOC_FL_NO_HIDE_STALE"), F(8, "FALLOC_FL_COLLAPSE_RANGE"),
	F(0x10, "FALLOC_FL_ZERO_RANGE"), { 0, NULL }
};
static const struct scf sc_mlock2[] = {
	F(1, "MLOCK_ONFAULT"), { 0, NULL }
};
static const struct scf sc_msgflg[] = {
	F(0x1000, "MSG_NOERROR"), F(0x2000, "MSG_EXCEPT"), F(0x800, "IPC_NOWAIT"),
	{ 0, NULL }
};
static const struct scf sc_timerfd_flags[] = {
	F(1, "TFD_TIMER_ABSTIME"), F(2, "TFD_TIMER_CANCEL_ON_SET"),
	F(0x80000, "TFD_CLOEXEC"), F(0x800, "TFD_NONBLOCK"), { 0, NULL }
};
static const struct scf sc_sync_file_range_flags[] = {
	F(1, "SYNC_FILE_RANGE_WAIT_BEFORE"), F(2, "SYNC_FILE_RANGE_WRITE"),
	F(4, "SYNC_FILE_RANGE_WAIT_AFTER"), { 0, NULL }
};
static const struct scf sc_sys_pipe2_flag[] = {
	F(0x800, "O_NONBLOCK"), F(0x80000, "O_CLOEXEC"), F(0x4000, "O_DIRECT"),
	{ 0, NULL }
};
static const struct scf sc_umountflags[] = {
	F(1, "MNT_FORCE"), F(2, "MNT_DETACH"), F(4, "MNT_EXPIRE"), F(8, "UMOUNT_NOFOLLOW"),
	{ 0, NULL }
};
static const struct scf sc_userfaultfd_flags[] = {
	F(0x800, "O_NONBLOCK"), F(0x80000, "O_CLOEXEC"), { 0, NULL }
};
static const struct scf sc_waitid_which[] = {
	F(0, "P_ALL"), F(1, "P_PID"), F(2, "P_PGID"), { 0, NULL }
};
static const struct scf sc_clock_nanosleep_flags[] = {
	F(1, "TIMER_ABSTIME"), { 0, NULL }
};
static const struct scf sc_bpf_cmd[] = {
	F(0, "BPF_MAP_CREATE"), F(1, "BPF_MAP_LOOKUP_ELEM"), F(2, "BPF_MAP_UPDATE_ELEM"),
	F(3, "BPF_MAP_DELETE_ELEM"), F(4, "BPF_MAP_GET_NEXT_KEY"), F(5, "BPF_PROG_LOAD"),
	{ 0, NULL }
};
static const struct scf sc_fanotify_mark_mask[] = {
	F(1, "FAN_ACCESS"), F(2, "FAN_MODIFY"), F(8, "FAN_CLOSE_WRITE"),
	F(0x10, "FAN_CLOSE_NOWRITE"), F(0x20, "FAN_OPEN"), F(0x4000, "FAN_Q_OVERFLOW"),
	F(0x10000, "FAN_OPEN_PERM"), F(0x20000, "FAN_ACCESS_PERM"),
	F(0x40000000, "FAN_ONDIR"), F(0x8000000, "FAN_EVENT_ON_CHILD"), { 0, NULL }
};
static const struct scf sc_kexec_flags[] = {
	F(1, "KEXEC_ON_CRASH"), F(2, "KEXEC_PRESERVE_CONTEXT"),
	F(0x30000, "KEXEC_ARCH_386"), F(0x3e0000, "KEXEC_ARCH_X86_64"),
	F(0x140000, "KEXEC_ARCH_PPC"), F(0x150000, "KEXEC_ARCH_PPC64"),
	F(0x320000, "KEXEC_ARCH_IA_64"), F(0x280000, "KEXEC_ARCH_ARM"),
	F(0x160000, "KEXEC_ARCH_S390"), F(0x2a0000, "KEXEC_ARCH_SH"),
	F(0xa0000, "KEXEC_ARCH_MIPS_LE"), F(0x80000, "KEXEC_ARCH_MIPS"), { 0, NULL }
};
static const struct scf sc_ptrace_options[] = {
	F(0x100000, "PTRACE_O_EXITKILL"), F(8, "PTRACE_O_TRACECLONE"),
	F(0x10, "PTRACE_O_TRACEEXEC"), F(0x40, "PTRACE_O_TRACEEXIT"),
	F(2, "PTRACE_O_TRACEFORK"), F(1, "PTRACE_O_TRACESYSGOOD"),
	F(4, "PTRACE_O_TRACEVFORK"), F(0x20, "PTRACE_O_TRACEVFORKDONE"),
	F(0x80, "PTRACE_O_TRACESECCOMP"), { 0, NULL }
};
static const struct scf sc_reboot_flag[] = {
	F(0x1234567, "LINUX_REBOOT_CMD_RESTART"), F(0xcdef0123, "LINUX_REBOOT_CMD_HALT"),
	F(0x89abcdef, "LINUX_REBOOT_CMD_CAD_ON"), F(0, "LINUX_REBOOT_CMD_CAD_OFF"),
	F(0x4321fedc, "LINUX_REBOOT_CMD_POWER_OFF"),
	F(0xa1b2c3d4, "LINUX_REBOOT_CMD_RESTART2"),
	F(0xd000fce2, "LINUX_REBOOT_CMD_SW_SUSPEND"),
	F(0x45584543, "LINUX_REBOOT_CMD_KEXEC"), { 0, NULL }
};
static const struct scf sc_seccomp_flags[] = {
	F(1, "SECCOMP_FILTER_FLAG_TSYNC"), { 0, NULL }
};
static const struct scf sc_sockopt_optname[] = {
	F(1, "SO_DEBUG"), F(2, "SO_REUSEADDR"), F(3, "SO_TYPE"), F(4, "SO_ERROR"),
	F(5, "SO_DONTROUTE"), F(6, "SO_BROADCAST"), F(7, "SO_SNDBUF"), F(8, "SO_RCVBUF"),
	F(0x20, "SO_SNDBUFFORCE"), F(0x21, "SO_RCVBUFFORCE"), F(9, "SO_KEEPALIVE"),
	F(0xa, "SO_OOBINLINE"), F(0xb, "SO_NO_CHECK"), F(0xc, "SO_PRIORITY"),
	F(0xd, "SO_LINGER"), F(0xe, "SO_BSDCOMPAT"), F(0xf, "SO_REUSEPORT"),
	F(0x10, "SO_PASSCRED"), F(0x11, "SO_PEERCRED"), F(0x12, "SO_RCVLOWAT"),
	F(0x13, "SO_SNDLOWAT"), F(0x16, "SO_SECURITY_AUTHENTICATION"),
	F(0x17, "SO_SECURITY_ENCRYPTION_TRANSPORT"),
	F(0x18, "SO_SECURITY_ENCRYPTION_NETWORK"), F(0x19, "SO_BINDTODEVICE"),
	F(0x1a, "SO_ATTACH_FILTER"), F(0x1b, "SO_DETACH_FILTER"), F(0x1c, "SO_PEERNAME"),
	F(0x1e, "SO_ACCEPTCONN"), F(0x1f, "SO_PEERSEC"), F(0x22, "SO_PASSSEC"),
	F(0x24, "SO_MARK"), F(0x26, "SO_PROTOCOL"), F(0x27, "SO_DOMAIN"),
	F(0x28, "SO_RXQ_OVFL"), F(0x29, "SO_WIFI_STATUS"), F(0x2a, "SO_PEEK_OFF"),
	F(0x2b, "SO_NOFCS"), F(0x2c, "SO_LOCK_FILTER"), F(0x2d, "SO_SELECT_ERR_QUEUE"),
	F(0x2e, "SO_BUSY_POLL"), F(0x2f, "SO_MAX_PACING_RATE"),
	F(0x30, "SO_BPF_EXTENSIONS"), F(0x31, "SO_INCOMING_CPU"), F(0x32, "SO_ATTACH_BPF"),
	F(0x33, "SO_ATTACH_REUSEPORT_CBPF"), F(0x34, "SO_ATTACH_REUSEPORT_EBPF"),
	F(0x35, "SO_CNX_ADVICE"), F(0x36, "SCM_TIMESTAMPING_OPT_STATS"),
	F(0x37, "SO_MEMINFO"), F(0x38, "SO_INCOMING_NAPI_ID"), F(0x39, "SO_COOKIE"),
	F(0x3a, "SCM_TIMESTAMPING_PKTINFO"), F(0x3b, "SO_PEERGROUPS"),
	F(0x3c, "SO_ZEROCOPY"), F(0x3d, "SO_TXTIME"), F(0x3e, "SO_BINDTOIFINDEX"),
	F(0x1d, "SO_TIMESTAMP_OLD"), F(0x23, "SO_TIMESTAMPNS_OLD"),
	F(0x25, "SO_TIMESTAMPING_OLD"), F(0x3f, "SO_TIMESTAMP_NEW"),
	F(0x40, "SO_TIMESTAMPNS_NEW"), F(0x41, "SO_TIMESTAMPING_NEW"),
	F(0x42, "SO_RCVTIMEO_NEW"), F(0x43, "SO_SNDTIMEO_NEW"), { 0, NULL }
};
static const struct scf sc_statx_mask[] = {
	F(0x6000, "AT_STATX_SYNC_TYPE"), F(0, "AT_STATX_SYNC_AS_STAT"),
	F(0x2000, "AT_STATX_FORCE_SYNC"), F(0x4000, "AT_STATX_DONT_SYNC"), { 0, NULL }
};
/* the IPC commands (after "IPC_64|"), scheduling policies (after
 * "SCHED_RESET_ON_FORK|"), ioprio's whos */
static const struct scf sc_shmctl_cmd[] = {
	F(0, "IPC_RMID"), F(1, "IPC_SET"), F(2, "IPC_STAT"), F(3, "IPC_INFO"), F(0xb, "GETPID"),
	F(0xc, "GETVAL"), F(0xd, "GETALL"), F(0xe, "GETNCNT"), F(0xf, "GETZCNT"),
	F(0x10, "SETVAL"), F(0x11, "SETALL"), F(0x12, "SEM_STAT"), F(0x13, "SEM_INFO"),
	{ 0, NULL }
};
static const struct scf sc_semctl_cmd[] = {
	F(3, "IPC_INFO"), F(0x13, "SEM_INFO"), F(0x12, "SEM_STAT"), F(0xd, "GETALL"),
	F(0xc, "GETVAL"), F(0xb, "GETPID"), F(0xe, "GETNCNT"), F(0xf, "GETZCNT"),
	F(2, "IPC_STAT"), F(0x10, "SETVAL"), F(0x11, "SETALL"), F(0, "IPC_RMID"), F(1, "IPC_SET"),
	{ 0, NULL }
};
static const struct scf sc_msgctl_cmd[] = {
	F(0, "IPC_RMID"), F(1, "IPC_SET"), F(2, "IPC_STAT"), F(3, "IPC_INFO"), F(0xb, "MSG_STAT"),
	F(0xc, "MSG_INFO"), { 0, NULL }
};
static const struct scf sc_sched_policy[] = {
	F(0, "SCHED_OTHER"), F(1, "SCHED_FIFO"), F(2, "SCHED_RR"), F(3, "SCHED_BATCH"),
	F(5, "SCHED_IDLE"), F(6, "SCHED_DEADLINE"), { 0, NULL }
};
static const struct scf sc_ioprio_which[] = {
	F(1, "IOPRIO_WHO_PROCESS"), F(2, "IOPRIO_WHO_PGRP"), F(3, "IOPRIO_WHO_USER"), { 0, NULL }
};
/* the clone flags (the exit signal in the low byte), IPC get flags (the
 * mode in the low bits), swapon's (the priority) */
static const struct scf sc_clone_flags[] = {
	F(0x100, "CLONE_VM"), F(0x200, "CLONE_FS"), F(0x400, "CLONE_FILES"),
	F(0x800, "CLONE_SIGHAND"), F(0x2000, "CLONE_PTRACE"), F(0x4000, "CLONE_VFORK"),
	F(0x8000, "CLONE_PARENT"), F(0x10000, "CLONE_THREAD"), F(0x20000, "CLONE_NEWNS"),
	F(0x40000, "CLONE_SYSVSEM"), F(0x80000, "CLONE_SETTLS"),
	F(0x100000, "CLONE_PARENT_SETTID"), F(0x200000, "CLONE_CHILD_CLEARTID"),
	F(0x400000, "CLONE_DETACHED"), F(0x800000, "CLONE_UNTRACED"),
	F(0x1000000, "CLONE_CHILD_SETTID"), F(0x4000000, "CLONE_NEWUTS"),
	F(0x8000000, "CLONE_NEWIPC"), F(0x10000000, "CLONE_NEWUSER"),
	F(0x20000000, "CLONE_NEWPID"), F(0x40000000, "CLONE_NEWNET"), F(0x80000000, "CLONE_IO"),
	{ 0, NULL }
};
static const struct scf sc_sem_flags[] = {
	F(0x200, "IPC_CREAT"), F(0x400, "IPC_EXCL"), { 0, NULL }
};
static const struct scf sc_shmget_flags[] = {
	F(0x200, "IPC_CREAT"), F(0x400, "IPC_EXCL"), F(0x800, "SHM_HUGETLB"),
	F(0x1000, "SHM_NORESERVE"), { 0, NULL }
};
static const struct scf sc_swapon_flags[] = {
	F(0x8000, "SWAP_FLAG_PREFER"), F(0x10000, "SWAP_FLAG_DISCARD"),
	F(0x20000, "SWAP_FLAG_DISCARD_ONCE"), F(0x40000, "SWAP_FLAG_DISCARD_PAGES"), { 0, NULL }
};
static const struct scf sc_sock_type[] = {
	F(1, "SOCK_STREAM"), F(2, "SOCK_DGRAM"), F(3, "SOCK_RAW"), F(4, "SOCK_RDM"),
	F(5, "SOCK_SEQPACKET"), F(6, "SOCK_DCCP"), F(0xa, "SOCK_PACKET"), { 0, NULL }
};
static const struct scf sc_sock_protocol[] = {
	F(0, "IPPROTO_IP"), F(1, "IPPROTO_ICMP"), F(2, "IPPROTO_IGMP"), F(4, "IPPROTO_IPIP"),
	F(6, "IPPROTO_TCP"), F(8, "IPPROTO_EGP"), F(0xc, "IPPROTO_PUP"), F(0x11, "IPPROTO_UDP"),
	F(0x16, "IPPROTO_IDP"), F(0x1d, "IPPROTO_TP"), F(0x21, "IPPROTO_DCCP"),
	F(0x29, "IPPROTO_IPV6"), F(0x2e, "IPPROTO_RSVP"), F(0x2f, "IPPROTO_GRE"),
	F(0x32, "IPPROTO_ESP"), F(0x33, "IPPROTO_AH"), F(0x5c, "IPPROTO_MTP"),
	F(0x62, "IPPROTO_ENCAP"), F(0x67, "IPPROTO_PIM"), F(0x6c, "IPPROTO_COMP"),
	F(0x84, "IPPROTO_SCTP"), F(0x88, "IPPROTO_UDPLITE"), F(0xff, "IPPROTO_RAW"), { 0, NULL }
};
/* mmap's flags (MAP_HUGE_* first, kind 'h'), ptrace's arch_prctl codes,
 * an I/O priority's classes ('o'), quotactl's commands ('q'), fanotify_init's
 * classes then flags ('n'), the mempolicy flags then modes ('p') */
static const struct scf sc_mmap_flags[] = {
	F(1, "MAP_SHARED"), F(2, "MAP_PRIVATE"), F(0x10, "MAP_FIXED"), F(0x20, "MAP_ANONYMOUS"),
	F(0x100, "MAP_GROWSDOWN"), F(0x800, "MAP_DENYWRITE"), F(0x1000, "MAP_EXECUTABLE"),
	F(0x2000, "MAP_LOCKED"), F(0x4000, "MAP_NORESERVE"), F(0x8000, "MAP_POPULATE"),
	F(0x10000, "MAP_NONBLOCK"), F(0x20000, "MAP_STACK"), F(0x40000, "MAP_HUGETLB"),
	F(0x40, "MAP_32BIT"), { 0, NULL }	/* MAP_UNINITIALIZED: a MAP_HUGE_* bit */
};
static const struct scf sc_ptrace_arch_prctl[] = {
	F(0x1001, "ARCH_SET_GS"), F(0x1002, "ARCH_SET_FS"), F(0x1003, "ARCH_GET_FS"),
	F(0x1004, "ARCH_GET_GS"), { 0, NULL }
};
static const struct scf sc_ioprio_class[] = {
	F(0, "IOPRIO_CLASS_NONE"), F(1, "IOPRIO_CLASS_RT"), F(2, "IOPRIO_CLASS_BE"),
	F(3, "IOPRIO_CLASS_IDLE"), { 0, NULL }
};
static const struct scf sc_quotactl_cmd[] = {
	F(0x800001, "Q_SYNC"), F(0x800002, "Q_QUOTAON"), F(0x800003, "Q_QUOTAOFF"),
	F(0x800004, "Q_GETFMT"), F(0x800005, "Q_GETINFO"), F(0x800006, "Q_SETINFO"),
	F(0x800007, "Q_GETQUOTA"), F(0x800008, "Q_SETQUOTA"), F(0x5801, "Q_XQUOTAON"),
	F(0x5802, "Q_XQUOTAOFF"), F(0x5803, "Q_XGETQUOTA"), F(0x5804, "Q_XSETQLIM"),
	F(0x5805, "Q_XGETQSTAT"), F(0x5806, "Q_XQUOTARM"), F(0x5807, "Q_XQUOTASYNC"),
	F(0x5808, "Q_XGETQSTATV"), { 0, NULL }
};
static const struct scf sc_fanotify_class[] = {
	F(0, "FAN_CLASS_NOTIF"), F(4, "FAN_CLASS_CONTENT"), F(8, "FAN_CLASS_PRE_CONTENT"),
	{ 0, NULL }
};
static const struct scf sc_fanotify_init[] = {
	F(1, "FAN_CLOEXEC"), F(2, "FAN_NONBLOCK"), F(0x10, "FAN_UNLIMITED_QUEUE"),
	F(0x20, "FAN_UNLIMITED_MARKS"), { 0, NULL }
};
static const struct scf sc_mempolicy_flag[] = {
	F(0x8000, "MPOL_F_STATIC_NODES"), F(0x4000, "MPOL_F_RELATIVE_NODES"), { 0, NULL }
};
static const struct scf sc_ptrace_request[] = {
	F(0, "PTRACE_TRACEME"), F(1, "PTRACE_PEEKTEXT"), F(2, "PTRACE_PEEKDATA"),
	F(3, "PTRACE_PEEKUSR"), F(4, "PTRACE_POKETEXT"), F(5, "PTRACE_POKEDATA"),
	F(6, "PTRACE_POKEUSR"), F(7, "PTRACE_CONT"), F(8, "PTRACE_KILL"),
	F(9, "PTRACE_SINGLESTEP"), F(16, "PTRACE_ATTACH"), F(17, "PTRACE_DETACH"),
	F(24, "PTRACE_SYSCALL"), F(0x4200, "PTRACE_SETOPTIONS"), F(0x4201, "PTRACE_GETEVENTMSG"),
	F(0x4202, "PTRACE_GETSIGINFO"), F(0x4203, "PTRACE_SETSIGINFO"),
	F(0x4204, "PTRACE_GETREGSET"), F(0x4205, "PTRACE_SETREGSET"), F(0x4206, "PTRACE_SEIZE"),
	F(0x4207, "PTRACE_INTERRUPT"), F(0x4208, "PTRACE_LISTEN"),
	F(0x4209, "PTRACE_PEEKSIGINFO"), F(0x420a, "PTRACE_GETSIGMASK"),
	F(0x420b, "PTRACE_SETSIGMASK"), { 0, NULL }
};
static const struct scf sc_quota_type[] = {
	F(1, "QFMT_VFS_OLD"), F(2, "QFMT_VFS_V0"), F(3, "QFMT_OCFS2"), F(4, "QFMT_VFS_V1"),
	{ 0, NULL }
};
static const struct scf sc_elf_note_type[] = {
	F(1, "NT_PRSTATUS"), F(2, "NT_PRFPREG"), F(3, "NT_PRPSINFO"), F(4, "NT_TASKSTRUCT"),
	F(6, "NT_AUXV"), F(0x53494749, "NT_SIGINFO"), F(0x46494c45, "NT_FILE"),
	F(0x46e62b7f, "NT_PRXFPREG"), F(0x100, "NT_PPC_VMX"), F(0x101, "NT_PPC_SPE"),
	F(0x102, "NT_PPC_VSX"), F(0x200, "NT_386_TLS"), F(0x201, "NT_386_IOPERM"),
	F(0x202, "NT_X86_XSTATE"), F(0x300, "NT_S390_HIGH_GPRS"), F(0x301, "NT_S390_TIMER"),
	F(0x302, "NT_S390_TODCMP"), F(0x303, "NT_S390_TODPREG"), F(0x304, "NT_S390_CTRS"),
	F(0x305, "NT_S390_PREFIX"), F(0x306, "NT_S390_LAST_BREAK"),
	F(0x307, "NT_S390_SYSTEM_CALL"), F(0x308, "NT_S390_TDB"), F(0x309, "NT_S390_VXRS_LOW"),
	F(0x30a, "NT_S390_VXRS_HIGH"), F(0x400, "NT_ARM_VFP"), F(0x401, "NT_ARM_TLS"),
	F(0x402, "NT_ARM_HW_BREAK"), F(0x403, "NT_ARM_HW_WATCH"), F(0x404, "NT_ARM_SYSTEM_CALL"),
	{ 0, NULL }
};
static const struct scf sc_futex_wake_ops[] = {
	F(0, "FUTEX_OP_SET"), F(1, "FUTEX_OP_ADD"), F(2, "FUTEX_OP_OR"), F(3, "FUTEX_OP_ANDN"),
	F(4, "FUTEX_OP_XOR"), { 0, NULL }
};
static const struct scf sc_futex_wake_cmps[] = {
	F(0, "FUTEX_OP_CMP_EQ"), F(1, "FUTEX_OP_CMP_NE"), F(2, "FUTEX_OP_CMP_LT"),
	F(3, "FUTEX_OP_CMP_LE"), F(4, "FUTEX_OP_CMP_GT"), F(5, "FUTEX_OP_CMP_GE"), { 0, NULL }
};
static const struct scf sc_adj_modes[] = {	/* a timex's */
	F(1, "ADJ_OFFSET"), F(2, "ADJ_FREQUENCY"), F(4, "ADJ_MAXERROR"), F(8, "ADJ_ESTERROR"),
	F(0x10, "ADJ_STATUS"), F(0x20, "ADJ_TIMECONST"), F(0x4000, "ADJ_TICK"),
	F(0x8001, "ADJ_OFFSET_SINGLESHOT"), { 0, NULL }
};
/* a siginfo's generic codes, then those of some signals (signal << 8 | code) */
static const struct scf sc_si_codes[] = {
	F(0, "SI_USER"), F(0x80, "SI_KERNEL"), F(-1UL, "SI_QUEUE"), F(-2UL, "SI_TIMER"),
	F(-3UL, "SI_MESGQ"), F(-4UL, "SI_ASYNCIO"), F(-5UL, "SI_SIGIO"), F(-6UL, "SI_TKILL"),
	F(-7UL, "SI_DETHREAD"), { 0, NULL }
};
static const struct scf sc_si_sig_codes[] = {
	F(0x401, "ILL_ILLOPC"), F(0x402, "ILL_ILLOPN"), F(0x403, "ILL_ILLADR"),
	F(0x404, "ILL_ILLTRP"), F(0x405, "ILL_PRVOPC"), F(0x406, "ILL_PRVREG"),
	F(0x407, "ILL_COPROC"), F(0x408, "ILL_BADSTK"), F(0x801, "FPE_INTDIV"),
	F(0x802, "FPE_INTOVF"), F(0x803, "FPE_FLTDIV"), F(0x804, "FPE_FLTOVF"),
	F(0x805, "FPE_FLTUND"), F(0x806, "FPE_FLTRES"), F(0x807, "FPE_FLTINV"),
	F(0x808, "FPE_FLTSUB"), F(0xb01, "SEGV_MAPERR"), F(0xb02, "SEGV_ACCERR"),
	F(0xb03, "SEGV_BNDERR"), F(0x701, "BUS_ADRALN"), F(0x702, "BUS_ADRERR"),
	F(0x703, "BUS_OBJERR"), F(0x704, "BUS_MCEERR_AR"), F(0x705, "BUS_MCEERR_AO"),
	F(0x501, "TRAP_BRKPT"), F(0x502, "TRAP_TRACE"), F(0x503, "TRAP_BRANCH"),
	F(0x504, "TRAP_HWBKPT"), F(0x1101, "CLD_EXITED"), F(0x1102, "CLD_KILLED"),
	F(0x1103, "CLD_DUMPED"), F(0x1104, "CLD_TRAPPED"), F(0x1105, "CLD_STOPPED"),
	F(0x1106, "CLD_CONTINUED"), F(0x1d01, "POLL_IN"), F(0x1d02, "POLL_OUT"),
	F(0x1d03, "POLL_MSG"), F(0x1d04, "POLL_ERR"), F(0x1d05, "POLL_PRI"),
	F(0x1d06, "POLL_HUP"), F(0x1f01, "SYS_SECCOMP"), { 0, NULL }
};
/* prctl's options and the values of their arguments (_prctl_argstr()) */
static const struct scf sc_prctl_options[] = {
	F(1, "PR_SET_PDEATHSIG"), F(2, "PR_GET_PDEATHSIG"), F(3, "PR_GET_DUMPABLE"),
	F(4, "PR_SET_DUMPABLE"), F(5, "PR_GET_UNALIGN"), F(6, "PR_SET_UNALIGN"),
	F(7, "PR_GET_KEEPCAPS"), F(8, "PR_SET_KEEPCAPS"), F(9, "PR_GET_FPEMU"),
	F(0xa, "PR_SET_FPEMU"), F(0xb, "PR_GET_FPEXC"), F(0xc, "PR_SET_FPEXC"),
	F(0xd, "PR_GET_TIMING"), F(0xe, "PR_SET_TIMING"), F(0xf, "PR_SET_NAME"),
	F(0x10, "PR_GET_NAME"), F(0x13, "PR_GET_ENDIAN"), F(0x14, "PR_SET_ENDIAN"),
	F(0x15, "PR_GET_SECCOMP"), F(0x16, "PR_SET_SECCOMP"), F(0x17, "PR_CAPBSET_READ"),
	F(0x18, "PR_CAPBSET_DROP"), F(0x19, "PR_GET_TSC"), F(0x1a, "PR_SET_TSC"),
	F(0x1b, "PR_GET_SECUREBITS"), F(0x1c, "PR_SET_SECUREBITS"),
	F(0x1d, "PR_SET_TIMERSLACK"), F(0x1e, "PR_GET_TIMERSLACK"),
	F(0x1f, "PR_TASK_PERF_EVENTS_DISABLE"), F(0x20, "PR_TASK_PERF_EVENTS_ENABLE"),
	F(0x21, "PR_MCE_KILL"), F(0x22, "PR_MCE_KILL_GET"), F(0x23, "PR_SET_MM"),
	F(0x59616d61, "PR_SET_PTRACER"), F(0x24, "PR_SET_CHILD_SUBREAPER"),
	F(0x25, "PR_GET_CHILD_SUBREAPER"), F(0x26, "PR_SET_NO_NEW_PRIVS"),
	F(0x27, "PR_GET_NO_NEW_PRIVS"), F(0x28, "PR_GET_TID_ADDRESS"),
	F(0x29, "PR_SET_THP_DISABLE"), F(0x2a, "PR_GET_THP_DISABLE"),
	F(0x2b, "PR_MPX_ENABLE_MANAGEMENT"), F(0x2c, "PR_MPX_DISABLE_MANAGEMENT"),
	{ 0, NULL }
};
static const struct scf sc_prctl_unalign[] = {
	F(1, "PR_UNALIGN_NOPRINT"), F(2, "PR_UNALIGN_SIGBUS"), { 0, NULL }
};
static const struct scf sc_prctl_fpemu[] = {
	F(1, "PR_FPEMU_NOPRINT"), F(2, "PR_FPEMU_SIGFPE"), { 0, NULL }
};
static const struct scf sc_prctl_fpexc[] = {
	F(0x80, "PR_FP_EXC_SW_ENABLE"), F(0x10000, "PR_FP_EXC_DIV"),
	F(0x20000, "PR_FP_EXC_OVF"), F(0x40000, "PR_FP_EXC_UND"),
	F(0x80000, "PR_FP_EXC_RES"), F(0x100000, "PR_FP_EXC_INV"),
	F(0, "PR_FP_EXC_DISABLED"), F(1, "PR_FP_EXC_NONRECOV"), F(2, "PR_FP_EXC_ASYNC"),
	F(3, "PR_FP_EXC_PRECISE"), { 0, NULL }
};
static const struct scf sc_prctl_timing[] = {
	F(0, "PR_TIMING_STATISTICAL"), F(1, "PR_TIMING_TIMESTAMP"), { 0, NULL }
};
static const struct scf sc_prctl_endian[] = {
	F(0, "PR_ENDIAN_BIG"), F(1, "PR_ENDIAN_LITTLE"), F(2, "PR_ENDIAN_PPC_LITTLE"),
	{ 0, NULL }
};
static const struct scf sc_prctl_tsc[] = {
	F(1, "PR_TSC_ENABLE"), F(2, "PR_TSC_SIGSEGV"), { 0, NULL }
};
static const struct scf sc_prctl_mce_kill[] = {
	F(0, "PR_MCE_KILL_CLEAR"), F(1, "PR_MCE_KILL_SET"), { 0, NULL }
};
static const struct scf sc_prctl_mce_policy[] = {
	F(0, "PR_MCE_KILL_LATE"), F(1, "PR_MCE_KILL_EARLY"), F(2, "PR_MCE_KILL_DEFAULT"),
	{ 0, NULL }
};
static const struct scf sc_prctl_seccomp[] = {
	F(0, "SECCOMP_MODE_DISABLED"), F(1, "SECCOMP_MODE_STRICT"),
	F(2, "SECCOMP_MODE_FILTER"), { 0, NULL }
};
static const struct scf sc_prctl_set_mm[] = {
	F(1, "PR_SET_MM_START_CODE"), F(2, "PR_SET_MM_END_CODE"),
	F(3, "PR_SET_MM_START_DATA"), F(4, "PR_SET_MM_END_DATA"),
	F(5, "PR_SET_MM_START_STACK"), F(6, "PR_SET_MM_START_BRK"), F(7, "PR_SET_MM_BRK"),
	F(8, "PR_SET_MM_ARG_START"), F(9, "PR_SET_MM_ARG_END"),
	F(0xa, "PR_SET_MM_ENV_START"), F(0xb, "PR_SET_MM_ENV_END"),
	F(0xc, "PR_SET_MM_AUXV"), F(0xd, "PR_SET_MM_EXE_FILE"), F(0xe, "PR_SET_MM_MAP"),
	F(0xf, "PR_SET_MM_MAP_SIZE"), { 0, NULL }
};
static const struct scf sc_prctl_caps[] = {
	F(0, "CAP_CHOWN"), F(1, "CAP_DAC_OVERRIDE"), F(2, "CAP_DAC_READ_SEARCH"),
	F(3, "CAP_FOWNER"), F(4, "CAP_FSETID"), F(5, "CAP_KILL"), F(6, "CAP_SETGID"),
	F(7, "CAP_SETUID"), F(8, "CAP_SETPCAP"), F(9, "CAP_LINUX_IMMUTABLE"),
	F(0xa, "CAP_NET_BIND_SERVICE"), F(0xb, "CAP_NET_BROADCAST"),
	F(0xc, "CAP_NET_ADMIN"), F(0xd, "CAP_NET_RAW"), F(0xe, "CAP_IPC_LOCK"),
	F(0xf, "CAP_IPC_OWNER"), F(0x10, "CAP_SYS_MODULE"), F(0x11, "CAP_SYS_RAWIO"),
	F(0x12, "CAP_SYS_CHROOT"), F(0x13, "CAP_SYS_PTRACE"), F(0x14, "CAP_SYS_PACCT"),
	F(0x15, "CAP_SYS_ADMIN"), F(0x16, "CAP_SYS_BOOT"), F(0x17, "CAP_SYS_NICE"),
	F(0x18, "CAP_SYS_RESOURCE"), F(0x19, "CAP_SYS_TIME"), F(0x1a, "CAP_SYS_TTY_CONFIG"),
	F(0x1b, "CAP_MKNOD"), F(0x1c, "CAP_LEASE"), F(0x1d, "CAP_AUDIT_WRITE"),
	F(0x1e, "CAP_AUDIT_CONTROL"), F(0x1f, "CAP_SETFCAP"), F(0x20, "CAP_MAC_OVERRIDE"),
	F(0x21, "CAP_MAC_ADMIN"), F(0x22, "CAP_SYSLOG"), F(0x23, "CAP_WAKE_ALARM"),
	F(0x24, "CAP_BLOCK_SUSPEND"), F(0x25, "CAP_AUDIT_READ"), { 0, NULL }
};
static const struct scf sc_prctl_securebits[] = {
	F(1, "SECBIT_NOROOT"), F(2, "SECBIT_NOROOT_LOCKED"), F(4, "SECBIT_NO_SETUID_FIXUP"),
	F(8, "SECBIT_NO_SETUID_FIXUP_LOCKED"), F(0x10, "SECBIT_KEEP_CAPS"),
	F(0x20, "SECBIT_KEEP_CAPS_LOCKED"), { 0, NULL }
};
static const struct scf sc_sa_flags[] = {	/* a sigaction's */
	F(1, "SA_NOCLDSTOP"), F(2, "SA_NOCLDWAIT"), F(0x80000000, "SA_RESETHAND"),
	F(0x08000000, "SA_ONSTACK"), F(0x10000000, "SA_RESTART"), F(0x40000000, "SA_NODEFER"),
	F(4, "SA_SIGINFO"), F(0x04000000, "SA_RESTORER"), { 0, NULL }
};
static const struct scf sc_mempolicy_mode[] = {
	F(0, "MPOL_DEFAULT"), F(1, "MPOL_PREFERRED"), F(2, "MPOL_BIND"), F(3, "MPOL_INTERLEAVE"),
	{ 0, NULL }
};
#undef F

/* errno.stp's names, 1 to 131 (EDEADLK for 35) */
#define E(e) [e] = #e
static const char *const errnames[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
	E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK),
	E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL),
	E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE),
	E(EROFS), E(EMLINK), E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG),
	E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG),
	E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH), E(ENOCSI), E(EL2HLT),
	E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC), E(EBADSLT), E(EBFONT),
	E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR), E(ENONET), E(ENOPKG), E(EREMOTE),
	E(ENOLINK), E(EADV), E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT),
	E(EBADMSG), E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC),
	E(ELIBBAD), E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ), E(ERESTART),
	E(ESTRPIPE), E(EUSERS), E(ENOTSOCK), E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE),
	E(ENOPROTOOPT), E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP),
	E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN),
	E(ENETUNREACH), E(ENETRESET), E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS),
	E(EISCONN), E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS), E(ETIMEDOUT),
	E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS),
	E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL), E(EISNAM), E(EREMOTEIO), E(EDQUOT),
	E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED),
	E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE),
};
#undef E
#define NERRNAMES ((int)(sizeof(errnames) / sizeof(errnames[0])))

/* the decoders of a table: their names and tables, how they decode (the
 * or-ed flags, the name for 0 or NULL: "0x0"; one value, 'l'; the named
 * signals of a sigset_t's first word in brackets, 's'; one value after
 * "IPC_64|" when it has IPC_64, 'i', or "SCHED_RESET_ON_FORK|", 'r'; one
 * value, else its decimal, 'd'; the flags above the low byte, then "|" and
 * its signal, 'c'; the flags above the low 9 bits, then their mode as %#o
 * after "|" (none when it has no flags: 'm', "0x0": 'M'); the flags above
 * the low 15 bits, then "|" and the priority in them with
 * SWAP_FLAG_PREFER, 'w'; a socket's type, then SOCK_CLOEXEC, SOCK_NONBLOCK
 * and the rest, 't'; those of 'h', 'o', 'q', 'n', 'p', 'u' above, the last 3
 * with a second table, the next decoder's, whose name is no function's),
 * the width of the value (the module runtime's cast; -32 an int's sign
 * extended) */
static const struct {
	const char *fn;
	const struct scf *t;
	char kind;
	const char *zero;
	int bits;
} decoders[] = {
	{ "_sys_open_flag_str", open_flags, 'f', NULL, 32 },
	{ "_at_flag_str", at_flags, 'f', NULL, 64 },
	{ "_access_mode_str", access_modes, 'f', "F_OK", 32 },
	{ "_seek_whence_str", seek_whence, 'l', NULL, 32 },
	{ "_wait4_opt_str", wait4_opts, 'f', NULL, 32 },
	{ "_mprotect_prot_str", prot_flags, 'f', "PROT_NONE", 64 },
	{ "_priority_which_str", prio_which, 'l', NULL, 32 },
	{ "_mfd_flags_str", mfd_flags, 'f', NULL, 32 },
	{ "_stp_splice_flags_str", splice_flags, 'f', NULL, 32 },
	{ "_signal_name", signals, 'l', NULL, 32 },
	{ "_msg_flags_str", msg_flags, 'f', NULL, 64 },	/* MSG_CMSG_COMPAT not shown */
	{ "_rlimit_resource_str", rlimits, 'l', NULL, 32 },
	{ "_itimer_which_str", itimers, 'l', NULL, 32 },
	{ "_fadvice_advice_str", fadvice, 'l', NULL, 32 },
	{ "_stp_xattr_flags_str", xattr_flags, 'f', NULL, 32 },
	{ "_stp_sigmask_str", sigset_bits, 's', NULL, 64 },	/* "[SIGINT|...]" */
	{ "_stp_clock_nanosleep_flags_str", sc_clock_nanosleep_flags, 'l', NULL, 32 },
	{ "_bpf_cmd_str", sc_bpf_cmd, 'l', NULL, -32 },
	{ "_fanotify_mark_mask_str", sc_fanotify_mark_mask, 'f', NULL, 64 },
	{ "_kexec_flags_str", sc_kexec_flags, 'f', "KEXEC_ARCH_DEFAULT", 64 },
	{ "_ptrace_options_str", sc_ptrace_options, 'f', NULL, 64 },
	{ "_reboot_flag_str", sc_reboot_flag, 'l', NULL, 32 },
	{ "_seccomp_flags_str", sc_seccomp_flags, 'l', NULL, 32 },
	{ "_sockopt_optname_str", sc_sockopt_optname, 'l', NULL, 64 },
	{ "_statx_mask_str", sc_statx_mask, 'l', NULL, -32 },
	{ "_dup3_flag_str", open_flags, 'f', NULL, 32 },
	{ "_shmctl_cmd_str", sc_shmctl_cmd, 'i', NULL, 32 },
	{ "_semctl_cmd", sc_semctl_cmd, 'i', NULL, 32 },
	{ "_stp_msgctl_cmd_str", sc_msgctl_cmd, 'i', NULL, 32 },
	{ "_sched_policy_str", sc_sched_policy, 'r', NULL, 32 },
	{ "_stp_ioprio_which_str", sc_ioprio_which, 'd', NULL, -32 },
	{ "_sc_ns_flags_str", sc_clone_flags, 'c', NULL, 64 },
	{ "__fork_flags", sc_clone_flags, 'c', NULL, 64 },
	{ "__sem_flags", sc_sem_flags, 'm', NULL, 64 },
	{ "_stp_shmget_flags_str", sc_shmget_flags, 'M', NULL, 32 },
	{ "_swapon_flags_str", sc_swapon_flags, 'w', NULL, 32 },
	{ "_sock_type_str", sc_sock_type, 't', NULL, 32 },
	/* _sock_protocol_str(family, protocol): PF_INET's and PF_INET6's */
	{ "_sock_protocol_str", sc_sock_protocol, 'd', NULL, 64 },
	{ "_arch_prctl_code_str", sc_arch_prctl_code, 'l', NULL, 32 },
	{ "_epoll_create1_flag_str", sc_epoll_create1_flag, 'f', NULL, 32 },
	{ "_eventfd2_flag_str", sc_eventfd2_flag, 'f', NULL, 32 },
	{ "_faccessat2_flags_str", sc_faccessat2_flags, 'f', NULL, 32 },
	{ "_fanotify_mark_flags_str", sc_fanotify_mark_flags, 'f', NULL, 32 },
	{ "_fcntl_cmd_str", sc_fcntl_cmd, 'l', NULL, 32 },
	{ "_finit_module_flags_str", sc_finit_module_flags, 'f', NULL, 32 },
	{ "_flock_cmd_str", sc_flock_cmd, 'f', NULL, 32 },
	{ "_futex_op_str", sc_futex_op, 'l', NULL, 32 },
	{ "_get_wc_str", sc_get_wc, 'l', NULL, 32 },
	{ "_getrandom_flags_str", sc_getrandom_flags, 'f', NULL, 32 },
	{ "_inotify_init1_flag_str", sc_inotify_init1_flag, 'f', NULL, 32 },
	{ "_inotify_watch_mask_str", sc_inotify_watch_mask, 'f', NULL, 32 },
	{ "_kcmp_type_str", sc_kcmp_type, 'l', NULL, 32 },
	{ "_kexec_file_load_flags_str", sc_kexec_file_load_flags, 'f', NULL, 64 },
	{ "_madvice_advice_str", sc_madvice_advice, 'l', NULL, 32 },
	{ "_membarrier_cmd_str", sc_membarrier_cmd, 'l', NULL, 32 },
	{ "_mempolicy_flags_str", sc_mempolicy_flags, 'f', NULL, 64 },
	{ "_mlockall_flags_str", sc_mlockall_flags, 'f', NULL, 32 },
	{ "_module_flags_str", sc_module_flags, 'f', NULL, 32 },
	{ "_mountflags_str", sc_mountflags, 'f', NULL, 64 },
	{ "_mremap_flags", sc_mremap_flags, 'f', NULL, 32 },
	{ "_msync_flag_str", sc_msync_flag, 'f', NULL, 32 },
	{ "_opoll_op_str", sc_opoll_op, 'l', NULL, 32 },
	{ "_perf_event_open_flags_str", sc_perf_event_open_flags, 'f', NULL, 64 },
	{ "_pkey_alloc_init_val_str", sc_pkey_alloc_init_val, 'f', NULL, 32 },
	{ "_preadv2_flags_str", sc_preadv2_flags, 'f', NULL, 32 },
	{ "_ptrace_arch_request_str", sc_ptrace_arch_request, 'l', NULL, 64 },
	{ "_reboot_magic_str", sc_reboot_magic, 'l', NULL, 32 },
	{ "_renameat2_flags_str", sc_renameat2_flags, 'f', NULL, 32 },
	{ "_rusage_who_str", sc_rusage_who, 'l', NULL, 32 },
	{ "_seccomp_op_str", sc_seccomp_op, 'l', NULL, 32 },
	{ "_shmat_flags_str", sc_shmat_flags, 'f', NULL, 64 },
	{ "_shutdown_how_str", sc_shutdown_how, 'l', NULL, 32 },
	{ "_sighandler_str", sc_sighandler, 'l', NULL, 64 },
	{ "_signalfd4_flags_str", sc_signalfd4_flags, 'f', NULL, 32 },
	{ "_sigprocmask_how_str", sc_sigprocmask_how, 'l', NULL, 64 },
	{ "_sock_family_str", sc_sock_family, 'l', NULL, 32 },
	{ "_sock_flags_str", sc_sock_flags, 'f', NULL, 32 },
	{ "_sockopt_level_str", sc_sockopt_level, 'l', NULL, 64 },
	{ "_stp_fallocate_mode_str", sc_fallocate_mode, 'f', NULL, 32 },
	{ "_stp_mlock2_str", sc_mlock2, 'f', NULL, 32 },
	{ "_stp_msgflg_str", sc_msgflg, 'f', NULL, 32 },
	{ "_stp_timerfd_flags_str", sc_timerfd_flags, 'f', NULL, 32 },
	{ "_sync_file_range_flags_str", sc_sync_file_range_flags, 'f', NULL, 32 },
	{ "_sys_pipe2_flag_str", sc_sys_pipe2_flag, 'f', NULL, 32 },
	{ "_umountflags_str", sc_umountflags, 'f', NULL, 32 },
	{ "_userfaultfd_flags_str", sc_userfaultfd_flags, 'f', NULL, 32 },
	{ "_waitid_which_str", sc_waitid_which, 'l', NULL, 32 },
	{ "_mmap_flags", sc_mmap_flags, 'h', NULL, 64 },
	{ "_ptrace_arch_prctl_str", sc_ptrace_arch_prctl, 'l', NULL, 32 },
	{ "_stp_ioprio_value_str", sc_ioprio_class, 'o', NULL, 32 },
	{ "_quotactl_cmd_str", sc_quotactl_cmd, 'q', NULL, 32 },
	{ "_fanotify_init_flags_str", sc_fanotify_class, 'n', NULL, 32 },
	{ " fanotify_init flags", sc_fanotify_init, 'f', NULL, 32 },
	{ "_mempolicy_mode_str", sc_mempolicy_mode, 'p', NULL, 32 },
	{ " mempolicy flags", sc_mempolicy_flag, 'l', NULL, 32 },
	{ " sigaction flags", sc_sa_flags, 'f', NULL, 64 },	/* _struct_sigaction_u() */
	{ "_ptrace_request_str", sc_ptrace_request, 'l', NULL, 64 },
	{ "_quotactl_quota_type_str", sc_quota_type, 'l', NULL, -32 },
	{ "_elf_note_type_str", sc_elf_note_type, 'l', NULL, 64 },
	{ "_futex_wake_op_str", sc_futex_wake_ops, 'u', NULL, 32 },
	{ " futex_wake_op cmps", sc_futex_wake_cmps, 'l', NULL, 32 },
	{ " timex modes", sc_adj_modes, 'f', NULL, 32 },	/* _struct_timex_u() */
	{ " si_code", sc_si_codes, 'l', NULL, 64 },	/* _stp_siginfo_u() */
	{ " si_code of a signal", sc_si_sig_codes, 'l', NULL, 64 },
	{ " signal name", signals, 'l', NULL, 64 },
	{ " prctl options", sc_prctl_options, 'l', NULL, 32 },	/* _prctl_argstr() */
	{ " prctl unalign", sc_prctl_unalign, 'l', NULL, 64 },
	{ " prctl fpemu", sc_prctl_fpemu, 'l', NULL, 64 },
	{ " prctl fpexc", sc_prctl_fpexc, 'l', NULL, 64 },
	{ " prctl timing", sc_prctl_timing, 'l', NULL, 64 },
	{ " prctl endian", sc_prctl_endian, 'l', NULL, 64 },
	{ " prctl tsc", sc_prctl_tsc, 'l', NULL, 64 },
	{ " prctl mce_kill", sc_prctl_mce_kill, 'l', NULL, 64 },
	{ " prctl mce_kill policy", sc_prctl_mce_policy, 'l', NULL, 64 },
	{ " prctl seccomp", sc_prctl_seccomp, 'l', NULL, 64 },
	{ " prctl set_mm", sc_prctl_set_mm, 'l', NULL, 64 },
	{ " prctl caps", sc_prctl_caps, 'l', NULL, 64 },
	{ " prctl securebits", sc_prctl_securebits, 'f', NULL, 64 },
};
#define NDECODERS (sizeof(decoders) / sizeof(decoders[0]))
_Static_assert(NDECODERS <= 128, "struct bgen's scd_used[] holds 128 decoders");

/* the other helpers and their arity (_sc_user_ptr() and the user
 * sockaddr... in bpf_syscall2.c, which also writes __get_argv()) */
static const struct {
	const char *name;
	int n;
} fns[] = {
	{ "_sc_use_uregs", 0 }, { "_sc_i", 1 }, { "_sc_u", 1 }, { "_sc_l", 1 },
	{ "_sc_ul", 1 }, { "_sc_p", 1 }, { "_sc32_u", 1 }, { "_sc_ret", 0 },
	{ "errno_str", 1 }, { "errno_p", 1 }, { "user_buffer_quoted", 3 },
	{ "_sc_set_uregs", 1 }, { "_sc_regs_nr", 1 }, { "_sc_tp_none", 1 },
	{ "_sc_compat_task", 0 }, { "_stp_sigset_u", 1 },
	{ "_struct_timespec_u", 2 }, { "_struct_timeval_u", 2 }, { "__sc_pair32x2_u", 1 },
	{ "_struct_timezone_u", 1 }, { "_struct_rlimit_u", 1 }, { "_sock_protocol_str", 2 },
};

bool bsc_has(const struct func *f)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(f->name, fns[i].name) && f->nparams == fns[i].n)
			return true;
	for (size_t i = 0; i < NDECODERS; i++)
		if (!strcmp(f->name, decoders[i].fn) && f->nparams == 1)
			return true;
	return bsc2_has(f);
}

static const char *new_tmp(struct bgen *g)
{
	return arena_printf(g->s->arena, "t%d", g->ntmp++);
}

/* The kind of probes the code being written runs in: 1 the entry of
 * kernel functions (also a .return probe's entry half, @entry()), 2
 * their return, 3 the raw_syscalls tracepoints (their first argument the
 * user pt_regs), 0 none of these or not known (a function, another probe). */
static int kprobe_kind(struct bgen *g)
{
	int k = 0, kr;

	if (g->at_entry)
		return 1;
	if (g->func || !g->probe || g->no_ctx)
		return 0;
	for (const struct rprobe *r = g->s->rprobes; r; r = r->next) {
		if (r->probe != g->probe)
			continue;
		if (!strcmp(r->family, "kernel.trace") && r->tp_name &&
		    (!strcmp(r->tp_name, "sys_enter") || !strcmp(r->tp_name, "sys_exit")))
			kr = 3;
		else if (bu_is_kprobe(r))
			kr = r->ret ? 2 : 1;
		else
			return 0;
		if (k && k != kr)
			return 0;
		k = kr;
	}
	return k;
}

static const char *unsupported(struct bgen *g, struct node *n, const char *where)
{
	bg_unsupported(g, n, arena_printf(g->s->arena, "the function %s() %s", n->op, where));
	return "0";
}

/* _sc_i() and friends: argument n of the system call, from the user
 * pt_regs the probed wrapper's first argument points to (di of the
 * kprobe's registers), or those _sc_use_uregs() kept in a function */
static const char *sc_arg(struct bgen *g, struct node *n)
{
	const char *k = bg_expr(g, n->args), *t = new_tmp(g), *regs = "S->uregs";
	int kind = kprobe_kind(g);

	if (kind == 2)
		return unsupported(g, n, "in a .return probe (outside @entry())");
	if (kind == 0 && !g->func)
		return unsupported(g, n, "outside kernel function probes");
	if (kind == 1)
		regs = "((__u64 *)ctx)[14]";
	else if (kind == 3)
		regs = "((__u64 *)ctx)[0]";
	g->need_sc = true;
	if (!strcmp(n->op, "_sc32_u")) {
		bg_line(g, "long %s = (long)(__u32)stp_sc_arg(%s, %s, 1);", t, regs, k);
		return t;
	}
	bg_line(g, "long %s = stp_sc_arg(%s, %s, 0);", t, regs, k);
	if (!strcmp(n->op, "_sc_i"))
		bg_line(g, "%s = (long)(int)%s;", t, t);
	else if (!strcmp(n->op, "_sc_u"))
		bg_line(g, "%s = (long)(unsigned int)%s;", t, t);
	else if (!strcmp(n->op, "_sc_l"))
		bg_line(g, "if (stp_sc_compat()) %s = (long)(int)%s;", t, t);
	return t;
}

/* user_buffer_quoted(addr, inlen, outlen); 0x... (cut at outlen - 1) on a
 * fault */
static const char *buffer_quoted(struct bgen *g, struct node *n)
{
	const char *addr = bg_expr(g, n->args), *len = bg_expr(g, n->args->next);
	const char *out = bg_expr(g, n->args->next->next), *t = new_tmp(g), *h = new_tmp(g);

	g->need_quote = true;
	g->need_hex = true;
	g->need_sc = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	bg_line(g, "if (stp_user_bufq(S, %s, %s, %s, %s) < 0) {", t, addr, len, out);
	bg_line(g, "\tlong %s = stp_hex((struct stp_hexbuf *)%s, 0, %s);", h, t, addr);
	bg_line(g, "\t%s[(%s < %s - 1 ? %s : %s - 1) & STP_MASK] = 0;", t, h, out, h, out);
	bg_line(g, "}");
	return t;
}

/* decoder i, its entries and function written (emit_decoders()) */
static size_t use_decoder(struct bgen *g, size_t i)
{
	g->scd_used[i / 64] |= 1ULL << (i % 64);
	if (strchr("npu", decoders[i].kind))	/* its second table */
		g->scd_used[(i + 1) / 64] |= 1ULL << ((i + 1) % 64);
	for (size_t j = 0; j < NDECODERS && decoders[i].kind == 'c'; j++)
		if (decoders[j].t == signals) {	/* the exit signal's name: the first */
			g->scd_used[j / 64] |= 1ULL << (j % 64);
			break;
		}
	return i;
}

/* the user structures (_struct_timespec_u() and the like): "NULL", 0x...
 * on a fault, else their fields as the module runtime shows them; a user
 * sigset_t (_stp_sigset_u()) decoded as _stp_sigmask_str() */
static const char *user_struct(struct bgen *g, struct node *n)
{
	static const char *const names[][2] = {
		{ "_struct_timespec_u", "s" }, { "_struct_timeval_u", "v" },
		{ "__sc_pair32x2_u", "p" }, { "_struct_timezone_u", "z" },
		{ "_struct_rlimit_u", "r" },
	};
	const char *a = bg_expr(g, n->args), *k = "1", *t = new_tmp(g);

	if (n->args->next)
		k = bg_expr(g, n->args->next);
	g->need_sc = true;
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(n->op, names[i][0]))
			bg_line(g, "stp_sc_struct(S, %s, %s, %s, '%s');", t, a, k, names[i][1]);
	for (size_t i = 0; i < NDECODERS && !strcmp(n->op, "_stp_sigset_u"); i++)
		if (decoders[i].t == sigset_bits) {
			bg_line(g, "if (!stp_sc_in(S, %s, %s, 8))\n\tstp_scd_%zu(S, %s, "
				"*(long *)S->tmp);", t, a, use_decoder(g, i), t);
		}
	return t;
}

/* the decoder fn (its index), marked used: bpf_syscall2.c's structures
 * call its stp_scd_I() */
size_t bsc_decoder(struct bgen *g, const char *fn)
{
	size_t i = 0;

	while (i < NDECODERS - 1 && strcmp(decoders[i].fn, fn))
		i++;
	return use_decoder(g, i);
}

const char *bsc_call(struct bgen *g, struct node *n)
{
	const char *t, *a;
	int kind;

	if (!bsc_has(n->func))
		return NULL;
	if (bsc2_has(n->func))
		return bsc2_call(g, n);
	if (!strcmp(n->op, "_sc_use_uregs")) {
		kind = kprobe_kind(g);
		if (!kind)
			return unsupported(g, n, "outside the handler of kernel function probes");
		if ((kind == 1 || kind == 3) && !g->at_entry)
			bg_line(g, "S->uregs = ((__u64 *)ctx)[%d];", kind == 1 ? 14 : 0);
		return "0L";
	}
	if (!strcmp(n->op, "_sc_set_uregs")) {
		bg_line(g, "S->uregs = %s;", bg_expr(g, n->args));
		return "0L";
	}
	if (!strcmp(n->op, "_sc_compat_task")) {
		g->need_sc = true;
		t = new_tmp(g);
		bg_line(g, "long %s = stp_sc_compat_call();", t);
		return t;
	}
	if (!strcmp(n->op, "_sc_regs_nr") || !strcmp(n->op, "_sc_tp_none")) {
		a = bg_expr(g, n->args);
		t = new_tmp(g);
		if (n->op[4] == 't')	/* (nr || 1): never fires */
			bg_line(g, "long %s = 1;", t);
		else	/* orig_ax; -1 when unreadable */
			bg_line(g, "long %s = -1;\nbpf_probe_read_kernel(&%s, 8, (__u64 *)%s + 15);",
				t, t, a);
		return t;
	}
	if (!strcmp(n->op, "_sc_ret")) {
		kind = kprobe_kind(g);
		if (!kind || kind == 3 || g->at_entry)
			return unsupported(g, n, "outside the handler of kernel function probes");
		t = new_tmp(g);
		bg_line(g, "long %s = ((long *)ctx)[10];", t);
		return t;
	}
	if (!strcmp(n->op, "user_buffer_quoted"))
		return buffer_quoted(g, n);
	if (!strcmp(n->op, "_stp_sigset_u") || !strncmp(n->op, "_struct_", 8) ||
	    !strcmp(n->op, "__sc_pair32x2_u"))
		return user_struct(g, n);
	/* the argument readers: _sc_i(), _sc_ul(), _sc32_u() ... */
	if (!strncmp(n->op, "_sc", 3) && strspn(n->op + 3, "_iulp32") == strlen(n->op + 3))
		return sc_arg(g, n);
	g->need_sc = true;
	g->need_quote = true;	/* stapbpf.h's bpf_loop() */
	a = bg_expr(g, n->args);
	t = new_tmp(g);
	if (!strcmp(n->op, "errno_p")) {
		bg_line(g, "long %s = stp_errno_p(%s);", t, a);
		return t;
	}
	bg_line(g, "char *%s = %s;", t, bg_slot(g));
	if (!strcmp(n->op, "errno_str")) {
		bg_line(g, "stp_errno_str(%s, %s);", t, a);
		return t;
	}
	for (size_t i = 0; i < NDECODERS; i++)
		if (!strcmp(n->op, decoders[i].fn) && n->args->next) {	/* _sock_protocol_str() */
			const char *p = bg_expr(g, n->args->next);

			bg_line(g, "if (%s == 2 || %s == 10) {\n\tstp_scd_%zu(S, %s, %s);\n} else {\n"
				"\tlong len = 0;\n\n\tstp_sfmt_long(%s, &len, %s, 'd', 0, 0, -1);\n"
				"\tstp_sfmt_end(%s, len);\n}", a, a, use_decoder(g, i), t, p, t, p, t);
		} else if (!strcmp(n->op, decoders[i].fn))
			bg_line(g, "stp_scd_%zu(S, %s, %s);", use_decoder(g, i), t, a);
	return t;
}

/* the readers of the user registers: x86-64's di si dx r10 r8 r9, a
 * 32-bit task's bx cx dx si di bp (u64 slots of struct pt_regs), a 32-bit
 * task the one whose mm is set up for ia32 (MM_CONTEXT_UPROBE_IA32, bit 0
 * of mm->context.flags), as the module runtime's stp_sc_compat_task() */
static void emit_args(struct strbuf *c)
{
	sb_puts(c, "struct mm_struct___stpsc {\n\tstruct { unsigned char flags; } context;\n"
		"} __attribute__((preserve_access_index));\n"
		"struct task_struct___stpsc {\n\tstruct mm_struct___stpsc *mm;\n"
		"} __attribute__((preserve_access_index));\n"
		"struct thread_info___stpsc {\n\tunsigned int status;\n"
		"} __attribute__((preserve_access_index));\n"
		"struct task_struct___stpct {\n\tstruct thread_info___stpsc thread_info;\n"
		"} __attribute__((preserve_access_index));\n"
		"/* in_compat_syscall(): an ia32 call (TS_COMPAT in thread_info.status) */\n"
		"static __always_inline long stp_sc_compat_call(void)\n{\n"
		"\tstruct task_struct___stpct *t = ((void *(*)(void))35)();\n"
		"\tunsigned int s = 0;\n\n"
		"\tbpf_probe_read_kernel(&s, 4, &t->thread_info.status);\n"
		"\treturn (s & 2) != 0;\n}\n"
		"static __always_inline long stp_sc_compat(void)\n{\n"
		"\tstruct task_struct___stpsc *t = ((void *(*)(void))35)();\n"
		"\tstruct mm_struct___stpsc *mm = 0;\n\tunsigned char f = 0;\n\n"
		"\tif (bpf_probe_read_kernel(&mm, 8, &t->mm) || !mm)\n\t\treturn 0;\n"
		"\tbpf_probe_read_kernel(&f, 1, &mm->context.flags);\n\treturn f & 1;\n}\n"
		"static __always_inline unsigned long stp_sc_arg(unsigned long regs, long n, "
		"int ia32)\n{\n"
		"\tint compat = ia32 || stp_sc_compat();\n\tunsigned long v = 0;\n\tlong r;\n\n"
		"\tif (!regs || n < 1 || n > 6)\n\t\treturn 0;\n"
		"\tif (compat)\n\t\tr = n == 1 ? 5 : n == 2 ? 11 : n == 3 ? 12 : n == 4 ? 13 : "
		"n == 5 ? 14 : 4;\n"
		"\telse\n\t\tr = n == 1 ? 14 : n == 2 ? 13 : n == 3 ? 12 : n == 4 ? 7 : "
		"n == 5 ? 9 : 8;\n"
		"\tif (bpf_probe_read_kernel(&v, 8, (__u64 *)regs + r))\n\t\treturn 0;\n"
		"\treturn compat ? (__u32)v : v;\n}\n");
}

/* stp_sc_in(): n (8 to 255) bytes at
 * user address addr in S->tmp, else "NULL" for 0 or 0x... on a fault
 * written (-1), as the tapset's stp_sc_copy_in(); stp_sc_struct(): the
 * user structures, the tapset's formats (kind: timeSpec, timeVal, a Pair
 * of 32-bit pairs, timeZone, Rlimit; n timespecs or timevals, 1 or 2) */
static void emit_struct(struct strbuf *c)
{
	sb_puts(c, "static __always_inline long stp_sc_in(struct stp_scratch *S, char *dst, "
		"long addr, long n)\n{\n\tlong len = 0;\n\n"
		"\tif (!addr)\n\t\tstp_putn(dst, &len, \"NULL\", 4);\n"
		"\telse if (!STP_UOK(addr, n) ||\n\t\t stp_probe_read_user(S->tmp, n & 255, "
		"(void *)addr) < 0)\n"
		"\t\tstp_sfmt_long(dst, &len, addr, 'x', STP_F_ALT, 0, -1);\n"
		"\telse\n\t\treturn 0;\n\tstp_sfmt_end(dst, len);\n\treturn -1;\n}\n"
		"static __always_inline void stp_sc_struct(struct stp_scratch *S, char *dst, "
		"long addr, long n, int kind)\n{\n"
		"\tint *v = (int *)S->tmp;\n\tlong *l = (long *)S->tmp, len = 0;\n\n"
		"\tif ((kind == 's' || kind == 'v') && (n < 1 || n > 2)) {\n"
		"\t\tstp_putn(dst, &len, \"NULL\", 4);\n\t\tstp_sfmt_end(dst, len);\n"
		"\t\treturn;\n\t}\n"
		"\tif (stp_sc_in(S, dst, addr, kind == 'z' || (n == 1 && kind != 'p' && "
		"kind != 'r') ? 8 : 16))\n\t\treturn;\n"
		"\tstp_put(dst, &len, '[');\n"
		"\tif (kind == 'z') {\n"
		"\t\tstp_sfmt_long(dst, &len, v[0], 'd', 0, 0, -1);\n"
		"\t\tstp_putn(dst, &len, \", \", 2);\n"
		"\t\tstp_sfmt_long(dst, &len, v[1], 'd', 0, 0, -1);\n"
		"\t} else if (kind == 'r') {\n"
		"\t\tstp_sfmt_long(dst, &len, l[0], 'd', 0, 0, -1);\n"
		"\t\tstp_put(dst, &len, ',');\n"
		"\t\tstp_sfmt_long(dst, &len, l[1], 'd', 0, 0, -1);\n"
		"\t} else {\n"
		"\t\tfor (int i = 0; i < 2; i++) {\n"
		"\t\t\tint sec = v[2 * i], frac = v[2 * i + 1];\n\n"
		"\t\t\tif (i && kind != 'p') {\n\t\t\t\tif (n < 2)\n\t\t\t\t\tbreak;\n"
		"\t\t\t\tstp_putn(dst, &len, \"][\", 2);\n"
		"\t\t\t} else if (i) {\n\t\t\t\tstp_put(dst, &len, ',');\n\t\t\t}\n"
		"\t\t\tif (kind == 's' && (frac == 0x3fffffff || frac == 0x3ffffffe)) {\n"
		"\t\t\t\tif (frac == 0x3fffffff)\n"
		"\t\t\t\t\tstp_putn(dst, &len, \"UTIME_NOW\", 9);\n"
		"\t\t\t\telse\n\t\t\t\t\tstp_putn(dst, &len, \"UTIME_OMIT\", 10);\n"
		"\t\t\t\tcontinue;\n\t\t\t}\n"
		"\t\t\tstp_sfmt_long(dst, &len, sec, 'd', 0, 0, -1);\n"
		"\t\t\tstp_put(dst, &len, '.');\n"
		"\t\t\tstp_sfmt_long(dst, &len, frac, 'd', STP_F_ZERO, kind == 's' ? 9 : 6, -1);\n"
		"\t\t}\n\t}\n"
		"\tstp_put(dst, &len, ']');\n\tstp_sfmt_end(dst, len);\n}\n");
}

/* errno_str(), errno_p(): the names by number */
static void emit_errno(struct strbuf *c)
{
	sb_puts(c, "static const char stp_errn[256][16] = {\n");
	for (int i = 0; i < NERRNAMES; i++)
		if (errnames[i])
			sb_printf(c, "\t[%d] = \"%s\",\n", i, errnames[i]);
	sb_printf(c, "};\n"
		  "static __always_inline long stp_errno_p(long e)\n{\n\tchar k = 0;\n\n"
		  "\tif (e < 0)\n\t\te = -e;\n\tif (e <= 0 || e >= %d)\n\t\treturn 0;\n"
		  "\tbpf_probe_read_kernel(&k, 1, stp_errn[e & 255]);\n\treturn k ? e : 0;\n}\n"
		  "static __always_inline void stp_errno_str(char *dst, long e)\n{\n"
		  "\tdst[0] = 0;\n\tif (e < 0)\n\t\te = -e;\n"
		  "\tif (e > 0 && e < %d)\n\t\tbpf_probe_read_kernel_str(dst, 16, stp_errn[e & 255]);\n"
		  "}\n", NERRNAMES, NERRNAMES);
}

/* user_buffer_quoted(): inlen bytes (MAXSTRINGLEN - 1 when none or too
 * many) quoted in outlen, as stp_text_buf() with buffer = 1; -1 on a fault */
static void emit_bufq(struct strbuf *c)
{
	sb_puts(c, "static __always_inline long stp_user_bufq(struct stp_scratch *S, char *dst, "
		"long addr, long n, long out)\n{\n\tstruct stp_quote *q = &S->quote;\n\n"
		"\tif (out > STP_MAXSTR)\n\t\tout = STP_MAXSTR;\n"
		"\tif (out <= 0) {\n\t\tdst[0] = 0;\n\t\treturn 0;\n\t}\n"
		"\tif (n <= 0 || n > STP_MAXSTR - 1)\n\t\tn = STP_MAXSTR - 1;\n"
		"\tif (!STP_UOK(addr, n) || stp_probe_read_user(S->tmp, n & STP_MASK, (void *)addr) < 0)\n"
		"\t\treturn -1;\n"
		"\tif (out > STP_MAXSTR - 1)\n\t\tout = STP_MAXSTR - 1;\n"
		"\t*q = (struct stp_quote){ 0, n, 1, (out < 5 ? 5 : out) - 2, 0, 0, 0, 1 };\n"
		"\tstp_quote_run(S, dst);\n\treturn 0;\n}\n");
}

/* the flag decoders: one table stp_scf[] of those called (each decoder's
 * entries from its start, the size a power of two the index is masked
 * to); stp_scflags() appends the names of those val has, as
 * runtime/stp_scflags.h's stp_sc_flags(), an entry a bpf_loop() step
 * (its counters in S->scf: the verifier checks the step once);
 * stp_scd_I() is decoder I */
static bool scd_used(const struct bgen *g, size_t i)
{
	return g->scd_used[i / 64] & 1ULL << (i % 64);
}

/* the module runtime's cast of a decoder's value: -32 (long)(int) */
static const char *cast(int bits)
{
	return bits == 32 ? "unsigned int" : bits < 0 ? "long)(int" : "unsigned long";
}

static unsigned long table_mask(const struct scf *t)
{
	unsigned long m = 0;

	for (; t->name; t++)
		m |= t->val;
	return m;
}

static int table_len(const struct scf *t)
{
	int k = 0;

	while (t[k].name)
		k++;
	return k;
}

/* the decoders of kinds 'h', 'o', 'q', 'n', 'p', 'u' (their tables at start,
 * k entries; a second at start2, k2) */
static void emit_decoder2(struct strbuf *c, char kind, int start, int k, int start2, int k2)
{
	if (kind == 'h')	/* "MAP_HUGE_2MB|" of bits 26-31, then the flags */
		sb_printf(c, "\tunsigned long h = (f >> 26) & 0x3f;\n\n"
			  "\tif (h) {\n\t\tstp_putn(dst, &len, \"MAP_HUGE_\", 9);\n"
			  "\t\tstp_sfmt_long(dst, &len, 1L << (h %% 10), 'u', 0, 0, -1);\n"
			  "\t\tif (h >= 10)\n\t\t\tstp_put(dst, &len, h < 20 ? 'K' : h < 30 ? 'M' : "
			  "h < 40 ? 'G' : h < 50 ? 'T' : h < 60 ? 'P' : 'E');\n"
			  "\t\tif (h >= 10)\n\t\t\tstp_put(dst, &len, 'B');\n"
			  "\t\tstp_put(dst, &len, '|');\n\t}\n"
			  "\tstp_scflags(S, dst, &len, %d, %d, f & ~(0x3fUL << 26), 0);\n", start, k);
	else if (kind == 'o')	/* the class, then "|" and the low 13 bits */
		sb_printf(c, "\tstp_scflags(S, dst, &len, %d, %d, ((unsigned int)f >> 13) & 7, 1);\n"
			  "\tstp_put(dst, &len, '|');\n"
			  "\tstp_sfmt_long(dst, &len, f & 0x1fff, 'u', 0, 0, -1);\n", start, k);
	else if (kind == 'q')	/* the command, then its quota type */
		sb_printf(c, "\tstp_scflags(S, dst, &len, %d, %d, (unsigned int)f >> 8, 1);\n"
			  "\tif ((f & 0xff) < 2) {\n"
			  "\t\tstp_putn(dst, &len, f & 0xff ? \"|GRPQUOTA\" : \"|USRQUOTA\", 9);\n"
			  "\t} else {\n\t\tstp_put(dst, &len, '|');\n"
			  "\t\tstp_sfmt_long(dst, &len, f & 0xff, 'x', STP_F_ALT, 0, -1);\n\t}\n",
			  start, k);
	else if (kind == 'n')	/* the class, then "|" and the other flags */
		sb_printf(c, "\tunsigned int v = f;\n\n"
			  "\tstp_scflags(S, dst, &len, %d, %d, v & 0xc, 1);\n"
			  "\tif (v & ~0xcU) {\n\t\tstp_put(dst, &len, '|');\n"
			  "\t\tstp_scflags(S, dst, &len, %d, %d, v & ~0xcU, 0);\n\t}\n",
			  start, k, start2, k2);
	else if (kind == 'u')	/* FUTEX_WAKE_OP's: "{op, oparg, cmp, cmparg}" */
		sb_printf(c, "\tunsigned int e = f;\n\n\tstp_put(dst, &len, '{');\n"
			  "\tif (e & 0x80000000U)\n"
			  "\t\tstp_putn(dst, &len, \"FUTEX_OP_OPARG_SHIFT|\", 21);\n"
			  "\tstp_scflags(S, dst, &len, %d, %d, (e >> 28) & 7, 1);\n"
			  "\tstp_putn(dst, &len, \", \", 2);\n"
			  "\tstp_sfmt_long(dst, &len, (int)(e << 8) >> 20, 'd', 0, 0, -1);\n"
			  "\tstp_putn(dst, &len, \", \", 2);\n"
			  "\tstp_scflags(S, dst, &len, %d, %d, (e >> 24) & 15, 1);\n"
			  "\tstp_putn(dst, &len, \", \", 2);\n"
			  "\tstp_sfmt_long(dst, &len, (int)(e << 20) >> 20, 'd', 0, 0, -1);\n"
			  "\tstp_put(dst, &len, '}');\n", start, k, start2, k2);
	else	/* 'p': the mode's flags and "|", then the mode */
		sb_printf(c, "\tunsigned int v = f;\n\n"
			  "\tif (v != 0xffffffffU && (v & 0xe000)) {\n"
			  "\t\tstp_scflags(S, dst, &len, %d, %d, v & 0xe000, 1);\n"
			  "\t\tstp_put(dst, &len, '|');\n\t\tv &= ~0xe000U;\n\t}\n"
			  "\tstp_scflags(S, dst, &len, %d, %d, v, 1);\n", start2, k2, start, k);
}

static void emit_decoders(struct bgen *g, struct strbuf *c)
{
	int start[NDECODERS], n = 0, size = 1, sig = 0, nsig = 0;

	for (size_t i = 0; i < NDECODERS; i++)
		for (const struct scf *t = decoders[i].t; scd_used(g, i) && t->name; t++)
			n++;
	while (size < n)
		size *= 2;
	sb_printf(c, "#define STP_SCF_N %d\n"
		  "struct stp_scf { unsigned long val; long len; char name[32]; };\n"
		  "static const struct stp_scf stp_scf[STP_SCF_N] = {\n", size);
	n = 0;
	for (size_t i = 0; i < NDECODERS; i++) {
		if (decoders[i].t == signals && scd_used(g, i) && !nsig)
			for (sig = n; decoders[i].t[nsig].name; nsig++)
				;
		start[i] = n;
		for (const struct scf *t = decoders[i].t; scd_used(g, i) && t->name; t++, n++)
			sb_printf(c, "\t{ %#lx, %zu, \"%s\" },\n", t->val, strlen(t->name),
				  t->name);
	}
	sb_puts(c, "};\n"
		"struct stp_scfctx { struct stp_scratch *S; char *out; };\n"
		"static __always_inline void stp_scsep(char *dst, long *len)\n{\n"
		"\tchar e = *len > 0 ? dst[(*len - 1) & STP_MASK] : '|';\n\n"
		"\tif (e != '|' && e != ' ' && e != '[')\n\t\tstp_put(dst, len, '|');\n}\n"
		"static long stp_scf_step(__u32 i, struct stp_scfctx *c)\n{\n"
		"\tstruct stp_scratch *S = c->S;\n"
		"\tconst struct stp_scf *e = &stp_scf[(S->scf[2] + i) & (STP_SCF_N - 1)];\n"
		"\tlong len = S->scf[0];\n\n"
		"\tif (!(e->val & S->scf[1]))\n\t\treturn 0;\n"
		"\tstp_scsep(c->out, &len);\n\tstp_putn(c->out, &len, e->name, e->len & 31);\n"
		"\tS->scf[0] = len;\n\tS->scf[1] &= ~e->val;\n\treturn 0;\n}\n"
		"static long stp_scl_step(__u32 i, struct stp_scfctx *c)\n{\n"
		"\tstruct stp_scratch *S = c->S;\n"
		"\tconst struct stp_scf *e = &stp_scf[(S->scf[2] + i) & (STP_SCF_N - 1)];\n"
		"\tlong len = S->scf[0];\n\n"
		"\tif (e->val != S->scf[1])\n\t\treturn 0;\n"
		"\tstp_putn(c->out, &len, e->name, e->len & 31);\n"
		"\tS->scf[0] = len;\n\tS->scf[3] = 1;\n\treturn 1;\n}\n"
		"/* val's flags (lookup 0), or the name of the entry equal to val (1), as\n"
		" * stp_sc_flags() and stp_sc_lookup() */\n"
		"static __always_inline void stp_scflags(struct stp_scratch *S, char *dst, long *len, "
		"long start, long n, unsigned long val, int lookup)\n{\n"
		"\tstruct stp_scfctx c = { S, dst };\n\n"
		"\tif (!val && !lookup) {\n\t\tstp_putn(dst, len, \"0x0\", 3);\n\t\treturn;\n\t}\n"
		"\tS->scf[0] = *len;\n\tS->scf[1] = val;\n\tS->scf[2] = start;\n"
		"\tS->scf[3] = 0;\n"
		"\tbpf_loop(n, lookup ? (void *)stp_scl_step : (void *)stp_scf_step, &c, 0);\n"
		"\t*len = S->scf[0];\n"
		"\tif (lookup == 3)\n\t\treturn;\n"
		"\tif (lookup == 2 && !S->scf[3])\n"
		"\t\tstp_sfmt_long(dst, len, val, 'd', 0, 0, -1);\n"
		"\telse if (lookup && !S->scf[3])\n"
		"\t\tstp_sfmt_long(dst, len, val, 'x', STP_F_ALT, 0, -1);\n"
		"\telse if (!lookup && S->scf[1]) {\n\t\tstp_scsep(dst, len);\n"
		"\t\tstp_sfmt_long(dst, len, S->scf[1], 'x', STP_F_ALT, 0, -1);\n\t}\n}\n");
	for (size_t i = 0; i < NDECODERS; i++) {
		int k = 0;

		if (!scd_used(g, i))
			continue;
		while (decoders[i].t[k].name)
			k++;
		sb_printf(c, "static __always_inline void stp_scd_%zu(struct stp_scratch *S, "
			  "char *dst, long f)\n{\n\tlong len = 0;\n\n", i);
		if (!strcmp(decoders[i].fn, "_sys_open_flag_str"))	/* the access mode, then the rest */
			sb_printf(c, "\tif ((f & 3) == 1)\n\t\tstp_putn(dst, &len, \"O_WRONLY\", 8);\n"
				  "\telse if ((f & 3) == 2)\n\t\tstp_putn(dst, &len, \"O_RDWR\", 6);\n"
				  "\telse\n\t\tstp_putn(dst, &len, \"O_RDONLY\", 8);\n"
				  "\tf = (int)f & ~3;\n\tif (f) {\n\t\tstp_put(dst, &len, '|');\n"
				  "\t\tstp_scflags(S, dst, &len, %d, %d, (unsigned int)f, 0);\n\t}\n",
				  start[i], k);
		else if (decoders[i].zero)
			sb_printf(c, "\tif (!(%s)f)\n\t\tstp_putn(dst, &len, \"%s\", %zu);\n"
				  "\telse\n\t\tstp_scflags(S, dst, &len, %d, %d, (%s)f, 0);\n",
				  cast(decoders[i].bits),
				  decoders[i].zero, strlen(decoders[i].zero), start[i], k,
				  cast(decoders[i].bits));
		else if (decoders[i].kind == 's')	/* stp_sc_sigset_str() */
			sb_printf(c, "\tf &= %#lx;\n\tif (!f)\n\t\tstp_putn(dst, &len, \"[EMPTY]\", 7);\n"
				  "\telse {\n\t\tstp_put(dst, &len, '[');\n"
				  "\t\tstp_scflags(S, dst, &len, %d, %d, f, 0);\n"
				  "\t\tstp_put(dst, &len, ']');\n\t}\n", table_mask(decoders[i].t),
				  start[i], k);
		else if (decoders[i].kind == 'i' || decoders[i].kind == 'r')
			sb_printf(c, "\tif (%s(f & %#x)) {\n\t\tstp_putn(dst, &len, \"%s|\", %d);\n"
				  "\t\tf &= ~%#xL;\n\t}\n"
				  "\tstp_scflags(S, dst, &len, %d, %d, (unsigned int)f, 1);\n",
				  decoders[i].kind == 'r' ? "(int)f > 0 && " : "",
				  decoders[i].kind == 'r' ? 0x40000000 : 0x100,
				  decoders[i].kind == 'r' ? "SCHED_RESET_ON_FORK" : "IPC_64",
				  decoders[i].kind == 'r' ? 20 : 7,
				  decoders[i].kind == 'r' ? 0x40000000 : 0x100, start[i], k);
		else if (decoders[i].kind == 't')	/* the type found or not (lookup 3) */
			sb_printf(c, "\tunsigned int t = f & 0xf, rest = f & ~0xfU;\n\n"
				  "\tstp_scflags(S, dst, &len, %d, %d, t, 3);\n"
				  "\tif (!S->scf[3])\n\t\trest |= t;\n"
				  "\tif (rest & 0x80000) {\n\t\tif (len)\n\t\t\tstp_put(dst, &len, '|');\n"
				  "\t\tstp_putn(dst, &len, \"SOCK_CLOEXEC\", 12);\n\t\trest &= ~0x80000;\n\t}\n"
				  "\tif (rest & 0x800) {\n\t\tif (len)\n\t\t\tstp_put(dst, &len, '|');\n"
				  "\t\tstp_putn(dst, &len, \"SOCK_NONBLOCK\", 13);\n\t\trest &= ~0x800;\n\t}\n"
				  "\tif (rest || !len) {\n\t\tif (len)\n\t\t\tstp_put(dst, &len, '|');\n"
				  "\t\tstp_sfmt_long(dst, &len, rest, 'x', STP_F_ALT, 0, -1);\n\t}\n",
				  start[i], k);
		else if (decoders[i].kind == 'c')
			sb_printf(c, "\tstp_scflags(S, dst, &len, %d, %d, (unsigned long)f & ~0xffUL, 0);\n"
				  "\tif (f & 0xff) {\n\t\tstp_put(dst, &len, '|');\n"
				  "\t\tstp_scflags(S, dst, &len, %d, %d, f & 0xff, 1);\n\t}\n",
				  start[i], k, start[sig], nsig);
		else if (strchr("mMw", decoders[i].kind)) {
			unsigned long low = decoders[i].kind == 'w' ? 0x7fff : 0777;

			sb_printf(c, "\t%sstp_scflags(S, dst, &len, %d, %d, (%s)f & ~%#lxUL, 0);\n",
				  decoders[i].kind == 'm' ? "if (f & ~0777L)\n\t\t" : "", start[i], k,
				  cast(decoders[i].bits), low);
			if (decoders[i].kind == 'w')
				sb_puts(c, "\tif (f & 0x8000) {\n\t\tstp_put(dst, &len, '|');\n"
					"\t\tstp_sfmt_long(dst, &len, f & 0x7fff, 'd', 0, 0, -1);\n\t}\n");
			else
				sb_puts(c, "\tif (f & 0777) {\n\t\tif (len)\n\t\t\tstp_put(dst, &len, '|');\n"
					"\t\tstp_sfmt_long(dst, &len, f & 0777, 'o', STP_F_ALT, 0, -1);\n\t}\n");
		} else if (strchr("hoqnpu", decoders[i].kind)) {
			emit_decoder2(c, decoders[i].kind, start[i], k, start[i + 1 < NDECODERS ?
				      i + 1 : i], table_len(decoders[i + 1 < NDECODERS ? i + 1 : i].t));
		} else if (decoders[i].t == msg_flags)	/* 4.8 leaves MSG_CMSG_COMPAT out */
			sb_printf(c, "\tstp_scflags(S, dst, &len, %d, %d, (unsigned long)f & "
				  "~0x80000000UL, 0);\n", start[i], k);
		else
			sb_printf(c, "\tstp_scflags(S, dst, &len, %d, %d, (%s)f, %d);\n", start[i], k,
				  cast(decoders[i].bits),
				  decoders[i].kind == 'l' ? 1 : decoders[i].kind == 'd' ? 2 : 0);
		sb_puts(c, "\tstp_sfmt_end(dst, len);\n}\n");
	}
}

void bsc_types(struct bgen *g, struct strbuf *c)
{
	if (!g->need_sc)
		return;
	emit_args(c);
	emit_struct(c);
	emit_errno(c);
	if (g->need_quote)
		emit_bufq(c);
	if (g->scd_used[0] || g->scd_used[1])
		emit_decoders(g, c);
	bsc2_types(g, c);
}
