import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgres, type TestPostgres } from '../helpers/postgres.js'

describe('test PostgreSQL server', () => {
  let server: TestPostgres
  beforeAll(async () => {
    server = await startPostgres()
  })
  afterAll(() => server?.stop())

  it('serves queries on loopback, and a database made for one test is empty and separate', async () => {
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    try {
      const { rows } = await client.query<{ n: number }>('SELECT 40 + 2 AS n')
      expect(rows[0]?.n).toBe(42)
      await client.query('CREATE TABLE shared_marker (x int)')
    } finally {
      await client.end()
    }
    const other = new pg.Client({ connectionString: server.createDatabase('probe_db') })
    await other.connect()
    try {
      const { rows } = await other.query(
        "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'shared_marker'",
      )
      expect(rows[0]?.n).toBe(0)
    } finally {
      await other.end()
    }
  })
})
