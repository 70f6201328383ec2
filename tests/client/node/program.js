'use strict'
// node-postgres (pg) and pg-cursor against a PostgreSQL-compatible server, unchanged: the tool as people run it.
// Usage: node program.js SECTION [SECTION ...]; connection from PGHOST/PGPORT/PGUSER/PGDATABASE (pg reads them
// itself), a fresh table-name prefix in SW_PREFIX. Prints one JSON object: {section: what it saw, ...}; a
// section that throws reports {"thrown": {message, code}} so the Python test shows what went wrong.
// tests/client/test_client_node_pg.py runs it and asserts on the output.

const pg = require('pg')
const Cursor = require('pg-cursor')

const PREFIX = process.env.SW_PREFIX || 'node_pg'

// A value as JSON can carry it, with its JavaScript type, so the test sees how pg parsed each column.
function show(value) {
  if (value === null) return { type: 'null', value: null }
  if (Buffer.isBuffer(value)) return { type: 'Buffer', value: value.toString('hex') }
  if (value instanceof Date) return { type: 'Date', value: isNaN(value.getTime()) ? 'Invalid' : value.toISOString() }
  if (Array.isArray(value)) return { type: 'Array', value: value.map(show) }
  if (typeof value === 'object') return { type: 'object', value: JSON.parse(JSON.stringify(value)) }
  return { type: typeof value, value }
}

function showRow(row) {
  const out = {}
  for (const [key, value] of Object.entries(row)) out[key] = show(value)
  return out
}

function errorInfo(err) {
  return {
    message: err.message,
    code: err.code === undefined ? null : err.code,
    severity: err.severity === undefined ? null : err.severity,
    position: err.position === undefined ? null : err.position,
    name: err.name,
  }
}

async function withClient(fn) {
  const client = new pg.Client()
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

const sections = {
  async connect() {
    const client = new pg.Client()
    const notices = []
    client.on('notice', (msg) => notices.push(msg.message))
    await client.connect()
    const one = await client.query('SELECT 1 AS one, current_user AS who, current_database() AS db')
    const version = await client.query('SHOW server_version')
    const info = {
      row: one.rows[0],
      command: one.command,
      rowCount: one.rowCount,
      serverVersion: version.rows[0].server_version,
      processID: typeof client.processID,
      notices,
    }
    await client.end()

    const pool = new pg.Pool({ max: 3 })
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) => pool.query('SELECT $1::int4 * 10 AS v, pg_backend_pid() AS pid', [i]))
    )
    const pooled = await pool.connect()
    const inPool = await pooled.query('SELECT 42 AS answer')
    pooled.release()
    info.pool = {
      values: results.map((r) => r.rows[0].v),
      distinctBackends: new Set(results.map((r) => r.rows[0].pid)).size,
      totalCount: pool.totalCount,
      answer: inPool.rows[0].answer,
    }
    await pool.end()
    return info
  },

  async simple() {
    return withClient(async (client) => {
      const table = `${PREFIX}_simple`
      const out = {}
      out.create = (await client.query(`CREATE TABLE ${table} (id int4, name text, score float8)`)).command
      const inserted = await client.query(`INSERT INTO ${table} VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, NULL, NULL)`)
      out.insert = { command: inserted.command, rowCount: inserted.rowCount }
      const updated = await client.query(`UPDATE ${table} SET score = score * 2 WHERE id < 3`)
      out.update = { command: updated.command, rowCount: updated.rowCount }
      const selected = await client.query(`SELECT id, name, score FROM ${table} ORDER BY id`)
      out.select = {
        command: selected.command,
        rowCount: selected.rowCount,
        rows: selected.rows,
        fields: selected.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID, format: f.format })),
      }
      const arrays = await client.query({ text: `SELECT id, name FROM ${table} ORDER BY id`, rowMode: 'array' })
      out.arrayRows = arrays.rows
      // Several statements in one simple query: pg returns one Result per statement.
      const multi = await client.query(`SELECT 1 AS a; SELECT 'b' AS b, 2 AS c; DELETE FROM ${table} WHERE id = 3`)
      out.multi = multi.map((r) => ({ command: r.command, rowCount: r.rowCount, rows: r.rows }))
      out.empty = (await client.query(`SELECT * FROM ${table} WHERE false`)).rows.length
      out.drop = (await client.query(`DROP TABLE ${table}`)).command
      return out
    })
  },

  async params() {
    return withClient(async (client) => {
      const out = {}
      const scalar = await client.query(
        'SELECT $1::int4 + 1 AS i, $2::text || \'!\' AS t, $3::numeric * 2 AS n, NOT $4::bool AS b, ' +
          '$5::date + 1 AS d, $6::timestamptz AS ts, $7::text IS NULL AS isnull, $8::int8 AS big',
        [41, 'hi', '12.345', true, '2024-02-28', new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), null, '9007199254740993']
      )
      out.scalar = showRow(scalar.rows[0])
      const arrays = await client.query(
        'SELECT $1::int4[] AS ints, array_length($1::int4[], 1) AS len, $2::text[] AS texts, $3::int4 = ANY($1::int4[]) AS member',
        [[1, 2, 3], ['a', 'b c', 'd"e', null], 2]
      )
      out.arrays = showRow(arrays.rows[0])
      // A Buffer goes over the wire as a binary parameter.
      const bytes = await client.query('SELECT $1::bytea AS b, length($1::bytea) AS n', [Buffer.from([0, 1, 254, 255])])
      out.bytea = showRow(bytes.rows[0])
      // Untyped parameters: the server infers their types from the columns they meet.
      const table = `${PREFIX}_params`
      await client.query(`CREATE TABLE ${table} (id int4, name text, price numeric(10,2), ok bool, day date, at timestamptz)`)
      const rows = [
        [1, 'alpha', '10.50', true, '2024-01-01', '2024-01-01T12:00:00Z'],
        [2, 'beta', 20.25, false, new Date(Date.UTC(2024, 1, 29)), new Date(Date.UTC(2024, 1, 29, 23, 59, 59))],
        [3, null, null, null, null, null],
      ]
      let inserted = 0
      for (const row of rows) {
        inserted += (await client.query(`INSERT INTO ${table} VALUES ($1, $2, $3, $4, $5, $6)`, row)).rowCount
      }
      out.inserted = inserted
      const found = await client.query(
        `SELECT id, name, price, ok, day, at FROM ${table} WHERE id >= $1 AND (name <> $2 OR name IS NULL) ORDER BY id`,
        [1, 'alpha']
      )
      out.found = found.rows.map(showRow)
      const updated = await client.query(`UPDATE ${table} SET price = price + $1 WHERE ok = $2`, ['0.01', true])
      out.updated = updated.rowCount
      const sum = await client.query(`SELECT sum(price) AS total FROM ${table} WHERE id = ANY($1)`, [[1, 2]])
      out.total = show(sum.rows[0].total)
      await client.query(`DROP TABLE ${table}`)
      return out
    })
  },

  async types() {
    return withClient(async (client) => {
      const result = await client.query(
        "SELECT 1::int2 AS i2, 2::int4 AS i4, 9007199254740993::int8 AS i8, 1.5::float4 AS f4, 2.25::float8 AS f8, " +
          "12345678901234567890.123456789::numeric AS num, true AS t, false AS f, 'txt'::text AS txt, " +
          "'vc'::varchar(5) AS vc, DATE '2024-03-04' AS d, TIMESTAMP '2024-03-04 05:06:07.5' AS ts, " +
          "TIMESTAMPTZ '2024-03-04 05:06:07.5+02' AS tstz, TIME '10:11:12' AS tm, INTERVAL '1 day 02:03:04' AS iv, " +
          "'{\"a\": [1, 2, {\"b\": null}]}'::json AS js, '{\"k\": \"v\", \"n\": 1.5}'::jsonb AS jsb, " +
          "'\\x00ff10'::bytea AS by, ARRAY[1, 2, 3]::int4[] AS ia, ARRAY['x', NULL, 'z']::text[] AS ta, " +
          "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, NULL::int4 AS nul"
      )
      // The same values asked for in binary format (pg's `binary: true`), decoded by pg-types' binary parsers.
      const binary = await client.query({
        text:
          "SELECT 1::int2 AS i2, 2::int4 AS i4, 9007199254740993::int8 AS i8, 2.25::float8 AS f8, true AS t, " +
          "'txt'::text AS txt, TIMESTAMPTZ '2024-03-04 05:06:07.5+02' AS tstz, TIMESTAMP '2024-03-04 05:06:07.5' AS ts, " +
          "$1::int4 + 1 AS param, '\\x00ff10'::bytea AS by, NULL::int4 AS nul",
        values: [41],
        binary: true,
      })
      return {
        row: showRow(result.rows[0]),
        types: Object.fromEntries(result.fields.map((f) => [f.name, f.dataTypeID])),
        binary: showRow(binary.rows[0]),
        binaryFormats: binary.fields.map((f) => f.format),
      }
    })
  },

  async prepared() {
    return withClient(async (client) => {
      const out = { runs: [] }
      const byName = { name: 'sw-square', text: 'SELECT $1::int4 * $1::int4 AS sq, $2::text AS label' }
      for (const [n, label] of [[3, 'three'], [4, 'four'], [5, null]]) {
        const result = await client.query({ ...byName, values: [n, label] })
        out.runs.push(result.rows[0])
      }
      // The same name again reuses the statement the first run parsed (pg sends no second Parse).
      const table = `${PREFIX}_prepared`
      await client.query(`CREATE TABLE ${table} (k int4, v text)`)
      const insert = { name: 'sw-insert', text: `INSERT INTO ${table} (k, v) VALUES ($1, $2)` }
      for (let k = 1; k <= 5; k++) await client.query({ ...insert, values: [k, `v${k}`] })
      const lookup = { name: 'sw-lookup', text: `SELECT v FROM ${table} WHERE k = $1` }
      out.lookups = []
      for (const k of [2, 5, 9]) out.lookups.push((await client.query({ ...lookup, values: [k] })).rows.map((r) => r.v))
      // A server-side PREPARE / EXECUTE issued as plain SQL.
      await client.query(`PREPARE sw_count AS SELECT count(*) AS n FROM ${table} WHERE k > $1`)
      out.executed = (await client.query('EXECUTE sw_count(2)')).rows[0].n
      await client.query('DEALLOCATE sw_count')
      // A named statement with a different text under the same name is an error in pg itself, before the server.
      try {
        await client.query({ name: 'sw-square', text: 'SELECT 1' })
        out.renamed = 'no error'
      } catch (err) {
        out.renamed = err.message
      }
      await client.query(`DROP TABLE ${table}`)
      return out
    })
  },

  async errors() {
    return withClient(async (client) => {
      const out = {}
      const attempt = async (key, query, values) => {
        try {
          await client.query(query, values)
          out[key] = 'no error'
        } catch (err) {
          out[key] = errorInfo(err)
        }
        // The session stays usable after each error.
        out[`${key}_after`] = (await client.query('SELECT $1::text AS ok', [key])).rows[0].ok
      }
      await attempt('syntax', 'SELEC 1')
      await attempt('undefined_table', `SELECT * FROM ${PREFIX}_no_such_table`)
      await attempt('undefined_column', 'SELECT no_such_column FROM (SELECT 1 AS a) s')
      await attempt('division', 'SELECT 1 / 0')
      await attempt('division_param', 'SELECT 1 / $1::int4', [0])
      await attempt('bad_param', 'SELECT $1::int4 AS n', ['not a number'])
      await attempt('undefined_function', 'SELECT no_such_function_xyz(1)')
      // Inside a transaction: the failed block refuses statements (25P02) until ROLLBACK.
      await client.query('BEGIN')
      try {
        await client.query('SELECT 1 / 0')
      } catch (err) {
        out.in_tx = errorInfo(err)
      }
      try {
        await client.query('SELECT 1')
        out.aborted = 'no error'
      } catch (err) {
        out.aborted = errorInfo(err)
      }
      out.rollback = (await client.query('ROLLBACK')).command
      out.after_rollback = (await client.query('SELECT 7 AS seven')).rows[0].seven
      return out
    })
  },

  async transactions() {
    const pool = new pg.Pool({ max: 2 })
    const table = `${PREFIX}_tx`
    const count = async () => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)
    const out = {}
    try {
      await pool.query(`CREATE TABLE ${table} (id int4, note text)`)
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        await client.query(`INSERT INTO ${table} VALUES ($1, $2)`, [1, 'rolled back'])
        out.inside_before_rollback = Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)
        out.rollback = (await client.query('ROLLBACK')).command
        out.after_rollback = await count()

        await client.query('BEGIN')
        await client.query(`INSERT INTO ${table} VALUES ($1, $2), ($3, $4)`, [2, 'kept', 3, 'kept'])
        out.other_session_before_commit = await count()
        out.commit = (await client.query('COMMIT')).command
        out.after_commit = await count()

        await client.query('BEGIN')
        await client.query(`INSERT INTO ${table} VALUES (4, 'before savepoint')`)
        await client.query('SAVEPOINT sp')
        await client.query(`INSERT INTO ${table} VALUES (5, 'after savepoint')`)
        await client.query('ROLLBACK TO SAVEPOINT sp')
        await client.query('COMMIT')
        out.ids = (await client.query(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id)
      } finally {
        client.release()
      }
    } finally {
      await pool.query(`DROP TABLE IF EXISTS ${table}`)
      await pool.end()
    }
    return out
  },

  async cursor() {
    return withClient(async (client) => {
      const out = {}
      const read = (cursor, n) =>
        new Promise((resolve, reject) => cursor.read(n, (err, rows) => (err ? reject(err) : resolve(rows))))
      const series = client.query(new Cursor('SELECT i, i * 2 AS twice FROM generate_series(1, 250) AS i ORDER BY i'))
      out.batches = []
      let firstAndLast = []
      for (;;) {
        const rows = await read(series, 100)
        out.batches.push(rows.length)
        if (rows.length === 0) break
        firstAndLast.push([rows[0].i, rows[rows.length - 1].twice])
      }
      out.firstAndLast = firstAndLast
      await series.close()

      const table = `${PREFIX}_cursor`
      await client.query(`CREATE TABLE ${table} (id int4, label text)`)
      await client.query(`INSERT INTO ${table} SELECT i, 'row ' || i FROM generate_series(1, 40) AS i`)
      const filtered = client.query(new Cursor(`SELECT id, label FROM ${table} WHERE id > $1 ORDER BY id`, [30]))
      out.filtered = []
      for (;;) {
        const rows = await filtered.read(4) // the promise form
        if (rows.length === 0) break
        out.filtered.push(rows.map((r) => r.id))
      }
      await filtered.close()

      // Closing a cursor before its end leaves the session usable.
      const early = client.query(new Cursor(`SELECT id FROM ${table} ORDER BY id`, [], { rowMode: 'array' }))
      out.early = await early.read(3)
      await early.close()
      out.after_close = (await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n

      // Inside a transaction too, next to ordinary queries.
      await client.query('BEGIN')
      const inTx = client.query(new Cursor(`SELECT id FROM ${table} WHERE id <= 5 ORDER BY id`))
      out.in_tx = (await inTx.read(10)).map((r) => r.id)
      await inTx.close()
      out.commit = (await client.query('COMMIT')).command
      await client.query(`DROP TABLE ${table}`)
      return out
    })
  },
}

async function main() {
  const names = process.argv.slice(2)
  const out = {}
  for (const name of names) {
    if (!sections[name]) throw new Error(`unknown section ${name}`)
    try {
      out[name] = await sections[name]()
    } catch (err) {
      out[name] = { thrown: errorInfo(err), stack: err.stack }
    }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n')
  process.exit(1)
})
