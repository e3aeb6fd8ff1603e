import type { DisposableStore } from '../../../common/disposable.js'
import { skillhostOwnFolders } from '../../../common/door/own-folders.js'
import type { ToolGate } from '../../../common/gate.js'
import { SCRIPT_GATE_CODES } from '../../../common/gate.js'
import type { Tool } from '../../../common/tool.js'
import type { TurnContext } from '../../../common/turn-context.js'
import {
  type NotedWorkspaceFile,
  noteWorkspaceFiles,
} from '../../../common/workspace-files-noted.js'
import { checkPermissionRequest } from '../../../skill-model/permission-request.js'
import { scriptToolName } from '../../../skill-model/script-tool-name.js'
import type { SkillDescriptor, SkillSource } from '../../../sources/types.js'
import { forgeSkillTool } from '../../skill-tool-envelope.js'
import type { ForgeTarget, SkillFileHeads, TierForge } from '../../tier-forge.js'
import { PROVISIONED_PYTHON, runsWithPython, warmScriptEnv } from '../deps/script-env.js'
import { scriptRequirementsOf } from '../deps/script-requirements.js'
import { PermissionGrants, unusedPermissions } from '../policy/permission-grants.js'
import { runScriptCall } from '../run/run-script-call.js'
import type { ScriptRequest } from '../run/script-call.js'
import { type UndeclaredScripts, undeclaredScripts } from '../run/undeclared-script-call.js'
import type { ValidatedSkillScript } from '../run/validate-skill-script.js'
import { type SkillCopy, SkillCopyMaker } from '../skill-copy/skill-copy.js'
import type { SkillScriptConfig } from '../types.js'
import type { TreeChange } from '../workspace/diff-trees.js'
import type { WorkspaceOpener } from '../workspace/workspace-call.js'
import { describeInterpreter, INTERPRETERS_META, type RunsWith } from './describe-interpreter.js'
import { runDynamicContext } from './dynamic-context.js'
import { renderToolOutcome } from './render-tool-outcome.js'
import { partitionScripts } from './script-availability.js'
import { scriptInputSchema } from './script-input-schema.js'
import {
  undeclaredInputSchema,
  undeclaredToolName,
  withheldUndeclaredTool,
} from './undeclared-script-tool.js'

/** What the forge needs besides the tier config: the conversation's workspace, made on first use. */
export interface ScriptForgeOptions {
  /** Opened by the first call that may run (the manager's `SessionWorkspaceSlot`). */
  readonly workspace?: WorkspaceOpener
}

/** One loaded skill version as its script tools see it: the tier, the skill and its copy. */
interface ForgeScope {
  readonly config: SkillScriptConfig
  readonly gate: ToolGate
  readonly target: ForgeTarget
  /** The version's skill copy: made by the load (or its first dynamic-context command), then reused. */
  readonly copy: SkillCopyMaker
  readonly options: ScriptForgeOptions
}

/**
 * Tier 3's forge for the manager. At load every declared script is validated
 * (interpreter allow-list, path rules, parameter rules); one that fails is
 * not offered but reported by `unavailable` (`partitionScripts`), and the
 * rest load. The skill's permission request is judged, then its files are
 * copied into its skill copy (`SkillCopyMaker`), which the target owns and
 * disposes once in-flight calls drain. Each declared script becomes
 * `run_<skill>_<script>`; with `undeclared: 'allow'`, every file whose
 * interpreter the deployer allows is runnable through `run_<skill>_script`.
 * Every call is gated by the envelope with the script codes (403 vs 503)
 * and owned by `runScriptCall` (the derived policy, the conversation's
 * workspace at `/work` as its cwd, its output and changed files spooled);
 * the tool renders its outcome (`renderToolOutcome`).
 */
export function createScriptForge(
  config: SkillScriptConfig,
  gate: ToolGate,
  options: ScriptForgeOptions = {},
): TierForge {
  const undeclared = config.undeclared === 'allow'
  const grants = new PermissionGrants(config.policy, gate, skillhostOwnFolders(config))
  // One skill copy per loaded version, owned by the version's store.
  const copies = new WeakMap<ForgeTarget, SkillCopyMaker>()
  const scopeOf = (target: ForgeTarget, source: SkillSource): ForgeScope => {
    let copy = copies.get(target)
    if (copy === undefined) {
      copy = new SkillCopyMaker(config.workspace, source, target.source, (release) =>
        target.store.add(release),
      )
      copies.set(target, copy)
    }
    return { config, gate, target, copy, options }
  }
  return {
    names: (d: SkillDescriptor) => [
      ...partitionScripts(d, config.interpreters).valid.map((s) => scriptToolName(d.id, s.name)),
      ...(undeclared ? [undeclaredToolName(d.id)] : []),
    ],
    unavailable: (d: SkillDescriptor) => partitionScripts(d, config.interpreters).unavailable,
    // Under 'deny' a skill that ships scripts is told why it gets no run_<skill>_script.
    ...(!undeclared && {
      withheld: (d: SkillDescriptor, files: SkillFileHeads) =>
        withheldUndeclaredTool(d, files, config.interpreters),
    }),
    forge: (target, source, signal, ctx) =>
      forgeScriptTools(scopeOf(target, source), grants, signal, ctx),
    dynamicContext: (target, source, commands, call) =>
      runDynamicContext(
        {
          config,
          toolName: undeclaredToolName(target.id),
          copy: scopeOf(target, source).copy,
          ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
          gate,
        },
        target,
        commands,
        call,
      ),
  }
}

/** The load's part: judge the permission request, make the skill copy, forge the tools. */
async function forgeScriptTools(
  scope: ForgeScope,
  grants: PermissionGrants,
  signal: AbortSignal,
  ctx: TurnContext | undefined,
): Promise<Tool[]> {
  const { config, target } = scope
  const undeclared = config.undeclared === 'allow'
  const scripts = partitionScripts(target.descriptor, config.interpreters).valid
  const requested = target.descriptor.permissions
  if (scripts.length === 0 && !undeclared) {
    const unused = unusedPermissions(checkPermissionRequest(requested).request)
    if (unused.length > 0) target.permissions = unused
    return []
  }
  // Asked before anything is copied; the gate sees the profile once per version.
  const judged = await grants.judge(target, requested, ctx)
  if (judged !== undefined) target.permissions = judged.outcomes
  const copy = await scope.copy.get(signal, judged?.grant)
  const requires = await Promise.all(
    scripts.map((s) => requirementTexts(config, copy, s, target.store)),
  )
  // Each tool holds the load's copy: a call runs from it without asking the maker again.
  const tools = scripts.map((script, i) => forgeDeclared(scope, copy, script, requires[i] ?? []))
  if (undeclared) {
    const found = await undeclaredScripts(copy.root, copy.paths, config.interpreters)
    if (found.runnable.size > 0 || found.denied.size > 0)
      tools.push(forgeUndeclared(scope, copy, found))
  }
  return tools
}

/**
 * What a python script needs, so its tool names what it will run with: the
 * declared packages, and those inferred from its imports only when
 * provisioning would build them. A declaration that does not parse is the
 * call's error to report, not the load's.
 */
async function requirementTexts(
  config: SkillScriptConfig,
  copy: SkillCopy,
  script: ValidatedSkillScript,
  store: DisposableStore,
): Promise<string[]> {
  if (!runsWithPython(config, script)) return []
  const found = await scriptRequirementsOf(copy.root, script.path).catch(() => undefined)
  if (found === undefined || (found.inferred && config.provision === undefined)) return []
  // Provisioning on: the environment starts building now, at load, not at the first call.
  warmScriptEnv(config, script, found.requirements, store)
  return found.requirements.map((r) => r.text)
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

/** One tool call: `runScriptCall` owns it (spooled), the tool renders its outcome. */
async function callTool(
  scope: ForgeScope,
  copy: SkillCopy,
  name: string,
  request: ScriptRequest,
  ctx: TurnContext,
): Promise<string> {
  const { config, target, options } = scope
  const outcome = await runScriptCall(config, {
    skill: target.id,
    copy,
    request,
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
    signal: ctx.abortSignal,
    // The tool's input schema checked the arguments (timeout_seconds included) before the call.
    argsChecked: true,
    spool: { store: ctx.spool, tool: name, skillVersion: target.version },
  })
  // Even a failed call may have made files; the adapter can hand them to the client.
  if (outcome.ran) noteWorkspaceFiles(notedChanges(outcome.result.workspace?.changes ?? []))
  return renderToolOutcome(config, name, outcome)
}

/** The regular files a call wrote, and the entries it deleted (a symlink it made is never offered). */
function* notedChanges(changes: readonly TreeChange[]): Iterable<NotedWorkspaceFile> {
  for (const c of changes) {
    if (c.change === 'deleted') yield { path: c.path, change: 'deleted', size: 0 }
    else if (c.kind === 'file') yield { path: c.path, change: 'written', size: c.size }
  }
}

/** The envelope's part of every script tool; the output is spooled by `runScriptCall`, so not here. */
function scriptToolSpec(scope: ForgeScope) {
  const { target, gate } = scope
  return {
    tier: 'script' as const,
    skill: { id: target.id, version: target.version },
    gate,
    gateCodes: SCRIPT_GATE_CODES,
    guard: target,
    spool: false as const,
  }
}

function forgeDeclared(
  scope: ForgeScope,
  copy: SkillCopy,
  script: ValidatedSkillScript,
  requires: readonly string[],
): Tool {
  const { config, target } = scope
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
    ...scriptToolSpec(scope),
    name,
    description: `${script.description}${interpreterNote(runsWith)}`,
    inputSchema: scriptInputSchema(script.params, config.maxTimeoutSeconds),
    meta: { script: script.name, [INTERPRETERS_META]: Object.freeze(runsWith) },
    run: (args, ctx) => callTool(scope, copy, name, { checked: script, args }, ctx),
  })
}

function forgeUndeclared(scope: ForgeScope, copy: SkillCopy, found: UndeclaredScripts): Tool {
  const { config, target } = scope
  const name = undeclaredToolName(target.id)
  const paths = [...found.runnable.keys()].sort()
  const listed = paths.slice(0, 50).join(', ')
  const used = [...new Set([...found.runnable.values()].map((s) => s.interpreter))].sort()
  const runsWith = used.map((n) => seenAs(config, n))
  const description = `Run one of skill '${target.id}''s scripts in the sandbox, as its instructions say (python scripts/x.py a b → { script: "scripts/x.py", args: ["a", "b"] }; python -m scripts.x → { script: "scripts/x.py" }). The working directory is /work, the conversation's workspace: files persist across calls, and the skill's own files are read-only at ${config.translator.skillMount}. Runnable: ${listed || '(none)'}${paths.length > 50 ? `, and ${paths.length - 50} more` : ''}.${interpreterNote(runsWith)}`
  return forgeSkillTool<Record<string, unknown>>({
    ...scriptToolSpec(scope),
    name,
    description,
    inputSchema: undeclaredInputSchema(config.maxTimeoutSeconds),
    meta: { undeclared: true, [INTERPRETERS_META]: Object.freeze(runsWith) },
    run: (args, ctx) => callTool(scope, copy, name, { undeclared: args, found }, ctx),
  })
}
