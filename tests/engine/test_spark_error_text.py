"""No engine text reaches a client with an internal error: a Spark failure with no SQLSTATE, or with an internal one
(XX…), is XX000 `internal error` (engine/spark_errors.py; the text goes to the server's log). Errors Spark gives a
SQLSTATE of another class keep their one-line message."""

from __future__ import annotations

from sparkwire.engine.spark_errors import to_pg_error

_PY4J = (
    "An error occurred while calling o46158.getResult.\n"
    ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 3.0 failed\n"
    "\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2856)\n"
    "Caused by: java.util.UnknownFormatConversionException: Conversion = 'I'\n"
)


def test_a_failure_without_sqlstate_is_internal_error_without_its_text() -> None:
    error = to_pg_error(RuntimeError(_PY4J))
    assert (error.code, error.message) == ("XX000", "internal error")


def test_an_internal_sqlstate_carries_no_engine_text() -> None:
    text = "Caused by: org.apache.spark.SparkException: [INTERNAL_ERROR] The plan at o12 broke. SQLSTATE: XX000\n"
    error = to_pg_error(RuntimeError(text))
    assert (error.code, error.message) == ("XX000", "internal error")


def test_an_error_of_another_class_keeps_its_message() -> None:
    text = "Caused by: org.apache.spark.SparkArithmeticException: [SOME_NEW_CONDITION] bad value 7. SQLSTATE: 22023\n"
    error = to_pg_error(RuntimeError(text))
    assert (error.code, error.message) == ("22023", "bad value 7.")
