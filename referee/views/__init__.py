"""What people look at in a terminal: boards, game summaries, the terminal replay, and the
tournament tables and live display. Views are functions of records and snapshots; the core
(bot, match, records, the tournament runner and store) never imports them. The HTML export is
a page of the web view (`referee/web/html_export.py`): it copies the web's player and renderers.
"""
