"""Game-tree search shared by every game: the engine; each game plugs its model into it
(protocols.search, from the game's evaluation module)."""
