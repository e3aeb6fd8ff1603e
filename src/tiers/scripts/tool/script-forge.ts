import { SpooledArtifact } from '../../../common/artifacts/index.js'
import { skillhostOwnFolders } from '../../../common/door/own-folders.js'
import { SkillHostError } from '../../../common/errors.js'
import { SCRIPT_GATE_CODES, type ToolGate } from '../../../common/gate.js'
import type { Tool } from '../../../common/tool.js'
import type { TurnContext } from '../../../common/turn-context.js'
import { checkPermissionRequest } from '../../../skill-model/permission-request.js'
import type { SkillDescriptor, SkillSource } from '../../../sources/types.js'
import { forgeSkillTool } from '../../skill-tool-envelope.js'
import type { ForgeTarget, TierForge } from '../../tier-forge.js'
import { PROVISIONED_PYTHON, runsWithPython } from '../deps/script-env.js'
import { scriptRequirementsOf } from '../deps/script-requirements.js'
import { PermissionGrants, unusedPermissions } from '../policy/permission-grants.js'
import type { PolicyGrant } from '../policy/policy.js'
import { runSkillScript } from '../run/run-skill-script.js'
import { settleScriptResult } from '../run/script-outcome.js'
import {
  describeChanges,
  renderScriptResult,
  SCRIPT_ERROR_TAIL_BYTES,
  spoolWorkspaceChanges,
  tailOf,
} from '../run/script-report.js'
import { filesFromSource } from '../skill-copy/workspace-files.js'
import type { ScriptRunResult, SkillScriptConfig } from '../types.js'
import { full, type SessionWorkspace, unmeasurable } from '../workspace/session-workspace.js'
import { describeInterpreter, INTERPRETERS_META, type RunsWith } from './describe-interpreter.js'
import { runDynamicContext } from './dynamic-context.js'
import type { LoadedCopy } from './loaded-copy.js'
import { partitionScripts } from './script-availability.js'
import { scriptInputSchema } from './script-input-schema.js'
import { scriptToolName } from './script-tool-name.js'
import {
  undeclaredInputSchema,
  undeclaredScriptCall,
  undeclaredScripts,
} from './undeclared-script-tool.js'
import type { ValidatedSkillScript } from './validate-skill-script.js'

/** The tool that runs a loaded skill's undeclared scripts: `run_<skill>_script`. */
export function undeclaredToolName(skill: string): string {
  return scriptToolName(skill, 'script')
}

function outputText(result: ScriptRunResult): string {
  const ended = result.timedOut ? 'killed at the deadline' : `exit code: ${String(result.exitCode)}`
  const parts = [`${ended}${result.truncated ? ' (output truncated)' : ''}`]
  parts.push('--- stdout ---', result.stdout)
  if (result.stderr) parts.push('--- stderr ---', result.stderr)
  return parts.join('\n')
}

/** What the forge needs besides the tier config: the conversation's workspace, made on first use. */
export interface ScriptForgeOptions {
  readonly workspace?: () => Promise<SessionWorkspace>
}

/**
 * Tier 3's forge for the manager. At load every declared script is validated
 * (interpreter allow-list, path rules, parameter rules); one that fails is
 * not offered but reported by `unavailable` (`partitionScripts`), and the
 * rest load. Then the skill's
 * files are materialized into a fresh workspace root, which the target owns
 * and disposes once in-flight calls drain. Each declared script becomes
 * `run_<skill>_<script>`; with `undeclared: 'allow'`, every file whose
 * interpreter the deployer allows is runnable through `run_<skill>_script`.
 * Every call is gated with the script codes (403 vs 503), runs under the
 * derived policy with the conversation's workspace at `/work` as its cwd, and
 * its output and changed files are spooled; a nonzero exit is
 * `E_SKILL_SCRIPT_FAILED` unless `failOnNonzeroExit: false`.
 */
export function createScriptForge(
  config: SkillScriptConfig,
  gate: ToolGate,
  options: ScriptForgeOptions = {},
): TierForge {
  const undeclared = config.undeclared === 'allow'
  const grants = new PermissionGrants(config.policy, gate, skillhostOwnFolders(config))
  // Each loaded version's materialized copy, made by forge() (with what the
  // gate granted its permission request) or, for a skill with nothing to
  // forge, by its first dynamic-context command (with nothing granted).
  const copies = new WeakMap<ForgeTarget, Promise<LoadedCopy>>()
  const copyFor = (
    target: ForgeTarget,
    source: SkillSource,
    signal: AbortSignal,
    granted?: PolicyGrant,
  ): Promise<LoadedCopy> => {
    let copy = copies.get(target)
    if (copy === undefined) {
      copy = (async () => {
        const ref = target.source
        const files = await filesFromSource(source, ref)
        const root = await config.workspace.materialize(ref, files, { signal })
        target.store.add(() => config.workspace.dispose(root))
        return {
          root,
          paths: files.map((f) => f.path),
          ...(granted && granted.read.length + granted.write.length > 0 ? { granted } : {}),
        }
      })()
      copies.set(target, copy)
    }
    return copy
  }
  return {
    names: (d: SkillDescriptor) => [
      ...partitionScripts(d, config.interpreters).valid.map((s) => scriptToolName(d.id, s.name)),
      ...(undeclared ? [undeclaredToolName(d.id)] : []),
    ],
    unavailable: (d: SkillDescriptor) => partitionScripts(d, config.interpreters).unavailable,
    forge: async (target: ForgeTarget, source: SkillSource, signal: AbortSignal, ctx) => {
      const scripts = partitionScripts(target.descriptor, config.interpreters).valid
      const requested = target.descriptor.permissions
      if (scripts.length === 0 && !undeclared) {
        const unused = unusedPermissions(checkPermissionRequest(requested).request)
        if (unused.length > 0) target.permissions = unused
        return []
      }
      // Asked before anything is materialized; the gate sees the profile once per version.
      const judged = await grants.judge(target, requested, ctx)
      if (judged !== undefined) target.permissions = judged.outcomes
      const copy = await copyFor(target, source, signal, judged?.grant)
      // What each python script needs, so its tool names what it will run with: the declared
      // packages, and those inferred from its imports only when provisioning would build them.
      // A declaration that does not parse is the call's error to report, not the load's.
      const requires = await Promise.all(
        scripts.map(async (s) => {
          if (!runsWithPython(config, s)) return []
          const found = await scriptRequirementsOf(copy.root, s.path).catch(() => undefined)
          if (found === undefined || (found.inferred && config.provision === undefined)) return []
          return found.requirements.map((r) => r.text)
        }),
      )
      const tools = scripts.map((script, i) =>
        forgeDeclared(config, gate, target, script, copy, options, requires[i]!),
      )
      if (undeclared) {
        const { runnable, denied } = await undeclaredScripts(
          copy.root,
          copy.paths,
          config.interpreters,
        )
        if (runnable.size > 0 || denied.size > 0) {
          tools.push(forgeUndeclared(config, gate, target, copy, runnable, denied, options))
        }
      }
      return tools
    },
    dynamicContext: (target, source, commands, call) =>
      runDynamicContext(
        {
          config,
          gate,
          toolName: undeclaredToolName(target.id),
          copy: () => copyFor(target, source, call.signal),
          ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
        },
        target,
        commands,
        call,
      ),
  }
}

/** How scripts see the interpreter `name` of this config (`describeInterpreter`'s sandbox view). */
function seenAs(config: SkillScriptConfig, name: string): RunsWith {
  return describeInterpreter(name, config.interpreters, config.interpreterViews ?? {})
}

/**
 * What a tool's description tells the model about the interpreters it runs
 * with: each python's version, when known. The load result lists them whole
 * (`scriptToolInterpreters`).
 */
function interpreterNote(runsWith: readonly RunsWith[]): string {
  const said = runsWith.flatMap((r) =>
    r.version === undefined ? [] : [`${r.name} is Python ${r.version}`],
  )
  return said.length === 0 ? '' : ` (${said.join('; ')}.)`
}

interface CallShape {
  readonly name: string
  readonly script: ValidatedSkillScript
  readonly args: Readonly<Record<string, unknown>>
  readonly argv?: readonly string[]
}

/** Runs one call and turns it into the model's answer; shared by declared and undeclared tools. */
async function runAndReport(
  config: SkillScriptConfig,
  target: ForgeTarget,
  copy: LoadedCopy,
  call: CallShape,
  ctx: TurnContext,
  options: ScriptForgeOptions,
): Promise<string> {
  const workspace = await options.workspace?.()
  const result = await runSkillScript(config, {
    skill: target.id,
    root: copy.root,
    ...(copy.granted === undefined ? {} : { granted: copy.granted }),
    script: call.script,
    args: call.args,
    ...(call.argv === undefined ? {} : { argv: call.argv }),
    signal: ctx.abortSignal,
    returnTimedOut: true,
    ...(workspace === undefined ? {} : { workspace }),
  })
  const provenance = { skill: target.id, skillVersion: target.version, tool: call.name }
  const artifact = await SpooledArtifact.spool(ctx.spool, outputText(result), {
    provenance,
    trusted: false,
    title: `${call.name} output`,
  })
  const id = artifact.retrievable.id
  const changes =
    workspace === undefined
      ? []
      : await spoolWorkspaceChanges(result, workspace, ctx.spool, provenance)
  const changed = describeChanges(result, changes)
  const report = result.workspace
  if (report?.overCap) {
    const err =
      report.complete || workspace === undefined
        ? full(report.bytes, report.maxBytes)
        : unmeasurable(workspace.maxEntries)
    throw new SkillHostError(
      'E_SKILL_WORKSPACE_FULL',
      `Script tool '${call.name}' was killed for growing the workspace past its cap of ${report.maxBytes} bytes; its output is in ${id}. ${err.message}\n${changed.join('\n')}`,
      { data: { ...err.data, retrievableId: id, changes } },
    )
  }
  if (result.timedOut) {
    // The partial output is spooled like any other, so the model can see
    // how far the script got before the deadline.
    throw new SkillHostError(
      'E_SKILL_SCRIPT_TIMEOUT',
      `Script tool '${call.name}' ran past its deadline and was killed; its partial output (${result.bytes} bytes) is in ${id}. Raise timeout_seconds (max ${config.maxTimeoutSeconds}) or make it faster.${changed.length ? `\n${changed.join('\n')}` : ''}`,
      { data: { retrievableId: id, bytes: result.bytes, changes } },
    )
  }
  // A failure shows the end of stderr, or of stdout when a script reports its
  // errors there (many do): the model sees why without another call.
  const stream = result.stderr ? 'stderr' : 'stdout'
  const tail = tailOf(result.stderr || result.stdout, SCRIPT_ERROR_TAIL_BYTES)
  return settleScriptResult(result, {
    retrievableId: id,
    toolName: call.name,
    rendered: renderScriptResult(result, id, changes),
    failureDetail: [
      ...(tail ? [`--- end of ${stream} (script output) ---`, tail] : []),
      ...changed,
    ],
    data: { changes },
    ...(config.failOnNonzeroExit === undefined
      ? {}
      : { failOnNonzeroExit: config.failOnNonzeroExit }),
  })
}

function forgeDeclared(
  config: SkillScriptConfig,
  gate: ToolGate,
  target: ForgeTarget,
  script: ValidatedSkillScript,
  copy: LoadedCopy,
  options: ScriptForgeOptions,
  requires: readonly string[],
): Tool {
  const name = scriptToolName(target.id, script.name)
  const base = seenAs(config, script.interpreter)
  const runsWith: RunsWith[] = [
    requires.length === 0
      ? base
      : {
          ...base,
          ...(config.provision === undefined ? {} : { program: PROVISIONED_PYTHON }),
          requires,
        },
  ]
  return forgeSkillTool<Record<string, unknown>>({
    name,
    description: `${script.description}${interpreterNote(runsWith)}`,
    inputSchema: scriptInputSchema(script.params, config.maxTimeoutSeconds),
    tier: 'script',
    skill: { id: target.id, version: target.version },
    meta: { script: script.name, [INTERPRETERS_META]: Object.freeze(runsWith) },
    gate,
    gateCodes: SCRIPT_GATE_CODES,
    guard: target,
    // The output is spooled here and the model gets a preview naming it.
    spool: false,
    run: (args, ctx) => runAndReport(config, target, copy, { name, script, args }, ctx, options),
  })
}

function forgeUndeclared(
  config: SkillScriptConfig,
  gate: ToolGate,
  target: ForgeTarget,
  copy: LoadedCopy,
  runnable: ReadonlyMap<string, ValidatedSkillScript>,
  denied: ReadonlyMap<string, string>,
  options: ScriptForgeOptions,
): Tool {
  const name = undeclaredToolName(target.id)
  const paths = [...runnable.keys()].sort()
  const listed = paths.slice(0, 50).join(', ')
  const used = [...new Set([...runnable.values()].map((s) => s.interpreter))].sort()
  const runsWith = used.map((n) => seenAs(config, n))
  const description = `Run one of skill '${target.id}''s scripts in the sandbox, as its instructions say (python scripts/x.py a b → { script: "scripts/x.py", args: ["a", "b"] }; python -m scripts.x → { script: "scripts/x.py" }). The working directory is /work, the conversation's workspace: files persist across calls, and the skill's own files are read-only at ${config.translator.skillMount}. Runnable: ${listed || '(none)'}${paths.length > 50 ? `, and ${paths.length - 50} more` : ''}.${interpreterNote(runsWith)}`
  return forgeSkillTool<Record<string, unknown>>({
    name,
    description,
    inputSchema: undeclaredInputSchema(config.maxTimeoutSeconds),
    tier: 'script',
    skill: { id: target.id, version: target.version },
    meta: { undeclared: true, [INTERPRETERS_META]: Object.freeze(runsWith) },
    gate,
    gateCodes: SCRIPT_GATE_CODES,
    guard: target,
    spool: false,
    run: (args, ctx) => {
      const call = undeclaredScriptCall(
        target.id,
        args,
        runnable,
        denied,
        config.translator.skillMount,
      )
      return runAndReport(config, target, copy, { name, ...call }, ctx, options)
    },
  })
}
