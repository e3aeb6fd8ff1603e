import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createPathTranslator,
  type DirectoryWorkspace,
  type SandboxHandle,
  type SkillScript,
  type SkillScriptConfig,
  type WorkspaceFile,
} from '../../src/tiers/scripts/index.js'
import { runSkillScript, type ScriptRunResult } from '../../src/tiers/scripts/internal.js'

/** The sandbox suites run on Linux only; elsewhere they skip, loudly. */
export const onLinux = process.platform === 'linux'
if (!onLinux) {
  console.warn(
    `\n!!! SKIPPING the bubblewrap sandbox suites: they need Linux, this is ${process.platform}. Tier-3 scripts are untested here. !!!\n`,
  )
}

/** System directories the interpreters need (merged-/usr symlinks included). */
export const SYSTEM_READ_PATHS = ['/usr', '/bin', '/lib', '/lib64']

export interface Rig {
  base: string
  handle: SandboxHandle
  workspace: DirectoryWorkspace
  config: SkillScriptConfig
  cleanup(): Promise<void>
}

/** A real handle, a workspace in a fresh temp dir and a session policy covering both. */
export async function makeRig(overrides: Partial<SkillScriptConfig> = {}): Promise<Rig> {
  const base = mkdtempSync(join(tmpdir(), 'skillhost-sbx-'))
  // The sandbox runs as host uid 65534 when the tests run as root; it must traverse the base.
  chmodSync(base, 0o755)
  const handle = await createBubblewrapHandle()
  const workspace = await createDirectoryWorkspace({ baseDir: join(base, 'ws') })
  const config: SkillScriptConfig = {
    handle,
    workspace,
    policy: {
      filesystem: {
        allowRead: [workspace.skillsDir, ...SYSTEM_READ_PATHS],
        denyRead: [],
        allowWrite: [workspace.scratchDir],
        denyWrite: [],
      },
      network: { allowedDomains: [] },
    },
    translator: createPathTranslator({ hiddenHostPaths: [base] }),
    interpreters: { sh: ['/bin/sh'], python: ['/usr/bin/python3'], node: ['/usr/bin/node'] },
    interpreterReadPaths: SYSTEM_READ_PATHS,
    maxTimeoutSeconds: 30,
    // Generous: scripts meant to succeed must do so however loaded the
    // machine is; tests of the deadline ask for 1 s themselves.
    defaultTimeoutSeconds: 20,
    maxOutputBytes: 64 * 1024,
    hostEnvIsolated: true,
    ...overrides,
  }
  return {
    base,
    handle,
    workspace,
    config,
    async cleanup() {
      await handle.dispose?.()
      rmSync(base, { recursive: true, force: true })
    },
  }
}

const encoder = new TextEncoder()

/** Workspace files from a `{ path: text }` map. */
export function files(map: Record<string, string>): WorkspaceFile[] {
  return Object.entries(map).map(([path, text]) => ({
    path,
    read: async () => encoder.encode(text),
  }))
}

/** A script declaration with defaults. */
export function script(partial: Partial<SkillScript> & { path: string }): SkillScript {
  return { name: 'main', description: 'a test script', interpreter: 'sh', ...partial }
}

/**
 * Runs `path` (with `interpreter`) of a skill made of `body` once under
 * `config`: a fresh copy in `config.workspace`, disposed after, whatever the
 * outcome. The one home of the single-call probe the sandbox suites share.
 */
export async function runScriptOnce(
  config: SkillScriptConfig,
  body: Record<string, string>,
  path: string,
  interpreter: string,
  skill = 'probe',
): Promise<ScriptRunResult> {
  const { workspace } = config
  const root = await workspace.materialize({ id: skill, version: '1' }, files(body))
  try {
    return await runSkillScript(config, {
      skill,
      root,
      script: script({ path, interpreter }),
      args: {},
    })
  } finally {
    await workspace.dispose(root)
  }
}
