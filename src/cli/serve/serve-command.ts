import { AUTO_INLINE_MAX_CHARS, DEFAULT_CATALOG_SHARE } from '../../index.js'
import type { CliCommand } from '../shared/cli-command.js'
import { DEFAULT_ROOTS_HELP, ROOT_FLAGS_HELP } from '../shared/cli-roots.js'
import { type HelpSpec, helpWidth, renderHelp } from '../shared/help-text.js'
import { SANDBOX_FLAGS_HELP } from '../shared/sandbox-flags.js'

const HELP: HelpSpec = {
  usage: ['skillhost serve [options] [root...]'],
  blocks: [
    "Serve skills over MCP: the five lifecycle tools (list_skills, load_skill, …) plus the tools of every loaded skill, with tools/list_changed on each change; a loaded skill's files are read_skill_file's and resources (skill://ID/PATH). Over stdio by default (stdout is the protocol channel; logs go to stderr), or Streamable HTTP with --http. Each MCP session has its own skill manager.",
    `${DEFAULT_ROOTS_HELP} Symlinked skill folders are followed to their target.`,
    {
      title: 'Options:',
      items: [
        {
          term: '--state-dir DIR',
          text: 'where results are spooled (default $XDG_STATE_HOME/skillhost or ~/.local/state/skillhost)',
        },
        {
          term: '--import-modules',
          text: 'import the module tools skills declare (runs their code in this process; off by default)',
        },
        {
          term: '--no-scripts',
          text: 'never run skill scripts (default: on when bubblewrap works)',
        },
        {
          term: '--no-undeclared-scripts',
          text: 'run only scripts a sidecar declares (default: any file of a loaded skill whose interpreter is allowed, through run_<skill>_script)',
        },
        {
          term: '--no-dynamic-context',
          text: "leave a loaded skill's !`command` lines unrun (default: each runs at load as a gated, sandboxed script call of the skill, its output in their place)",
        },
        {
          term: '--no-warm-sandbox',
          text: 'start a fresh bubblewrap sandbox for every script call (default: a call reuses a sandbox left set up by an earlier call of the same skill copy, session and limits, emptied between calls, ended after 30 s idle and when its session closes)',
        },
        {
          term: '--workspace DIR',
          text: 'the folder every session works in, mounted read-write at /work for scripts (default: a fresh private folder per session, removed when it closes; with --postgres the private folders follow their sessions to other replicas, a --workspace DIR is never stored there)',
        },
        {
          term: '--no-watch',
          text: "do not watch the roots (default: every folder read is watched; a change refreshes each session's catalog and new sessions reuse the last discovery instead of walking)",
        },
        {
          term: '--lenient-skills',
          text: 'the Skills Extension (skills/list, skills/get) also serves skills that break the Agent Skills rules (an uppercase or _ name, a description over 1,024 characters, non-string metadata values); default: they are left out, as the reference server does, each with a log line, and stay loadable through load_skill',
        },
        {
          term: '--overlays DIR',
          text: "deployer sidecars: DIR/<skill-id>/skillhost.yaml declares a skill's tools in place of its own (repeatable; the first DIR holding one wins)",
        },
        {
          term: '--locked FILE',
          text: 'serve only the skills FILE pins (skillhost lock writes it); one changed since is listed as changed-since-pinned and refuses to load (E_SKILL_NOT_PINNED) until pinned again',
        },
        ...ROOT_FLAGS_HELP,
        ...SANDBOX_FLAGS_HELP,
        { term: '--gate MODE', text: 'allow-all (default; every decision logged) or deny-scripts' },
        {
          term: '--gate-policy FILE',
          text: 'a JSON policy: {"default": "allow", "rules": [{"tool": "run_*", "skill": "*", "tier": "script", "effect": "deny", "reason": "…"}]} (first matching rule wins; tiers: lifecycle, module, isolated, script, workspace)',
        },
        {
          term: '--channel MODE',
          text: `how bodies reach the model: auto (default: inline up to ${AUTO_INLINE_MAX_CHARS.toLocaleString('en-US')} characters, a handle past that), inline or handle`,
        },
        {
          term: '--catalog-window TOKENS',
          text: "your model's context window: list_skills' description in tools/list then ends in the <available_skills> block, within TOKENS × share × 4 characters (--catalog-window 200000 → 8,000), overflowing in steps the model sees and counting what it leaves out; its bytes change only when the skills do",
        },
        {
          term: '--catalog-share F',
          text: `the part of the window that block may take, above 0 and at most 1 (default ${DEFAULT_CATALOG_SHARE})`,
        },
        {
          term: '--http PORT',
          text: 'serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio',
        },
        {
          term: '--host HOST',
          text: 'interface for --http (default 127.0.0.1). Beyond loopback a bearer token is required, or --insecure-no-auth',
        },
        {
          term: '--token TOKEN',
          text: 'require "Authorization: Bearer TOKEN" on every request; prefer the SKILLHOST_TOKEN environment variable (a flag is visible to other users in ps)',
        },
        {
          term: '--insecure-no-auth',
          text: 'serve a non-loopback --host with no authentication (prints a warning; anyone who can reach it runs skills)',
        },
        {
          term: '--postgres URL',
          text: 'with --http: share sessions (loaded skills, restored on any replica), spooled results, session workspace files and catalog refreshes with other replicas through PostgreSQL (or SKILLHOST_POSTGRES_URL; needs the pg package; the variable is ignored without --http). A --workspace DIR stays the deployer’s folder: not stored in PostgreSQL',
        },
        {
          term: '--max-sessions N',
          text: 'with --http: most open sessions (default 256; one more initialize gets 503 with Retry-After)',
        },
        {
          term: '--max-sessions-per-token N',
          text: 'most per bearer token (default: --max-sessions)',
        },
        {
          term: '--max-body-mib MIB',
          text: 'with --http: largest request body (default 4; 413 past it)',
        },
        {
          term: '--body-timeout SECONDS',
          text: 'a request body must arrive within (default 30; 408)',
        },
        {
          term: '--health-public',
          text: "with --http: answer GET /healthz (serving) and GET /readyz (PostgreSQL answers, the sandbox starts) without the token from any peer, for an orchestrator's probes (default: without the token from loopback only)",
        },
        {
          term: '--metrics-public',
          text: 'with --http: serve GET /metrics (Prometheus text, docs/operations.md) without the token (default: the token is required when one is set)',
        },
        {
          term: '--durable-spool',
          text: "keep a session's spooled results after it closes and after shutdown (default: removed when the session closes)",
        },
        {
          term: '--spool-max-age DAYS',
          text: "prune closed sessions' spool folders not written for DAYS (default 7; 0 = no age bound), at start and on close",
        },
        {
          term: '--spool-max-size MIB',
          text: 'then prune the oldest until all fit in MIB (default 1024; 0 = no size bound)',
        },
        {
          term: '--log-format FORMAT',
          text: 'stderr log: text (default, one line per event) or json (one object per line: time, level, session, code, message)',
        },
        { term: '-h, --help', text: 'show this help' },
      ],
    },
    'SIGINT or SIGTERM shuts down cleanly: sessions closed, managers disposed, guests and sandboxed processes killed, workspaces removed, spools removed (unless --durable-spool).',
    'Exit status: 0 after a clean shutdown; 1 when no root can be searched (each one that cannot is named on stderr; with some usable, serve serves those), when none is given and no default folder exists, or on a failure while serving; 2 on a usage error.',
  ],
}

/**
 * `skillhost serve`: the skill manager as an MCP server, over stdio or
 * Streamable HTTP. The implementation (and the MCP SDK) loads only when the
 * command runs, so the other commands never need it.
 */
export const serveCommand: CliCommand = {
  name: 'serve',
  help: HELP,
  run: async (argv, io) =>
    (await import('./serve-main.js')).runServe(argv, io, renderHelp(HELP, helpWidth(io.columns))),
}
