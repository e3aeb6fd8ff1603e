import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { SkillHostError } from '../common/errors.js'
import type { SkillScriptConfig } from '../tiers/scripts/types.js'
import { createBubblewrapHandle } from './bubblewrap-handle.js'
import { createDirectoryWorkspace } from './directory-workspace.js'
import { createPathTranslator } from './path-translator.js'

/** Options for `createScriptSandbox`; every field has a working default. */
export interface ScriptSandboxOptions {
  /** A directory the sandbox owns (workspaces and scratch). Default: a fresh temp dir, removed on dispose. */
  readonly baseDir?: string
  /** Interpreter allow-list. Default: sh, bash, python (python3), node, where present under /usr or /bin. */
  readonly interpreters?: Readonly<Record<string, readonly string[]>>
  readonly maxTimeoutSeconds?: number
  readonly defaultTimeoutSeconds?: number
  readonly maxOutputBytes?: number
  readonly failOnNonzeroExit?: boolean
}

/** A ready tier-3 configuration and the one call that tears it all down. */
export interface ScriptSandbox {
  readonly config: SkillScriptConfig
  /** Base directory holding workspaces and scratch. */
  readonly baseDir: string
  dispose(): Promise<void>
}

/** What interpreters may read besides the skill: the system directories, as they exist here. */
export const SYSTEM_READ_PATHS: readonly string[] = ['/usr', '/bin', '/lib', '/lib64']

/**
 * As root, bubblewrap runs the child as uid 65534, which must be able to
 * traverse every directory above the workspace. A private TMPDIR (mode 0700)
 * would otherwise surface later as bwrap's opaque "Can't find source path".
 */
async function assertTraversable(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return
  for (let current = resolve(dir); ; current = dirname(current)) {
    const mode = (await stat(current)).mode
    if ((mode & 0o001) === 0) {
      throw new SkillHostError(
        'E_SANDBOX_UNAVAILABLE',
        `The sandbox user (uid 65534) cannot traverse ${current} (mode ${(mode & 0o777).toString(8)}); put the sandbox base under a world-traversable directory (e.g. TMPDIR=/tmp) or run chmod o+x on it.`,
      )
    }
    if (dirname(current) === current) return
  }
}

function defaultInterpreters(): Record<string, string[]> {
  const pick = (...paths: string[]) => paths.find((p) => existsSync(p))
  const found: Record<string, string | undefined> = {
    sh: pick('/bin/sh', '/usr/bin/sh'),
    bash: pick('/bin/bash', '/usr/bin/bash'),
    python: pick('/usr/bin/python3'),
    node: pick('/usr/bin/node', '/usr/local/bin/node'),
  }
  const out: Record<string, string[]> = Object.create(null)
  for (const [name, path] of Object.entries(found)) if (path) out[name] = [path]
  return out
}

/**
 * Builds the embedded tier-3 setup used by `skillhost run` and `skillhost
 * serve`: a bubblewrap handle (fails with `E_SANDBOX_UNAVAILABLE` naming the
 * package when bwrap cannot run), a directory workspace, a translator that
 * hides the base directory, a session policy (read: skill roots + system
 * directories; write: scratch only; no network) and the interpreter allow-list.
 */
export async function createScriptSandbox(
  options: ScriptSandboxOptions = {},
): Promise<ScriptSandbox> {
  const owned = options.baseDir === undefined
  const baseDir = options.baseDir ?? (await mkdtemp(join(tmpdir(), 'skillhost-')))
  // The sandboxed child runs as an unprivileged uid and must traverse the base.
  await chmod(baseDir, 0o755)
  try {
    await assertTraversable(baseDir)
    const handle = await createBubblewrapHandle()
    const workspace = await createDirectoryWorkspace({ baseDir: join(baseDir, 'ws') })
    const readPaths = SYSTEM_READ_PATHS.filter((p) => existsSync(p))
    const config: SkillScriptConfig = {
      handle,
      workspace,
      policy: {
        filesystem: {
          allowRead: [workspace.skillsDir, ...readPaths],
          denyRead: [],
          allowWrite: [workspace.scratchDir],
          denyWrite: [],
        },
        network: { allowedDomains: [] },
      },
      translator: createPathTranslator({ hiddenHostPaths: [baseDir] }),
      interpreters: options.interpreters ?? defaultInterpreters(),
      interpreterReadPaths: readPaths,
      maxTimeoutSeconds: options.maxTimeoutSeconds ?? 60,
      defaultTimeoutSeconds: options.defaultTimeoutSeconds ?? 20,
      maxOutputBytes: options.maxOutputBytes ?? 256 * 1024,
      hostEnvIsolated: true,
      ...(options.failOnNonzeroExit === undefined
        ? {}
        : { failOnNonzeroExit: options.failOnNonzeroExit }),
    }
    return {
      config,
      baseDir,
      async dispose() {
        await handle.dispose?.()
        if (owned) await rm(baseDir, { recursive: true, force: true })
      },
    }
  } catch (err) {
    if (owned) await rm(baseDir, { recursive: true, force: true })
    throw err
  }
}
