import { existsSync } from 'node:fs'
import { chmod, chown, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SkillHostError } from '../../common/errors.js'
import { createBubblewrapHandle } from '../../sandbox/bubblewrap-handle.js'
import { createDirectoryWorkspace } from '../../sandbox/directory-workspace.js'
import { createPathTranslator } from '../../sandbox/path-translator.js'
import { removeTree } from '../../sandbox/remove-tree.js'
import { resolveSandboxHostUser, untraversableAncestor } from '../../sandbox/sandbox-host-user.js'
import type { SkillScriptConfig } from './types.js'

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
  try {
    // The sandbox's host identity, and only it, must traverse the base.
    const sandboxUser = resolveSandboxHostUser(undefined)
    if (sandboxUser !== undefined) await chown(baseDir, -1, sandboxUser.gid)
    await chmod(baseDir, sandboxUser === undefined ? 0o700 : 0o710)
    const blocked = await untraversableAncestor(baseDir, sandboxUser)
    if (blocked !== undefined) {
      throw new SkillHostError(
        'E_SANDBOX_UNAVAILABLE',
        `The sandbox cannot reach its base directory: ${blocked}.`,
      )
    }
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
        // removeTree copes with whatever a script left (deep chains, no permissions).
        if (owned) await removeTree(baseDir)
      },
    }
  } catch (err) {
    if (owned) await removeTree(baseDir).catch(() => undefined)
    throw err
  }
}
