"""`referee match`: the players' names, the match's config, resuming in the match's own words,
the tally and its words, the live view, and the command itself as a user runs it."""

from __future__ import annotations

import json
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from rich.console import Console

from referee.app.match_session import match_config
from referee.records import read_record
from referee.stats.head_to_head import Tally, conclusion, summary_fields, summary_lines
from referee.stats.sprt import Sprt
from referee.toml_config.writing import toml_value
from referee.tournament.config import TournamentConfig
from referee.tournament.formats import make_schedule
from referee.tournament.match_setup import (
    MatchSpec,
    config_text,
    default_directory,
    player_names,
    resume_refusal,
)
from referee.tournament.roster import Roster
from referee.tournament.runner import RunState
from referee.views.match_live import MatchDisplay
from referee.web.archive import Archive
from referee.web.live import LiveHub
from referee.web.tournaments import summarise
from tests.commandline import referee_here
from tests.scriptbots import script_bot

# -- names and config -------------------------------------------------------------------------


def test_player_names_say_what_differs() -> None:
    assert player_names("builtin:greedy --seed {seed}", "builtin:random") == ("greedy", "random")
    assert player_names("python bots/v2/main.py", "python bots/v1/main.py") == ("v2", "v1")
    assert player_names("builtin:search --depth 3", "builtin:search --depth 1") == (
        "search(depth 3)",
        "search(depth 1)",
    )
    assert player_names("builtin:random", "builtin:random --seed 3") == ("random", "random(seed 3)")
    assert player_names("python bot.py --eval=new -v", "python bot.py --eval=old -v") == (
        "bot(eval new)",
        "bot(eval old)",
    )
    assert player_names("builtin:random", "builtin:random") == ("random-1", "random-2")
    first, second = player_names("builtin:search --depth 3", "builtin:search --depth 1")
    assert default_directory(first, second) == Path(
        "referee-matches/search-depth-3-vs-search-depth-1"
    )


def test_a_very_long_difference_still_makes_a_valid_name(tmp_path: Path) -> None:
    first, second = player_names(
        "builtin:search --movetime " + "1" * 80, "builtin:search --movetime " + "2" * 80
    )
    assert first != second and len(first) <= 64 and len(second) <= 64
    spec = MatchSpec("alak", ((first, "builtin:search"), (second, "builtin:search")), 2)
    match_config(spec, tmp_path / "match.toml")  # names the config accepts


def test_the_config_holds_options_clock_and_isolation(tmp_path: Path) -> None:
    spec = MatchSpec(
        "alak",
        (("a", "builtin:greedy"), ("b", "builtin:random")),
        6,
        seed=4,
        options={"size": 9, "variant": "traditional"},
        time_control={"clock_total": 30.0, "clock_increment": 0.5},
        isolation="basic+root",
    )
    config = match_config(spec, tmp_path / "match.toml")[0].config
    assert config.game_options == {"size": 9, "variant": "traditional"}
    assert (config.time_control.clock_total, config.time_control.clock_increment) == (30.0, 0.5)
    assert config.match_entries() == {"isolation": {"level": "basic+root"}}
    assert (config.seed, config.games_per_pairing, config.player_names) == (4, 6, ["a", "b"])
    schedule = make_schedule(config)
    for first, second in zip(schedule[::2], schedule[1::2], strict=True):
        assert (first.blue, first.orange) == (second.orange, second.blue)


def test_match_toml_is_written_from_the_config_object_with_its_comments(tmp_path: Path) -> None:
    spec = MatchSpec(
        "alak",
        (("v2", "python3 v2/main.py --seed {seed}"), ("greedy", "builtin:greedy")),
        4,
        options={"size": 9},
        time_control={"move_timeout": 2.0},
        isolation="basic",
        openings={"plies": 2},
        position_capable=frozenset({0}),
        folder=tmp_path,
    )
    config = spec.config()
    text = config_text(config)
    lines = text.splitlines()
    assert lines[0].startswith("# A match between two bots, written by `referee match`")
    assert lines[1].startswith("# Run the same command again") and lines[2] == ""
    assert lines[3] == 'name = "v2 vs greedy"'
    trusted = [line for line in lines if line.startswith("trusted")]
    assert trusted == ["trusted = true # typed by whoever runs the match, who vouches for it"]
    # What is written reads back as the config that was built, and only what the flags set.
    assert TournamentConfig.model_validate(tomllib.loads(text)) == config
    assert "max_replays" not in text and "[match.isolation]" in text
    loaded, written = match_config(spec, tmp_path / "m" / "match.toml")
    assert written == text and loaded.config == config


def test_toml_values() -> None:
    assert toml_value(True) == "true" and toml_value(3) == "3" and toml_value(0.5) == "0.5"
    assert toml_value('a"b') == '"a\\"b"'
    assert toml_value([1, "x"]) == '[1, "x"]' and toml_value({"k": 1}) == '{"k" = 1}'
    with pytest.raises(ValueError, match="cannot be written"):
        toml_value(None)


# -- resuming in the match's words ------------------------------------------------------------

STORED = {
    "game": "alak",
    "game_options": {"size": 11, "variant": "baljeu"},
    "players": ["greedy", "random"],
    "format": "round-robin",
    "challengers": [],
    "games_per_pairing": 100,
    "seed": 1,
}


def test_the_same_match_or_more_games_resume() -> None:
    assert resume_refusal(STORED, dict(STORED), Path("m")) is None
    assert resume_refusal(STORED, STORED | {"games_per_pairing": 200}, Path("m")) is None


def test_other_settings_are_refused_in_the_match_words() -> None:
    fewer = resume_refusal(STORED, STORED | {"games_per_pairing": 50}, Path("m"))
    assert fewer is not None
    assert fewer.startswith("the match in m was started with other settings: --games 100, not 50")
    assert "give another --dir to start a new match" in fewer
    assert "games_per_pairing" not in fewer and "directory" not in fewer
    other = resume_refusal(
        STORED,
        STORED | {"seed": 2, "game_options": {"size": 9, "variant": "baljeu"}},
        Path("m"),
    )
    assert other is not None
    assert "--seed 1, not 2" in other and "the game options size=11, not size=9 (-o" in other
    players = resume_refusal(STORED, STORED | {"players": ["greedy", "search"]}, Path("m"))
    assert players is not None and "the players greedy and random, not greedy and search" in players


# -- the tally, its words and its view ---------------------------------------------------------


def test_conclusions_in_plain_words() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    tally = Tally("v2", "v1", sprt, {n: 1.0 for n in range(1, 201)})
    assert conclusion(tally.stats(), sprt, "v2", "v1") == (
        "H1 accepted: v2 is stronger than v1 by at least 20 Elo, with 95% confidence"
    )
    tally.scores = {n: float(n % 2) if n < 3000 else 0.5 for n in range(1, 4001)}
    assert conclusion(tally.stats(), sprt, "v2", "v1").startswith(
        "H0 accepted: v2 is not stronger than v1 by 20 Elo or more, with 95% confidence"
    )
    tally.scores = {1: 1.0, 2: 0.0}
    assert conclusion(tally.stats(), sprt, "v2", "v1").startswith("no decision yet")


def test_only_a_game_that_could_decide_the_sprt_holds_up_the_next() -> None:
    sprt = Sprt(0, 200, 0.1, 0.1)  # 6 won pairs decide, 5 do not
    tally = Tally("v2", "v1", sprt, dict.fromkeys(range(1, 11), 1.0))
    assert tally.could_decide(12) is False  # game 11, the first of its pair, is not in yet
    tally.add(11, "v2")
    assert tally.could_decide(12) is True
    assert tally.could_decide(13) is False  # a pair's first game never decides
    assert Tally("v2", "v1", None).could_decide(2) is False  # no SPRT, no stop


def test_a_sweep_reads_as_an_interval_with_one_end() -> None:
    tally = Tally("v2", "v1", None, dict.fromkeys(range(1, 31), 1.0))
    lines = summary_lines(tally.stats(), tally)
    assert "v2 vs v1: 30 games, v2 +30 =0 -0 (100.0%)" in lines
    assert (
        "Elo difference (from 15 pairs): every pair won, 95% interval [+345.8, no upper end]"
        in lines
    )
    assert "inf" not in "\n".join(lines)
    fields = summary_fields(tally, "m")
    assert fields["elo"] is None and fields["elo_high"] is None
    assert fields["elo_low"] == pytest.approx(345.8, abs=0.05)
    json.dumps(fields, allow_nan=False)  # valid JSON: no Infinity


def test_the_words_and_the_json_give_the_same_score() -> None:
    # 25 won pairs, then the first game of the next pair lost: the score is that of the 51
    # games in both, while the Elo figures are those of the 25 complete pairs.
    tally = Tally("v2", "v1", None, {**dict.fromkeys(range(1, 51), 1.0), 51: 0.0})
    lines = summary_lines(tally.stats(), tally)
    fields = summary_fields(tally, "m")
    assert "v2 vs v1: 51 games, v2 +50 =0 -1 (98.0%)" in lines
    assert fields["score"] == pytest.approx(50 / 51) and f"{100 * fields['score']:.1f}" == "98.0"
    assert fields["pentanomial"] == [0, 0, 0, 0, 25]
    assert "Elo difference (from 25 pairs): every pair won" in "\n".join(lines)


def test_the_live_view_shows_score_elo_and_llr() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    tally = Tally("v2", "v1", sprt, {1: 1.0, 2: 0.5, 3: 0.0, 4: 1.0})
    state = RunState(players=["v2", "v1"], total=10)
    console = Console(record=True, width=100)
    console.print(MatchDisplay(console, state, tally).render())
    text = console.export_text()
    assert "v2 vs v1: 4 games, v2 +2 =1 -1 (62.5%)" in text
    assert "pairs (0, 1/2, 1, 3/2, 2 points of 2): 0 0 1 1 0" in text
    assert "Elo difference (from 2 pairs): +" in text and "normalised Elo: +" in text
    assert "no decision yet" not in text  # while it plays, undecided is no news
    assert "LLR" in text and "(bounds -2.94, 2.94)" in text and "H0 [" in text


# -- referee match ----------------------------------------------------------------------------

GREEDY = "builtin:greedy --seed {seed}"
RANDOM = "builtin:random --seed {seed}"
BASIC = ["--isolation", "basic+root", "-q", "-j", "2"]
# Loses every game on its first move (orange waits for blue's move first).
ILLEGAL = """
if hear() == "orange":
    hear()
say("this is not a move")
hear()
"""


def test_match_plays_reports_and_resumes(tmp_path: Path) -> None:
    args = ["match", "alak", "-p1", GREEDY, "-p2", RANDOM, "--games", "4", *BASIC]
    first = referee_here(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "greedy vs random: 4 games, greedy +" in first.stdout
    assert "Elo difference (from 2 pairs):" in first.stdout
    assert "LOS (likelihood greedy" in first.stdout and "SPRT" not in first.stdout
    directory = tmp_path / "referee-matches" / "greedy-vs-random"
    assert (directory / "match.toml").is_file() and (directory / "tournament.sqlite").is_file()
    again = referee_here(*args, "--events", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    events = [json.loads(line) for line in again.stdout.splitlines()]
    assert [e["event"] for e in events] == ["tournament-started", "tournament-finished"]
    assert events[0]["finished"] == 4
    assert "resuming: 4/4 games done" in again.stderr


def test_match_sprt_stops_once_decided(tmp_path: Path) -> None:
    # Greedy beats random at alak nearly always; wide bounds decide in a few pairs.
    args = ["match", "alak", "-p1", GREEDY, "-p2", RANDOM, "--games", "400", *BASIC]
    args += ["--dir", "m", "--sprt", "elo0=0", "elo1=200", "alpha=0.1", "beta=0.1"]
    first = referee_here(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "H1 accepted: greedy is stronger than random by at least 200 Elo" in first.stdout
    assert "bounds -2.20, 2.20" in first.stdout
    played = int(first.stdout.split(" games,")[0].split()[-1])
    assert 4 <= played < 200
    again = referee_here(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "the SPRT had already decided: no game to play" in again.stderr
    assert f"greedy vs random: {played} games" in again.stdout


def test_options_clock_odd_games_and_json(tmp_path: Path) -> None:
    args = ["match", "alak", "-p1", GREEDY, "-p2", RANDOM, "--games", "3", *BASIC, "--json"]
    args += ["-o", "size=9", "--clock", "20+0.5", "--dir", "m"]
    done = referee_here(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "--games 3 is odd: playing 4, so that every game has its pair" in done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 4 == summary["wins"] + summary["draws"] + summary["losses"]
    assert sum(summary["pentanomial"]) == 2 and summary["model"] == "pentanomial"
    assert {"elo", "elo_low", "elo_high", "nelo", "los", "llr", "decision"} <= set(summary)
    assert summary["sprt"] is None and summary["directory"] == "m"
    assert "greedy vs random: 4 games" in done.stderr  # the words go to stderr
    records = sorted((tmp_path / "m").rglob("*.jsonl"))
    assert len(records) == 4
    for record in records:
        header = json.loads(record.read_text().splitlines()[0])
        assert header["options"]["size"] == 9
        assert header["time_control"]["clock_total"] == 20.0
        assert header["time_control"]["clock_increment"] == 0.5


def test_fewer_games_or_another_seed_are_refused_in_the_match_words(tmp_path: Path) -> None:
    args = ["match", "alak", "-p1", GREEDY, "-p2", RANDOM, *BASIC, "--dir", "m"]
    assert referee_here(*args, "--games", "4", cwd=tmp_path).returncode == 0
    config = (tmp_path / "m" / "match.toml").read_text()
    fewer = referee_here(*args, "--games", "2", cwd=tmp_path)
    assert fewer.returncode == 2
    message = " ".join(fewer.stderr.split())  # as one line, however the terminal wrapped it
    assert "the match in m was started with other settings: --games 4, not 2" in message
    assert "games_per_pairing" not in message and "`directory`" not in message
    assert (tmp_path / "m" / "match.toml").read_text() == config  # nothing overwritten
    seed = referee_here(*args, "--games", "4", "--seed", "5", cwd=tmp_path)
    assert seed.returncode == 2 and "--seed 1, not 5" in " ".join(seed.stderr.split())
    grown = referee_here(*args, "--games", "6", cwd=tmp_path)
    assert grown.returncode == 0, grown.stderr
    assert "greedy vs random: 6 games" in grown.stdout


def test_bad_options_are_named(tmp_path: Path) -> None:
    base = ["match", "alak", "-p1", GREEDY, "-p2", RANDOM, *BASIC]
    size = referee_here(*base, "-o", "size=99", cwd=tmp_path)
    said = "-o size=99: alak's size is a whole number from 5 to 26"
    assert size.returncode == 2 and said in size.stderr
    clock = referee_here(*base, "--clock", "0", cwd=tmp_path)
    assert clock.returncode == 2 and "argument --clock: not a clock: '0'" in clock.stderr
    sprt = referee_here(*base, "--sprt", "elo1=x", cwd=tmp_path)
    assert sprt.returncode == 2 and "--sprt 'elo1=x'" in sprt.stderr
    assert not (tmp_path / "referee-matches").exists()


def test_a_thirty_game_sweep_prints_a_finite_lower_bound(tmp_path: Path) -> None:
    loser = script_bot(tmp_path, "loser", ILLEGAL)
    args = ["match", "alak", "-p1", GREEDY, "-p2", loser, "--games", "30", *BASIC, "--dir", "m"]
    done = referee_here(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "greedy vs loser: 30 games, greedy +30 =0 -0 (100.0%)" in done.stdout
    assert (
        "Elo difference (from 15 pairs): every pair won, 95% interval [+345.8, no upper end]"
        in done.stdout
    )
    assert "inf" not in done.stdout


def test_one_game_at_a_time_stops_at_the_game_that_decided(tmp_path: Path) -> None:
    # Greedy wins every game against a bot that plays an illegal move: the SPRT decides after
    # the 12th game (6 won pairs: LLR 2.51 >= 2.20), and with -j 1 no 13th game starts.
    loser = script_bot(tmp_path, "loser", ILLEGAL)
    args = ["match", "alak", "-p1", GREEDY, "-p2", loser, "--games", "40", "--dir", "m"]
    args += ["--isolation", "basic+root", "-q", "-j", "1", "--json"]
    args += ["--sprt", "elo0=0", "elo1=200", "alpha=0.1", "beta=0.1"]
    done = referee_here(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["games"], summary["decision"]) == (12, "H1")
    assert len(list((tmp_path / "m").rglob("*.jsonl"))) == 12  # no game started after it
    # What shows the folder says the 28 games left were not played, the SPRT having stopped
    # the match: none of them is waiting.
    results = referee_here("tournament", "results", "m", cwd=tmp_path)
    assert results.returncode == 0, results.stderr
    heading = results.stdout.splitlines()[0]
    assert heading.endswith("12 finished, 28 not played: the SPRT stopped the match"), heading
    assert "pending" not in heading
    dashboard = summarise(Archive.of([tmp_path / "m"]), LiveHub(), 0, (tmp_path / "m").resolve())
    assert (dashboard["not_played"], dashboard["counts"]["finished"]) == (28, 12)


def test_the_match_folder_shows_the_figures_referee_match_printed(tmp_path: Path) -> None:
    # `tournament results` on a match's folder gives the match's own figures (pairs, Elo from
    # pairs, LOS, the SPRT's state), the same lines `referee match` printed, and says what the
    # standings' Elo is: the rating model of single games, whose difference `referee match`
    # printed too, beside the pair figures.
    loser = script_bot(tmp_path, "loser", ILLEGAL)
    args = ["match", "alak", "-p1", GREEDY, "-p2", loser, "--games", "6", *BASIC, "--dir", "m"]
    args += ["--sprt", "elo0=0", "elo1=200", "alpha=0.1", "beta=0.1"]
    played = referee_here(*args, cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    printed = [line for line in played.stdout.splitlines() if line.startswith(("greedy", "pairs",
               "Elo", "normalised", "LOS", "SPRT", "no decision", "rating model"))]  # fmt: skip
    assert any(line.startswith("SPRT elo0=0 elo1=200") for line in printed)
    # Six games won by greedy: the model's difference has a lower bound only.
    assert any(line.startswith("rating model (docs/ratings.md): greedy - loser: every game won")
               for line in printed)  # fmt: skip
    results = referee_here("tournament", "results", "m", cwd=tmp_path)
    assert results.returncode == 0, results.stderr
    shown = [line.strip() for line in results.stdout.splitlines()]
    assert all(line in shown for line in printed), (printed, shown)
    note = " ".join(results.stdout.split())
    assert "Elo: Bradley-Terry with a draw margin and a first-move advantage" in note
    assert "the match's pentanomial Elo above is from its game pairs" in note
    as_json = json.loads(
        referee_here("tournament", "results", "m", "-f", "json", cwd=tmp_path).stdout
    )
    again = json.loads(referee_here(*args, "--json", cwd=tmp_path).stdout)  # resumes: nothing new
    summary = as_json["match"]["summary"]
    keys = ("games", "pentanomial", "score", "elo_low", "los", "sprt", "llr", "decision")
    for key in (*keys, "rating"):
        assert summary[key] == again[key], key


# -- the bots' folder --------------------------------------------------------------------------

TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "templates" / "python" / "alak_bot.py"


def two_versions(folder: Path) -> tuple[str, str]:
    """v1/ and v2/ of one bot in `folder`, and their commands with paths relative to it (the
    README's example)."""
    for version in ("v1", "v2"):
        (folder / version).mkdir(mode=0o755)
        shutil.copy(TEMPLATE, folder / version / "main.py")
    return f"{sys.executable} v2/main.py", f"{sys.executable} v1/main.py"


def test_relative_commands_run_where_the_match_was_started(tmp_path: Path) -> None:
    v2, v1 = two_versions(tmp_path)
    done = referee_here("match", "alak", "-p1", v2, "-p2", v1, "--games", "2", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "v2 vs v1: 2 games" in done.stdout
    directory = tmp_path / "referee-matches" / "v2-vs-v1"
    # From another folder, the match's games are played again where it was started.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = referee_here(
        "tournament", "replay", str(directory / "match.toml"), "--player", "v1", "-q", cwd=elsewhere
    )
    assert again.returncode == 0, again.stderr
    records = sorted((directory / "games").glob("*.jsonl"))
    assert len(records) == 4
    for path in records:
        result = read_record(path).result
        assert result is not None and not result.reason.is_bot_fault, (path, result)
        assert not result.void, result


def test_the_folder_a_match_runs_in_is_no_part_of_a_bot(tmp_path: Path) -> None:
    v2, v1 = two_versions(tmp_path)
    spec = MatchSpec("alak", (("v2", v2), ("v1", v1)), 2, folder=tmp_path)
    loaded, _ = match_config(spec, tmp_path / "m" / "match.toml")
    assert Roster.of(loaded).spec("v2", 1).cwd == tmp_path.resolve()
    hashed = Roster.of(loaded).spec("v2", 1).content_hash
    (tmp_path / "notes.txt").write_text("the user's, beside the bots")
    again, _ = match_config(spec, tmp_path / "m" / "match.toml")
    assert Roster.of(again).spec("v2", 1).content_hash == hashed
    (tmp_path / "v2" / "main.py").write_text("# a new version\n")
    changed, _ = match_config(spec, tmp_path / "m" / "match.toml")
    assert Roster.of(changed).spec("v2", 1).content_hash != hashed
