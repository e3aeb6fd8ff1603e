/** A throwaway PostgreSQL server owned by one test file (or one benchmark run). */
export interface TestPostgres extends AsyncDisposable {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` — trust auth, loopback only. */
  readonly url: string
  /** A fresh, empty database on this server; its URL. */
  createDatabase(name: string): string
  /** Stops the server (immediate mode) and removes its data folder. Idempotent. */
  stop(): Promise<void>
}

/** Debian's server binaries (`/usr/lib/postgresql/<major>/bin`), newest major first. */
export function postgresBinDir(): string

/** Starts a private server: `initdb`, then `pg_ctl start` on a free loopback port. */
export function startPostgres(): Promise<TestPostgres>
