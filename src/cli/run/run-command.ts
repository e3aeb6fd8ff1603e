import { constants } from 'node:os'
import { resolve } from 'node:path'
import { escapeLine, SkillHostError } from '../../common/index.js'
import { FileSystemSkillSource, type SkillLock, type SkillProblem } from '../../index.js'
import { notPinnedError, type SkillDescriptor } from '../../sources/index.js'
import {
  createScriptSandbox,
  runScriptOnce,
  type ScriptRunResult,
} from '../../tiers/scripts/index.js'
import type { CliCommand, CliIo } from '../shared/cli-command.js'
import type { HelpSpec } from '../shared/help-text.js'
import { lockedFlag } from '../shared/locked-flag.js'
import { OVERLAYS_HELP, overlayDirs } from '../shared/overlay-dirs.js'
import { UsageError } from '../shared/parse-args.js'
import { plural } from '../shared/plural.js'
import { reportError, wantsJson } from '../shared/report-error.js'
import {
  parseSandboxFlags,
  SANDBOX_FLAGS_HELP,
  SANDBOX_LIST_FLAGS,
  sandboxOptionsFrom,
} from '../shared/sandbox-flags.js'
import { usableRoots } from '../shared/usable-roots.js'
import { optionValues, runTarget, scriptArgs, undeclaredArgv } from './run-args.js'
import { lockedRefusal } from './run-locked.js'
import { runPermissionNote } from './run-permissions.js'
import { copyLines, userFolderCopy } from './run-user-files.js'

const HELP: HelpSpec = {
  usage: [
    'skillhost run <skill-dir> <script> [options] [--<param> value ...] [positional ...] [-- value ...]',
    'skillhost run <skill-dir> <file> [options] [arg ...] [-- arg ...]',
  ],
  blocks: [
    "Run one script of a skill exactly as a model's call would run it: inside the bubblewrap sandbox, with an empty environment, the skill folder read-only at /skill, the workspace read-write at /work (the working directory) and no network. A script declared in skillhost.yaml takes its parameters as --name value (booleans as --name) and positionals in declaration order; values after -- are positionals, taken literally. Any other file of the skill (scripts/fill.py) runs by its shebang or extension, as run_<skill>_script would run it, with its arguments as you would type them after python scripts/fill.py (words and flags that are not run's, in order), and everything after -- passed literally (-- --help gives the script --help, -- --timeout 5 gives it run's flag names). For skill authors: see what your script does under the sandbox before a model calls it.",
    {
      title: 'Options:',
      items: [
        { term: '--timeout N', text: 'seconds before the script is killed (default 20, max 60)' },
        { term: '--json', text: 'print the result as JSON (exit code, output, truncation)' },
        {
          term: '--workspace DIR',
          text: "the folder mounted read-write at /work, the script's working directory: put inputs there and find outputs there. Without it, /work is a fresh private folder: files of the current folder named among the script's arguments are copied in, and files the script creates or changes are copied back here (one line each: output: NAME, updated: NAME), never over a file that exists or changed meanwhile",
        },
        {
          term: '--locked FILE',
          text: 'run only a skill FILE pins, exactly as pinned (skillhost lock writes it): a skill not pinned, or changed since, is refused naming what drifted (exit 65); with --provision, environments are built only from the versions and wheel sha256s FILE pins (skillhost env --lock), never resolved afresh',
        },
        OVERLAYS_HELP,
        ...SANDBOX_FLAGS_HELP,
        {
          term: '-h, --help',
          text: "show this help (before --; after it, --help is the script's)",
        },
      ],
    },
    "The script's interpreter must be one run allows: sh, bash, python, python3 (the python PATH gives, else the system python3) and node where installed, plus --interpreter names. With --provision, a python script's declared requirements are installed outside the sandbox into a cached environment (see skillhost env).",
    {
      title:
        "Exit status: the script's own exit status when it ran to its end (0 is success; --json has it as exitCode). skillhost run's own conditions use codes from sysexits.h and coreutils timeout, so a script's usual small codes (1, 2, 3, ...) never read as one of them:",
      items: [
        {
          term: '64',
          text: 'usage error: a bad option or parameter, no such script, not a skill folder',
        },
        {
          term: '65',
          text: '--locked refused: the lockfile cannot be used, or the skill or its environment is not as pinned',
        },
        { term: '66', text: 'the skill folder cannot be used: missing, not a folder, unreadable' },
        {
          term: '69',
          text: 'the sandbox could not run the script (bubblewrap missing or broken, an interpreter not allowed, a policy refused)',
        },
        { term: '70', text: 'an internal error of skillhost' },
        {
          term: '124',
          text: 'the script ran past --timeout and was killed (its output so far is shown)',
        },
        { term: '128+N', text: 'the script was killed by signal N' },
      ],
    },
    'A script that itself exits 64, 65, 66, 69, 70 or 124 is told apart by --json (exitCode, timedOut) and by a last stderr line "[skillhost run: the script itself exited N]".',
  ],
}

/**
 * `skillhost run`'s own exit statuses (`EX_USAGE`, `EX_DATAERR`,
 * `EX_NOINPUT`, `EX_UNAVAILABLE` and `EX_SOFTWARE` from sysexits.h; 124 as
 * coreutils `timeout`). Every other status is the script's own.
 */
export const RUN_EXIT = Object.freeze({
  usage: 64,
  notPinned: 65,
  noInput: 66,
  unavailable: 69,
  internal: 70,
  timeout: 124,
})

// A script's own status that reads like one of run's: stderr says whose it is.
const OWN_STATUSES: ReadonlySet<number> = new Set(Object.values(RUN_EXIT))

/** Codes that mean the call's arguments are wrong: a usage error, not a sandbox failure. */
const ARGUMENT_CODES: ReadonlySet<string> = new Set([
  'E_SKILL_SCRIPT_INVALID_ARGS',
  'E_TOOL_INVALID_ARGS',
])

/** The status of a run that ended: its own code, 124 at the deadline, 128+N for signal N. */
function endedStatus(result: ScriptRunResult): number {
  if (result.timedOut) return RUN_EXIT.timeout
  if (result.exitCode !== null) return result.exitCode
  const signal = result.signal === null ? undefined : constants.signals[result.signal]
  return signal === undefined ? RUN_EXIT.unavailable : 128 + signal
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const { skillDir, scriptName, rest } = runTarget(argv)
  const dash = rest.indexOf('--')
  // run's own flags stand before `--`; everything after it is the script's, verbatim.
  const own = dash === -1 ? rest : rest.slice(0, dash)
  if (usableRoots([resolve(skillDir)], io, 'run').unusable.length > 0) return RUN_EXIT.noInput
  const json = wantsJson(argv)
  const lockedPath = optionValues(own, 'locked').at(-1)
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
    overlays: overlayDirs(optionValues(own, 'overlays')),
    ...(lock && { lock }),
  })
  const found = []
  const problems: SkillProblem[] = []
  for await (const skill of source.discover({ report: (p) => void problems.push(p) }))
    found.push(skill)
  // Under --locked, the one refusal that leaves nothing found: a skill the lock does not hold.
  const unpinned = problems.find((p) => p.code === 'E_SKILL_NOT_PINNED' && p.id !== undefined)
  const refuse = async (err: SkillHostError, id: string): Promise<number> => {
    const said = await lockedRefusal(err, resolve(skillDir), id, lock!, lockedPath!)
    return reportError(said, { io, command: 'run', json, status: RUN_EXIT.notPinned })
  }
  if (lock && found.length === 0 && unpinned?.id !== undefined)
    return refuse(notPinnedError(unpinned.id, undefined), unpinned.id)
  if (found.length !== 1) {
    const why = `${skillDir} must be one skill folder holding SKILL.md (found ${plural(found.length, 'skill')})`
    return reportError(new UsageError(why), { io, command: 'run', json, status: RUN_EXIT.usage })
  }
  const ref = { id: found[0]!.id, version: found[0]!.version }
  let descriptor: SkillDescriptor
  try {
    descriptor = await source.descriptor(ref)
  } catch (err) {
    if (lock && SkillHostError.isInstance(err) && err.code === 'E_SKILL_NOT_PINNED')
      return refuse(err, ref.id)
    throw err
  }
  const declared = (descriptor.scripts ?? []).find((s) => s.name === scriptName)
  // A declared script takes typed parameters; any other file of the skill
  // runs undeclared, with its arguments in order and those after `--` literally.
  const undeclared = declared === undefined && /[./]/.test(scriptName)
  if (!declared && !undeclared) {
    const names = (descriptor.scripts ?? []).map((s) => s.name).join(', ') || 'none'
    const why = `skill '${ref.id}' declares no script '${scriptName}' (scripts: ${names}); give a file path such as scripts/run.py to run it undeclared`
    return reportError(new UsageError(why), { io, command: 'run', json, status: RUN_EXIT.usage })
  }
  const args = declared ? scriptArgs(declared, rest) : {}
  const scriptArgv = declared ? [] : undeclaredArgv(rest)
  const timeout = optionValues(own, 'timeout')[0]
  const workspaceDir = optionValues(own, 'workspace')[0]
  const lists = Object.fromEntries(SANDBOX_LIST_FLAGS.map((f) => [f, optionValues(own, f)]))
  let flags: ReturnType<typeof parseSandboxFlags>
  try {
    flags = parseSandboxFlags(lists, own.includes('--provision'))
  } catch (err) {
    return reportError(err, { io, command: 'run', json, status: RUN_EXIT.usage })
  }
  let sandbox: Awaited<ReturnType<typeof createScriptSandbox>>
  try {
    // A build of the script's environment is told on stderr (not with --json: stdout is its one answer).
    const say = own.includes('--json')
      ? undefined
      : (line: string) => io.stderr(`[skillhost run: ${line}]\n`)
    sandbox = await createScriptSandbox(sandboxOptionsFrom(flags, lock, say))
  } catch (err) {
    if (!SkillHostError.isInstance(err)) throw err
    return reportError(err, { io, command: 'run', json, status: RUN_EXIT.unavailable })
  }
  try {
    const timeoutSeconds = timeout === undefined ? undefined : Number(timeout)
    const max = sandbox.config.maxTimeoutSeconds
    if (
      timeoutSeconds !== undefined &&
      !(Number.isInteger(timeoutSeconds) && timeoutSeconds >= 1 && timeoutSeconds <= max)
    )
      throw new UsageError(`--timeout must be a whole number of seconds from 1 to ${max}`)
    // Without --workspace, the files the command line names go in and what the script makes comes back.
    const copy =
      workspaceDir === undefined
        ? await userFolderCopy(process.cwd(), declared ? Object.values(args) : scriptArgv)
        : undefined
    const note = own.includes('--json')
      ? undefined
      : runPermissionNote(descriptor.permissions, flags.readPaths)
    if (note) io.stderr(note)
    const result = await runScriptOnce(sandbox.config, {
      source,
      ref,
      call: declared ? { declared, args } : { path: scriptName, argv: scriptArgv },
      ...(workspaceDir === undefined ? {} : { workspaceDir }),
      ...(copy && { prepare: copy.prepare, collect: copy.collect }),
      returnTimedOut: true,
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    })
    if (own.includes('--json')) {
      const moved = copy && { copied: copy.copied, notCopied: copy.notCopied }
      io.stdout(`${JSON.stringify({ ...result, ...moved }, null, 2)}\n`)
    } else {
      io.stdout(result.stdout)
      io.stderr(result.stderr)
      if (result.truncated)
        io.stderr(`\n[skillhost run: output truncated at ${sandbox.config.maxOutputBytes} bytes]\n`)
      if (copy) io.stderr(copyLines(copy))
      else
        for (const c of result.workspace?.changes ?? []) {
          io.stderr(`[skillhost run: ${c.change} /work/${escapeLine(c.path)}]\n`)
        }
      for (const r of result.workspace?.removed ?? [])
        io.stderr(`[skillhost run: removed /work/${escapeLine(r.path)}: ${r.reason}]\n`)
    }
    const status = endedStatus(result)
    if (result.timedOut)
      io.stderr(`[skillhost run: killed at the deadline; exit status ${status}]\n`)
    else if (result.exitCode !== null && OWN_STATUSES.has(status))
      io.stderr(`[skillhost run: the script itself exited ${status}]\n`)
    return status
  } catch (err) {
    if (SkillHostError.isInstance(err)) {
      // Read again for the run: a file changed since the check, or an environment not pinned.
      if (lock && err.code === 'E_SKILL_NOT_PINNED') return await refuse(err, ref.id)
      const usage = ARGUMENT_CODES.has(err.code)
      return reportError(flagVoice(err, declared), {
        io,
        command: 'run',
        json,
        status: usage ? RUN_EXIT.usage : RUN_EXIT.unavailable,
      })
    }
    throw err
  } finally {
    await sandbox.dispose()
  }
}

/**
 * A declared parameter's refusal said in flags (`--top must be an integer.`),
 * not the model's parameter words; any other error as it is.
 */
function flagVoice(
  err: SkillHostError,
  declared: { params?: readonly { name: string }[] } | undefined,
) {
  const { param, problem } = err.data
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
  summary: 'run one script of a skill under the sandbox',
  help: HELP,
  json: true,
  run: runWithStatus,
}
