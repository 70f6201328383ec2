"""Intervals and times PostgreSQL's way on both engines: time arithmetic, sums and averages of intervals, age(),
interval text and justify_*."""
