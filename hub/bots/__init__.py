"""Seeded computer players.  A bot sees only what its seat may see: the seat's view and its legal actions."""
