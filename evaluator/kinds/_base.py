"""The contract of an episode kind (DESIGN.md "Episode kinds").

Light on purpose: the command lines build their parsers from the kinds' options, so this
module and every kind's ``__init__`` import nothing heavy; a kind imports its protocol,
records and tables inside its methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from rich.table import Table

    from blackboxes.box import BoxInfo, SuiteInfo
    from blackboxes.store import Box
    from evaluator.analysis import EpisodeAnalysis, Figure
    from evaluator.failures import FailureCause
    from evaluator.human import PlayIO
    from evaluator.llm_agents import LlmAgentSettings
    from evaluator.usage import UsageTotals
    from sandbox import SandboxLimits

__all__ = [
    "Command",
    "EpisodeJobLike",
    "EpisodeKind",
    "HumanPlay",
    "KindOption",
    "KindReport",
    "KindRun",
    "KindSummary",
    "PlayedEpisode",
    "RunContext",
]

Command = Literal["eval", "play", "report"]
"""The command lines a kind's option belongs to."""


@dataclass(frozen=True)
class KindOption:
    """A setting of a kind of episode: a keyword of ``evaluate_suite``, a field of the
    run manifest's arguments and, on the command lines in ``commands``, a flag.

    Kinds that take the same setting (the turn@shot spec, the feedback mode) share one
    option object, so that the command line defines it once.
    """

    name: str
    """Keyword, manifest field and argparse ``dest``: ``budget_factor``."""
    flag: str
    """``--budget-factor``; ``SPEC`` for the positional spec every command line takes."""
    metavar: str
    help: str
    """What it does; the command line adds which suites take it."""
    commands: frozenset[Command]
    parse: Callable[[str], Any] | None = None
    """The argparse ``type`` (None: the text as it is)."""
    refused: bool = True
    """False: kinds that do not take it ignore it instead of refusing it (a setting the
    LLM agents also read, such as ``--max-reasks``)."""
    sweep: bool = False
    """True: ``oracle-eval`` also takes a comma list of values (``1,2,4``), one run per
    value (a sweep: the success-vs-budget curve)."""
    sweep_split: Callable[[str], list[str]] | None = None
    """How a sweep's text splits into its values' texts (None: at the commas)."""

    @property
    def positional(self) -> bool:
        return not self.flag.startswith("-")


class EpisodeJobLike(Protocol):
    """The runner's job: one (box, agent, repetition)."""

    @property
    def box_id(self) -> str: ...

    @property
    def agent(self) -> str: ...

    @property
    def repetition(self) -> int: ...


class RunContext(Protocol):
    """What a kind's run sees of the runner's run."""

    @property
    def suite(self) -> SuiteInfo: ...

    @property
    def boxes(self) -> list[Box]: ...

    @property
    def seed(self) -> int: ...

    @property
    def repeats(self) -> int: ...

    @property
    def limits(self) -> SandboxLimits | None: ...

    @property
    def llm_names(self) -> frozenset[str]: ...

    def llm_settings(self) -> LlmAgentSettings: ...


class KindSummary(Protocol):
    """What the generic report code reads of any kind's summary."""

    @property
    def failures(self) -> Any: ...

    @property
    def suite_seed(self) -> int | Literal["secret"] | None: ...

    @property
    def usage(self) -> UsageTotals: ...


class KindReport(Protocol):
    """A run's summary, recomputed from its records, and the files it writes."""

    @property
    def summary(self) -> KindSummary: ...

    def write(self, out_dir: Path) -> list[Path]:
        """Write the summary files into ``out_dir``; their paths."""
        ...


class KindRun(Protocol):
    """One run of a suite with one kind's settings: the runner's episodes go through it."""

    def reusable(self, path: Path, box: Box, job: EpisodeJobLike) -> Any:
        """The stored record at ``path`` if it is a final record of exactly this job."""
        ...

    def cannot_start(self, box: Box, job: EpisodeJobLike, error: str, failure: FailureCause) -> Any:
        """The failed record of an episode whose box would not start."""
        ...

    def play(
        self, box: Box, job: EpisodeJobLike, env: Any, agent: Callable[[], Any] | None = None
    ) -> Any:
        """Play the episode against ``env`` (a pooled sandbox worker); its record.

        ``agent`` makes the agent instead of the kind's :meth:`EpisodeKind.make_agent`
        (a served episode's stand-in for an agent playing elsewhere); as with the kind's
        own, an exception from it is the episode's failed record (cause ``agent``)."""
        ...


@dataclass(frozen=True)
class PlayedEpisode:
    """A person's episode (``oracle-play``): its record and whether they quit."""

    record: Any
    quit: bool


@dataclass(frozen=True)
class HumanPlay:
    """What ``oracle-play`` hands a kind to play one box with a person."""

    box: Box
    io: PlayIO
    agent_name: str
    suite: str
    seed: int
    repetition: int
    worker: Any
    """A started ``sandbox.SandboxWorker`` running the box."""
    limits: SandboxLimits


class EpisodeKind(ABC):
    """How an agent meets a box: its settings, protocol, records, summary and tables.

    One instance per kind is registered (:func:`evaluator.kinds.register_kind`); a family
    names its kind (``Family.episode``). ``settings`` below is the kind's own frozen value
    made by :meth:`configure`: the generic code only hands it back.
    """

    name: ClassVar[str]
    """Recorded as ``kind`` in trajectories, definitions and manifests: ``dfa``."""
    title: ClassVar[str]
    """For people: ``turn@shot``, ``DFA``."""
    options: ClassVar[tuple[KindOption, ...]] = ()
    default_agents: ClassVar[tuple[str, ...]]
    eval_help: ClassVar[str] = ""
    """A paragraph of ``oracle-eval --help`` about this kind's suites."""
    unlabelled_records: ClassVar[bool] = False
    """True for the one kind whose early records carry no ``kind`` field."""
    legacy_marker: ClassVar[str | None] = None
    """The manifest argument that is set only in runs of this kind, for run folders
    written before manifests recorded their kind (None: this kind always recorded it)."""

    # -- agents --------------------------------------------------------------
    @abstractmethod
    def agent_names(self) -> list[str]:
        """The non-LLM agents that play this kind, sorted."""

    @abstractmethod
    def check_agent_name(self, name: str) -> str:
        """``name`` if such an agent exists, else ``UnknownNameError`` listing them."""

    # -- settings ------------------------------------------------------------
    @abstractmethod
    def configure(self, suite: SuiteInfo, given: Mapping[str, Any], command: Command) -> Any:
        """The kind's settings from the options given (names of :attr:`options`; only
        those given, never None), defaults filled in; ``UsageError`` for a bad or missing
        one, worded for ``command``."""

    @abstractmethod
    def arguments(self, settings: Any) -> dict[str, Any]:
        """The run manifest's argument fields for ``settings`` (``RunArguments``)."""

    @abstractmethod
    def definition(self, settings: Any) -> dict[str, Any]:
        """What defines a run's results besides the suite and seed (``RunDefinition``):
        ``spec``, ``feedback``, ``budget_factor``, ``options``."""

    @abstractmethod
    def run_slug(self, settings: Any, seed: int) -> str:
        """The default run folder's name: ``10at1-instant-seed0``."""

    @abstractmethod
    def play_slug(self, settings: Any) -> str:
        """The default play folder's part: ``10at1-instant``."""

    @abstractmethod
    def label(self, settings: Any) -> str:
        """A run's settings in a progress bar or a message: ``10@1``."""

    # -- running -------------------------------------------------------------
    @abstractmethod
    def make_agent(self, info: BoxInfo, job: EpisodeJobLike, settings: Any, run: RunContext) -> Any:
        """The agent of ``job`` on the box described by ``info`` (box.json only: a client
        of a served box has nothing else), seeded from (``run.seed``, agent, box,
        repetition); an LLM agent when ``job.agent`` is in ``run.llm_names``. Raises what
        the agent's constructor raises."""

    @abstractmethod
    def start(self, run: RunContext, settings: Any) -> KindRun:
        """A run of ``run``'s boxes with ``settings``; ``CorruptBoxError`` when a box
        cannot serve this kind at all."""

    def withhold(self, record: Any, settings: Any) -> Any:
        """``record`` as a served box may hand it to a client: with every value that
        would tell the box's rule or answers (expected outputs, secrets, targets) taken
        out, what the summary needs of them measured first, and nothing else changed.
        The default: a kind whose records hold none."""
        return record

    # -- records -------------------------------------------------------------
    @abstractmethod
    def load_record(self, raw: Any, path: Path) -> Any:
        """Validate the JSON of one trajectory; ``CorruptTrajectoryError`` naming ``path``."""

    @abstractmethod
    def read_record(self, path: Path) -> Any:
        """Read and validate the trajectory at ``path`` (``CorruptTrajectoryError``)."""

    @abstractmethod
    def save_record(self, record: Any, path: Path) -> None:
        """Write ``record`` atomically."""

    @abstractmethod
    def score(self, record: Any) -> float | None:
        """index.json's score: None for a failed record."""

    # -- reports -------------------------------------------------------------
    @abstractmethod
    def settings_of_manifest(self, arguments: Mapping[str, Any], path: Path) -> Any:
        """The settings a run manifest's ``arguments`` record (``CorruptTrajectoryError``
        naming ``path`` when they are not this kind's)."""

    @abstractmethod
    def settings_of_record(self, record: Any) -> Any:
        """The settings a trajectory records (a run without a manifest)."""

    @abstractmethod
    def identity(self, record: Any) -> dict[str, Any]:
        """The fields every trajectory of one run shares, by label: ``{"spec": "10@1"}``."""

    @abstractmethod
    def settings_identity(self, settings: Any) -> dict[str, Any]:
        """:meth:`identity` as the settings say it."""

    def with_report_options(self, settings: Any, given: Mapping[str, Any]) -> Any:
        """``settings`` with ``oracle-eval report``'s options applied (default: none)."""
        return settings

    @abstractmethod
    def summarise(
        self,
        records: Sequence[Any],
        paths: Sequence[Path],
        *,
        suite: str,
        seed: int,
        repeats: int,
        settings: Any,
        bootstrap_seed: int | None = None,
    ) -> KindReport:
        """The run's summary from its records (``paths`` parallel to them, for files that
        name them); ``bootstrap_seed`` re-draws the intervals."""

    @abstractmethod
    def tables(self, summary: KindSummary) -> list[Table]:
        """The result tables of a run, for the terminal."""

    def legend(self, summary: KindSummary) -> str | None:
        """A line under the tables saying what the columns mean (None: none)."""
        return None

    @abstractmethod
    def warnings(self, summary: KindSummary) -> list[str]:
        """Lines worth a warning under the tables (failed episodes first)."""

    # -- analysis ------------------------------------------------------------
    reference_agent: ClassVar[str] = "adaptive"
    """The agent whose information on the same box and repetition is efficiency's
    denominator (the greedy/adaptive baseline of the kind)."""
    baseline_tiers: ClassVar[Mapping[str, int]] = {"random": 1, "fixed": 2, "adaptive": 3}
    """The exploration tier each baseline agent must get: what the tier classifier is
    validated on (:mod:`evaluator.analysis.tiers`)."""

    def analyse(self, record: Any) -> EpisodeAnalysis:
        """One record as the kind-independent :class:`~evaluator.analysis.EpisodeAnalysis`
        (steps, answers, information, conversation) that tiers, figures, comparisons and
        the trajectory viewer read."""
        raise TypeError(f"the {self.title} kind does not implement analyse()")

    def figures(self, analyses: Sequence[EpisodeAnalysis], records: Sequence[Any]) -> list[Figure]:
        """Figures of this kind's own (DFA: the automata paper's), from the analyses of
        every run of this kind in a report and the records they came from (parallel; runs
        may differ in budget); the generic report draws the rest. Default: none."""
        return []

    # -- people --------------------------------------------------------------
    @abstractmethod
    def play_human(self, play: HumanPlay, settings: Any) -> PlayedEpisode:
        """A person plays ``play.box`` through ``play.io``; the record (not yet saved)."""

    @abstractmethod
    def outcome_line(self, record: Any) -> str:
        """One line for the person at the end of a completed episode."""
