"""Tests of the built-in bots."""
