"""Connect Four, a game plug-in for the referee: rules (`rules`), the search bot's evaluation
(`evaluation`) and the web view's board renderer (`web`, `renderer.js`)."""
