"""simkit's own games, one package each. They register through the ``simkit.games`` entry
point group exactly as a third-party game would."""
