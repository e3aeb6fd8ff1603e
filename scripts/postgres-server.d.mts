/** A throwaway PostgreSQL server owned by one test file (or one benchmark run). */
export interface TestPostgres extends AsyncDisposable {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` — trust auth, loopback only. */
  readonly url: string
  /** Its loopback port. */
  readonly port: number
  /** The folder holding its data and log (`stopPostgresIn` takes it). */
  readonly dir: string
  /** A fresh, empty database on this server; its URL. */
  createDatabase(name: string): string
  /**
   * Hangs the server: SIGSTOP to the postmaster and every backend, so
   * connections stay open and nothing answers. Returns how many processes.
   */
  pause(): number
  /** Undoes `pause` (SIGCONT to the same processes). Returns how many. */
  resume(): number
  /** An outage: stops the server (immediate mode), keeping its data; connects are refused. */
  down(): void
  /** Starts the server again on the same port after `down`. */
  up(): void
  /** Stops the server (immediate mode) and removes its data folder. Idempotent. */
  stop(): Promise<void>
}

/** Debian's server binaries (`/usr/lib/postgresql/<major>/bin`), newest major first. */
export function postgresBinDir(): string

/** Starts a private server: `initdb`, then `pg_ctl start` on a free loopback port. */
export function startPostgres(): Promise<TestPostgres>

/** `CREATE DATABASE name` on the server at `port`: a fresh, empty database; its URL. */
export function createDatabaseOn(port: number, name: string): string

/** Stops the server `startPostgres` made in `dir`, from any process, and removes `dir`. */
export function stopPostgresIn(dir: string): void
