"""Spark's side of execution: binding user queries to versioned relations, running them, and conforming their rows."""
