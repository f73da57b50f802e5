"""A deny-list seccomp filter over the system libseccomp (ctypes, no extra deps).

Denied syscalls fail with EPERM: process creation and exec, sockets, writes to
the file system (open/openat with write or create flags, and every call that
changes a path), signals to other processes, and kernel-level escape hatches
(ptrace, mount, namespaces, bpf, io_uring, ...). Reading files and writing to
already-open descriptors (the worker's stdout pipe) stay allowed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os

logger = logging.getLogger(__name__)

_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_CMP_NE = 1
_SCMP_CMP_MASKED_EQ = 7


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0x0000FFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


DENIED_SYSCALLS: tuple[str, ...] = tuple(
    [
        "fork",
        "vfork",
        "clone",
        "clone3",
        "execve",
        "execveat",
        "socket",
        "socketpair",
        "connect",
        "bind",
        "listen",
        "accept",
        "accept4",
        "creat",
        "mkdir",
        "mkdirat",
        "rmdir",
        "unlink",
        "unlinkat",
        "rename",
        "renameat",
        "renameat2",
        "link",
        "linkat",
        "symlink",
        "symlinkat",
        "chmod",
        "fchmod",
        "fchmodat",
        "chown",
        "fchown",
        "lchown",
        "fchownat",
        "truncate",
        "ftruncate",
        "mknod",
        "mknodat",
        "utime",
        "utimes",
        "utimensat",
        "futimesat",
        "setxattr",
        "lsetxattr",
        "fsetxattr",
        "removexattr",
        "lremovexattr",
        "fremovexattr",
        "openat2",
        "open_by_handle_at",
        "name_to_handle_at",
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "unshare",
        "setns",
        "bpf",
        "perf_event_open",
        "keyctl",
        "add_key",
        "request_key",
        "init_module",
        "finit_module",
        "delete_module",
        "kexec_load",
        "kexec_file_load",
        "reboot",
        "swapon",
        "swapoff",
        "acct",
        "quotactl",
        "syslog",
        "sethostname",
        "setdomainname",
        "iopl",
        "ioperm",
        "kcmp",
        "fanotify_init",
        "userfaultfd",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "pidfd_open",
        "pidfd_send_signal",
        "pidfd_getfd",
        "rt_sigqueueinfo",
        "rt_tgsigqueueinfo",
        "setpgid",
        "setsid",
        "shmget",
        "shmat",
        "semget",
        "msgget",
        "mq_open",
        "fsopen",
        "fsmount",
        "move_mount",
        "open_tree",
        "fspick",
        "mount_setattr",
    ]
)

# (syscall, index of its flags argument) for the open family.
_OPEN_FLAG_ARG = (("open", 1), ("openat", 2))
_WRITE_FLAGS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC)
# (syscall, index of the pid argument): allowed only when aimed at ourselves.
_SIGNAL_PID_ARG = (("kill", 0), ("tkill", 0), ("tgkill", 0))


def _load_library() -> ctypes.CDLL | None:
    path = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(path, use_errno=True)
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.restype = ctypes.c_int
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.restype = None
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


class SeccompFilter:
    """Holds the loaded library; ``install`` builds and loads the filter once."""

    def __init__(self) -> None:
        # Loaded early: dlopen needs file access and memory that later layers restrict.
        self._lib = _load_library()

    @property
    def available(self) -> bool:
        return self._lib is not None

    def install(self) -> bool:
        lib = self._lib
        if lib is None:
            return False
        ctx = lib.seccomp_init(_SCMP_ACT_ALLOW)
        if not ctx:
            return False
        try:
            self._add_rules(lib, ctx)
            return bool(lib.seccomp_load(ctx) == 0)
        except OSError as exc:
            logger.debug("seccomp rule failed: %s", exc)
            return False
        finally:
            lib.seccomp_release(ctx)

    @staticmethod
    def _add_rules(lib: ctypes.CDLL, ctx: int) -> None:
        deny = _act_errno(errno.EPERM)

        def add(name: str, *cmps: _ArgCmp) -> None:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:  # not a syscall on this architecture
                return
            array = (_ArgCmp * len(cmps))(*cmps) if cmps else None
            rc = lib.seccomp_rule_add_array(ctx, deny, number, len(cmps), array)
            if rc != 0:
                raise OSError(-rc, f"seccomp_rule_add({name})")

        for name in DENIED_SYSCALLS:
            add(name)
        for name, arg in _OPEN_FLAG_ARG:
            for flag in _WRITE_FLAGS:
                add(name, _ArgCmp(arg, _SCMP_CMP_MASKED_EQ, flag, flag))
        pid = os.getpid()
        for name, arg in _SIGNAL_PID_ARG:
            add(name, _ArgCmp(arg, _SCMP_CMP_NE, pid, 0))
