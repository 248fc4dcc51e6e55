"""Retrograde solvers of the small games (the L game, Alak on small boards): perfect-play tables;
and the reachable position count of Legionnaires (Boardman's table).

They are pure functions of the rules in `protocols`; the perfect bot plays from them and the
scripts in `scripts/` print their analyses.
"""
