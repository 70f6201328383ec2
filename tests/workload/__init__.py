"""Workload introspection (issue 14): statement history, live sessions, backend signals, through real clients."""
