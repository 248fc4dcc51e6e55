"""What a command runs: the layer where the tournaments, the live views, the web dashboard and
the cluster meet, below the commands and above everything they use.

`play_game` plays one game as `referee play` asks for it and returns how it went; `config`
reads a tournament's config for a command (the tournament's checks and the cluster's
address parser together); `game_options` reads a game's `-o KEY=VALUE` options by their types;
`tournament_session` plays or resumes a tournament with its live display, dashboard or
cluster, and turns how it finished into an exit code (`session_open` opens its store, or says
why not; `preflight` starts each waiting bot once and returns what it found); `match_session`
opens a match between two bots (`referee match`) as a tournament and keeps its statistics up
to date as its games finish; `check_bot` runs a student's pre-flight (`referee check`) and
`check_students` a course's (`referee course check`), returning what they found.
"""
