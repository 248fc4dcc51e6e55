"""Connect Four, a game plug-in for the referee: the rules (`rules`), and beside them, found by
their names, the search bots' evaluation (`evaluation`), the terminal board (`board`) and the
web view's board (`renderer.js`)."""
