import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { enforceToolGate, SCRIPT_GATE_CODES, type ToolGate } from '../../../common/gate.js'
import type { TurnContext } from '../../../common/turn-context.js'
import { callInterpreter } from '../deps/script-env.js'
import { assertPolicySubset, derivePolicy, type PolicyGrant } from '../policy/policy.js'
import type { SandboxRunResult } from '../sandbox/types.js'
import { TIMEOUT_PARAM, validateSkillScript } from '../tool/validate-skill-script.js'
import type { ScriptRunResult, SkillScript, SkillScriptConfig } from '../types.js'
import { diffTrees } from '../workspace/diff-trees.js'
import {
  type ProtectedEntry,
  SessionWorkspace,
  unmeasurable,
} from '../workspace/session-workspace.js'
import { buildArgv } from './build-argv.js'
import { type OpenedGrant, openGrantedPaths } from './open-granted-paths.js'

/** One script call. */
export interface RunSkillScriptInput {
  /** The skill id, for messages. */
  readonly skill: string
  /** The authoritative root `workspace.materialize` returned. */
  readonly root: string
  readonly script: SkillScript
  /** The tool arguments; a `timeout_seconds` entry is taken as the deadline. */
  readonly args: Readonly<Record<string, unknown>>
  /**
   * Literal argv elements after the script path, instead of rendering typed
   * `args` (an undeclared script); each was checked by `literalArgvProblem`.
   */
  readonly argv?: readonly string[]
  /**
   * A shell command line to run instead of the script file (a
   * `` !`command` `` of the skill's body): argv becomes
   * `<interpreter> -c <line> ...params`, so `$0`, `$1`… are the params (`$0`
   * the shell's name when there are none) and `$NAME` the `env` entries,
   * expanded by the shell inside the sandbox and never spliced into the
   * line. `script` names the shell; its `path` is the file the line came
   * from (SKILL.md).
   */
  readonly command?: {
    readonly line: string
    readonly params: readonly string[]
    readonly env: Readonly<Record<string, string>>
  }
  readonly signal?: AbortSignal
  /**
   * The conversation's workspace: mounted read-write at the translator's
   * `workspaceMount` (`/work`) and the call's cwd; the files the call
   * creates, changes or deletes are reported in `changes`. Without it the
   * cwd is the per-call scratch.
   */
  readonly workspace?: SessionWorkspace
  /** Overrides `args.timeout_seconds`; defaults to `defaultTimeoutSeconds`. */
  readonly timeoutSeconds?: number
  /**
   * Return a timed-out run (with `timedOut: true` and the output captured
   * until the kill) instead of throwing `E_SKILL_SCRIPT_TIMEOUT`, so the
   * caller can keep the partial output before reporting the timeout.
   */
  readonly returnTimedOut?: boolean
  /**
   * The skill's approved permission request (`PermissionGrants.judge`):
   * absolute host paths added to the derived policy, each bound from a
   * descriptor opened without following symlinks (`openGrantedPaths`).
   */
  readonly granted?: PolicyGrant
  /**
   * When set, the gate is asked before anything runs: a refusal is
   * `E_SKILL_SCRIPT_DENIED`, a missing or broken gate
   * `E_SKILL_SCRIPT_GATE_UNAVAILABLE`. Omit it when the caller's tool wrapper
   * already gated the call.
   */
  readonly gate?: {
    readonly gate: ToolGate | undefined
    readonly ctx: TurnContext
    readonly tool: string
    readonly skillVersion?: string
  }
}

function aborted(): SkillHostError {
  return new SkillHostError('E_ABORTED', 'The script call was aborted.')
}

function resolveTimeout(config: SkillScriptConfig, value: unknown): number {
  if (value === undefined) return config.defaultTimeoutSeconds
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > config.maxTimeoutSeconds
  ) {
    throw new SkillHostError(
      'E_SKILL_SCRIPT_INVALID_ARGS',
      `${TIMEOUT_PARAM} must be an integer between 1 and ${config.maxTimeoutSeconds}.`,
      { data: { param: TIMEOUT_PARAM } },
    )
  }
  return value
}

/**
 * Runs one script under the sandbox: validates the declaration and arguments,
 * derives the per-call policy (read: root + interpreterReadPaths; write: a
 * fresh scratch directory; plus the skill's approved `granted` paths, bound
 * from held descriptors; no network), checks it is within the session
 * policy, builds argv without a shell, runs it with no host environment (the
 * fixed base, plus `PYTHONPATH` for python: see `interpreterEnv`) and removes the
 * scratch directory. Returns the result of any completed run, whatever its
 * exit code (see `settleScriptResult`); output text has host paths redacted.
 * Throws `E_SKILL_SOURCE_PATH_REJECTED`, `E_SKILL_MANIFEST_INVALID`,
 * `E_SKILL_SCRIPT_INVALID_ARGS`, `E_SKILL_SCRIPT_POLICY_WIDENED`,
 * `E_SKILL_WORKSPACE_FAILED`, `E_SANDBOX_UNAVAILABLE`,
 * `E_SKILL_SCRIPT_TIMEOUT` or `E_ABORTED` (an abort is never reported as
 * another failure).
 */
export async function runSkillScript(
  config: SkillScriptConfig,
  input: RunSkillScriptInput,
): Promise<ScriptRunResult> {
  if (config.hostEnvIsolated !== true) {
    throw new SkillHostError('E_INVALID_SKILLS_CONFIG', 'scripts: hostEnvIsolated must be true.')
  }
  const script = validateSkillScript(input.skill, input.script, config.interpreters)
  const { [TIMEOUT_PARAM]: timeoutArg, ...args } = input.args
  const timeoutSeconds = resolveTimeout(config, input.timeoutSeconds ?? timeoutArg)
  const scriptHostPath = join(input.root, script.path)
  // The translator maps the root to skillMount, so the sandbox path is known before the scratch exists.
  const scriptInSandbox = `${config.translator.skillMount}/${script.path}`
  const view = config.interpreterViews?.[script.interpreter]
  const interpreterArgv = view?.argv ?? script.interpreterArgv
  const command = input.command
  const argv =
    command !== undefined
      ? [
          ...interpreterArgv,
          '-c',
          command.line,
          ...(command.params.length === 0 ? [script.interpreter] : command.params),
        ]
      : input.argv === undefined
        ? buildArgv(interpreterArgv, scriptInSandbox, script.params, args)
        : [...interpreterArgv, scriptInSandbox, ...input.argv]
  const st = command === undefined ? await lstat(scriptHostPath).catch(() => undefined) : undefined
  if (command === undefined && !st?.isFile()) {
    throw new SkillHostError(
      'E_SKILL_WORKSPACE_FAILED',
      `Skill '${input.skill}' script '${script.name}' is not a regular file in its skill copy (${script.path}).`,
    )
  }
  if (input.signal?.aborted) throw aborted()
  if (input.gate !== undefined) {
    const { gate, ctx, tool, skillVersion } = input.gate
    const skill =
      skillVersion === undefined ? undefined : { id: input.skill, version: skillVersion }
    await enforceToolGate(
      gate,
      ctx,
      {
        tool,
        // A command is shown to the gate as what it is: the line, not the script's args.
        args: input.command === undefined ? input.args : { command: input.command.line },
        tier: 'script',
        ...(skill ? { skill } : {}),
      },
      SCRIPT_GATE_CODES,
    )
  }
  if (input.signal?.aborted) throw aborted()
  // Declared requirements: missing ones refuse here, or a provisioned env replaces the interpreter.
  const own = await callInterpreter(config, input.skill, script, input.root)
  if (own !== undefined) argv.splice(0, interpreterArgv.length, ...own.view.argv)
  const callView = own?.view ?? view
  const interpreterMounts = [...(config.interpreterMounts ?? []), ...(own?.mounts ?? [])]
  const interpreterReadPaths = [
    ...config.interpreterReadPaths,
    ...(own?.mounts ?? []).map((m) => m.host),
  ]

  const workspace = input.workspace
  const run = async (): Promise<ScriptRunResult> => {
    const before = workspace === undefined ? undefined : await workspace.snapshot()
    // A workspace that cannot be measured whole could hide any amount of data: fail closed.
    if (before !== undefined && !before.complete) {
      throw unmeasurable((workspace as SessionWorkspace).maxEntries)
    }
    const scratch = await config.workspace.createScratch()
    let raw: SandboxRunResult | undefined
    let failure: unknown
    let watch: WorkspaceWatch | undefined
    let protectedEntries: ProtectedEntry[] = []
    let opened: OpenedGrant | undefined
    const translator = config.translator.forCall({
      skillRoot: input.root,
      scratchDir: scratch,
      ...(workspace === undefined ? {} : { workspaceDir: workspace.path }),
      interpreterMounts,
    })
    try {
      opened = input.granted === undefined ? undefined : await openGrantedPaths(input.granted)
      const policy = derivePolicy({
        skillRoot: input.root,
        scratchDir: scratch,
        ...(workspace === undefined ? {} : { workspaceDir: workspace.path }),
        interpreterReadPaths,
        session: config.policy,
        ...(opened === undefined ? {} : { granted: opened.grant }),
      })
      assertPolicySubset(policy, config.policy)
      watch =
        workspace === undefined || before === undefined
          ? undefined
          : new WorkspaceWatch(workspace, SessionWorkspace.usage(before.entries), input.signal)
      protectedEntries =
        workspace === undefined
          ? []
          : await workspace.openProtected(config.translator.workspaceMount)
      raw = await config.handle.run({
        argv,
        cwd: translator.toSandbox(workspace?.path ?? scratch),
        policy,
        env: {
          ...command?.env,
          ...callView?.env,
          ...interpreterEnv(script.interpreter, argv, config.translator.skillMount),
        },
        timeoutMs: timeoutSeconds * 1000,
        maxOutputBytes: config.maxOutputBytes,
        ...((watch?.signal ?? input.signal) === undefined
          ? {}
          : { signal: (watch?.signal ?? input.signal) as AbortSignal }),
        ...(config.limits === undefined ? {} : { limits: config.limits }),
        toSandboxPath: (p) => translator.toSandbox(p),
        scratch,
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
      })
    } catch (err) {
      failure = err
    } finally {
      watch?.stop()
      for (const e of protectedEntries) await e.handle.close().catch(() => undefined)
      await opened?.close()
    }
    try {
      await config.workspace.disposeScratch(scratch)
    } catch (err) {
      failure ??= err
    }
    if (input.signal?.aborted || (raw?.aborted && watch?.overCap === undefined)) throw aborted()
    if (failure !== undefined) throw failure
    const result = raw as SandboxRunResult
    if (result.timedOut && input.returnTimedOut !== true) {
      throw new SkillHostError(
        'E_SKILL_SCRIPT_TIMEOUT',
        `Script '${script.name}' of skill '${input.skill}' ran past ${timeoutSeconds}s and was killed; raise timeout_seconds (max ${config.maxTimeoutSeconds}) or make it faster.`,
        { data: { timeoutSeconds, bytes: result.bytes } },
      )
    }
    const decode = (bytes: Uint8Array) => translator.redact(new TextDecoder().decode(bytes))
    const after = workspace === undefined ? undefined : await workspace.snapshot()
    // The door: version-control state this call made in a deployer's folder does not stay.
    const removed =
      before && after
        ? await (workspace as SessionWorkspace).sweepVersionControl(before.entries, after.entries)
        : []
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      aborted: false,
      stdout: decode(result.stdout),
      stderr: decode(result.stderr),
      truncated: result.truncated,
      bytes: result.bytes,
      ...(before === undefined || after === undefined
        ? {}
        : {
            workspace: {
              changes: diffTrees(before.entries, after.entries),
              complete: before.complete && after.complete,
              bytes: SessionWorkspace.usage(after.entries),
              maxBytes: (workspace as SessionWorkspace).maxBytes,
              overCap: watch?.overCap !== undefined,
              ...(removed.length > 0 && { removed }),
            },
          }),
    }
  }
  return workspace === undefined ? run() : workspace.whileRunning(run)
}

/**
 * The one variable a script's environment gains beyond the fixed base: for
 * python, `PYTHONPATH` is the skill root, so a script imports its skill's
 * packages (`from scripts.utils import …`) as it does when run from the
 * skill's folder (`python -m scripts.x`), while its cwd is the workspace.
 * Nothing comes from the host's environment.
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

/** How often a running call's workspace is measured against its cap, at least. */
const WATCH_INTERVAL_MS = 250

/**
 * Measures the workspace while a call runs and aborts the call once it has
 * grown past the cap (a workspace already over it may still shrink). The
 * interval stretches with the walk's own cost, so a large workspace is not
 * walked continuously.
 */
class WorkspaceWatch {
  readonly #controller = new AbortController()
  readonly #detach: () => void
  #timer: NodeJS.Timeout | undefined
  #stopped = false
  overCap: number | undefined

  constructor(
    readonly workspace: SessionWorkspace,
    readonly startBytes: number,
    outer: AbortSignal | undefined,
  ) {
    const forward = () => this.#controller.abort()
    outer?.addEventListener('abort', forward, { once: true })
    this.#detach = () => outer?.removeEventListener('abort', forward)
    this.#schedule(WATCH_INTERVAL_MS)
  }

  #schedule(ms: number): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => void this.#tick(), ms)
    this.#timer.unref()
  }

  async #tick(): Promise<void> {
    const started = performance.now()
    try {
      const { entries, complete } = await this.workspace.snapshot()
      const bytes = complete ? SessionWorkspace.usage(entries) : Number.POSITIVE_INFINITY
      // Past the entry or depth limit the tree is unmeasured: counted as over the cap.
      if (bytes > this.workspace.maxBytes && bytes > this.startBytes) {
        this.overCap = bytes
        this.#controller.abort()
        return
      }
    } catch {
      // A walk racing the script's own deletes: measure again next tick.
    }
    this.#schedule(Math.max(WATCH_INTERVAL_MS, 10 * (performance.now() - started)))
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  stop(): void {
    this.#stopped = true
    clearTimeout(this.#timer)
    this.#detach()
  }
}
