"""Pluggable strategies. Every module here registers its strategies when imported; the
engine imports them all and knows none of them by name. A new strategy is a new file."""
