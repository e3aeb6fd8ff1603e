import { AUTO_INLINE_MAX_CHARS } from '../../index.js'
import type { CliCommand } from '../shared/cli-command.js'
import { DEFAULT_ROOTS_HELP, rootFlagsHelp } from '../shared/cli-roots.js'
import { sandboxFlagsHelp } from '../shared/sandbox-flags.js'

const HELP = `Usage: skillhost serve [options] [root...]

Serve skills over MCP: the five lifecycle tools (list_skills, load_skill, …)
plus the tools of every loaded skill, with tools/list_changed on each change;
a loaded skill's files are read_skill_file's and resources (skill://ID/PATH).
Over stdio by default (stdout is the protocol channel; logs go to stderr), or
Streamable HTTP with --http. Each MCP session has its own skill manager.

${DEFAULT_ROOTS_HELP}
Symlinked skill folders are followed to their target.
When none exists and no root is given, serve says where it looked and exits 2.

Options:
  --state-dir DIR      where results are spooled (default $XDG_STATE_HOME/skillhost
                       or ~/.local/state/skillhost)
  --import-modules     import the module tools skills declare (runs their code
                       in this process; off by default)
  --no-scripts         never run skill scripts (default: on when bubblewrap works)
  --no-undeclared-scripts
                       run only scripts a sidecar declares (default: any file of a
                       loaded skill whose interpreter is allowed, through
                       run_<skill>_script)
  --workspace DIR      the folder every session works in, mounted read-write at
                       /work for scripts (default: a fresh private folder per
                       session, removed when it closes)
  --no-watch           do not watch the roots (default: every folder read is
                       watched; a change refreshes each session's catalog and
                       new sessions reuse the last discovery instead of walking)
  --overlays DIR       deployer sidecars: DIR/<skill-id>/skillhost.yaml declares
                       a skill's tools in place of its own (repeatable; the
                       first DIR holding one wins)
  --locked FILE        serve only the skills FILE pins (skillhost lock writes
                       it); one changed since is listed as changed-since-pinned
                       and refuses to load (E_SKILL_NOT_PINNED) until pinned again
${rootFlagsHelp(23)}
${sandboxFlagsHelp(23)}
  --gate MODE          allow-all (default; every decision logged) or deny-scripts
  --gate-policy FILE   a JSON policy: {"default":"allow","rules":[{"tool":"run_*",
                       "skill":"*","tier":"script","effect":"deny","reason":"…"}]}
                       (first matching rule wins; tiers: lifecycle, module,
                       isolated, script, workspace)
  --channel MODE       how bodies reach the model: auto (default: inline up to
                       ${AUTO_INLINE_MAX_CHARS.toLocaleString('en-US')} characters, a handle past that), inline or handle
  --http PORT          serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio
  --host HOST          interface for --http (default 127.0.0.1). Beyond loopback
                       a bearer token is required, or --insecure-no-auth
  --token TOKEN        require "Authorization: Bearer TOKEN" on every request;
                       prefer the SKILLHOST_TOKEN environment variable (a flag
                       is visible to other users in ps)
  --insecure-no-auth   serve a non-loopback --host with no authentication
                       (prints a warning; anyone who can reach it runs skills)
  --postgres URL       with --http: share sessions (loaded skills, restored on
                       any replica), spooled results and catalog refreshes with
                       other replicas through PostgreSQL (or SKILLHOST_POSTGRES_URL;
                       needs the pg package; the variable is ignored without
                       --http). Workspaces stay on their replica
  --max-sessions N     with --http: most open sessions (default 256; one more
                       initialize gets 503 with Retry-After)
  --max-sessions-per-token N  most per bearer token (default: --max-sessions)
  --max-body-mib MIB   with --http: largest request body (default 4; 413 past it)
  --body-timeout SECONDS  a request body must arrive within (default 30; 408)
  --durable-spool      keep a session's spooled results after it closes and
                       after shutdown (default: removed when the session closes)
  --spool-max-age DAYS prune closed sessions' spool folders not written for
                       DAYS (default 7; 0 = no age bound), at start and on close
  --spool-max-size MIB then prune the oldest until all fit in MIB (default 1024;
                       0 = no size bound)
  -h, --help           show this help

SIGINT or SIGTERM shuts down cleanly: sessions closed, managers disposed,
guests and sandboxed processes killed, workspaces removed, spools removed
(unless --durable-spool).`

/**
 * `skillhost serve`: the skill manager as an MCP server, over stdio or
 * Streamable HTTP. The implementation (and the MCP SDK) loads only when the
 * command runs, so the other commands never need it.
 */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'serve skills over MCP (stdio or --http)',
  help: HELP,
  run: async (argv, io) => (await import('./serve-main.js')).runServe(argv, io, HELP),
}
