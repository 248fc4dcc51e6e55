"""Game-tree search shared by every game: the engine and the model each game plugs into it."""
