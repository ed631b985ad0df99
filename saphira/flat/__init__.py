"""Flat4, UT Austin's simulator protocol, both ways: our simulator as a Flat server, and a ``flat://`` robot link
(docs/flat.md)."""
