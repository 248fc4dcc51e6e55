"""The start of a tournament session: where its games are played chosen and its store opened
(or resumed), or the refusal that stops it, as a value. Nothing is printed here: the command
says the refusal, or the isolation line and the games already done.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.app.preflight import waiting_players
from referee.course.collect import course_places
from referee.isolation import Isolation, IsolationUnavailable, check_bot_users
from referee.match.host import Host
from referee.players import unreachable_player
from referee.tournament.bot_folders import layout_refusal
from referee.tournament.config import LoadedConfig
from referee.tournament.resume import open_tournament, store_problem
from referee.tournament.roster import Roster
from referee.tournament.runner import tournament_host
from referee.tournament.store import STORE_NAME, GameState, Store, StoreError


@dataclass(frozen=True)
class Refused:
    """Why the session does not start: the whole line to say (with `highlight`, as rich
    would colour it on a terminal)."""

    message: str
    highlight: bool = False


@dataclass
class OpenedSession:
    """A tournament whose store is open: `host` is where its games are played here (None: on
    the cluster at `address`). `close` it, or `let_go` of it when the run stops before its
    first game."""

    loaded: LoadedConfig
    roster: Roster  # every player with its content hash, once for the whole run
    store: Store
    host: Host | None
    address: str | None
    new_store: bool  # this run made the store...
    made_directory: bool  # ...and the tournament's directory

    @property
    def isolation(self) -> Isolation | None:
        return None if self.host is None else self.host.isolation

    def done(self) -> tuple[int, int]:
        """The games finished, of all the games scheduled so far."""
        games = self.store.games()
        return sum(g.state is GameState.FINISHED for g in games), len(games)

    def let_go(self) -> None:
        """Close the store of a run refused before its first game; one this run made is
        removed, with the directory it made: a refused first run leaves nothing behind."""
        if self.new_store:
            self.store.discard(self.made_directory)
        else:
            self.store.close()

    def close(self) -> None:
        self.store.close()


def open_session(
    loaded: LoadedConfig, concurrency: int | None = None, cluster: str | None = None
) -> OpenedSession | Refused:
    """Choose where the games are played and open the store: refused when the players'
    folders overlap, the isolation asked for is not available here, the store cannot be used
    (or is reached through a planted link), or a waiting bot's user cannot reach its program
    or folder (the path and the fix)."""
    address = loaded.config.cluster_address(cluster)
    roster = Roster.of(loaded)
    if refusal := layout_refusal(roster.specs(game_seed=loaded.config.seed)):
        return Refused(f"referee: {loaded.path}: {refusal}")
    host: Host | None = None
    if address is None:
        try:
            # Chosen once, here, for every game of the run; no bot of the tournament may see
            # its folder (the store, the records), its config, a course's own folders, any
            # other player's files, nor other runs' output.
            course = course_places(loaded.path) if loaded.collected else []
            host = tournament_host(loaded, roster, *course)
            # Two bots a game, each with a user of its own, as many games at once as it plays.
            games_at_once = concurrency or loaded.config.effective_concurrency()
            check_bot_users(host.isolation, 2 * games_at_once)
        except IsolationUnavailable as exc:
            return Refused(f"referee: {loaded.path}: [match.isolation]: {exc}", highlight=True)
    made_directory = not loaded.directory.exists()
    new_store = not (loaded.directory / STORE_NAME).exists()
    try:
        store, _ = open_tournament(loaded)
    except StoreError as exc:
        return Refused(f"referee: {store_problem(exc, loaded)}")
    opened = OpenedSession(loaded, roster, store, host, address, new_store, made_directory)
    if host is not None:
        waiting = roster.specs(waiting_players(loaded, store.games()))
        if refused := unreachable_player(waiting, host.isolation):  # the path and the fix
            opened.let_go()
            return Refused(f"referee: {refused}")
    return opened
