"""The differential suite's CI subset: every EVERY-th query of each corpus topic (tests/differential/corpus/) on
the session's PostgreSQL 15 oracle and sparkwire server, through bench/differential.py (the same code as the full
run, `python -m bench.differential`). Fails on any disagreement not listed in known_disagreements.txt. See
docs/sql-compatibility.md."""

from __future__ import annotations

from bench.differential import CORPUS, load_corpus, load_known, report, run_all, subset, unexpected
from bench.differential_known import DOC, doc_listing
from tests.differential import generate
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

EVERY = 15


def test_subset_agrees_with_postgres(server: SparkwireServer, oracle: PostgresOracle) -> None:
    queries = subset(load_corpus(), EVERY)
    outcomes = run_all(oracle.dsn, server.dsn, queries)
    known = load_known()
    assert unexpected(outcomes, known) == [], report(outcomes, known)


def test_known_disagreements_name_corpus_queries() -> None:
    ids = {q.id for q in load_corpus()}
    assert sorted(set(load_known()) - ids) == []


def test_generated_corpus_is_up_to_date() -> None:
    for name, make in generate.GENERATORS.items():
        assert (CORPUS / f"{name}.sql").read_text() == generate.HEADER + "\n".join(make()) + "\n", name


def test_every_known_disagreement_is_listed_in_the_doc() -> None:
    assert doc_listing(load_known()) in DOC.read_text()
