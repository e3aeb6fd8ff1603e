import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { SkillChannel } from '../manager/types.js'
import { parseArgs, UsageError } from './parse-args.js'
import type { ServeGateMode } from './serve-gate.js'

/** `skillhost serve`'s settings after parsing and defaulting. */
export interface ServeOptions {
  readonly help: boolean
  readonly roots: readonly string[]
  readonly stateDir: string
  readonly importModules: boolean
  readonly scripts: boolean
  readonly gate: { readonly mode: ServeGateMode } | { readonly policyFile: string }
  readonly http?: { readonly port: number; readonly host: string }
  readonly channel?: SkillChannel
}

/** The default state directory: `$XDG_STATE_HOME/skillhost`, else `~/.local/state/skillhost`. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME
  return xdg?.startsWith('/')
    ? join(xdg, 'skillhost')
    : join(homedir(), '.local', 'state', 'skillhost')
}

/** The default roots: `./skills` and `~/.agents/skills`, those that exist. */
export function defaultRoots(cwd: string = process.cwd()): string[] {
  return [resolve(cwd, 'skills'), join(homedir(), '.agents', 'skills')].filter((p) => existsSync(p))
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Parses `serve`'s arguments; throws `UsageError` for anything it cannot honour. */
export function parseServeOptions(argv: readonly string[]): ServeOptions {
  const args = parseArgs(argv, {
    booleans: ['import-modules', 'no-scripts'],
    strings: ['state-dir', 'gate', 'gate-policy', 'http', 'host', 'channel'],
  })
  const s = args.strings
  if (args.booleans.help) {
    return {
      help: true,
      roots: [],
      stateDir: '',
      importModules: false,
      scripts: false,
      gate: { mode: 'allow-all' },
    }
  }
  const roots =
    args.positionals.length > 0 ? args.positionals.map((p) => resolve(p)) : defaultRoots()
  for (const root of roots)
    if (!isDirectory(root)) throw new UsageError(`skill root ${root} is not a directory`)
  if (s.gate !== undefined && s['gate-policy'] !== undefined)
    throw new UsageError('give --gate or --gate-policy, not both')
  if (s.gate !== undefined && s.gate !== 'allow-all' && s.gate !== 'deny-scripts') {
    throw new UsageError(`--gate must be allow-all or deny-scripts, not "${s.gate}"`)
  }
  if (s.channel !== undefined && s.channel !== 'inline' && s.channel !== 'handle') {
    throw new UsageError('--channel must be inline or handle')
  }
  let http: ServeOptions['http']
  if (s.http !== undefined) {
    const port = Number(s.http)
    if (!/^\d{1,5}$/.test(s.http) || port > 65535)
      throw new UsageError('--http needs a port number (0 picks a free one)')
    http = { port, host: s.host ?? '127.0.0.1' }
  } else if (s.host !== undefined) throw new UsageError('--host needs --http')
  return {
    help: false,
    roots,
    stateDir: resolve(s['state-dir'] ?? defaultStateDir()),
    importModules: args.booleans['import-modules'] === true,
    scripts: args.booleans['no-scripts'] !== true,
    gate:
      s['gate-policy'] !== undefined
        ? { policyFile: resolve(s['gate-policy']) }
        : { mode: (s.gate ?? 'allow-all') as ServeGateMode },
    ...(http ? { http } : {}),
    ...(s.channel ? { channel: s.channel as SkillChannel } : {}),
  }
}
