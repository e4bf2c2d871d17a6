"""Tests of the tournament arena."""
