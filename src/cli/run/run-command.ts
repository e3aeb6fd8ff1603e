import { resolve } from 'node:path'
import { SkillHostError } from '../../common/index.js'
import { FileSystemSkillSource, type SkillLock, type SkillProblem } from '../../index.js'
import {
  notPinnedError,
  type SkillDescriptor,
  type SkillScriptDeclaration,
} from '../../sources/index.js'
import { createScriptSandbox, type SkillScriptConfig } from '../../tiers/scripts/index.js'
import { runScriptOnce, type ScriptOnceCall, TIMEOUT_PARAM } from '../../tiers/scripts/internal.js'
import type { CliCommand, CliIo } from '../shared/cli-command.js'
import { lockedFlag } from '../shared/locked-flag.js'
import { overlayDirs } from '../shared/overlay-dirs.js'
import { UsageError } from '../shared/parse-args.js'
import { plural } from '../shared/plural.js'
import { reportError, wantsJson } from '../shared/report-error.js'
import { parseSandboxFlags, SANDBOX_LIST_FLAGS } from '../shared/sandbox-flags.js'
import { sandboxOptionsFrom } from '../shared/sandbox-options.js'
import { unusableRootError, usableRoots } from '../shared/usable-roots.js'
import { optionValues, runTarget, scriptArgs, undeclaredArgv } from './run-args.js'
import { RUN_HELP } from './run-help.js'
import { lockedRefusal } from './run-locked.js'
import { runPermissionNote } from './run-permissions.js'
import { printRun, RUN_EXIT } from './run-print.js'
import { runSkillDir, runSkillDirLine } from './run-skill-dir.js'
import { carriedFiles } from './run-user-files.js'
import { workspaceVoice } from './run-workspace-voice.js'

export { RUN_EXIT } from './run-print.js'

/** Codes that mean the call's arguments are wrong: a usage error, not a sandbox failure. */
const ARGUMENT_CODES: ReadonlySet<string> = new Set([
  'E_SKILL_SCRIPT_INVALID_ARGS',
  'E_TOOL_INVALID_ARGS',
])

interface RunOptions {
  readonly skillDir: string
  readonly scriptName: string
  /** Everything after the script's name, run's flags met before it first. */
  readonly rest: readonly string[]
  /** run's own flags: those before `--`. */
  readonly own: readonly string[]
  /** Errors said as JSON (`wantsJson`). */
  readonly json: boolean
  /** The result printed as JSON: `--json` among run's own flags. */
  readonly printJson: boolean
}

function parseRun(argv: readonly string[]): RunOptions {
  const { skillDir, scriptName, rest } = runTarget(argv)
  const dash = rest.indexOf('--')
  // run's own flags stand before `--`; everything after it is the script's, verbatim.
  const own = dash === -1 ? rest : rest.slice(0, dash)
  return {
    skillDir,
    scriptName,
    rest,
    own,
    json: wantsJson(argv),
    printJson: own.includes('--json'),
  }
}

/** The one skill of the folder, as discovery and the lock give it (the resolve stage). */
interface RunSkill {
  readonly source: FileSystemSkillSource
  readonly ref: { readonly id: string; readonly version: string }
  readonly descriptor: SkillDescriptor
  readonly lock: SkillLock | undefined
  /** Says a refusal of the lock for the person, with exit 65. */
  readonly refuse: (err: SkillHostError) => Promise<number>
}

async function findSkill(opts: RunOptions, io: CliIo): Promise<RunSkill | number> {
  const { skillDir, json } = opts
  const lockedPath = optionValues(opts.own, 'locked').at(-1)
  let lock: SkillLock | undefined
  try {
    lock = await lockedFlag(lockedPath)
  } catch (err) {
    if (!SkillHostError.isInstance(err)) throw err
    return reportError(err, { io, command: 'run', json, status: RUN_EXIT.notPinned })
  }
  const source = new FileSystemSkillSource({
    roots: [resolve(skillDir)],
    id: 'cli',
    overlays: overlayDirs(optionValues(opts.own, 'overlays')),
    ...(lock && { lock }),
  })
  const found = []
  const problems: SkillProblem[] = []
  for await (const skill of source.discover({ report: (p) => void problems.push(p) }))
    found.push(skill)
  // Under --locked, the one refusal that leaves nothing found: a skill the lock does not hold.
  const unpinned = problems.find((p) => p.code === 'E_SKILL_NOT_PINNED' && p.id !== undefined)
  const refuseAs = (id: string) => async (err: SkillHostError) => {
    const said = await lockedRefusal(err, resolve(skillDir), id, lock!, lockedPath!)
    return reportError(said, { io, command: 'run', json, status: RUN_EXIT.notPinned })
  }
  if (lock && found.length === 0 && unpinned?.id !== undefined)
    return refuseAs(unpinned.id)(notPinnedError(unpinned.id, undefined))
  // The folder's own SKILL.md is invalid: say why, as validate does (the YAML error and its line).
  const invalid = problems.find(
    (p) => p.severity === 'error' && p.code === 'E_SKILL_MANIFEST_INVALID',
  )
  if (found.length === 0 && invalid !== undefined) {
    const err = new SkillHostError('E_SKILL_MANIFEST_INVALID', invalid.message)
    return reportError(err, { io, command: 'run', json, status: RUN_EXIT.usage })
  }
  if (found.length !== 1) {
    const why = `${skillDir} must be one skill folder holding SKILL.md (found ${plural(found.length, 'skill')})`
    return reportError(new UsageError(why), { io, command: 'run', json, status: RUN_EXIT.usage })
  }
  const ref = { id: found[0]!.id, version: found[0]!.version }
  try {
    const descriptor = await source.descriptor(ref)
    return { source, ref, descriptor, lock, refuse: refuseAs(ref.id) }
  } catch (err) {
    if (lock && SkillHostError.isInstance(err) && err.code === 'E_SKILL_NOT_PINNED')
      return refuseAs(ref.id)(err)
    throw err
  }
}

/** What the command line asks the script to run with: a declared script's typed args, or a file's argv. */
interface RunCall {
  readonly declared: SkillScriptDeclaration | undefined
  readonly call: ScriptOnceCall
  /** The command line's words that may name files of the current folder. */
  readonly named: readonly unknown[]
}

function callOf(opts: RunOptions, skill: RunSkill, io: CliIo): RunCall | number {
  const { descriptor, ref } = skill
  const { scriptName, rest } = opts
  const declared = (descriptor.scripts ?? []).find((s) => s.name === scriptName)
  // A declared script takes typed parameters; any other file of the skill
  // runs undeclared, with its arguments in order and those after `--` literally.
  const undeclared = declared === undefined && /[./]/.test(scriptName)
  if (!declared && !undeclared) {
    const names = (descriptor.scripts ?? []).map((s) => s.name).join(', ') || 'none'
    const why = `skill '${ref.id}' declares no script '${scriptName}' (scripts: ${names}); give a file path such as scripts/run.py to run it undeclared`
    return reportError(new UsageError(why), {
      io,
      command: 'run',
      json: opts.json,
      status: RUN_EXIT.usage,
    })
  }
  if (declared) {
    const args = scriptArgs(declared, rest)
    return { declared, call: { declared, args }, named: Object.values(args) }
  }
  const argv = undeclaredArgv(rest)
  return { declared, call: { path: scriptName, argv }, named: argv }
}

/** The resolve stage's first step: the skill folder, from a path or an id `list` prints; a number when it cannot be used. */
async function skillFolder(parsed: RunOptions, io: CliIo): Promise<RunOptions | number> {
  const target = await runSkillDir(parsed.skillDir)
  const line = runSkillDirLine(target)
  // Text mode names the root on stderr as every command does; --json says it on stdout.
  const [unusable] = usableRoots([target.dir], io, 'run', parsed.json).unusable
  if (unusable === undefined) {
    if (line !== undefined && !parsed.printJson) io.stderr(`[skillhost run: ${line}]\n`)
    return { ...parsed, skillDir: target.dir }
  }
  if (!parsed.json) {
    if (line !== undefined) io.stderr(`skillhost run: ${line}\n`)
    return RUN_EXIT.noInput
  }
  const base = unusableRootError(unusable)
  const err = line === undefined ? base : new SkillHostError(base.code, `${base.message}; ${line}`)
  return reportError(err, { io, command: 'run', json: true, status: RUN_EXIT.noInput })
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const opts = await skillFolder(parseRun(argv), io)
  if (typeof opts === 'number') return opts
  const skill = await findSkill(opts, io)
  if (typeof skill === 'number') return skill
  const call = callOf(opts, skill, io)
  if (typeof call === 'number') return call
  const { own, json } = opts
  const lists = Object.fromEntries(SANDBOX_LIST_FLAGS.map((f) => [f, optionValues(own, f)]))
  const timeout = optionValues(own, 'timeout')[0]
  const workspaceDir = optionValues(own, 'workspace')[0]
  let flags: ReturnType<typeof parseSandboxFlags>
  try {
    flags = parseSandboxFlags(lists, own.includes('--provision'))
  } catch (err) {
    return reportError(err, { io, command: 'run', json, status: RUN_EXIT.usage })
  }
  let sandbox: Awaited<ReturnType<typeof createScriptSandbox>>
  try {
    // A build of the script's environment is told on stderr (not with --json: stdout is its one answer).
    const say = opts.printJson
      ? undefined
      : (line: string) => io.stderr(`[skillhost run: ${line}]\n`)
    // One call per process: a warm sandbox would never be reused, so none is kept.
    sandbox = await createScriptSandbox({
      ...sandboxOptionsFrom(flags, skill.lock, say, false),
      warmIdleMs: 0,
    })
  } catch (err) {
    if (!SkillHostError.isInstance(err)) throw err
    return reportError(err, { io, command: 'run', json, status: RUN_EXIT.unavailable })
  }
  try {
    const place = { timeout, workspaceDir, readPaths: flags.readPaths }
    return await runAndPrint(opts, skill, call, place, sandbox.config, io)
  } finally {
    await sandbox.dispose()
  }
}

/** Where and how long the script runs, from run's flags. */
interface RunPlace {
  readonly timeout: string | undefined
  readonly workspaceDir: string | undefined
  readonly readPaths: readonly string[]
}

/** The run stage and the print stage: one call of the script, its outcome said and its status returned. */
async function runAndPrint(
  opts: RunOptions,
  skill: RunSkill,
  { declared, call, named }: RunCall,
  place: RunPlace,
  config: SkillScriptConfig,
  io: CliIo,
): Promise<number> {
  const { workspaceDir } = place
  const refused = (err: SkillHostError) =>
    printRefusal(workspaceVoice(err, workspaceDir), opts, skill, declared, config, io)
  try {
    // Without --workspace, the files the command line names go in and what the script makes comes back.
    const carried =
      workspaceDir === undefined ? await carriedFiles(process.cwd(), named) : undefined
    const note = opts.printJson
      ? undefined
      : runPermissionNote(skill.descriptor.permissions, place.readPaths)
    if (note) io.stderr(note)
    const outcome = await runScriptOnce(config, {
      source: skill.source,
      ref: skill.ref,
      call,
      ...(workspaceDir === undefined ? {} : { workspaceDir }),
      ...(carried && { prepare: carried.prepare, collect: carried.collect }),
      // Checked once, by the call's own rule; a refusal is said in flags (flagVoice).
      ...(place.timeout === undefined ? {} : { timeoutSeconds: Number(place.timeout) }),
    })
    if (!outcome.ran) return await refused(outcome.error)
    return printRun(outcome, carried, opts.printJson, config, io)
  } catch (err) {
    // Refused before the call: the configuration, or the --workspace folder.
    if (!SkillHostError.isInstance(err)) throw err
    return await refused(err)
  }
}

/** A refusal of the call, said for the person with run's status: usage (64) or unavailable (69). */
async function printRefusal(
  err: SkillHostError,
  opts: RunOptions,
  skill: RunSkill,
  declared: RunCall['declared'],
  config: SkillScriptConfig,
  io: CliIo,
): Promise<number> {
  // Read again for the run: a file changed since the check, or an environment not pinned.
  if (skill.lock && err.code === 'E_SKILL_NOT_PINNED') return await skill.refuse(err)
  const usage = ARGUMENT_CODES.has(err.code)
  return reportError(flagVoice(err, declared, config.maxTimeoutSeconds), {
    io,
    command: 'run',
    json: opts.json,
    status: usage ? RUN_EXIT.usage : RUN_EXIT.unavailable,
  })
}

/**
 * A declared parameter's refusal said in flags (`--top must be an integer.`),
 * and the deadline's as `--timeout`, not the model's parameter words; any
 * other error as it is.
 */
function flagVoice(
  err: SkillHostError,
  declared: { params?: readonly { name: string }[] } | undefined,
  maxTimeoutSeconds: number,
) {
  const { param, problem } = err.data
  // The deadline's one check is the call's: --timeout is its flag.
  if (err.code === 'E_SKILL_SCRIPT_INVALID_ARGS' && param === TIMEOUT_PARAM)
    return new UsageError(
      `--timeout must be a whole number of seconds from 1 to ${maxTimeoutSeconds}`,
    )
  if (
    err.code !== 'E_SKILL_SCRIPT_INVALID_ARGS' ||
    typeof param !== 'string' ||
    typeof problem !== 'string' ||
    !(declared?.params ?? []).some((p) => p.name === param)
  )
    return err
  return new UsageError(`--${param} ${problem}`)
}

/**
 * `run` with its own statuses: a usage error is 64 (one line and a hint) and
 * an unexpected failure 70, never 2 or 1, which a script's own status may be.
 */
async function runWithStatus(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io)
  } catch (err) {
    const usage = err instanceof UsageError
    return reportError(err, {
      io,
      command: 'run',
      json: wantsJson(argv),
      status: usage ? RUN_EXIT.usage : RUN_EXIT.internal,
      usage: "Try 'skillhost run --help'.",
    })
  }
}

/** `skillhost run`: one script of one skill under the same sandbox a model's call gets. */
export const runCommand: CliCommand = {
  name: 'run',
  help: RUN_HELP,
  run: runWithStatus,
}
