"""Load-Shoot-Defend and ORACLE's Scout variant: games with bullets.

State: both sides' bullet counts and the cap (:class:`Bullets`); every count is public,
since every action (with its amount) is shown after each round.

Scoring, as ORACLE's rules shifted to non-negative points: the round's winner scores 1,
anyone else 0. A shot wins against an opponent who loads (or scouts); a successful
defence wins against the shot it stops.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import ClassVar, NamedTuple

from blackboxes.games._base import Game, GameError, GameState, Outcome, register_game

__all__ = ["Bullets", "LoadShootDefend", "LoadShootDefendScout"]

LOAD = "load"
SHOOT = "shoot"
DEFEND = "defend"
SCOUT = "scout"


class Bullets(NamedTuple):
    """The Load-Shoot-Defend state."""

    player: int
    opp: int
    cap: int


class _BulletGame(Game):
    setting_ranges: ClassVar[Mapping[str, tuple[int, int]]] = {
        "rounds": (1, 50),
        "max_bullets": (1, 8),
    }
    defaults: ClassVar[Mapping[str, int]] = {"rounds": 10, "max_bullets": 8}
    level_ranges: ClassVar[Mapping[str, Mapping[str, tuple[int, int]]]] = {
        "easy": {"rounds": (8, 12), "max_bullets": (8, 8)},
        "hard": {"rounds": (10, 18), "max_bullets": (8, 8)},
    }
    max_cycle: ClassVar[int] = 5
    """Longest period of the ``cycle`` strategies (ORACLE's LSD cycles have 4 and 5)."""

    def initial_state(self, settings: Mapping[str, int]) -> GameState:
        return Bullets(0, 0, self.settings(settings)["max_bullets"])

    def actions(self, state: GameState) -> tuple[str, ...]:
        return self._legal(_bullets(state).player)

    def opp_actions(self, state: GameState) -> tuple[str, ...]:
        return self._legal(_bullets(state).opp)

    @abstractmethod
    def _legal(self, bullets: int) -> tuple[str, ...]: ...

    @abstractmethod
    def cost(self, action: str) -> int:
        """Bullets an action spends (load: -1, gaining one)."""
        ...

    def after(self, bullets: int, cap: int, action: str) -> int:
        """A side's bullets after playing ``action`` (a load at the cap is wasted)."""
        return min(cap, bullets + 1) if action == LOAD else bullets - self.cost(action)

    def substitute(self, state: GameState, action: str) -> str:
        # A strategy that names a shot or a defence it cannot pay for loads instead.
        return action if action in self.opp_actions(state) else LOAD

    def legal_forever(self, settings: Mapping[str, int], word: tuple[str, ...]) -> bool:
        """True when repeating ``word`` forever from 0 bullets is always legal for the
        opponent (its bullets depend only on its own actions)."""
        cap = self.settings(settings)["max_bullets"]
        bullets, seen = 0, set()
        while bullets not in seen:
            seen.add(bullets)
            for action in word:
                if action not in self._legal(bullets):
                    return False
                bullets = self.after(bullets, cap, action)
        return True

    @abstractmethod
    def cycle_alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        """The actions the ``cycle`` and ``mixed_subset`` strategies draw from."""
        ...

    @abstractmethod
    def shot(self, amount: int) -> str:
        """The action that shoots ``amount`` bullets."""
        ...

    def is_shot(self, action: str) -> bool:
        """True for any shoot action."""
        return action.startswith(SHOOT)

    def resolve(self, state: GameState, player_action: str, opp_action: str) -> Outcome:
        s = _bullets(state)
        nxt = Bullets(
            self.after(s.player, s.cap, player_action),
            self.after(s.opp, s.cap, opp_action),
            s.cap,
        )
        won = self._round(player_action, opp_action)
        lost = self._round(opp_action, player_action)
        return Outcome(nxt, int(won), int(lost))

    @abstractmethod
    def _round(self, mine: str, theirs: str) -> bool:
        """True when ``mine`` wins the round against ``theirs``."""
        ...


def _bullets(state: GameState) -> Bullets:
    if not isinstance(state, Bullets):
        raise GameError(f"not a Load-Shoot-Defend state: {state!r}")
    return state


@register_game
class LoadShootDefend(_BulletGame):
    """Load-Shoot-Defend: ``load`` gains a bullet, ``shoot`` spends one and wins against a
    load, ``defend`` is free and wins against a shot; everything else ties."""

    name = "lsd"
    title = "Load, shoot, defend"
    order = (LOAD, SHOOT, DEFEND)

    def _legal(self, bullets: int) -> tuple[str, ...]:
        return self.order if bullets > 0 else (LOAD, DEFEND)

    def alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        return self.order

    def cycle_alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        return self.order

    def cost(self, action: str) -> int:
        return 1 if action == SHOOT else 0

    def shot(self, amount: int) -> str:
        if amount != 1:
            raise GameError(f"{self.name} shoots one bullet at a time, not {amount}")
        return SHOOT

    def _round(self, mine: str, theirs: str) -> bool:
        return (mine, theirs) in ((SHOOT, LOAD), (DEFEND, SHOOT))

    def rules_text(self, settings: Mapping[str, int]) -> str:
        s = self.settings(settings)
        return (
            f"{self.title}. You and your opponent play {s['rounds']} rounds. Each side starts "
            f"with 0 bullets and holds at most {s['max_bullets']}. In each round both choose "
            "one action at the same time: `load` gains one bullet (wasted when you already "
            "hold the maximum); `shoot` spends one bullet and needs at least one; `defend` "
            "costs nothing. A shot against a `load` wins the round for the shooter; a "
            "`defend` against a shot wins the round for the defender; every other pair "
            "(two shots, two loads, two defends, load against defend) is a tie. The winner "
            "of a round scores 1 point, anyone else 0. After each round you are told both "
            "actions, the points each side scored and both bullet counts. Your score is "
            "the sum of your points."
        )


@register_game
class LoadShootDefendScout(_BulletGame):
    """ORACLE's Load-Shoot-Defend-Scout: ``shoot x`` spends x bullets, ``defend y`` spends
    y and stops a shot of at most y, two shots go to the larger; ``scout`` does nothing.

    ORACLE hides the amounts x and y and makes ``scout`` reveal the opponent's bullets.
    Then the opponent's bullets are unknown and a best response is a partially observed
    problem, not a DP over public states, so here amounts are shown and scout only passes.
    """

    name = "lsd_scout"
    title = "Load, shoot, defend, scout"

    def _legal(self, bullets: int) -> tuple[str, ...]:
        return (
            LOAD,
            SCOUT,
            *(f"{SHOOT} {x}" for x in range(1, bullets + 1)),
            *(f"{DEFEND} {y}" for y in range(1, bullets + 1)),
        )

    def alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        return self._legal(self.settings(settings)["max_bullets"])

    def cycle_alphabet(self, settings: Mapping[str, int]) -> tuple[str, ...]:
        # Amounts above 2 would multiply the cycle space without new behaviour worth it.
        return self._legal(min(2, self.settings(settings)["max_bullets"]))

    def cost(self, action: str) -> int:
        word, _, amount = action.partition(" ")
        return int(amount) if word in (SHOOT, DEFEND) else 0

    def shot(self, amount: int) -> str:
        return f"{SHOOT} {amount}"

    def _round(self, mine: str, theirs: str) -> bool:
        word, _, amount = mine.partition(" ")
        other, _, their_amount = theirs.partition(" ")
        if word == SHOOT:
            if other in (LOAD, SCOUT):
                return True
            if other == DEFEND:
                return int(their_amount) < int(amount)
            return int(amount) > int(their_amount)
        return word == DEFEND and other == SHOOT and int(amount) >= int(their_amount)

    def _all_player_actions(self, state: GameState) -> tuple[str, ...]:
        return self._legal(_bullets(state).cap)

    def rules_text(self, settings: Mapping[str, int]) -> str:
        s = self.settings(settings)
        return (
            f"{self.title}. You and your opponent play {s['rounds']} rounds. Each side starts "
            f"with 0 bullets and holds at most {s['max_bullets']}. In each round both choose "
            "one action at the same time: `load` gains one bullet (wasted at the maximum); "
            "`scout` does nothing; `shoot x` spends x bullets (1 <= x <= your bullets); "
            "`defend y` spends y bullets (1 <= y <= your bullets). A shot against `load` or "
            "`scout` wins the round for the shooter. `shoot x` against `defend y` wins for "
            "the defender if y >= x and for the shooter if y < x. Two shots: the larger "
            "amount wins, equal amounts tie. Every other pair is a tie. The winner of a "
            "round scores 1 point, anyone else 0. After each round you are told both "
            "actions with their amounts, the points each side scored and both bullet "
            "counts. Your score is the sum of your points."
        )
