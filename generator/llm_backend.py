"""The LLM backend of the generation graph: LLMs design, write, play-test and judge boxes.

Roles, each a ``providers.Provider`` (``openai/...``, ``anthropic/...``, ``scripted/...``):

* **coder** writes ``blackbox.py`` from ``templates/prompts/coder.j2``: the rule's
  neutral description, the interface, the sandbox's rules and, on a retry, the
  previous verdict, reasons, the refiner's changes and the tester's failing examples.
  The code is extracted robustly (:func:`extract_code`).
* **tester** (optional) plays a short episode (``templates/prompts/tester.j2``): it
  sees the family's task intro and proposes a few queries, which the candidate box
  answers inside the sandbox; the log goes to the refiner. It never decides anything.
* **refiner** returns a STRUCTURED verdict through a forced ``submit_verdict`` tool
  call (``templates/prompts/refiner.j2``); a JSON object in plain text is accepted as
  a fallback; anything else is ``execution_error`` with reason "refiner reply
  unusable". Never a substring match on "correct".
* **designer** (the coder's provider, ``design="llm"`` only) invents the rule itself
  from the family's brief (``templates/prompts/designer.j2``, tool ``submit_design``).

Acceptance is the graph's decision (``generator.graph``): ``correct`` from the
refiner AND every tester check. Provider failures raise ``ProviderError`` (after the
provider's retries) and propagate out of the graph.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from blackboxes.box import CallRecord, CallRole, Level, Verdict
from blackboxes.families import Family, Rule
from generator.backends import Design, Draft, Judgement, PlayLog, PlayTurn
from generator.tester import CandidateReport
from oracle_bench.errors import (
    FamilyError,
    ProviderResponseError,
    SandboxError,
    UsageError,
)
from oracle_bench.pyast import parse
from providers.types import ChatMessage, Provider, Reply, ToolSpec
from sandbox import ALLOWED_MODULES, SandboxLimits, SandboxWorker, allowed_builtins, call_box
from templates import render

__all__ = [
    "CODER_TEMPLATE",
    "DESIGNER_TEMPLATE",
    "DESIGN_TOOL",
    "PROMPT_VERSION",
    "QUERIES_TOOL",
    "REFINER_TEMPLATE",
    "TESTER_TEMPLATE",
    "VERDICT_TOOL",
    "LlmBackend",
    "create_llm_backend",
    "extract_code",
    "parse_verdict",
]

logger = logging.getLogger(__name__)

PROMPT_VERSION = "4"
"""Version of the prompt set below; bump it whenever a template or system prompt changes."""

CODER_TEMPLATE = "prompts/coder.j2"
REFINER_TEMPLATE = "prompts/refiner.j2"
TESTER_TEMPLATE = "prompts/tester.j2"
DESIGNER_TEMPLATE = "prompts/designer.j2"

_SYSTEM = {
    "coder": (
        "You write small, exact, self-contained Python programs that run in a restricted "
        "sandbox. You follow the specification literally and answer with code only."
    ),
    "refiner": (
        "You review code against its specification. Code that runs is not necessarily "
        "correct: check every detail of the rule against the code and the evidence. You "
        "answer through the submit_verdict tool."
    ),
    "tester": "You test-play black boxes before release, choosing revealing queries.",
    "designer": (
        "You design hidden rules for black-box reasoning benchmarks and specify them "
        "precisely enough to be implemented without questions."
    ),
}

VERDICT_TOOL = ToolSpec(
    name="submit_verdict",
    description="Submit the verdict on the candidate black box.",
    parameters={
        "type": "object",
        "properties": {
            "verdict": {
                "type": "string",
                "enum": ["correct", "execution_error", "misalignment"],
            },
            "reasons": {"type": "array", "items": {"type": "string"}},
            "changes": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["verdict", "reasons", "changes"],
        "additionalProperties": False,
    },
)

DESIGN_TOOL = ToolSpec(
    name="submit_design",
    description="Submit the neutral description of the new rule.",
    parameters={
        "type": "object",
        "properties": {"description": {"type": "string"}},
        "required": ["description"],
        "additionalProperties": False,
    },
)

DESIGN_TRIES = 3
"""Designer calls per formal design: the first, and two after a refusal."""

_REFUSED = """
Your previous design was refused: {problem}
It was: {design}
Call `submit_design` again with a corrected design.
"""


def _design_tool(schema: Mapping[str, Any]) -> ToolSpec:
    """``submit_design`` with a family's formal fields beside the description."""
    return ToolSpec(
        name=DESIGN_TOOL.name,
        description="Submit the new rule: its neutral description and its exact definition.",
        parameters={
            "type": "object",
            "properties": {"description": {"type": "string"}, **schema},
            "required": ["description", *sorted(schema)],
            "additionalProperties": False,
        },
    )


QUERIES_TOOL = ToolSpec(
    name="submit_queries",
    description="Submit the queries to send to the black box, in order.",
    parameters={
        "type": "object",
        "properties": {"queries": {"type": "array", "items": {"type": "string"}}},
        "required": ["queries"],
        "additionalProperties": False,
    },
)

_M = TypeVar("_M", bound=BaseModel)

_MAX_ITEMS = 8
"""Reasons, changes or examples sent back to the coder, each list at most this long."""
_MAX_ITEM_CHARS = 400
_MAX_PLAY_OUTPUT = 200


class _VerdictArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: Verdict
    reasons: list[str] = Field(min_length=1)
    """Required, as the tool's schema says: a verdict without a reason is not a verdict."""
    changes: list[str] = Field(default_factory=list)


class _DesignArgs(BaseModel):
    # Extra fields are a family's formal design (Family.design_schema), checked there.
    model_config = ConfigDict(extra="allow")

    description: str = Field(min_length=1)


class _QueriesArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    queries: list[str]


# A fenced block: ``` + optional language, body, then a closing fence on its own line or
# the end of the text (a reply cut off by max_tokens still yields its code).
_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```|\Z)", re.DOTALL | re.MULTILINE)
_PYTHON_TAGS = frozenset({"python", "py", "python3"})
_DEFINES_ENTRY = re.compile(r"^def\s+blackbox\s*\(", re.MULTILINE)


def extract_code(text: str) -> str:
    """The code in a coder reply.

    The last ```python fenced block that defines ``blackbox`` (else the last ```python
    block), else the last fenced block of any language, else
    the whole reply if it parses as Python, else ``""`` (which the tester fails as
    not compiling).
    """
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    python = [body for lang, body in blocks if lang in _PYTHON_TAGS]
    # A usage example after the code (```python print(blackbox("ab"))```) is not the box.
    defining = [body for body in python if _DEFINES_ENTRY.search(body)]
    chosen = (defining or python or [b for _, b in blocks] or [None])[-1]
    if chosen is not None:
        return chosen.strip("\n") + "\n" if chosen.strip() else ""
    stripped = text.strip()
    if not stripped:
        return ""
    try:
        parse(stripped)
    except (SyntaxError, ValueError):
        return ""
    return stripped + "\n"


def _json_reply(text: str) -> Any:
    """The reply's one JSON object: the whole text, or the only ```json (or bare) fenced
    block that holds a JSON object; else None. JSON quoted inside prose never counts: a
    refiner writing 'options are {"verdict": "correct"} and ...' has not said ``correct``,
    and two fenced objects are ambiguous."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            whole = json.loads(stripped)
        except ValueError:
            return None
        return whole if isinstance(whole, dict) else None
    found = []
    for lang, body in _FENCE.findall(text):
        if lang.lower() not in ("", "json"):
            continue
        try:
            value = json.loads(body)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found[0] if len(found) == 1 else None


def _structured(reply: Reply, tool: str, model: type[_M]) -> _M | None:
    """The arguments of the model's first call of ``tool``, else the reply text when it
    is a single JSON object; validated against ``model``, else None.

    Only the first call of the tool counts (a second, different verdict is not a retry
    the model is owed), and nothing is fished out of prose.
    """
    calls = [c.arguments for c in reply.tool_calls if c.name == tool]
    candidate = calls[0] if calls else _json_reply(reply.text)
    if not isinstance(candidate, dict):
        return None
    try:
        return model.model_validate(candidate)
    except ValidationError:
        return None


def parse_verdict(reply: Reply) -> Judgement | None:
    """The refiner's verdict from a ``submit_verdict`` call or a JSON object; else None."""
    args = _structured(reply, VERDICT_TOOL.name, _VerdictArgs)
    if args is None:
        return None
    return Judgement(
        args.verdict,
        tuple(r for r in args.reasons if r.strip()),
        changes=tuple(c for c in args.changes if c.strip()),
    )


def _clip(items: Sequence[str]) -> list[str]:
    out = []
    for item in list(items)[:_MAX_ITEMS]:
        out.append(item if len(item) <= _MAX_ITEM_CHARS else item[: _MAX_ITEM_CHARS - 3] + "...")
    return out


def _parse_queries(reply: Reply, n: int) -> tuple[list[str], list[str]]:
    """(queries, notes): the player's queries, and what was wrong with its reply."""
    args = _structured(reply, QUERIES_TOOL.name, _QueriesArgs)
    notes: list[str] = []
    if args is not None:
        queries = args.queries
    else:
        # A plain list, one query per line, numbering and quotes stripped.
        queries = []
        for line in reply.text.splitlines():
            line = re.sub(r"^\s*(?:[-*]|\d+[.)])\s*", "", line).strip().strip("\"'`")
            if line:
                queries.append(line)
        notes.append("the test player did not call submit_queries; read its lines as queries")
    if not queries:
        notes.append("the test player's reply held no queries")
    if len(queries) > n:
        notes.append(f"the test player sent {len(queries)} queries; only the first {n} were run")
    return queries[:n], notes


@dataclass(frozen=True)
class LlmBackend:
    """The ``llm`` backend; build it with :func:`create_llm_backend`."""

    coder: Provider
    refiner: Provider
    tester: Provider | None = None
    design: Literal["reference", "llm"] = "reference"
    play_queries: int = 5
    """Queries in a test-player episode."""
    limits: SandboxLimits | None = None
    """Sandbox limits for the test-player episode."""
    name: str = "llm"

    @property
    def models(self) -> dict[str, str]:
        """Role -> ``provider/model`` (provenance.json's ``models``)."""
        models = {"coder": self.coder.name, "refiner": self.refiner.name}
        if self.tester is not None:
            models["tester"] = self.tester.name
        if self.design == "llm":
            models["designer"] = self.coder.name
        return dict(sorted(models.items()))

    # -- calls ---------------------------------------------------------------
    def _call(
        self,
        provider: Provider,
        role: CallRole,
        template: str,
        prompt: str,
        tool: ToolSpec | None = None,
    ) -> tuple[Reply, CallRecord]:
        messages = [
            ChatMessage(role="system", content=_SYSTEM[role]),
            ChatMessage(role="user", content=prompt),
        ]
        if tool is None:
            reply = provider.complete(messages)
        else:
            reply = provider.complete(messages, tools=[tool], tool_choice=tool.name)
        record = CallRecord(
            role=role,
            model=reply.model,
            params=dict(reply.params),
            usage=reply.usage.model_dump(),
            cost_usd=reply.cost_usd,
            latency_s=reply.latency_s,
            retries=reply.retries,
            cached=reply.cached,
            prompt_template=template,
            prompt_version=PROMPT_VERSION,
        )
        logger.debug("%s call to %s: %d tokens", role, reply.model, reply.usage.total)
        return reply, record

    def _interface(self, rule: Rule, family: Family) -> dict[str, Any]:
        return {
            "description": rule.description,
            "family": family.name,
            "title": family.title,
            "input_schema": family.input_schema,
            "output_schema": family.output_schema,
            "entry": "blackbox",
            "signature": family.entry_signature_of(rule),
            "notes": family.coder_notes,
        }

    # -- the Backend protocol -------------------------------------------------
    def design_rule(self, family: Family, level: Level) -> Design:
        """Invent a rule of ``family`` at ``level``: its neutral description and, when the
        family asks for one, its formal part (``Family.design_schema``). A formal part the
        family refuses is sent back with the reason, up to ``DESIGN_TRIES`` calls in all.

        Raises ``ProviderResponseError`` when the designer's reply holds no description,
        or its last formal design is still refused.
        """
        schema = family.design_schema(level)
        tool = DESIGN_TOOL if schema is None else _design_tool(schema)
        base = render(
            DESIGNER_TEMPLATE,
            family=family.name,
            title=family.title,
            level=level,
            task_intro=family.task_intro(level),
            input_schema=family.input_schema,
            output_schema=family.output_schema,
            kinds=list(family.kinds(level)),
            brief=family.design_brief(level),
            fields=sorted(schema or {}),
        )
        records: list[CallRecord] = []
        prompt, problem = base, ""
        for _ in range(DESIGN_TRIES):
            reply, record = self._call(self.coder, "designer", DESIGNER_TEMPLATE, prompt, tool)
            records.append(record)
            args = _structured(reply, tool.name, _DesignArgs)
            if args is None or not args.description.strip():
                raise ProviderResponseError(
                    "the designer's reply holds no rule description (submit_design)",
                    provider=self.coder.name,
                )
            description = args.description.strip()
            if schema is None:
                return Design(description, tuple(records))
            fields = {k: v for k, v in (args.model_extra or {}).items() if k in schema}
            try:
                family.check_design(level, description, fields)
            except FamilyError as exc:
                problem = str(exc)
                logger.info("the designer's design was refused: %s", problem)
                prompt = base + _REFUSED.format(
                    problem=problem, design=_clip([json.dumps(fields, sort_keys=True)])[0]
                )
                continue
            return Design(description, tuple(records), fields)
        raise ProviderResponseError(
            f"the designer's design was refused {DESIGN_TRIES} times; last: {problem}",
            provider=self.coder.name,
        )

    def write_code(self, rule: Rule, family: Family, feedback: Judgement | None) -> Draft:
        fb = None
        if feedback is not None:
            fb = {
                "verdict": feedback.verdict,
                "reasons": _clip(feedback.reasons),
                "changes": _clip(feedback.changes),
                "evidence": _clip(feedback.evidence),
            }
        prompt = render(
            CODER_TEMPLATE,
            **self._interface(rule, family),
            modules=sorted(ALLOWED_MODULES),
            builtins=allowed_builtins(),
            feedback=fb,
        )
        reply, record = self._call(self.coder, "coder", CODER_TEMPLATE, prompt)
        return Draft(extract_code(reply.text), CODER_TEMPLATE, (record,))

    def play_test(self, rule: Rule, family: Family, code: str) -> PlayLog | None:
        """A short test-player episode; None without a tester model."""
        if self.tester is None:
            return None
        prompt = render(
            TESTER_TEMPLATE,
            family=family.name,
            title=family.title,
            task_intro=family.task_intro(rule.level),
            n_queries=self.play_queries,
        )
        reply, record = self._call(self.tester, "tester", TESTER_TEMPLATE, prompt, QUERIES_TOOL)
        queries, notes = _parse_queries(reply, self.play_queries)
        turns: list[PlayTurn] = []
        if queries:
            try:
                turns = self._play(family, code, queries)
            except SandboxError as exc:
                notes.append(f"the box could not be started: {str(exc)[:_MAX_ITEM_CHARS]}")
        return PlayLog(tuple(turns), tuple(notes), (record,))

    def _play(self, family: Family, code: str, queries: list[str]) -> list[PlayTurn]:
        turns = []
        with SandboxWorker(code, limits=self.limits or SandboxLimits()) as worker:
            for query in queries:
                try:
                    x = family.parse_query(query)
                except FamilyError as exc:
                    turns.append(PlayTurn(query, error=f"invalid query: {exc}"))
                    continue
                result = call_box(worker, family.box_call(x))
                if not result.ok:
                    shown = result.error.render() if result.error else "error"
                    turns.append(PlayTurn(query, error=shown[:_MAX_PLAY_OUTPUT]))
                    continue
                try:
                    output = family.render_output(result.value)
                except (FamilyError, TypeError, ValueError) as exc:
                    turns.append(PlayTurn(query, error=f"output does not fit: {exc}"))
                    continue
                turns.append(PlayTurn(query, output=output[:_MAX_PLAY_OUTPUT]))
        return turns

    def judge(
        self,
        rule: Rule,
        family: Family,
        code: str,
        report: CandidateReport,
        play_log: str | None = None,
    ) -> Judgement:
        prompt = render(
            REFINER_TEMPLATE,
            **self._interface(rule, family),
            code=code.rstrip("\n") or "# (no code could be extracted from the coder's reply)",
            report=report.to_json(),
            # From the design mode, not the report: code that does not compile has no
            # differential check either, and still has a reference.
            has_reference=self.design != "llm",
            play_log=play_log,
        )
        reply, record = self._call(self.refiner, "refiner", REFINER_TEMPLATE, prompt, VERDICT_TOOL)
        judgement = parse_verdict(reply)
        if judgement is None:
            logger.warning(
                "refiner %s gave no usable verdict: %r", self.refiner.name, reply.text[:200]
            )
            return Judgement("execution_error", ("refiner reply unusable",), calls=(record,))
        return Judgement(judgement.verdict, judgement.reasons, judgement.changes, (record,))


def create_llm_backend(
    *,
    coder: Provider,
    refiner: Provider,
    tester: Provider | None = None,
    design: Literal["reference", "llm"] = "reference",
) -> LlmBackend:
    """The ``llm`` backend over built providers (see ``providers.create_provider``)."""
    if design not in ("reference", "llm"):
        raise UsageError(f"--design must be 'reference' or 'llm', not {design!r}")
    return LlmBackend(coder=coder, refiner=refiner, tester=tester, design=design)
