import { statSync } from 'node:fs'
import { isIPv4 } from 'node:net'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { SpoolRetention } from '../../common/index.js'
import { type CatalogBudget, defaultSkillRoots, type SkillChannel } from '../../index.js'
import { parseCatalogBudgetFlags } from '../shared/catalog-flags.js'
import { cliRoots, ROOT_FLAGS } from '../shared/cli-roots.js'
import { overlayDirs } from '../shared/overlay-dirs.js'
import { parseArgs, UsageError } from '../shared/parse-args.js'
import {
  parseSandboxFlags,
  SANDBOX_LIST_FLAGS,
  type SandboxFlags,
} from '../shared/sandbox-flags.js'
import type { ServeGateMode } from './serve-gate.js'
import { parseLogFormat, type ServeLogFormat } from './serve-log.js'

/** The default spool bound of `skillhost serve`: 7 days since a folder's last write, 1 GiB in all. */
export const DEFAULT_SPOOL_RETENTION: Required<SpoolRetention> = Object.freeze({
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  maxTotalBytes: 1024 * 1024 * 1024,
})

/**
 * How `serve` (and `demo`) send bodies unless `--channel` says otherwise:
 * `auto`, inline up to `AUTO_INLINE_MAX_CHARS`, a handle past it. The library
 * default stays `handle`.
 */
export const SERVE_DEFAULT_CHANNEL: SkillChannel = 'auto'

const CHANNELS: readonly string[] = ['auto', 'inline', 'handle']

/** The environment variable `serve --http` reads its bearer token from. */
export const TOKEN_ENV = 'SKILLHOST_TOKEN'

/** The environment variable `serve --http` reads its PostgreSQL URL from when `--postgres` is not given. */
export const POSTGRES_URL_ENV = 'SKILLHOST_POSTGRES_URL'

/** `serve --http`'s settings: where to listen and how requests are authenticated. */
export interface ServeHttpOptions {
  readonly port: number
  readonly host: string
  /** The bearer token every request must carry, when one was given. */
  readonly token?: string
  /** Where the token came from: the environment (preferred) or `--token`. */
  readonly tokenFrom?: 'env' | 'flag'
  /** `--insecure-no-auth`: serve beyond loopback without a token. */
  readonly insecure: boolean
  /**
   * `--postgres URL` (or `SKILLHOST_POSTGRES_URL`): share sessions, spooled
   * results and catalog refreshes with other replicas through this database.
   */
  readonly postgres?: string
  /** `--health-public`: `/healthz` and `/readyz` without the token from any peer (an orchestrator's probes). */
  readonly healthPublic?: boolean
  /** `--metrics-public`: `/metrics` without the token. */
  readonly metricsPublic?: boolean
  /** `--max-sessions`, `--max-sessions-per-token`, `--max-body-mib`, `--body-timeout` (library defaults when absent). */
  readonly limits?: {
    readonly maxSessions?: number
    readonly maxSessionsPerToken?: number
    readonly maxBodyBytes?: number
    readonly bodyTimeoutMs?: number
  }
}

/** The catalog budget's flags (`parseCatalogBudgetFlags`). */
const CATALOG_FLAGS = ['catalog-window', 'catalog-share'] as const

/** `serve --http`'s on/off flags: who may call without the token. */
const HTTP_BOOLEAN_FLAGS = ['insecure-no-auth', 'health-public', 'metrics-public'] as const

/** The flags of `serve --http`'s limits. */
const HTTP_LIMIT_FLAGS = [
  'max-sessions',
  'max-sessions-per-token',
  'max-body-mib',
  'body-timeout',
] as const

/** `skillhost serve`'s settings after parsing and defaulting. */
export interface ServeOptions {
  readonly help: boolean
  /** Roots given, then the default roots (see `cliRoots`), absolute. */
  readonly roots: readonly string[]
  /** `--max-depth N`: folder levels searched below each root. */
  readonly maxDepth?: number
  /** `--overlays DIR` (repeatable): the deployer's sidecar directories, earlier first. */
  readonly overlays: readonly string[]
  /** `--locked FILE`: the lockfile to serve under, absolute (read by `runServe`). */
  readonly locked?: string
  readonly stateDir: string
  readonly importModules: boolean
  readonly scripts: boolean
  /** Undeclared scripts of loaded skills may run (off with `--no-undeclared-scripts`). */
  readonly undeclaredScripts?: boolean
  /** A loaded skill's `` !`command` `` lines run at load (off with `--no-dynamic-context`). */
  readonly dynamicContext?: boolean
  /** Warm sandboxes for script calls (`ScriptSandboxOptions.warmIdleMs`; off with `--no-warm-sandbox`). */
  readonly warmSandbox?: boolean
  /** `--workspace DIR`: the directory every session works in. */
  readonly workspace?: string
  readonly gate: { readonly mode: ServeGateMode } | { readonly policyFile: string }
  readonly http?: ServeHttpOptions
  /** `--channel`; `SERVE_DEFAULT_CHANNEL` when not given. */
  readonly channel: SkillChannel
  /** Watch the roots for changes (off with `--no-watch`). */
  readonly watch: boolean
  /** `--lenient-skills`: the Skills Extension also serves skills that break the Agent Skills rules. */
  readonly lenientSkills?: boolean
  /** `--durable-spool`: keep a session's spool after it closes. */
  readonly durableSpool: boolean
  /** The bound on the spool folders (`--spool-max-age`, `--spool-max-size`). */
  readonly spoolRetention: SpoolRetention
  /** `--interpreter NAME=PATH` and `--read-path DIR`, checked. */
  readonly sandbox: SandboxFlags
  /** `--catalog-window TOKENS` and `--catalog-share F`: the catalog block in `list_skills`' description. */
  readonly catalog?: CatalogBudget
  /** `--log-format text|json`: how stderr's log lines are written (`serveLogLine`). */
  readonly logFormat: ServeLogFormat
}

/** True for names and addresses that reach only this machine: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost' || h === '::1') return true
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h
  return isIPv4(v4) && v4.startsWith('127.')
}

/** A non-negative number of `unit`s from `--name`, times `scale`; 0 turns the bound off. */
function bound(value: string | undefined, name: string, scale: number): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+(\.\d+)?$/.test(value)) throw new UsageError(`--${name} needs a non-negative number`)
  return Number(value) * scale
}

/** The default state directory: `$XDG_STATE_HOME/skillhost`, else `~/.local/state/skillhost`. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME
  return xdg?.startsWith('/')
    ? join(xdg, 'skillhost')
    : join(homedir(), '.local', 'state', 'skillhost')
}

/**
 * The one message for a `serve` that found no root: every place it looked
 * (the conventional folders, then `./skills`) and how to add one.
 */
export function noRootsMessage(cwd: string = process.cwd()): string {
  const places = [...defaultSkillRoots({ cwd, includeMissing: true }), resolve(cwd, 'skills')]
  return `no skill roots: none given, and none of the default folders exists (looked in ${places.join(', ')}). Pass a root (skillhost serve DIR, or --root DIR), or put skill folders in one of those places.`
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** What `serve --help` parses to: help, and nothing to serve. */
const HELP_OPTIONS: ServeOptions = {
  help: true,
  roots: [],
  overlays: [],
  stateDir: '',
  importModules: false,
  scripts: false,
  watch: false,
  gate: { mode: 'allow-all' },
  channel: SERVE_DEFAULT_CHANNEL,
  durableSpool: false,
  spoolRetention: DEFAULT_SPOOL_RETENTION,
  sandbox: { interpreters: {}, readPaths: [] },
  logFormat: 'text',
}

/**
 * `--http` and what needs it (`--host`, the limits, `--token`,
 * `--insecure-no-auth`, `--postgres` or its environment variable), checked
 * together: any of them without `--http` is a usage error.
 */
function httpFlags(
  s: Readonly<Record<string, string | undefined>>,
  booleans: Readonly<Record<string, boolean | undefined>>,
  env: NodeJS.ProcessEnv,
): ServeOptions['http'] {
  const insecure = booleans['insecure-no-auth'] === true
  const open = {
    healthPublic: booleans['health-public'] === true,
    metricsPublic: booleans['metrics-public'] === true,
  }
  let http: ServeOptions['http']
  if (s.http !== undefined) {
    const port = Number(s.http)
    if (!/^\d{1,5}$/.test(s.http) || port > 65535)
      throw new UsageError('--http needs a port number (0 picks a free one)')
    http = httpAuth(port, s.host ?? '127.0.0.1', s.token, insecure, env)
    if (open.healthPublic) http = { ...http, healthPublic: true }
    if (open.metricsPublic) http = { ...http, metricsPublic: true }
    const limits = Object.fromEntries(
      (
        [
          ['maxSessions', 'max-sessions', 1],
          ['maxSessionsPerToken', 'max-sessions-per-token', 1],
          ['maxBodyBytes', 'max-body-mib', 1024 * 1024],
          ['bodyTimeoutMs', 'body-timeout', 1000],
        ] as const
      ).flatMap(([key, flag, scale]) => {
        const n = bound(s[flag], flag, scale)
        if (n === 0) throw new UsageError(`--${flag} must be greater than 0`)
        return n === undefined ? [] : [[key, Math.ceil(n)]]
      }),
    )
    if (Object.keys(limits).length > 0) http = { ...http, limits }
    const postgres =
      s.postgres ?? (env[POSTGRES_URL_ENV] === '' ? undefined : env[POSTGRES_URL_ENV])
    if (postgres !== undefined) {
      // The URL may hold a password: never echo it.
      if (!/^postgres(ql)?:\/\/./.test(postgres))
        throw new UsageError(
          `${s.postgres !== undefined ? '--postgres' : POSTGRES_URL_ENV} needs a postgres:// or postgresql:// URL`,
        )
      http = { ...http, postgres }
    }
  } else if (s.postgres !== undefined)
    throw new UsageError(
      '--postgres needs --http (sessions are shared between HTTP replicas; stdio serves one client)',
    )
  else if (s.host !== undefined) throw new UsageError('--host needs --http')
  else if (HTTP_LIMIT_FLAGS.some((flag) => s[flag] !== undefined))
    throw new UsageError(`--${HTTP_LIMIT_FLAGS.find((flag) => s[flag] !== undefined)} needs --http`)
  else if (s.token !== undefined) throw new UsageError('--token needs --http')
  else if (insecure) throw new UsageError('--insecure-no-auth needs --http')
  else if (open.healthPublic) throw new UsageError('--health-public needs --http')
  else if (open.metricsPublic) throw new UsageError('--metrics-public needs --http')
  return http
}

/** `--spool-max-age` (days) and `--spool-max-size` (MiB): 0 turns a bound off, absent is the default. */
function spoolRetentionFlags(s: Readonly<Record<string, string | undefined>>): SpoolRetention {
  const maxAgeMs = bound(s['spool-max-age'], 'spool-max-age', 24 * 60 * 60 * 1000)
  const maxTotalBytes = bound(s['spool-max-size'], 'spool-max-size', 1024 * 1024)
  return {
    ...(maxAgeMs !== 0 ? { maxAgeMs: maxAgeMs ?? DEFAULT_SPOOL_RETENTION.maxAgeMs } : {}),
    ...(maxTotalBytes !== 0
      ? { maxTotalBytes: maxTotalBytes ?? DEFAULT_SPOOL_RETENTION.maxTotalBytes }
      : {}),
  }
}

/** The flags `serve` takes, for `parseArgs`. */
const SERVE_FLAGS = {
  booleans: [
    'import-modules',
    'no-scripts',
    'no-undeclared-scripts',
    'no-dynamic-context',
    'no-warm-sandbox',
    'no-watch',
    'lenient-skills',
    'durable-spool',
    ...HTTP_BOOLEAN_FLAGS,
    'provision',
    ...ROOT_FLAGS.booleans,
  ],
  strings: [
    'state-dir',
    'gate',
    'gate-policy',
    'http',
    'host',
    'channel',
    'token',
    'spool-max-age',
    'spool-max-size',
    'workspace',
    'locked',
    'postgres',
    'log-format',
    ...CATALOG_FLAGS,
    ...HTTP_LIMIT_FLAGS,
    ...ROOT_FLAGS.strings,
  ],
  lists: ['overlays', ...SANDBOX_LIST_FLAGS, ...ROOT_FLAGS.lists],
}

/** Parses `serve`'s arguments; throws `UsageError` for anything it cannot honour. */
export function parseServeOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ServeOptions {
  const args = parseArgs(argv, SERVE_FLAGS)
  const s = args.strings
  if (args.booleans.help) return HELP_OPTIONS
  // Roots that cannot be searched are named by `runServe` (`usableRoots`), which serves the others.
  const { roots, maxDepth } = cliRoots(args)
  if (s.gate !== undefined && s['gate-policy'] !== undefined)
    throw new UsageError('give --gate or --gate-policy, not both')
  if (s.gate !== undefined && s.gate !== 'allow-all' && s.gate !== 'deny-scripts') {
    throw new UsageError(`--gate must be allow-all or deny-scripts, not "${s.gate}"`)
  }
  if (s.channel !== undefined && !CHANNELS.includes(s.channel)) {
    throw new UsageError('--channel must be auto, inline or handle')
  }
  const workspace = s.workspace === undefined ? undefined : resolve(s.workspace)
  if (workspace !== undefined && !isDirectory(workspace))
    throw new UsageError(`--workspace ${workspace} is not a directory`)
  const http = httpFlags(s, args.booleans, env)
  const spoolRetention = spoolRetentionFlags(s)
  const catalog = parseCatalogBudgetFlags(s, { window: 'catalog-window', share: 'catalog-share' })
  return {
    help: false,
    ...(catalog.window !== undefined && { catalog }),
    roots,
    ...(maxDepth !== undefined && { maxDepth }),
    overlays: overlayDirs(args.lists.overlays),
    ...(s.locked !== undefined && { locked: resolve(s.locked) }),
    stateDir: resolve(s['state-dir'] ?? defaultStateDir()),
    importModules: args.booleans['import-modules'] === true,
    scripts: args.booleans['no-scripts'] !== true,
    undeclaredScripts: args.booleans['no-undeclared-scripts'] !== true,
    dynamicContext: args.booleans['no-dynamic-context'] !== true,
    ...(args.booleans['no-warm-sandbox'] === true && { warmSandbox: false }),
    watch: args.booleans['no-watch'] !== true,
    ...(args.booleans['lenient-skills'] === true && { lenientSkills: true }),
    ...(workspace === undefined ? {} : { workspace }),
    gate:
      s['gate-policy'] !== undefined
        ? { policyFile: resolve(s['gate-policy']) }
        : { mode: (s.gate ?? 'allow-all') as ServeGateMode },
    ...(http ? { http } : {}),
    channel: (s.channel ?? SERVE_DEFAULT_CHANNEL) as SkillChannel,
    durableSpool: args.booleans['durable-spool'] === true,
    spoolRetention,
    sandbox: parseSandboxFlags(args.lists, args.booleans.provision === true),
    logFormat: parseLogFormat(s['log-format']),
  }
}

/**
 * Who may call the HTTP server: a bearer token from `SKILLHOST_TOKEN` or
 * `--token` (the flag wins when both are set); beyond loopback, a token or an
 * explicit `--insecure-no-auth` is required.
 */
function httpAuth(
  port: number,
  host: string,
  flag: string | undefined,
  insecure: boolean | undefined,
  env: NodeJS.ProcessEnv,
): ServeHttpOptions {
  if (flag === '') throw new UsageError('--token needs a non-empty value')
  const fromEnv = env[TOKEN_ENV] === '' ? undefined : env[TOKEN_ENV]
  const token = flag ?? fromEnv
  if (token !== undefined && insecure)
    throw new UsageError('give a token or --insecure-no-auth, not both')
  if (token === undefined && !insecure && !isLoopbackHost(host)) {
    throw new UsageError(
      `refusing to serve on non-loopback host ${host} without authentication: set ${TOKEN_ENV} ` +
        '(or --token) to require a bearer token, or pass --insecure-no-auth to serve without one',
    )
  }
  return {
    port,
    host,
    insecure: insecure === true,
    ...(token !== undefined ? { token, tokenFrom: flag !== undefined ? 'flag' : 'env' } : {}),
  }
}
