"""Games and bots that live entirely in the test tree: proof that adding a game is local."""
