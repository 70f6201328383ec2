"""What a client must never make Spark do: read or write paths, reach into the JVM, change Spark's own settings.

Contract: `forbidden_in_spark(statement)` returns a one-line reason when the parsed statement (any dialect) uses
a path relation (parquet.`/p`, csv.`…`, json.`…`, text.`…`, orc, avro, binaryFile, jdbc, delta, hive, …), a
JVM-reaching or file-reading function (reflect, java_method, try_reflect, read_files, …), ADD JAR/FILE/ARCHIVE,
LOAD DATA, CREATE … LOCATION / USING <format> / OPTIONS(path …), INSERT OVERWRITE DIRECTORY, CREATE FUNCTION …
USING, or SET spark.*/hive.*/hadoop.*; otherwise None. The planner turns a reason into InsufficientPrivilege
(42501). The check is syntactic and runs on the tree that will be sent to Spark.
"""

from __future__ import annotations

from sqlglot import exp

PATH_FORMATS = frozenset(
    {
        "parquet",
        "csv",
        "json",
        "text",
        "orc",
        "avro",
        "binaryfile",
        "jdbc",
        "delta",
        "hive",
        "libsvm",
        "xml",
        "image",
        "file",
        "files",
    }
)
JVM_FUNCTIONS = frozenset({"reflect", "java_method", "try_reflect", "read_files", "input_file_name"})
COMMAND_PREFIXES = ("ADD ", "LIST ", "LOAD ", "INSERT OVERWRITE DIRECTORY", "INSERT OVERWRITE LOCAL")
SETTING_PREFIXES = ("spark.", "hive.", "hadoop.", "mapreduce.", "fs.")


def _command_reason(node: exp.Expr) -> str | None:
    text = f"{node.name} {node.expression.sql() if isinstance(node.expression, exp.Expression) else ''}"
    text = " ".join(text.upper().split())
    for prefix in COMMAND_PREFIXES:
        if text.startswith(prefix):
            return f"{prefix.strip()} is not allowed"
    if text.startswith("SET "):
        return _setting_reason(text[4:])
    return None


def _setting_reason(name: str) -> str | None:
    if name.strip().lower().startswith(SETTING_PREFIXES):
        return f"changing Spark setting {name.split('=')[0].strip()} is not allowed"
    return None


def _node_reason(node: exp.Expr) -> str | None:
    match node:
        case exp.Table() if node.args.get("db") is not None and node.text("db").lower() in PATH_FORMATS:
            return f"reading files through {node.text('db')}.`…` is not allowed"
        case exp.Anonymous() if str(node.this).lower() in JVM_FUNCTIONS:
            return f"function {str(node.this).lower()} is not allowed"
        case exp.Func() if node.sql_name().lower() in JVM_FUNCTIONS:
            return f"function {node.sql_name().lower()} is not allowed"
        case exp.LoadData():
            return "LOAD DATA is not allowed"
        case exp.LocationProperty():
            return "CREATE … LOCATION is not allowed"
        case exp.FileFormatProperty():
            return "CREATE … USING a data source is not allowed"
        case exp.Property() if node.name.lower() == "path":
            return "a path option is not allowed"
        case exp.Directory():
            return "writing to a directory is not allowed"
        case exp.Create() if str(node.args.get("kind", "")).upper() == "FUNCTION":
            return "CREATE FUNCTION is not allowed"
        case exp.SetItem():
            target = node.this
            name = target.this.sql() if isinstance(target, exp.EQ) else target.sql() if target else ""
            return _setting_reason(name)
        case exp.Command():
            return _command_reason(node)
    return None


def forbidden_in_spark(statement: exp.Expr) -> str | None:
    """A reason why `statement` must not reach Spark, or None (see the module docstring)."""
    for node in statement.walk():
        reason = _node_reason(node)
        if reason is not None:
            return reason
    return None
