"""The attack corpus: every escape attempt gets an exact, typed outcome, the host is
untouched, and the same worker (or its transparent restart) then answers normally.

Each runtime case is wrapped as ``attack()`` inside a box whose ``blackbox("attack")``
runs it and whose ``blackbox(n)`` doubles ``n``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from oracle_bench.errors import SandboxCompileError
from sandbox import CallError, ErrorKind, SandboxLimits, SandboxWorker

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=3.0)
# Filling the address space costs page faults (CPU time): a smaller space, more CPU.
MEM = SandboxLimits(cpu_seconds=2, wall_seconds=4.0, memory_mb=256)
COMPILE = "compile"


@dataclass(frozen=True)
class Attack:
    id: str
    body: str  # body of attack(); SENTINEL is replaced by the sentinel path
    outcome: ErrorKind | str  # an ErrorKind, or COMPILE for a refusal at load time
    message: str | None  # exact CallError message / substring of the compile error
    prelude: str = ""  # module-level code before attack()
    limits: SandboxLimits = FAST


def _policy(attr: str) -> str:
    return f"ForbiddenAccess: access to attribute {attr!r} is not allowed in a black box"


NOT_JSON = "result is not valid JSON: "
CHECKPOINT_INDEX = "CheckpointError: checkpoint index must be an int in 1..64, got "
CHECKPOINT_USAGE = (
    "CheckpointError: checkpoint() takes one positional argument, the index; "
    "pass values by keyword, e.g. checkpoint(1, i=i)"
)

CORPUS = [
    # --- class / subclass walking ------------------------------------------------
    Attack(
        "subclasses-literal",
        "return ().__class__.__bases__[0].__subclasses__()",
        COMPILE,
        '"__class__" is an invalid attribute name',
    ),
    Attack(
        "subclasses-getattr-string",
        "return getattr((), '__class__')",
        ErrorKind.POLICY,
        _policy("__class__"),
    ),
    Attack(
        "subclasses-getattr-concat",
        "n = '__sub' + 'classes__'\nreturn getattr(object, n)()",
        ErrorKind.POLICY,
        _policy("__subclasses__"),
    ),
    Attack(
        "type-of-class",
        "return type(type(1))('X', (), {})",
        ErrorKind.POLICY,
        "ForbiddenAccess: type() of a class is not available in a black box",
    ),
    Attack(
        "type-mro-object",
        "return type(()).mro()[1]",
        ErrorKind.POLICY,
        _policy("mro"),  # mro() reached OS-seeded random classes (see test_redteam)
    ),
    Attack(
        "hasattr-dunder",
        "if hasattr(1, '__class__'):\n    return 'leak'\nraise ValueError('denied')",
        ErrorKind.EXCEPTION,
        "ValueError: denied",
    ),
    Attack(
        "metaclass-keyword",
        "class A(metaclass=type):\n    pass\nreturn 1",
        COMPILE,
        'The keyword argument "metaclass" is not allowed',
    ),
    Attack(
        "setattr-dunder",
        "class A:\n    pass\nsetattr(A(), '__class__', int)\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: setting attribute '__class__' is not allowed in a black box",
    ),
    # --- frames, generators, tracebacks ------------------------------------------
    Attack(
        "gi-frame-literal",
        "g = (x for x in [1])\nreturn g.gi_frame.f_globals",
        COMPILE,
        '"gi_frame" is a restricted name',
    ),
    Attack(
        "gi-frame-getattr",
        "g = (x for x in [1])\nreturn getattr(g, 'gi_frame')",
        ErrorKind.POLICY,
        _policy("gi_frame"),
    ),
    Attack(
        "gi-code-getattr",
        "g = (x for x in [1])\nreturn getattr(g, 'gi_code')",
        ErrorKind.POLICY,
        _policy("gi_code"),
    ),
    Attack(
        "f-back-via-tb",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n"
        "    return getattr(getattr(e, '__traceback__'), 'tb_frame')",
        ErrorKind.POLICY,
        _policy("__traceback__"),
    ),
    Attack(
        "tb-frame-literal",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n"
        "    return e.__traceback__.tb_frame.f_back",
        COMPILE,
        '"__traceback__" is an invalid attribute name',
    ),
    # --- format-string attribute access ---------------------------------------------
    Attack(
        "str-format",
        "return '{0.__class__}'.format(1)",
        ErrorKind.POLICY,
        "ForbiddenAccess: str.format and str.format_map are not allowed; use f-strings",
    ),
    Attack(
        "str-format-map",
        "return '{0.gi_frame}'.format_map({'0': 1})",
        ErrorKind.POLICY,
        "ForbiddenAccess: str.format and str.format_map are not allowed; use f-strings",
    ),
    Attack(
        "str-type-format",
        "return getattr(str, 'format')('{0.__class__}', 1)",
        ErrorKind.POLICY,
        "ForbiddenAccess: str.format and str.format_map are not allowed; use f-strings",
    ),
    Attack(
        "string-formatter",
        "import string\nreturn string.Formatter().format('{0}', 1)",
        ErrorKind.POLICY,
        "ForbiddenAccess: module 'string' has no attribute 'Formatter' in the sandbox",
    ),
    # --- guard shadowing (CVE-2026-55830) and except* (CVE-2025-22153) ------------
    Attack(
        "posonly-getattr",
        "def f(_getattr_, /):\n    return 1\nreturn f(getattr)",
        COMPILE,
        '"_getattr_" is an invalid variable name',
    ),
    Attack(
        "posonly-lambda",
        "return (lambda _getiter_, /: 1)(iter)",
        COMPILE,
        '"_getiter_" is an invalid variable name',
    ),
    Attack(
        "kwonly-write",
        "def f(*, _write_=None):\n    return 1\nreturn f()",
        COMPILE,
        '"_write_" is an invalid variable name',
    ),
    Attack(
        "except-star",
        "try:\n    pass\nexcept* ValueError:\n    pass\nreturn 1",
        COMPILE,
        "TryStar statements are not allowed",
    ),
    # --- imports in every spelling ----------------------------------------------------
    Attack(
        "import-os",
        "import os\nreturn os.getcwd()",
        COMPILE,
        "import of module 'os' is not allowed",
    ),
    Attack(
        "import-os-path",
        "import os.path\nreturn 1",
        COMPILE,
        "import of module 'os.path' is not allowed",
    ),
    Attack(
        "from-os-import",
        "from os import path\nreturn 1",
        COMPILE,
        "import of module 'os' is not allowed",
    ),
    Attack(
        "from-os-system",
        "from os import system\nreturn system('id')",
        COMPILE,
        "import of module 'os' is not allowed",
    ),
    Attack(
        "import-star",
        "return 1",
        COMPILE,
        '"*" imports are not allowed',
        prelude="from math import *\n",
    ),
    Attack(
        "dunder-import",
        "return __import__('os')",
        COMPILE,
        '"__import__" is an invalid variable name',
    ),
    Attack(
        "importlib",
        "import importlib\nreturn 1",
        COMPILE,
        "import of module 'importlib' is not allowed",
    ),
    Attack(
        "relative-import", "from . import x\nreturn 1", COMPILE, "relative imports are not allowed"
    ),
    Attack(
        "dotted-allowed",
        "import math.os\nreturn 1",
        COMPILE,
        "import of module 'math.os' is not allowed",
    ),
    Attack(
        "statistics-sys",
        "import statistics\nreturn str(statistics.sys)",
        ErrorKind.POLICY,
        "ForbiddenAccess: module 'statistics' has no attribute 'sys' in the sandbox",
    ),
    Attack(
        "from-fractions-operator",
        "from fractions import operator\nreturn 1",
        COMPILE,
        "cannot import 'operator' from 'fractions'",
    ),
    Attack(
        "re-enum",
        "import re\nreturn str(re.enum)",
        ErrorKind.POLICY,
        "ForbiddenAccess: module 're' has no attribute 'enum' in the sandbox",
    ),
    Attack(
        "collections-abc",
        "import collections\nreturn str(collections.abc)",
        ErrorKind.POLICY,
        "ForbiddenAccess: module 'collections' has no attribute 'abc' in the sandbox",
    ),
    Attack(
        "operator-attrgetter",
        "import operator\nreturn operator.attrgetter('__class__')(1)",
        ErrorKind.POLICY,
        "ForbiddenAccess: module 'operator' has no attribute 'attrgetter' in the sandbox",
    ),
    Attack(
        "functools-wraps",
        "from functools import wraps\nreturn 1",
        COMPILE,
        "cannot import 'wraps' from 'functools'",
    ),
    Attack(
        "builtins-module", "import builtins\nreturn 1", COMPILE, '"builtins" is a reserved name'
    ),
    Attack("import-sys", "import sys\nreturn 1", COMPILE, "import of module 'sys' is not allowed"),
    # --- builtins tampering and forbidden builtins ----------------------------------
    Attack(
        "builtins-subscript",
        "return __builtins__['open']",
        COMPILE,
        '"__builtins__" is an invalid variable name',
    ),
    Attack(
        "assign-guard",
        "global _getattr_\n_getattr_ = None\nreturn 1",
        COMPILE,
        '"_getattr_" is an invalid variable name',
    ),
    Attack(
        "del-guard", "del _getiter_\nreturn 1", COMPILE, '"_getiter_" is an invalid variable name'
    ),
    Attack(
        "open-write",
        "open('SENTINEL', 'w').write('x')\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: open() is not available in a black box",
    ),
    Attack("eval", "return eval('1')", COMPILE, "Eval calls are not allowed"),
    Attack("exec", "exec('x = 1')\nreturn 1", COMPILE, "Exec calls are not allowed"),
    Attack(
        "compile",
        "return compile('1', 'f', 'eval')",
        ErrorKind.POLICY,
        "ForbiddenAccess: compile() is not available in a black box",
    ),
    Attack(
        "globals",
        "return globals()",
        ErrorKind.POLICY,
        "ForbiddenAccess: globals() is not available in a black box",
    ),
    Attack(
        "vars",
        "return vars()",
        ErrorKind.POLICY,
        "ForbiddenAccess: vars() is not available in a black box",
    ),
    Attack(
        "dir",
        "return dir()",
        ErrorKind.POLICY,
        "ForbiddenAccess: dir() is not available in a black box",
    ),
    Attack(
        "write-curated-module",
        "import math\nmath.pi = 3\nreturn math.pi",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type 'CuratedModule' are read-only in a black box",
    ),
    Attack(
        "write-builtin-type",
        "setattr(list, 'append', None)\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type '_TypeProxy' are read-only in a black box",
    ),
    # --- CVE-2024-47532: AttributeError.obj -------------------------------------------
    Attack(
        "attributeerror-obj",
        "import string\ntry:\n    string.nope\nexcept AttributeError as e:\n    return str(e.obj)",
        ErrorKind.POLICY,
        "ForbiddenAccess: access to attribute 'obj' of exceptions is not allowed",
    ),
    # --- CPU, memory, recursion ---------------------------------------------------------
    Attack("infinite-loop", "while True:\n    pass", ErrorKind.TIMEOUT, "time limit exceeded"),
    Attack("power-tower", "return 9**9**9", ErrorKind.TIMEOUT, "time limit exceeded"),
    Attack(
        "catch-baseexception-loop",
        "while True:\n    try:\n        while True:\n"
        "            pass\n    except BaseException:\n        pass",
        ErrorKind.TIMEOUT,
        "time limit exceeded",
    ),
    Attack(
        "regex-backtracking",
        "import re\nreturn bool(re.match('(a+)+$', 'a' * 40 + 'b'))",
        ErrorKind.TIMEOUT,
        "time limit exceeded",
    ),
    Attack(
        "list-bomb",
        "return len([0] * 10**10)",
        ErrorKind.MEMORY,
        "memory limit exceeded",
        limits=MEM,
    ),
    Attack(
        "str-bomb",
        "return len('x' * 10**10)",
        ErrorKind.MEMORY,
        "memory limit exceeded",
        limits=MEM,
    ),
    Attack(
        "growing-list",
        "a = []\nwhile True:\n    a.append('x' * 10**7)",
        ErrorKind.MEMORY,
        "memory limit exceeded",
        limits=MEM,
    ),
    Attack(
        "recursion-bomb",
        "return f()",
        ErrorKind.EXCEPTION,
        "RecursionError: maximum recursion depth exceeded",
        prelude="def f():\n    return f()\n",
    ),
    Attack(
        "deep-nested-result",
        "x = []\nfor i in range(100000):\n    x = [x]\nreturn x",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + "RecursionError: maximum recursion depth exceeded while encoding a JSON object",
    ),
    # --- exits ---------------------------------------------------------------------------
    Attack("raise-systemexit", "raise SystemExit(3)", ErrorKind.EXCEPTION, "SystemExit: 3"),
    Attack(
        "raise-keyboardinterrupt",
        "raise KeyboardInterrupt",
        ErrorKind.EXCEPTION,
        "KeyboardInterrupt",
    ),
    Attack(
        "exit-builtin",
        "exit(0)",
        ErrorKind.POLICY,
        "ForbiddenAccess: exit() is not available in a black box",
    ),
    # --- outputs -------------------------------------------------------------------------
    Attack(
        "huge-output",
        "return 'x' * (2 << 20)",
        ErrorKind.INVALID_OUTPUT,
        "result exceeds the output limit of 1048576 bytes",
    ),
    Attack(
        "return-function",
        "return attack",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + "TypeError: Object of type function is not JSON serializable",
    ),
    Attack(
        "return-set",
        "return {1, 2}",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + "TypeError: Object of type set is not JSON serializable",
    ),
    Attack(
        "return-nan",
        "return float('nan')",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + "ValueError: Out of range float values are not JSON compliant",
    ),
    Attack(
        "return-self-referencing-list",
        "a = []\na.append(a)\nreturn a",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + "ValueError: Circular reference detected",
    ),
    Attack(
        "return-huge-int",
        "return 10**5000",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + "ValueError: Exceeds the limit (4300 digits) for integer string "
        "conversion; use sys.set_int_max_str_digits() to increase the limit",
    ),
    # --- processes, sockets, files through the restricted layer ------------------------
    Attack(
        "subprocess",
        "import subprocess\nreturn 1",
        COMPILE,
        "import of module 'subprocess' is not allowed",
    ),
    Attack(
        "socket", "import socket\nreturn 1", COMPILE, "import of module 'socket' is not allowed"
    ),
    Attack(
        "ctypes", "import ctypes\nreturn 1", COMPILE, "import of module 'ctypes' is not allowed"
    ),
    # --- the checkpoint hook (CII boxes), without a trace request -------------------------
    # (traced attacks, whose outcome needs a TraceRequest: tests/sandbox/test_checkpoint_hook.py)
    Attack(
        "checkpoint-flood",
        "for i in range(10**6):\n    checkpoint(1, i=i)\nreturn 1",
        ErrorKind.TRACE_LIMIT,
        "checkpoint visits exceed the limit of 100000",
    ),
    Attack(
        "checkpoint-flood-swallowed",
        "for i in range(200000):\n    try:\n        checkpoint(i % 64 + 1)\n"
        "    except BaseException:\n        pass\nreturn 1",
        ErrorKind.TRACE_LIMIT,
        "checkpoint visits exceed the limit of 100000",
    ),
    Attack(
        "checkpoint-flood-swallowed-forever",
        "while True:\n    try:\n        checkpoint(1)\n    except BaseException:\n        pass",
        ErrorKind.TIMEOUT,
        "time limit exceeded",
    ),
    Attack(
        "checkpoint-index-bool",
        "checkpoint(True, x=1)\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_INDEX + "bool",
    ),
    Attack(
        "checkpoint-index-str",
        "checkpoint('1', x=1)\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_INDEX + "str",
    ),
    Attack(
        "checkpoint-index-float",
        "checkpoint(1.0)\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_INDEX + "float",
    ),
    Attack(
        "checkpoint-index-int-subclass",
        "class I(int):\n    pass\ncheckpoint(I(1))\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_INDEX + "I",
    ),
    Attack(
        "checkpoint-index-zero", "checkpoint(0)\nreturn 1", ErrorKind.POLICY, CHECKPOINT_INDEX + "0"
    ),
    Attack(
        "checkpoint-index-65", "checkpoint(65)\nreturn 1", ErrorKind.POLICY, CHECKPOINT_INDEX + "65"
    ),
    Attack(
        "checkpoint-index-huge",
        "checkpoint(-10**100)\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_INDEX + "an int of 333 bits",
    ),
    Attack(
        "checkpoint-positional-values",
        "checkpoint(1, 2)\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_USAGE,
    ),
    Attack("checkpoint-no-index", "checkpoint()\nreturn 1", ErrorKind.POLICY, CHECKPOINT_USAGE),
    Attack(
        "checkpoint-index-keyword",
        "checkpoint(index=1)\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_USAGE,
    ),
    Attack(
        "checkpoint-misuse-swallowed",
        "try:\n    checkpoint('x')\nexcept Exception:\n    pass\nreturn 1",
        ErrorKind.POLICY,
        CHECKPOINT_INDEX + "str",
    ),
    Attack(
        "checkpoint-misuse-then-raise",
        "try:\n    checkpoint(1, 2)\nexcept Exception:\n    pass\nreturn 1 / 0",
        ErrorKind.POLICY,
        CHECKPOINT_USAGE,
    ),
    Attack(
        "checkpoint-module-level-misuse",
        "return 1",
        COMPILE,
        CHECKPOINT_INDEX + "str",
        prelude="try:\n    checkpoint('x')\nexcept Exception:\n    pass\n",
    ),
    Attack(
        "checkpoint-globals-literal",
        "return checkpoint.__globals__",
        COMPILE,
        '"__globals__" is an invalid attribute name',
    ),
    Attack(
        "checkpoint-closure-literal",
        "return checkpoint.__closure__[0].cell_contents",
        COMPILE,
        '"__closure__" is an invalid attribute name',
    ),
    Attack(
        "checkpoint-globals-getattr",
        "return getattr(checkpoint, '__globals__')",
        ErrorKind.POLICY,
        _policy("__globals__"),
    ),
    Attack(
        "checkpoint-closure-getattr",
        "return getattr(checkpoint, '__clo' + 'sure__')",
        ErrorKind.POLICY,
        _policy("__closure__"),
    ),
    Attack(
        "checkpoint-code-getattr",
        "return getattr(checkpoint, '__code__')",
        ErrorKind.POLICY,
        _policy("__code__"),
    ),
    Attack(
        "checkpoint-setattr",
        "setattr(checkpoint, 'limit', 10**9)\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type 'function' are read-only in a black box",
    ),
    Attack(
        "checkpoint-stop-caught-and-returned",
        "try:\n    for i in range(100001):\n        checkpoint(1)\n"
        "except BaseException as e:\n    return [str(type(e)), list(e.args)]",
        ErrorKind.TRACE_LIMIT,
        "checkpoint visits exceed the limit of 100000",
    ),
]


def _source(attack: Attack, sentinel: Path) -> str:
    body = textwrap.indent(attack.body.replace("SENTINEL", str(sentinel)), "    ")
    return (
        f"{attack.prelude}"
        f"def attack():\n{body}\n\n"
        "def blackbox(x):\n"
        "    if x == 'attack':\n"
        "        return attack()\n"
        "    return x * 2\n"
    )


def test_corpus_is_large_and_ids_are_unique() -> None:
    ids = [a.id for a in CORPUS]
    assert len(ids) == len(set(ids)) and len(ids) >= 30


@pytest.mark.parametrize("attack", CORPUS, ids=lambda a: a.id)
def test_attack(attack: Attack, host_guard: Path) -> None:
    source = _source(attack, host_guard)
    if attack.outcome == COMPILE:
        with pytest.raises(SandboxCompileError) as info:
            SandboxWorker(source, limits=attack.limits)
        assert attack.message is not None and attack.message in str(info.value)
        return
    with SandboxWorker(source, limits=attack.limits) as worker:
        result = worker.call("attack")
        assert result.value is None
        assert result.error is not None and result.error.kind == attack.outcome
        if attack.message is not None:
            assert result.error == CallError(ErrorKind(attack.outcome), attack.message)
        # The same worker, or its transparent restart, still works.
        assert worker.call(21).value == 42
        assert worker.call(5).value == 10
