import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { pluginSkillMount } from '../sandbox/path-translator.js'
import type { SkillCopy } from '../skill-copy/skill-copy.js'
import type { SkillScriptConfig } from '../types.js'
import { buildArgv } from './build-argv.js'
import type { ScriptRequest, ShellCommand } from './script-call.js'
import { undeclaredScriptCall, undeclaredScripts } from './undeclared-script-call.js'
import {
  TIMEOUT_PARAM,
  type ValidatedSkillScript,
  validateSkillScript,
} from './validate-skill-script.js'

/** One call with every rule checked: what the runner runs, and what the gate is shown. */
export interface ResolvedScriptCall {
  readonly script: ValidatedSkillScript
  /** The whole argv; its first `interpreterLength` elements are the interpreter's prefix. */
  readonly argv: readonly string[]
  readonly interpreterLength: number
  readonly timeoutSeconds: number
  readonly command?: ShellCommand
  /** The call as the gate sees it: the arguments, or a command's line. */
  readonly gateArgs: Readonly<Record<string, unknown>>
}

/**
 * The per-call deadline: `given` (the caller's), else the arguments'
 * `timeout_seconds`, else the default. Checked here, an integer from 1 to
 * `maxTimeoutSeconds`, unless the tool's input schema already checked the
 * arguments' value (`argsChecked`).
 */
function resolveTimeout(
  config: SkillScriptConfig,
  given: number | undefined,
  fromArgs: unknown,
  argsChecked: boolean,
): number {
  const value = given ?? fromArgs
  if (value === undefined) return config.defaultTimeoutSeconds
  if (given === undefined && argsChecked) return value as number
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

interface Picked {
  readonly script: ValidatedSkillScript
  readonly args: Readonly<Record<string, unknown>>
  readonly argv?: readonly string[]
  readonly command?: ShellCommand
}

/** The request's script, checked once: validated, resolved among the undeclared files, or as given. */
async function pick(
  config: SkillScriptConfig,
  skill: string,
  request: ScriptRequest,
  copy: SkillCopy,
): Promise<Picked> {
  if ('checked' in request) return { ...request, script: request.checked }
  if ('declaration' in request) {
    const script = validateSkillScript(skill, request.declaration, config.interpreters)
    return { ...request, script }
  }
  const found =
    request.found ?? (await undeclaredScripts(copy.root, copy.paths, config.interpreters))
  return undeclaredScriptCall(
    skill,
    request.undeclared,
    found.runnable,
    found.denied,
    copy.plugin === undefined
      ? [config.translator.skillMount]
      : [config.translator.skillMount, pluginSkillMount(copy.plugin.skillPath)],
  )
}

/**
 * Turns a request into one checked call: the script (checked once, see
 * `ScriptRequest`), its deadline (`timeout.seconds` or the request's
 * `timeout_seconds`, see `resolveTimeout`), argv without a shell (typed `args` through
 * `buildArgv`, or literal `argv`, or `<shell> -c <line>`), and a script file
 * that is a regular file of the skill copy. Throws
 * `E_SKILL_SOURCE_PATH_REJECTED`, `E_SKILL_MANIFEST_INVALID`,
 * `E_SKILL_SCRIPT_INVALID_ARGS` or `E_SKILL_WORKSPACE_FAILED`.
 */
export async function resolveScriptCall(
  config: SkillScriptConfig,
  skill: string,
  request: ScriptRequest,
  copy: SkillCopy,
  timeout: { readonly seconds?: number; readonly argsChecked?: boolean },
): Promise<ResolvedScriptCall> {
  const { script, args: given, argv: literal, command } = await pick(config, skill, request, copy)
  const { [TIMEOUT_PARAM]: timeoutArg, ...args } = given
  const timeoutSeconds = resolveTimeout(
    config,
    timeout.seconds,
    timeoutArg,
    timeout.argsChecked === true,
  )
  const prefix = config.interpreterViews?.[script.interpreter]?.argv ?? script.interpreterArgv
  // The translator maps the copy's root to skillMount (a plugin skill's to its place
  // below /plugin, where it runs from), so the sandbox path is known up front.
  const mount =
    copy.plugin === undefined
      ? config.translator.skillMount
      : pluginSkillMount(copy.plugin.skillPath)
  const inSandbox = `${mount}/${script.path}`
  const argv =
    command !== undefined
      ? [
          ...prefix,
          '-c',
          command.line,
          ...(command.params.length ? command.params : [script.interpreter]),
        ]
      : literal === undefined
        ? buildArgv(prefix, inSandbox, script.params, args)
        : [...prefix, inSandbox, ...literal]
  if (command === undefined) {
    const st = await lstat(join(copy.root, script.path)).catch(() => undefined)
    if (!st?.isFile()) {
      throw new SkillHostError(
        'E_SKILL_WORKSPACE_FAILED',
        `Skill '${skill}' script '${script.name}' is not a regular file in its skill copy (${script.path}).`,
      )
    }
  }
  const asked = 'undeclared' in request ? request.undeclared : request.args
  return {
    script,
    argv,
    interpreterLength: prefix.length,
    timeoutSeconds,
    ...(command === undefined ? {} : { command }),
    // A command is shown to the gate as what it is: the line, not the script's args.
    gateArgs: command === undefined ? asked : { command: command.line },
  }
}
