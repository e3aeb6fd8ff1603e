import type { OutRead } from '../../../common/door/read-out.js'
import { SkillHostError } from '../../../common/errors.js'
import { callInterpreter } from '../deps/script-env.js'
import { assertPolicySubset, derivePolicy } from '../policy/policy.js'
import { PLUGIN_MOUNT, pluginSkillMount } from '../sandbox/path-translator.js'
import type { CallPathTranslator, SandboxRunRequest, SandboxRunResult } from '../sandbox/types.js'
import type { SkillCopy } from '../skill-copy/skill-copy.js'
import type {
  InterpreterSandboxView,
  ScriptRunResult,
  ScriptWorkspaceReport,
  SkillScriptConfig,
} from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import { WorkspaceCall, type WorkspaceSource } from '../workspace/workspace-call.js'
import { type OpenedGrant, openGrantedPaths } from './open-granted-paths.js'
import type { ResolvedScriptCall } from './resolve-script-call.js'

/** What the runner runs: one checked call of one skill copy. */
export interface SandboxedCall {
  readonly skill: string
  readonly copy: SkillCopy
  readonly call: ResolvedScriptCall
  /** The workspace, or the slot it is opened from once the call may run. */
  readonly workspace?: WorkspaceSource
  readonly signal?: AbortSignal
  /** Read the changed workspace files back through the door, for the spool. */
  readonly readOut?: boolean
}

/** How a run ended, with the workspace it ran in and the changed files the door let out. */
export interface SandboxedRun {
  readonly result: ScriptRunResult
  readonly workspace?: SessionWorkspace
  /** One per created or modified file, in `result.workspace.changes` order (`readOut`). */
  readonly out?: readonly OutRead[]
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
  }
}

/**
 * THE script runner: runs one checked call (`resolveScriptCall`) under the
 * sandbox and returns how it ended, at the deadline included. It derives the
 * per-call policy (read: the skill copy + interpreter paths; write: a fresh
 * scratch and the workspace; plus the skill's granted paths, bound from held
 * descriptors; no network), checks it is within the session policy, runs
 * argv with no host environment, and removes the scratch. With a workspace,
 * the call's hold on it (`WorkspaceCall`: entered once before the run and
 * once after) gives its turn, the cap's watch and the files the call
 * changed. Output text has host paths redacted. Only `runScriptCall` calls
 * it (test/tiers/scripts/one-owner.test.ts).
 */
export async function runInSandbox(
  config: SkillScriptConfig,
  run: SandboxedCall,
): Promise<SandboxedRun> {
  const setup = await callSetup(config, run)
  const scratch = await config.workspace.createScratch()
  let ran: SandboxedRun
  try {
    ran = await runHeld(config, run, setup, scratch)
  } catch (err) {
    // The run's own failure (an abort above all) is what the call reports.
    await config.workspace.disposeScratch(scratch).catch(() => undefined)
    throw err
  }
  await config.workspace.disposeScratch(scratch)
  return ran
}

/** The run inside the call's hold on the workspace, when it has one. */
async function runHeld(
  config: SkillScriptConfig,
  run: SandboxedCall,
  setup: CallSetup,
  scratch: string,
): Promise<SandboxedRun> {
  const { signal } = run
  const held =
    run.workspace === undefined
      ? undefined
      : await WorkspaceCall.begin(run.workspace, config.translator.workspaceMount, signal)
  const translator = config.translator.forCall({
    skillRoot: run.copy.root,
    ...(run.copy.plugin && { plugin: run.copy.plugin }),
    scratchDir: scratch,
    ...(held === undefined ? {} : { workspaceDir: held.workspace.path }),
    interpreterMounts: setup.mounts,
  })
  let raw: SandboxRunResult | undefined
  let failure: unknown
  try {
    raw = await runBound(config, run, setup, { scratch, translator, held })
  } catch (err) {
    failure = err
  }
  const end = {
    failed: failure !== undefined,
    aborted: signal?.aborted === true,
    killed: raw?.aborted === true,
  }
  const ended = await held?.finish({ ...end, readOut: run.readOut === true })
  if (ended === undefined ? end.aborted || end.killed : ended.aborted) throw scriptAborted()
  if (failure !== undefined) throw failure
  const report = ended?.aborted === false ? ended.report : undefined
  return {
    result: settled(raw as SandboxRunResult, translator, report),
    ...(held === undefined ? {} : { workspace: held.workspace }),
    ...(ended?.aborted === false && ended.out !== undefined && { out: ended.out }),
  }
}

interface CallPlace {
  readonly scratch: string
  readonly translator: CallPathTranslator
  readonly held: WorkspaceCall | undefined
}

/** Opens the granted paths, derives and checks the call's policy, runs, and closes them. */
async function runBound(
  config: SkillScriptConfig,
  run: SandboxedCall,
  setup: CallSetup,
  place: CallPlace,
): Promise<SandboxRunResult> {
  let opened: OpenedGrant | undefined
  try {
    const granted = run.copy.granted
    opened = granted === undefined ? undefined : await openGrantedPaths(granted)
    const workspace = place.held?.workspace
    const policy = derivePolicy({
      skillRoot: run.copy.root,
      ...(run.copy.plugin && { pluginRoot: run.copy.plugin.root }),
      scratchDir: place.scratch,
      ...(workspace === undefined ? {} : { workspaceDir: workspace.path }),
      interpreterReadPaths: setup.readPaths,
      session: config.policy,
      ...(opened === undefined ? {} : { granted: opened.grant }),
    })
    assertPolicySubset(policy, config.policy)
    return await config.handle.run(sandboxRequest(config, run, setup, place, { policy, opened }))
  } finally {
    await opened?.close()
  }
}

function sandboxRequest(
  config: SkillScriptConfig,
  run: SandboxedCall,
  setup: CallSetup,
  place: CallPlace,
  bound: { policy: SandboxRunRequest['policy']; opened: OpenedGrant | undefined },
): SandboxRunRequest {
  const { call } = run
  const { translator, scratch, held } = place
  const workspace = held?.workspace
  const signal = held?.signal ?? run.signal
  const { opened } = bound
  const protectedEntries = held?.protectedEntries ?? []
  return {
    argv: setup.argv,
    // The translator maps the workspace and the scratch to its mounts, as it maps the skill copy.
    cwd:
      workspace === undefined ? config.translator.scratchMount : config.translator.workspaceMount,
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
    toSandboxPath: translator.toSandbox.bind(translator),
    scratch,
    writableSkill: { host: run.copy.root, fileBytes: run.copy.fileBytes },
    ...(run.copy.plugin && {
      symlinks: [
        { path: config.translator.skillMount, target: pluginSkillMount(run.copy.plugin.skillPath) },
      ],
    }),
    ...(workspace?.runAs === undefined ? {} : { runAs: workspace.runAs }),
    // Warm sandboxes are the session's: never shared with another, ended with its workspace.
    ...(workspace === undefined ? {} : { owner: workspace }),
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

/** The run as the call reports it: decoded, redacted output and the workspace's report. */
function settled(
  result: SandboxRunResult,
  translator: CallPathTranslator,
  workspace: ScriptWorkspaceReport | undefined,
): ScriptRunResult {
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
    ...(workspace === undefined ? {} : { workspace }),
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
