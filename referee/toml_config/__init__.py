"""The referee's TOML config files (tournaments, matches, arenas, courses, leagues): read into
pydantic models with every problem as `FILE:LINE: field: problem` (`reading.py`), the line of a
field (`lines.py`), the setting an unknown key most likely meant (`unknown.py`), and the text of
the files the referee writes for people to edit (`writing.py`)."""
