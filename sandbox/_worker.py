"""The worker process: isolate itself, load one box, answer calls over JSON lines.

Started by the parent as ``python -s -P -B -c <bootstrap>`` (see ``_process``);
never imported by the parent. Protocol (one JSON object per line):

* parent -> worker, first line: the init message (code, entry, limits, require);
  worker -> parent: ``{"ok": true, "layers": [...]}`` or
  ``{"ok": false, "kind": ..., "message": ...}`` and exit.
* then per call: ``{"a": [args]}`` -> ``{"v": value}`` or ``{"e": kind, "m": message}``;
  ``"r": 1`` in a reply asks the parent to retire this worker (CPU lifetime).
  A traced call ``{"a": [args], "t": [checkpoint, visit]}`` answers
  ``{"v": {"values": {...} | null, "visits": n}}`` (see ``sandbox._checkpoint``).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from sandbox import _protocol as proto
from sandbox._checkpoint import Tracer, make_hook
from sandbox._compile import compile_box
from sandbox._curated import (
    DEFAULT_RANDOM_SEED,
    CuratedModule,
    PolicyViolation,
    SeededRandom,
    build_modules,
    make_import_guard,
)
from sandbox._guards import WriteGuard, make_builtins, make_globals
from sandbox._isolation import (
    CpuBudget,
    apply_rlimits,
    drop_privileges,
    set_no_new_privs,
    unshare_network,
)
from sandbox._seccomp import SeccompFilter

# Test-only switches, settable solely through the init message the parent sends.
HOOK_UNRESTRICTED = "unrestricted"
HOOK_NO_SECCOMP = "no_seccomp"
HOOK_NO_UID_DROP = "no_uid_drop"
HOOK_NO_NETNS = "no_netns"


class _Channel:
    """Line I/O on the protocol pipes; fd 1 and 2 are pointed at /dev/null."""

    def __init__(self) -> None:
        self._in: BinaryIO = os.fdopen(os.dup(0), "rb")
        self._out_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)

    def read(self) -> bytes:
        return self._in.readline()

    def write(self, data: bytes) -> None:
        written = os.write(self._out_fd, data)
        if written < len(data):  # a reply larger than the pipe's buffer
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(self._out_fd, view) :]

    def send(self, obj: Any) -> None:
        self.write(proto.dumps(obj) + b"\n")


class _Box:
    """The loaded box: its globals, entry point and per-call policy state."""

    def __init__(self, init: dict[str, Any]) -> None:
        limits = init["limits"]
        self.output_bytes = int(limits["output_bytes"])
        self.max_recursion = int(limits["max_recursion"])
        self.budget = CpuBudget(float(limits["cpu_seconds"]), int(limits["cpu_lifetime_seconds"]))
        self.seed = int(init.get("seed", DEFAULT_RANDOM_SEED))
        self.rng = SeededRandom(self.seed)
        self.tracer = Tracer(int(limits["max_trace_visits"]), self.output_bytes)
        self.checkpoint = make_hook(self.tracer)
        self.imported: set[str] = set()
        self.entry: Callable[..., Any] | None = None
        # Set by a MemoryError: the heap may still be full, so the worker retires
        # rather than fail the next call at a random point (a "crash").
        self.exhausted = False
        self._soft = 0

    def make_restricted_globals(self) -> dict[str, Any]:
        modules = build_modules(self.rng)
        guard = make_import_guard(modules)

        def recording_import(name: str, *args: Any, **kwargs: Any) -> CuratedModule:
            module = guard(name, *args, **kwargs)
            self.imported.add(name)
            return module

        write_guard = WriteGuard()
        builtins = make_builtins(write_guard, modules)
        builtins["__import__"] = recording_import
        builtins["checkpoint"] = self.checkpoint
        return make_globals(builtins, write_guard)

    def arm(self) -> None:
        self._soft = self.budget.arm(self._soft)

    def call(self, args: list[Any], trace: list[int] | None = None) -> bytes:
        if "random" in self.imported:
            # Same input, same output, whatever the call order.
            self.rng.seed(self.seed)
        entry = self.entry
        if entry is None:  # pragma: no cover - guarded by the start-up sequence
            return self._error(proto.KIND_CRASH, "box not loaded")
        tracer = self.tracer
        if trace is None:
            tracer.reset()
        else:
            tracer.reset(int(trace[0]), int(trace[1]))
        self.arm()
        try:
            try:
                value = entry(*args)
            except MemoryError:
                self.exhausted = True
                return self._error(proto.KIND_MEMORY, "memory limit exceeded")
            except BaseException as exc:  # SystemExit & co. must not end the loop
                if tracer.stopped:
                    # The box swallowed the stop or raised after it: what was recorded wins.
                    return self._traced()
                if isinstance(exc, PolicyViolation):
                    return self._error(proto.KIND_POLICY, proto.exception_message(exc))
                return self._error(proto.KIND_EXCEPTION, proto.exception_message(exc))
            if tracer.stopped:
                return self._traced()
            if trace is not None:
                # Not reached: the program's own return value does not matter here.
                return b'{"v":{"values":null,"visits":%d}}' % tracer.visits
            try:
                payload = proto.dumps_value(value)
            except MemoryError:
                self.exhausted = True
                return self._error(proto.KIND_MEMORY, "memory limit exceeded")
            except BaseException as exc:
                return self._error(
                    proto.KIND_INVALID_OUTPUT,
                    f"result is not valid JSON: {proto.exception_message(exc)}",
                )
        finally:
            self.budget.disarm()
        if len(payload) > self.output_bytes:
            return self._error(
                proto.KIND_INVALID_OUTPUT,
                f"result exceeds the output limit of {self.output_bytes} bytes",
            )
        problem = proto.result_problem(payload)
        if problem is not None:
            return self._error(proto.KIND_INVALID_OUTPUT, problem)
        return b'{"v":' + payload + b"}"

    def _traced(self) -> bytes:
        """The reply of a call whose checkpoint hook captured values or recorded a fault."""
        tracer = self.tracer
        if tracer.fault is not None:
            if tracer.exhausted:
                self.exhausted = True
            return tracer.fault
        if tracer.captured is None:  # pragma: no cover - stopped implies one of the two
            return self._error(proto.KIND_CRASH, "checkpoint state lost")
        return b'{"v":{"values":%s,"visits":%d}}' % (tracer.captured, tracer.visit)

    @staticmethod
    def _error(kind: str, message: str) -> bytes:
        return proto.dumps({"e": kind, "m": message})


# Imported before the uid drop: the stdlib may live where nobody cannot read
# (e.g. under /root), and str.encode/decode look codecs up lazily.
_PRELOAD = [
    "encodings.ascii",
    "encodings.cp1252",
    "encodings.idna",
    "encodings.latin_1",
    "encodings.punycode",
    "encodings.raw_unicode_escape",
    "encodings.unicode_escape",
    "encodings.utf_16",
    "encodings.utf_16_be",
    "encodings.utf_16_le",
    "encodings.utf_32",
    "encodings.utf_32_be",
    "encodings.utf_32_le",
    "encodings.utf_7",
    "encodings.utf_8",
    "encodings.utf_8_sig",
]
# What the test-only unrestricted probes use.
_PRELOAD_UNRESTRICTED = ["ctypes", "errno", "socket", "subprocess", "time"]


def _preload(hooks: frozenset[str]) -> None:
    names = _PRELOAD + (_PRELOAD_UNRESTRICTED if HOOK_UNRESTRICTED in hooks else [])
    for name in names:
        importlib.import_module(name)


def _setup_layers(init: dict[str, Any], hooks: frozenset[str]) -> set[str]:
    _preload(hooks)
    seccomp = None if HOOK_NO_SECCOMP in hooks else SeccompFilter()
    layers = {proto.LAYER_PROCESS}
    if HOOK_NO_NETNS not in hooks and unshare_network():
        layers.add(proto.LAYER_NETNS)
    if set_no_new_privs():
        layers.add(proto.LAYER_NO_NEW_PRIVS)
    if os.geteuid() != 0:
        layers.add(proto.LAYER_UNPRIVILEGED)
    elif HOOK_NO_UID_DROP not in hooks and drop_privileges():
        layers.add(proto.LAYER_UID_DROP)
    if seccomp is not None and seccomp.install():
        layers.add(proto.LAYER_SECCOMP)
    limits = init["limits"]
    CpuBudget(float(limits["cpu_seconds"]), int(limits["cpu_lifetime_seconds"])).install()
    if apply_rlimits(int(limits["memory_mb"])):
        layers.add(proto.LAYER_RLIMITS)
    if HOOK_UNRESTRICTED not in hooks:
        layers.add(proto.LAYER_RESTRICTED)
    return layers


def _checkpoint_refusal(fault: bytes) -> dict[str, Any]:
    """A checkpoint misuse or visit overrun while the module loads: the code is unusable
    (even if the box swallowed the error)."""
    return {"ok": False, "kind": proto.KIND_COMPILE, "message": proto.loads(fault)["m"]}


def _load(box: _Box, init: dict[str, Any], hooks: frozenset[str]) -> dict[str, Any]:
    """Compile and exec the module once; returns the reply for the parent."""
    source = init["code"]
    box_globals: dict[str, Any]
    if HOOK_UNRESTRICTED in hooks:
        code = compile(source, "<blackbox>", "exec")
        box_globals = {"__name__": "blackbox_module", "checkpoint": box.checkpoint}
    else:
        compiled = compile_box(source)
        if compiled.code is None:
            return {"ok": False, "kind": proto.KIND_COMPILE, "message": "\n".join(compiled.errors)}
        code = compiled.code
        box_globals = box.make_restricted_globals()
    # Room for the worker's own frames on top of the box's budget.
    sys.setrecursionlimit(box.max_recursion + 50)
    box.arm()
    try:
        try:
            exec(code, box_globals)  # noqa: S102 - the worker's purpose; code is restricted
        except MemoryError:
            return {"ok": False, "kind": proto.KIND_MEMORY, "message": "memory limit exceeded"}
        except BaseException as exc:
            if box.tracer.fault is not None:
                return _checkpoint_refusal(box.tracer.fault)
            if isinstance(exc, PolicyViolation):
                # A module-level import or access the policy refuses: the code is unusable.
                return {
                    "ok": False,
                    "kind": proto.KIND_COMPILE,
                    "message": proto.exception_message(exc),
                }
            return {
                "ok": False,
                "kind": proto.KIND_EXCEPTION,
                "message": proto.exception_message(exc),
            }
        if box.tracer.fault is not None:
            return _checkpoint_refusal(box.tracer.fault)
    finally:
        box.budget.disarm()
    entry_name = init["entry"]
    entry = box_globals.get(entry_name)
    if not callable(entry):
        return {
            "ok": False,
            "kind": proto.KIND_COMPILE,
            "message": f"the code defines no callable {entry_name!r}",
        }
    box.entry = entry
    return {"ok": True}


def main() -> None:
    channel = _Channel()
    init = proto.loads(channel.read())
    hooks = frozenset(init.get("hooks", ()))
    box = _Box(init)
    layers = _setup_layers(init, hooks)
    missing = sorted(set(init.get("require", ())) - layers)
    for group in init.get("require_any", ()):
        if not layers.intersection(group):
            missing.append(" or ".join(sorted(group)))
    if missing:
        channel.send(
            {
                "ok": False,
                "kind": proto.KIND_ISOLATION,
                "message": f"isolation layers unavailable: {', '.join(missing)}",
                "layers": sorted(layers),
            }
        )
        return
    if init.get("probe"):
        channel.send({"ok": True, "layers": sorted(layers)})
        return
    reply = _load(box, init, hooks)
    reply["layers"] = sorted(layers)
    channel.send(reply)
    if not reply["ok"]:
        return
    while True:
        line = channel.read()
        if not line:
            return
        request = proto.loads(line)
        out = box.call(request["a"], request.get("t"))
        retire = box.exhausted or box.budget.near_lifetime_end()
        if retire:
            out = out[:-1] + b',"r":1}'
        channel.write(out + b"\n")
        if retire:
            return
