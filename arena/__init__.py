"""The arena: bot tournaments, their ratings and their reports."""
