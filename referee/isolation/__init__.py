"""Everything that contains an untrusted bot: isolation levels, resource limits, the launcher,
the bubblewrap sandbox, bot users, cgroups, the freezer and process trees.

The rest of the referee uses the names below; the modules behind them are this package's own.
`launch.py` and `supervise.py` are programs, run by path before a bot's exec (the referee imports
`launch.py` only for the way it writes the launcher's options); `launch.py` loads `kernel.py`
beside it, whose steps `kernel.c` repeats for the compiled helper.
"""

from referee.isolation.confinement import (
    Confinement,
    InfrastructureFailure,
    StartRefused,
    Unreachable,
    player_directories,
    player_places,
    reach_check,
    reach_fix,
    reach_problem,
)
from referee.isolation.levels import (
    AUTO,
    FEATURE_ORDER,
    Feature,
    Isolation,
    IsolationSettings,
    IsolationUnavailable,
    check_bot_users,
    choose,
    describe,
    detect,
    parse_level,
    ran_as_root_warning,
    root_warning,
)
from referee.isolation.limits import Limits
from referee.isolation.spawn import start_confined

__all__ = [
    "AUTO",
    "FEATURE_ORDER",
    "Confinement",
    "Feature",
    "InfrastructureFailure",
    "Isolation",
    "IsolationSettings",
    "IsolationUnavailable",
    "Limits",
    "StartRefused",
    "Unreachable",
    "check_bot_users",
    "choose",
    "describe",
    "detect",
    "parse_level",
    "player_directories",
    "player_places",
    "ran_as_root_warning",
    "reach_check",
    "reach_fix",
    "reach_problem",
    "root_warning",
    "start_confined",
]
