"""Red-team cases beyond the attack corpus: routes through curated members, class and
descriptor tricks, exception/generator objects, formatting, output that would upset
the parent, and state that could outlive a call.

Runtime cases share one worker (module fixture) so that every case also proves the
worker state it leaves behind is harmless: after each case the same worker (or its
transparent restart) must answer ``blackbox(21) == 42``. Each case's body becomes a
function ``case_<n>()``; ``blackbox(<case id>)`` runs it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from oracle_bench.errors import SandboxCompileError
from sandbox import CallError, ErrorKind, SandboxLimits, SandboxWorker, compile_check
from sandbox import _protocol as proto

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=3.0)
OK = "ok"  # outcome: the call succeeds with ``expected`` as its value
NOT_JSON = "result is not valid JSON: "
SEED0_FIRST_RANDOM = 0.8444218515250481  # random.Random(0).random()
LONE_SURROGATE = "result contains a string that is not valid Unicode (a lone surrogate)"
TOO_DEEP = f"result is nested more than {proto.MAX_RESULT_DEPTH} levels deep"


def _policy(attr: str) -> str:
    return f"ForbiddenAccess: access to attribute {attr!r} is not allowed in a black box"


@dataclass(frozen=True)
class Case:
    id: str
    body: str
    outcome: ErrorKind | str
    expected: object  # the value (OK) or the exact CallError message


CASES = [
    # --- raw getattr through curated callables: each still goes through the guard -------
    Case(
        "partial-getattr",
        "import functools\nreturn functools.partial(getattr, 1)('__class__')",
        ErrorKind.POLICY,
        _policy("__class__"),
    ),
    Case(
        "reduce-getattr",
        "import functools\nreturn functools.reduce(getattr, ['__class__', '__base__'], 1)",
        ErrorKind.POLICY,
        _policy("__class__"),
    ),
    Case(
        "map-getattr",
        "return list(map(getattr, [1], ['__class__']))",
        ErrorKind.POLICY,
        _policy("__class__"),
    ),
    Case(
        "sorted-key-getattr",
        "return sorted(['__class__'], key=lambda n: getattr(1, n))",
        ErrorKind.POLICY,
        _policy("__class__"),
    ),
    Case(
        "starmap-getattr",
        "import itertools\nreturn list(itertools.starmap(getattr, [(1, 'gi_frame')]))",
        ErrorKind.POLICY,
        _policy("gi_frame"),
    ),
    Case(
        "heapq-custom-lt",
        "import heapq\n"
        "class A:\n"
        "    def __init__(self, v):\n"
        "        self.v = v\n"
        "    def __lt__(self, o):\n"
        "        return getattr(self, '__dict__')\n"
        "h = [A(2), A(1)]\n"
        "heapq.heapify(h)\n"
        "return 1",
        ErrorKind.POLICY,
        _policy("__dict__"),
    ),
    Case(
        "itemgetter-dunder-key",
        "import operator\nreturn operator.itemgetter('__builtins__')({})",
        ErrorKind.EXCEPTION,
        "KeyError: '__builtins__'",
    ),
    Case(
        "itemgetter-on-module",
        "import operator, math\nreturn operator.itemgetter('pi')(math)",
        ErrorKind.EXCEPTION,
        "TypeError: 'CuratedModule' object is not subscriptable",
    ),
    Case(
        "re-sub-callback",
        "import re\nreturn re.sub('a', lambda m: str(m.re.pattern) + m.string, 'ab')",
        OK,
        "aabb",
    ),
    Case(
        "lambda-default-getattr",
        "return (lambda g=getattr: g(1, '__class__'))()",
        ErrorKind.POLICY,
        _policy("__class__"),
    ),
    Case(
        "getattr-default-not-a-bypass",
        "return getattr(1, '__class__', 'fallback')",
        ErrorKind.POLICY,
        _policy("__class__"),
    ),
    # --- attribute-name tricks -------------------------------------------------------------
    Case(
        "getattr-str-subclass",
        "class S(str):\n    pass\nreturn getattr(1, S('__class__'))",
        ErrorKind.EXCEPTION,
        "TypeError: attribute name must be a str",
    ),
    Case(
        "getattr-str-subclass-eq",
        "class S(str):\n"
        "    def __eq__(self, o):\n"
        "        return True\n"
        "return getattr(1, S('real'))",
        ErrorKind.EXCEPTION,
        "TypeError: attribute name must be a str",
    ),
    Case(
        "getattr-non-str",
        "return getattr(1, 5)",
        ErrorKind.EXCEPTION,
        "TypeError: attribute name must be a str",
    ),
    Case(
        "setattr-str-subclass",
        "class S(str):\n    pass\nclass A:\n    pass\nsetattr(A(), S('__class__'), int)\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: setting attribute '__class__' is not allowed in a black box",
    ),
    Case(
        "hasattr-frame-is-false",
        "g = (x for x in [1])\nreturn [hasattr(g, 'gi_frame'), hasattr(g, 'send')]",
        OK,
        [False, True],
    ),
    Case(
        "gi-suspended",
        "g = (x for x in [1])\nreturn getattr(g, 'gi_suspended')",
        ErrorKind.POLICY,
        _policy("gi_suspended"),
    ),
    Case(
        "gi-running-literal",
        "g = (x for x in [1])\nreturn g.gi_running",
        ErrorKind.POLICY,
        _policy("gi_running"),
    ),
    Case("cr-origin", "return getattr(1, 'cr_origin')", ErrorKind.POLICY, _policy("cr_origin")),
    Case("ag-frame", "return getattr(1, 'ag_frame')", ErrorKind.POLICY, _policy("ag_frame")),
    # --- mro(): reached OS-seeded random classes and the ABC registry (fixed: denied) ----
    Case(
        "mro-real-random",
        "import random\nreturn random.Random.mro()[1]().random()",
        ErrorKind.POLICY,
        _policy("mro"),
    ),
    Case(
        "mro-c-random-seed",
        "import random\nr = random.Random()\nrandom.Random.mro()[2].seed(r)\nreturn r.random()",
        ErrorKind.POLICY,
        _policy("mro"),
    ),
    Case(
        "mro-abc-register",
        "import collections\nreturn collections.ChainMap.mro()[2].register(int)",
        ErrorKind.POLICY,
        _policy("mro"),
    ),
    Case(
        "mro-via-getattr",
        "return getattr(type(1), 'mro')()",
        ErrorKind.POLICY,
        _policy("mro"),
    ),
    # --- formatting ----------------------------------------------------------------------
    Case(
        "str-subclass-format",
        "class S(str):\n    pass\nreturn S('{0.__class__}').format(1)",
        ErrorKind.POLICY,
        "ForbiddenAccess: str.format and str.format_map are not allowed; use f-strings",
    ),
    Case(
        "type-of-str-format-map",
        "return type('').format_map('{a}', {'a': 1})",
        ErrorKind.POLICY,
        "ForbiddenAccess: str.format and str.format_map are not allowed; use f-strings",
    ),
    Case(
        "format-builtin-field-spec",
        "return format(1, '{0.__class__}')",
        ErrorKind.EXCEPTION,
        "ValueError: Invalid format specifier '{0.__class__}' for object of type 'int'",
    ),
    Case(
        "fstring-nested-spec",
        "x = 7\nreturn [f'{x!r:>{3}}', f'{x:{x.real}}', f'{x!a}']",
        OK,
        ["  7", "      7", "7"],
    ),
    Case(
        "percent-mapping",
        "return '%(__class__)s' % {'__class__': 'c'}",
        OK,
        "c",
    ),
    Case(
        "format-huge-width",
        "return format(1, '>2000000000')",
        ErrorKind.MEMORY,
        "memory limit exceeded",
    ),
    # --- exception objects ---------------------------------------------------------------
    Case(
        "exception-with-traceback",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n"
        "    return [list(e.args), callable(e.with_traceback), e.with_traceback(None) is e]",
        OK,
        [["division by zero"], True, True],
    ),
    Case(
        "exception-obj-own-subclass",
        "class E(AttributeError):\n    pass\nreturn getattr(E('x'), 'obj')",
        ErrorKind.POLICY,
        "ForbiddenAccess: access to attribute 'obj' of exceptions is not allowed",
    ),
    Case(
        "exception-name-attrs",
        "out = []\n"
        "try:\n    (1).nope\nexcept AttributeError as e:\n    out.append(e.name)\n"
        "try:\n    nope\nexcept NameError as e:\n    out.append(e.name)\n"
        "return out",
        OK,
        ["nope", "nope"],
    ),
    Case(
        "exception-chaining",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise ValueError('outer') from e",
        ErrorKind.EXCEPTION,
        "ValueError: outer",
    ),
    Case(
        "policy-kind-spoof-is-harmless",
        "try:\n    getattr(1, '_x')\nexcept AttributeError as e:\n    P = type(e)\n"
        "class E(P):\n    pass\nraise E('spoof')",
        ErrorKind.POLICY,
        "E: spoof",
    ),
    Case(
        "hostile-repr-in-message",
        "import collections\n"
        "class C(collections.Counter):\n"
        "    def most_common(self, n=None):\n"
        "        raise SystemExit(1)\n"
        "c = C()\nc['a'] = 1\nraise KeyError(c)",
        ErrorKind.EXCEPTION,
        "KeyError",
    ),
    Case(
        "systemexit-swallowed-by-finally",
        "try:\n    raise SystemExit(1)\nfinally:\n    return 'kept'",
        OK,
        "kept",
    ),
    Case(
        "raise-memoryerror-retires",
        "raise MemoryError('fake')",
        ErrorKind.MEMORY,
        "memory limit exceeded",
    ),
    Case(
        "recursion-in-eq",
        "class A:\n    def __eq__(self, o):\n        return self == o\nreturn A() == A()",
        ErrorKind.EXCEPTION,
        "RecursionError: maximum recursion depth exceeded",
    ),
    Case(
        "message-lone-surrogate",
        "raise ValueError('\\udcff')",
        ErrorKind.EXCEPTION,
        "ValueError: \\udcff",
    ),
    Case(
        "message-address-scrubbed",
        "raise ValueError(repr(object()))",
        ErrorKind.EXCEPTION,
        "ValueError: <object object at 0x?>",
    ),
    # --- generators ----------------------------------------------------------------------
    Case(
        "generator-send-throw-close",
        "def g():\n"
        "    try:\n"
        "        x = yield 1\n"
        "        yield x\n"
        "    except KeyError:\n"
        "        yield 'caught'\n"
        "it = g()\nnext(it)\na = it.send(7)\nb = it.throw(KeyError('k'))\nit.close()\n"
        "return [a, b]",
        OK,
        [7, "caught"],
    ),
    Case(
        "stopiteration-value",
        "def g():\n    return 5\n    yield\ntry:\n    next(g())\nexcept StopIteration as e:\n"
        "    return e.value",
        OK,
        5,
    ),
    Case(
        "deep-iterator-chain-segfault",
        "it = iter([1])\nfor i in range(300000):\n    it = map(abs, it)\nreturn list(it)",
        ErrorKind.CRASH,
        "the black box crashed",
    ),
    # --- classes, types, descriptors -------------------------------------------------------
    Case(
        # RestrictedPython's class rewrite drops keywords: the class stays plain.
        "class-star-kwargs-metaclass-dropped",
        "class A(**{'metaclass': type}):\n    pass\nreturn type(A()) == A",
        OK,
        True,
    ),
    Case(
        "type-of-class-refused",
        "import random\nreturn type(random.Random)",
        ErrorKind.POLICY,
        "ForbiddenAccess: type() of a class is not available in a black box",
    ),
    Case(
        "type-of-module-makes-fake-module",
        "import math\nM = type(math)\nreturn M('os', {'system': len}).system('abc')",
        OK,
        3,
    ),
    Case(
        "type-of-proxy-makes-harmless-proxy",
        "P = type(list)\nreturn P(int, len)('abc')",
        OK,
        3,
    ),
    Case(
        "function-type-needs-code",
        "F = type(case_0)\nreturn F(None, {})",
        ErrorKind.EXCEPTION,
        "TypeError: function() argument 'code' must be code, not None",
    ),
    Case(
        "method-type-binds-only-own-objects",
        "import random\nM = type(random.seed)\nreturn M(len, 'abc')()",
        OK,
        3,
    ),
    Case(
        "property-fget-and-staticmethod",
        "p = property(len)\ns = staticmethod(len)\nreturn [p.fget('abc'), getattr(s, '__func__')]",
        ErrorKind.POLICY,
        _policy("__func__"),
    ),
    Case(
        "lru-cache-wraps-class",
        "import functools, random\nw = functools.lru_cache(random.Random)\n"
        "return [callable(w.seed), getattr(w, '__wrapped__')]",
        ErrorKind.POLICY,
        _policy("__wrapped__"),
    ),
    Case(
        "total-ordering-on-curated-class",
        "import functools, fractions\n"
        "return functools.total_ordering(fractions.Fraction) is fractions.Fraction",
        OK,
        True,
    ),
    Case(
        "random-subclass-without-init-is-deterministic",
        "import random\nclass R(random.Random):\n    def __init__(self):\n        pass\n"
        "return R().random()",
        OK,
        0.0,
    ),
    Case(
        "random-seed-none-is-fixed",
        "import random\nrandom.seed(None)\na = random.random()\n"
        "return [a, random.Random(None).random(), random.Random().random()]",
        OK,
        [SEED0_FIRST_RANDOM] * 3,
    ),
    Case(
        # Reseeding and drawing here must not change what the next case draws.
        "random-reseeded-after-tampering",
        "import random\nrandom.seed(99)\nrandom.random()\nreturn 1",
        OK,
        1,
    ),
    Case(
        "random-fresh-every-call",
        "import random\nreturn random.random()",
        OK,
        SEED0_FIRST_RANDOM,
    ),
    # --- writes to shared objects ------------------------------------------------------------
    Case(
        "setattr-curated-random-method",
        "import random\nsetattr(random.seed, 'x', 1)\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type 'method' are read-only in a black box",
    ),
    Case(
        "setattr-curated-class",
        "import random\nrandom.Random.seed = len\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type 'type' are read-only in a black box",
    ),
    Case(
        "setattr-curated-function",
        "import re\nre.sub.x = 1\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type 'function' are read-only in a black box",
    ),
    Case(
        "delattr-curated-module",
        "import math\ndelattr(math, 'pi')\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type 'CuratedModule' are read-only in a black box",
    ),
    Case(
        "setattr-builtin-str",
        "str.upper = len\nreturn 1",
        ErrorKind.POLICY,
        "ForbiddenAccess: objects of type 'type' are read-only in a black box",
    ),
    Case(
        "proxy-private-slot",
        "return getattr(list, '_real')",
        ErrorKind.POLICY,
        _policy("_real"),
    ),
    Case(
        "global-shadow-builtin-then-delete",
        "global len\nlen = None\ndel len\nreturn len('ab')",
        OK,
        2,
    ),
    Case(
        "curated-math-still-intact",
        "import math, string\nreturn [math.pi, string.digits]",
        OK,
        [3.141592653589793, "0123456789"],
    ),
    # --- print --------------------------------------------------------------------------------
    Case(
        "print-to-box-object",
        "class F:\n"
        "    def __init__(self):\n"
        "        self.parts = []\n"
        "    def write(self, s):\n"
        "        self.parts.append(s)\n"
        "f = F()\nprint('hi', 2, file=f, sep='-')\nprint('x', file=None)\n"
        "return [f.parts, printed]",
        OK,
        [["hi", "-", "2", "\n"], "x\n"],
    ),
    # --- outputs the parent must be protected from ----------------------------------------
    Case("return-lone-surrogate", "return '\\udfff'", ErrorKind.INVALID_OUTPUT, LONE_SURROGATE),
    Case(
        "return-lone-surrogate-key",
        "return {'\\ud800': 1}",
        ErrorKind.INVALID_OUTPUT,
        LONE_SURROGATE,
    ),
    Case(
        "return-high-surrogate-then-backslash",
        "return '\\ud800\\\\udc00'",
        ErrorKind.INVALID_OUTPUT,
        LONE_SURROGATE,
    ),
    Case(
        "return-astral-and-escaped-text-is-fine",
        "return ['\\U0001F600', '\\ud83d' + '\\ude00', 'a\\\\ud800\"']",
        OK,
        ["\U0001f600", "\U0001f600", 'a\\ud800"'],
    ),
    Case(
        "return-depth-at-limit",
        f"x = []\nfor i in range({proto.MAX_RESULT_DEPTH - 1}):\n    x = [x]\nreturn len(x)",
        OK,
        1,
    ),
    Case(
        "return-too-deep",
        f"x = []\nfor i in range({proto.MAX_RESULT_DEPTH}):\n"
        "    x = {'k': x} if i % 2 else [x]\nreturn x",
        ErrorKind.INVALID_OUTPUT,
        TOO_DEEP,
    ),
    Case(
        "return-brackets-in-strings-are-not-depth",
        "return ['[' * 500 + '{' * 500, [[[]]] * 200]",
        OK,
        ["[" * 500 + "{" * 500, [[[]]] * 200],
    ),
    Case(
        "dict-subclass-items-runs-guarded",
        "class D(dict):\n"
        "    def items(self):\n"
        "        return [('a', getattr(1, '__class__'))]\n"
        "d = D()\nd['x'] = 1\nreturn d",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + _policy("__class__"),
    ),
    Case(
        "dict-subclass-items-loops-under-timer",
        "class D(dict):\n"
        "    def items(self):\n"
        "        while True:\n"
        "            pass\n"
        "d = D()\nd['x'] = 1\nreturn d",
        ErrorKind.TIMEOUT,
        "time limit exceeded",
    ),
    Case(
        "result-subclasses-encode-as-base",
        "class S(str):\n    pass\nclass I(int):\n    pass\nclass F(float):\n    pass\n"
        "return [S('s'), I(5), F(1.5)]",
        OK,
        ["s", 5, 1.5],
    ),
    Case(
        "nan-dict-key",
        "return {float('nan'): 1}",
        ErrorKind.INVALID_OUTPUT,
        NOT_JSON + "ValueError: Out of range float values are not JSON compliant",
    ),
    # --- resource use ------------------------------------------------------------------------
    Case(
        "itertools-repeat-list",
        "import itertools\nreturn len(list(itertools.repeat(1, 10**12)))",
        ErrorKind.MEMORY,
        "memory limit exceeded",
    ),
    Case(
        "math-factorial-in-c",
        "import math\nreturn math.factorial(10**7) % 7",
        ErrorKind.TIMEOUT,
        "time limit exceeded",
    ),
    Case(
        "codec-module-import",
        "return 'x'.encode('rot13')",
        ErrorKind.EXCEPTION,
        "LookupError: unknown encoding: rot13",
    ),
]


def _box_source() -> str:
    parts = []
    for n, case in enumerate(CASES):
        parts.append(f"def case_{n}():\n{textwrap.indent(case.body, '    ')}\n")
    table = ", ".join(f"{case.id!r}: case_{n}" for n, case in enumerate(CASES))
    parts.append(f"CASES = {{{table}}}\n")
    parts.append(
        "def blackbox(x):\n    if x in CASES:\n        return CASES[x]()\n    return x * 2\n"
    )
    return "\n".join(parts)


@pytest.fixture(scope="module")
def shared_worker() -> Iterator[SandboxWorker]:
    with SandboxWorker(_box_source(), limits=FAST) as worker:
        yield worker


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_runtime_attack(case: Case, shared_worker: SandboxWorker) -> None:
    result = shared_worker.call(case.id)
    if case.outcome == OK:
        assert result.error is None
        assert result.value == case.expected
    else:
        assert result.value is None
        assert result.error == CallError(ErrorKind(case.outcome), str(case.expected))
    # Whatever the case left behind, the worker (or its restart) still answers.
    assert shared_worker.call(21).value == 42


# --- refused at compile time, in the parent, as SandboxCompileError (never a raw error) ----

COMPILE_CASES = [
    (
        "match-capture-guard",
        "def blackbox(x):\n    match x:\n        case _getattr_:\n            return 1\n",
        "Match statements are not allowed",
    ),
    (
        "walrus-guard",
        "def blackbox(x):\n    (_write_ := x)\n    return 1\n",
        '"_write_" is an invalid variable name',
    ),
    (
        "comprehension-guard",
        "def blackbox(x):\n    return [1 for _getiter_ in x]\n",
        '"_getiter_" is an invalid variable name',
    ),
    (
        "with-as-guard",
        "def blackbox(x):\n    with x as _write_:\n        pass\n",
        '"_write_" is an invalid variable name',
    ),
    (
        "except-as-guard",
        "def blackbox(x):\n    try:\n        pass\n"
        "    except Exception as _getattr_:\n        pass\n",
        '"_getattr_" is an invalid variable name',
    ),
    (
        "import-as-guard",
        "import math as _getattr_\ndef blackbox(x):\n    return x\n",
        '"_getattr_" is an invalid variable name',
    ),
    (
        "vararg-guard",
        "def blackbox(*_getattr_):\n    return 1\n",
        '"_getattr_" is an invalid variable name',
    ),
    (
        "star-target-guard",
        "def blackbox(x):\n    a, *_write_ = x\n",
        '"_write_" is an invalid variable name',
    ),
    (
        "nonlocal",
        "def blackbox(x):\n    def g():\n        nonlocal x\n    return 1\n",
        "Nonlocal statements are not allowed",
    ),
    (
        "async-def",
        "async def blackbox(x):\n    return 1\n",
        "AsyncFunctionDef statements are not allowed",
    ),
    (
        "class-dunder-attr",
        "class A:\n    __getattr__ = 1\ndef blackbox(x):\n    return x\n",
        '"__getattr__" is an invalid variable name',
    ),
    (
        "def-dunder-format",
        "class A:\n    def __format__(self, s):\n        return s\n"
        "def blackbox(x):\n    return x\n",
        '"__format__" is an invalid variable name',
    ),
    (
        "def-dunder-del",
        "class A:\n    def __del__(self):\n        pass\ndef blackbox(x):\n    return x\n",
        '"__del__" is an invalid variable name',
    ),
    (
        "load-print-collector",
        "def blackbox(x):\n    return _print_\n",
        '"_print_" is an invalid variable name',
    ),
    (
        "future-import",
        "from __future__ import annotations\ndef blackbox(x):\n    return x\n",
        "import of module '__future__' is not allowed",
    ),
    (
        "annotated-assign",
        "x: int = 1\ndef blackbox(x):\n    return x\n",
        "AnnAssign statements are not allowed",
    ),
    # Hostile source text: formerly escaped compile_check as a raw exception.
    (
        "source-lone-surrogate",
        "def blackbox(x):\n    return '\ud800'\n",
        "code is not valid Unicode (it contains a lone surrogate)",
    ),
    (
        "source-deep-unary",
        "x = " + "-" * 100000 + "1\ndef blackbox(x):\n    return x\n",
        "code is nested too deeply",
    ),
    (
        "source-deep-attribute",
        "x = a" + ".b" * 100000 + "\ndef blackbox(x):\n    return x\n",
        "code is nested too deeply",
    ),
    ("source-nul-byte", "def blackbox(x):\n    return 1\x00\n", "null bytes"),
]


@pytest.mark.parametrize(
    ("source", "message"), [c[1:] for c in COMPILE_CASES], ids=[c[0] for c in COMPILE_CASES]
)
def test_compile_refusal(source: str, message: str) -> None:
    errors = compile_check(source)
    assert any(message in e for e in errors), errors
    with pytest.raises(SandboxCompileError) as info:
        SandboxWorker(source, limits=FAST)
    assert message in str(info.value)


# --- cases that need their own worker or limits -------------------------------------------


def test_deep_result_with_raised_recursion_limit_is_refused_in_the_worker() -> None:
    # Formerly reached the parent, which failed to decode it (or pydantic, past 255 levels).
    source = "def blackbox(n):\n    x = []\n    for i in range(n):\n        x = [x]\n    return x\n"
    with SandboxWorker(source, limits=SandboxLimits(max_recursion=5000)) as worker:
        assert worker.call(3000).error == CallError(ErrorKind.INVALID_OUTPUT, TOO_DEEP)
        assert worker.call(300).error == CallError(ErrorKind.INVALID_OUTPUT, TOO_DEEP)
        assert worker.call(2).value == [[[]]]


def test_classes_defined_per_call_do_not_accumulate() -> None:
    # The write guard's registry held every box class forever: the worker ran out of memory.
    source = (
        "def blackbox(n):\n"
        "    for i in range(n):\n"
        "        class A:\n"
        "            pass\n"
        "    return n\n"
    )
    limits = SandboxLimits(cpu_seconds=5, wall_seconds=20.0, memory_mb=96)
    with SandboxWorker(source, limits=limits) as worker:
        for _ in range(4):
            assert worker.call(15000).value == 15000


def test_worker_retires_after_memory_error_instead_of_crashing_next() -> None:
    # A box that keeps its memory after a MemoryError used to make the next call "crash".
    source = (
        "keep = []\n"
        "def blackbox(n):\n"
        "    for i in range(n):\n"
        "        keep.append([0] * 100)\n"
        "    return len(keep)\n"
    )
    limits = SandboxLimits(cpu_seconds=5, wall_seconds=20.0, memory_mb=96)
    with SandboxWorker(source, limits=limits) as worker:
        outcomes = []
        for _ in range(4):
            r = worker.call(60000)
            outcomes.append(r.value if r.ok else r.error)
        memory = CallError(ErrorKind.MEMORY, "memory limit exceeded")
        assert outcomes == [60000, memory, 60000, memory]


def test_finalizer_after_the_call_cannot_run_untimed(host_guard: Path) -> None:
    # A generator's finally-block runs when the result is released, after the per-call
    # timer is disarmed: the RLIMIT_CPU backstop and the parent's wall clock still hold.
    source = (
        "def gen():\n"
        "    try:\n"
        "        yield 1\n"
        "    finally:\n"
        "        while True:\n"
        "            pass\n"
        "class D(dict):\n"
        "    pass\n"
        "def blackbox(x):\n"
        "    if x == 21:\n"
        "        return 42\n"
        "    d = D()\n"
        "    g = gen()\n"
        "    next(g)\n"
        "    d.g = g\n"
        "    return d\n"
    )
    with SandboxWorker(source, limits=SandboxLimits(cpu_seconds=1, wall_seconds=1.0)) as worker:
        assert worker.call(0).error == CallError(ErrorKind.TIMEOUT, "time limit exceeded")
        assert worker.call(21).value == 42


def test_random_subclass_is_deterministic_across_workers() -> None:
    source = (
        "import random\n"
        "class R(random.Random):\n"
        "    def __init__(self):\n"
        "        pass\n"
        "def blackbox(x):\n"
        "    return [R().random(), random.Random().random(), random.random()]\n"
    )
    with SandboxWorker(source, limits=FAST) as a, SandboxWorker(source, limits=FAST) as b:
        first = a.call(0).value
        assert first == b.call(0).value == a.call(0).value
        assert first == [0.0, SEED0_FIRST_RANDOM, SEED0_FIRST_RANDOM]


# --- the protocol helpers directly ------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        (b'"plain"', None),
        (b'"\\ud83d\\ude00"', None),  # an astral character, escaped as a pair
        (b'"\\\\ud800"', None),  # a backslash followed by the text "ud800"
        (b'"\\u00e9\\n\\""', None),
        (b'"\\ud800"', LONE_SURROGATE),
        (b'"\\ude00\\ud83d"', LONE_SURROGATE),  # reversed pair
        (b'{"\\uDBFF":1}', LONE_SURROGATE),
        (b'"\\\\\\ud800"', LONE_SURROGATE),  # escaped backslash, then a lone surrogate
        (b"[" * 100 + b"]" * 100, None),
        (b"[" * 101 + b"]" * 101, TOO_DEEP),
        (b"[" + b"{}," * 500 + b"[]]", None),
        (b'["' + b"[" * 300 + b'"]', None),
        (b'["\\"' + b"[" * 300 + b'"]', None),
    ],
)
def test_result_problem(payload: bytes, problem: str | None) -> None:
    assert proto.result_problem(payload) == problem


def test_exception_message_is_valid_utf8() -> None:
    message = proto.exception_message(ValueError("a\ud800b\udfff"))
    assert message == "ValueError: a\\ud800b\\udfff"
    message.encode("utf-8")
