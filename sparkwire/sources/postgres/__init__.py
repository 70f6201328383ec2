"""The PostgreSQL source: change data capture from a publication through one logical replication slot.

`source.PostgresReader` is the reader (the contract in `sparkwire.sources.reader`); `upstream` discovers the
published tables and copies their snapshot, `stream` speaks the replication protocol, `pgoutput` decodes its
messages and `transaction` consolidates one upstream transaction into a batch. Requirements upstream:
`wal_level = logical`, a publication, REPLICA IDENTITY FULL on its tables (docs/sources-postgres.md).
"""
