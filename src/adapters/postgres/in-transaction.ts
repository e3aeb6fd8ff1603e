import type { Pool, PoolClient } from 'pg'

/**
 * Runs `work` on one pooled connection inside `BEGIN … COMMIT`. When `work`
 * throws, the transaction is rolled back and the connection is destroyed
 * rather than returned to the pool (it may be broken); the error is rethrown.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect()
  let failed: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    failed = err instanceof Error ? err : new Error(String(err))
    await client.query('ROLLBACK').catch(() => undefined)
    throw err
  } finally {
    client.release(failed)
  }
}
