"""What people look at: boards, game summaries, the terminal replay, the HTML export, and the
tournament tables and live display. Views are functions of records and snapshots; the core
(bot, match, records, the tournament runner and store) never imports them."""
