// The server starter lives in scripts/postgres-server.mjs, shared with
// bench/spool.mjs; tests import it from here.
export {
  postgresBinDir,
  startPostgres,
  type TestPostgres,
} from '../../scripts/postgres-server.mjs'
