"""Process-level isolation applied inside the worker before any box code runs.

Each function returns whether its layer is now active; none raises for an
unavailable layer (the caller decides whether that is fatal: fail closed).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import math
import os
import resource
import signal
import time
from dataclasses import dataclass

logger = logging.getLogger(__name__)

NOBODY_UID = 65534
NOBODY_GID = 65534
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000
_NOFILE = 32
# Seconds of CPU slack above the per-call itimer before RLIMIT_CPU (the backstop) fires.
_CPU_BACKSTOP_SLACK = 3


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def unshare_network() -> bool:
    """A fresh, empty network namespace (no interfaces up): sockets cannot reach anything."""
    libc = _libc()
    flags = _CLONE_NEWNET if os.geteuid() == 0 else _CLONE_NEWUSER | _CLONE_NEWNET
    if libc.unshare(flags) != 0:
        logger.debug("unshare(netns) failed: errno %d", ctypes.get_errno())
        return False
    return True


def set_no_new_privs() -> bool:
    libc = _libc()
    return bool(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)


def drop_privileges() -> bool:
    """Root only: become nobody/nogroup with no supplementary groups."""
    if os.geteuid() != 0:
        return False
    os.setgroups([])
    os.setgid(NOBODY_GID)
    os.setuid(NOBODY_UID)
    return os.getuid() == NOBODY_UID and os.geteuid() == NOBODY_UID


@dataclass(frozen=True)
class CpuBudget:
    """Per-call CPU budget (ITIMER_PROF, SIGPROF kills) plus an RLIMIT_CPU backstop."""

    per_call: float
    lifetime: int

    def install(self) -> None:
        # Default dispositions terminate the process: uncatchable by box code and
        # effective even inside a long C call such as 9**9**9.
        signal.signal(signal.SIGPROF, signal.SIG_DFL)
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CPU, (self.lifetime, self.lifetime))

    def near_lifetime_end(self) -> bool:
        return time.process_time() + self.per_call + _CPU_BACKSTOP_SLACK >= self.lifetime

    def arm(self, soft_now: int) -> int:
        """Start the call's budget; returns the RLIMIT_CPU soft limit in force."""
        used = time.process_time()
        if used + self.per_call + 1 > soft_now:
            soft_now = min(math.ceil(used + self.per_call) + _CPU_BACKSTOP_SLACK, self.lifetime)
            resource.setrlimit(resource.RLIMIT_CPU, (soft_now, self.lifetime))
        signal.setitimer(signal.ITIMER_PROF, self.per_call)
        return soft_now

    @staticmethod
    def disarm() -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)


def apply_rlimits(memory_mb: int) -> bool:
    """Address space, no file growth, no new processes, no core files, few fds."""
    limits = (
        (resource.RLIMIT_AS, memory_mb * 1024 * 1024),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_NPROC, 0),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, _NOFILE),
    )
    for which, value in limits:
        resource.setrlimit(which, (value, value))
    return True
