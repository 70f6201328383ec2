"""Real-client tests of tools whose Python dependencies must not mix with ours (issue 20): each test runs a driver
program (in a subfolder named after the tool) with the Python of the tool's own venv, `.venv-tools/NAME`, which
`scripts/test` builds from `tests/tools/NAME.txt`, and compares what the tool sees of sparkwire with what it sees
of PostgreSQL 15."""
