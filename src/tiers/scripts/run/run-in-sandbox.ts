import { SkillHostError } from '../../../common/errors.js'
import { callInterpreter } from '../deps/script-env.js'
import { assertPolicySubset, derivePolicy } from '../policy/policy.js'
import { PLUGIN_MOUNT, pluginSkillMount } from '../sandbox/path-translator.js'
import type { CallPathTranslator, SandboxRunRequest, SandboxRunResult } from '../sandbox/types.js'
import { type SkillCopy, skillCopyFileBytes } from '../skill-copy/skill-copy.js'
import type { InterpreterSandboxView, ScriptRunResult, SkillScriptConfig } from '../types.js'
import { diffTrees } from '../workspace/diff-trees.js'
import {
  type ProtectedEntry,
  SessionWorkspace,
  unmeasurable,
} from '../workspace/session-workspace.js'
import { type OpenedGrant, openGrantedPaths } from './open-granted-paths.js'
import type { ResolvedScriptCall } from './resolve-script-call.js'
import { WorkspaceWatch } from './workspace-watch.js'

/** What the runner runs: one checked call of one skill copy. */
export interface SandboxedCall {
  readonly skill: string
  readonly copy: SkillCopy
  readonly call: ResolvedScriptCall
  readonly workspace?: SessionWorkspace
  readonly signal?: AbortSignal
}

/** The abort of a call, whatever else went wrong while it ended. */
export function scriptAborted(): SkillHostError {
  return new SkillHostError('E_ABORTED', 'The script call was aborted.')
}

/** The interpreter a call runs with: the configured one, or its own provisioned environment. */
interface CallSetup {
  readonly argv: readonly string[]
  readonly view: InterpreterSandboxView | undefined
  readonly mounts: NonNullable<SkillScriptConfig['interpreterMounts']>
  readonly readPaths: readonly string[]
  /** The skill copy's file sizes: its writable `/skill` holds them plus the writable cap. */
  readonly skillFileBytes: readonly number[]
}

async function callSetup(config: SkillScriptConfig, run: SandboxedCall): Promise<CallSetup> {
  const { call } = run
  // Declared requirements: missing ones refuse here, or a provisioned env replaces the interpreter.
  const own = await callInterpreter(config, run.skill, call.script, run.copy.root)
  const argv = [...call.argv]
  if (own !== undefined) argv.splice(0, call.interpreterLength, ...own.view.argv)
  return {
    argv,
    view: own?.view ?? config.interpreterViews?.[call.script.interpreter],
    mounts: [...(config.interpreterMounts ?? []), ...(own?.mounts ?? [])],
    readPaths: [...config.interpreterReadPaths, ...(own?.mounts ?? []).map((m) => m.host)],
    skillFileBytes: await skillCopyFileBytes(run.copy),
  }
}

/**
 * THE script runner: runs one checked call (`resolveScriptCall`) under the
 * sandbox and returns how it ended, at the deadline included. It derives the
 * per-call policy (read: the skill copy + interpreter paths; write: a fresh
 * scratch and the workspace; plus the skill's granted paths, bound from held
 * descriptors; no network), checks it is within the session policy, runs
 * argv with no host environment, and removes the scratch. With a workspace,
 * it runs inside the workspace's turn, reports the files the call changed
 * and kills a call that grows the workspace past its cap. Output text has
 * host paths redacted. Only `runScriptCall` calls it (test/tiers/scripts/one-owner.test.ts).
 */
export async function runInSandbox(
  config: SkillScriptConfig,
  run: SandboxedCall,
): Promise<ScriptRunResult> {
  const setup = await callSetup(config, run)
  const { workspace } = run
  return workspace === undefined
    ? runOnce(config, run, setup)
    : workspace.whileRunning(() => runOnce(config, run, setup))
}

async function runOnce(
  config: SkillScriptConfig,
  run: SandboxedCall,
  setup: CallSetup,
): Promise<ScriptRunResult> {
  const { workspace, signal } = run
  const before = workspace === undefined ? undefined : await workspace.snapshot()
  // A workspace that cannot be measured whole could hide any amount of data: fail closed.
  if (workspace !== undefined && before !== undefined && !before.complete) {
    throw unmeasurable(workspace.maxEntries)
  }
  const scratch = await config.workspace.createScratch()
  const translator = config.translator.forCall({
    skillRoot: run.copy.root,
    ...(run.copy.plugin && { plugin: run.copy.plugin }),
    scratchDir: scratch,
    ...(workspace === undefined ? {} : { workspaceDir: workspace.path }),
    interpreterMounts: setup.mounts,
  })
  const watch =
    workspace === undefined || before === undefined
      ? undefined
      : new WorkspaceWatch(workspace, SessionWorkspace.usage(before.entries), signal)
  let raw: SandboxRunResult | undefined
  let failure: unknown
  try {
    raw = await runBound(config, run, setup, { scratch, translator, watch })
  } catch (err) {
    failure = err
  } finally {
    watch?.stop()
  }
  try {
    await config.workspace.disposeScratch(scratch)
  } catch (err) {
    failure ??= err
  }
  if (signal?.aborted || (raw?.aborted && watch?.overCap === undefined)) throw scriptAborted()
  if (failure !== undefined) throw failure
  const after = workspace === undefined ? undefined : await workspace.snapshot()
  // The door: version-control state this call made in a deployer's folder does not stay.
  const removed =
    workspace && before && after
      ? await workspace.sweepVersionControl(before.entries, after.entries)
      : []
  return settled(raw as SandboxRunResult, translator, workspace, { before, after, removed }, watch)
}

interface CallPlace {
  readonly scratch: string
  readonly translator: CallPathTranslator
  readonly watch: WorkspaceWatch | undefined
}

/** Opens the granted paths and the workspace's protected entries, runs, and closes them. */
async function runBound(
  config: SkillScriptConfig,
  run: SandboxedCall,
  setup: CallSetup,
  place: CallPlace,
): Promise<SandboxRunResult> {
  let opened: OpenedGrant | undefined
  let protectedEntries: ProtectedEntry[] = []
  try {
    const granted = run.copy.granted
    opened = granted === undefined ? undefined : await openGrantedPaths(granted)
    const policy = derivePolicy({
      skillRoot: run.copy.root,
      ...(run.copy.plugin && { pluginRoot: run.copy.plugin.root }),
      scratchDir: place.scratch,
      ...(run.workspace === undefined ? {} : { workspaceDir: run.workspace.path }),
      interpreterReadPaths: setup.readPaths,
      session: config.policy,
      ...(opened === undefined ? {} : { granted: opened.grant }),
    })
    assertPolicySubset(policy, config.policy)
    protectedEntries =
      run.workspace === undefined
        ? []
        : await run.workspace.openProtected(config.translator.workspaceMount)
    return await config.handle.run(
      sandboxRequest(config, run, setup, place, { policy, opened, protectedEntries }),
    )
  } finally {
    for (const e of protectedEntries) await e.handle.close().catch(() => undefined)
    await opened?.close()
  }
}

function sandboxRequest(
  config: SkillScriptConfig,
  run: SandboxedCall,
  setup: CallSetup,
  place: CallPlace,
  bound: {
    policy: SandboxRunRequest['policy']
    opened: OpenedGrant | undefined
    protectedEntries: readonly ProtectedEntry[]
  },
): SandboxRunRequest {
  const { workspace, call } = run
  const { translator, scratch } = place
  const signal = place.watch?.signal ?? run.signal
  const { opened, protectedEntries } = bound
  return {
    argv: setup.argv,
    cwd: translator.toSandbox(workspace?.path ?? scratch),
    policy: bound.policy,
    env: {
      ...call.command?.env,
      ...setup.view?.env,
      ...interpreterEnv(call.script.interpreter, setup.argv, config.translator.skillMount),
      ...(run.copy.plugin && { CLAUDE_PLUGIN_ROOT: PLUGIN_MOUNT }),
    },
    timeoutMs: call.timeoutSeconds * 1000,
    maxOutputBytes: config.maxOutputBytes,
    ...(signal === undefined ? {} : { signal }),
    ...(config.limits === undefined ? {} : { limits: config.limits }),
    toSandboxPath: (p) => translator.toSandbox(p),
    scratch,
    writableSkill: { host: run.copy.root, fileBytes: setup.skillFileBytes },
    ...(run.copy.plugin && {
      symlinks: [
        { path: config.translator.skillMount, target: pluginSkillMount(run.copy.plugin.skillPath) },
      ],
    }),
    ...(workspace?.runAs === undefined ? {} : { runAs: workspace.runAs }),
    ...(opened === undefined ? {} : { grantedFds: opened.fds }),
    ...(protectedEntries.length + (opened?.readOnly.length ?? 0) === 0
      ? {}
      : {
          readOnlyFds: [
            ...protectedEntries.map((e) => ({ fd: e.handle.fd, sandbox: e.sandbox })),
            ...(opened?.readOnly ?? []),
          ],
        }),
  }
}

/** The run as the call reports it: decoded, redacted output and the workspace's changes. */
function settled(
  result: SandboxRunResult,
  translator: CallPathTranslator,
  workspace: SessionWorkspace | undefined,
  trees: {
    before: Awaited<ReturnType<SessionWorkspace['snapshot']>> | undefined
    after: Awaited<ReturnType<SessionWorkspace['snapshot']>> | undefined
    removed: Awaited<ReturnType<SessionWorkspace['sweepVersionControl']>>
  },
  watch: WorkspaceWatch | undefined,
): ScriptRunResult {
  const { before, after, removed } = trees
  const decode = (bytes: Uint8Array) => translator.redact(new TextDecoder().decode(bytes))
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    aborted: false,
    stdout: decode(result.stdout),
    stderr: decode(result.stderr),
    truncated: result.truncated,
    bytes: result.bytes,
    ...(workspace === undefined || before === undefined || after === undefined
      ? {}
      : {
          workspace: {
            changes: diffTrees(before.entries, after.entries),
            complete: before.complete && after.complete,
            bytes: SessionWorkspace.usage(after.entries),
            maxBytes: workspace.maxBytes,
            overCap: watch?.overCap !== undefined,
            ...(removed.length > 0 && { removed }),
          },
        }),
  }
}

/**
 * The one variable a script's environment gains beyond the fixed base: for
 * python, `PYTHONPATH` is the skill copy's mount, so a script imports its
 * skill's packages (`from scripts.utils import …`) as it does when run from
 * the skill's folder (`python -m scripts.x`), while its cwd is the
 * workspace. Nothing comes from the host's environment.
 */
function interpreterEnv(
  name: string,
  argv: readonly string[],
  skillMount: string,
): Record<string, string> {
  const program = argv[0] ?? ''
  const python = /^python[0-9.]*$/.test(name) || /python[0-9.]*$/.test(program)
  return python ? { PYTHONPATH: skillMount } : {}
}
