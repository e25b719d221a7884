"""A faithful local implementation of the service (see docs/sandbox.md)."""
