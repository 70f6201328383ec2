"""Materialize's load generators as source types: COUNTER, AUCTION and TPCH (one module each, `base` their
shared options and ticking reader). Deterministic: the rows of tick n depend only on n (and the options), so a
restarted reader resumes exactly where the durable offset says and tests can check contents."""
