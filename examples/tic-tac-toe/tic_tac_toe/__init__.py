"""Tic-tac-toe, a game plug-in for the referee with the course referee's move notation and
framing (`rules`), and the web view's board renderer (`web`, `renderer.js`)."""
