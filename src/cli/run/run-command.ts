import { constants } from 'node:os'
import { resolve } from 'node:path'
import { escapeLine, SkillHostError } from '../../common/index.js'
import { FileSystemSkillSource } from '../../index.js'
import {
  createScriptSandbox,
  runScriptOnce,
  type ScriptRunResult,
} from '../../tiers/scripts/index.js'
import type { CliCommand, CliIo } from '../shared/cli-command.js'
import { OVERLAYS_HELP, overlayDirs } from '../shared/overlay-dirs.js'
import { UsageError } from '../shared/parse-args.js'
import {
  parseSandboxFlags,
  SANDBOX_LIST_FLAGS,
  sandboxFlagsHelp,
  sandboxOptionsFrom,
} from '../shared/sandbox-flags.js'
import { optionValues, runTarget, scriptArgs } from './run-args.js'
import { copyLines, userFolderCopy } from './run-user-files.js'

const HELP = `Usage: skillhost run <skill-dir> <script> [options] [--<param> value ...] [positional ...]
       skillhost run <skill-dir> <file> [options] [-- arg ...]

Run one script of a skill exactly as a model's call would run it: inside the
bubblewrap sandbox, with an empty environment, the skill folder read-only at
/skill, the workspace read-write at /work (the working directory) and no
network. A script declared in skillhost.yaml takes its parameters as --name
value (booleans as --name) and positionals in declaration order. Any other file
of the skill (scripts/fill.py) runs by its shebang or extension, as
run_<skill>_script would run it, with the arguments after -- passed literally.
For skill authors: see what your script does under the sandbox before a model
calls it.

Options:
  --timeout N   seconds before the script is killed (default 20, max 60)
  --json        print the result as JSON (exit code, output, truncation)
  --workspace DIR  the folder mounted read-write at /work, the script's working
                directory: put inputs there and find outputs there. Without
                it, /work is a fresh private folder: files of the current
                folder named among the script's arguments are copied in, and
                files the script creates or changes are copied back here (one
                line each: output: NAME, updated: NAME), never over a file
                that exists or changed meanwhile
  ${OVERLAYS_HELP}
${sandboxFlagsHelp(16)}
  -h, --help    show this help

The script's interpreter must be one run allows: sh, bash, python, python3
(the system python3) and node where installed, plus --interpreter names.

Exit status: the script's own exit status when it ran to its end (0 is
success; --json has it as exitCode). skillhost run's own conditions use codes
from sysexits.h and coreutils timeout, so a script's usual small codes (1, 2,
3, ...) never read as one of them:
  64   usage error: a bad option or parameter, no such script, not a skill folder
  69   the sandbox could not run the script (bubblewrap missing or broken, an
       interpreter not allowed, a policy refused)
  70   an internal error of skillhost
  124  the script ran past --timeout and was killed (its output so far is shown)
  128+N  the script was killed by signal N
A script that itself exits 64, 69, 70 or 124 is told apart by --json
(exitCode, timedOut) and by a last stderr line "[skillhost run: the script
itself exited N]".`

/**
 * `skillhost run`'s own exit statuses (`EX_USAGE`, `EX_UNAVAILABLE` and
 * `EX_SOFTWARE` from sysexits.h; 124 as coreutils `timeout`). Every other
 * status is the script's own.
 */
export const RUN_EXIT = Object.freeze({
  usage: 64,
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
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${HELP}\n`)
    return 0
  }
  const { skillDir, scriptName, rest } = runTarget(argv)
  const source = new FileSystemSkillSource({
    roots: [resolve(skillDir)],
    id: 'cli',
    overlays: overlayDirs(optionValues(rest, 'overlays')),
  })
  const found = []
  for await (const skill of source.discover()) found.push(skill)
  if (found.length !== 1) {
    io.stderr(
      `skillhost run: ${skillDir} must be one skill folder holding SKILL.md (found ${found.length} skills)\n`,
    )
    return RUN_EXIT.usage
  }
  const ref = { id: found[0]!.id, version: found[0]!.version }
  const descriptor = await source.descriptor(ref)
  const declared = (descriptor.scripts ?? []).find((s) => s.name === scriptName)
  const dash = rest.indexOf('--')
  const own = dash === -1 ? rest : rest.slice(0, dash)
  // A declared script takes typed parameters; any other file of the skill
  // runs undeclared, with the arguments after `--` passed literally.
  const undeclared = declared === undefined && /[./]/.test(scriptName)
  if (!declared && !undeclared) {
    const names = (descriptor.scripts ?? []).map((s) => s.name).join(', ') || 'none'
    io.stderr(
      `skillhost run: skill '${ref.id}' declares no script '${scriptName}' (scripts: ${names}); give a file path such as scripts/run.py to run it undeclared\n`,
    )
    return RUN_EXIT.usage
  }
  const args = declared ? scriptArgs(declared, rest) : {}
  const timeout = optionValues(own, 'timeout')[0]
  const workspaceDir = optionValues(own, 'workspace')[0]
  const lists = Object.fromEntries(SANDBOX_LIST_FLAGS.map((f) => [f, optionValues(own, f)]))
  const flags = parseSandboxFlags(lists)
  let sandbox: Awaited<ReturnType<typeof createScriptSandbox>>
  try {
    sandbox = await createScriptSandbox(sandboxOptionsFrom(flags))
  } catch (err) {
    if (!SkillHostError.isInstance(err)) throw err
    io.stderr(`skillhost run: ${err.code}: ${err.message}\n`)
    return RUN_EXIT.unavailable
  }
  try {
    const literal = dash === -1 ? [] : rest.slice(dash + 1)
    // Without --workspace, the files the command line names go in and what the script makes comes back.
    const copy =
      workspaceDir === undefined
        ? await userFolderCopy(process.cwd(), declared ? Object.values(args) : literal)
        : undefined
    const result = await runScriptOnce(sandbox.config, {
      source,
      ref,
      call: declared ? { declared, args } : { path: scriptName, argv: literal },
      ...(workspaceDir === undefined ? {} : { workspaceDir }),
      ...(copy && { prepare: copy.prepare, collect: copy.collect }),
      returnTimedOut: true,
      ...(timeout === undefined ? {} : { timeoutSeconds: Number(timeout) }),
    })
    if (rest.includes('--json')) {
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
    }
    const status = endedStatus(result)
    if (result.timedOut)
      io.stderr(`[skillhost run: killed at the deadline; exit status ${status}]\n`)
    else if (result.exitCode !== null && OWN_STATUSES.has(status))
      io.stderr(`[skillhost run: the script itself exited ${status}]\n`)
    return status
  } catch (err) {
    if (SkillHostError.isInstance(err)) {
      io.stderr(`skillhost run: ${err.code}: ${err.message}\n`)
      return ARGUMENT_CODES.has(err.code) ? RUN_EXIT.usage : RUN_EXIT.unavailable
    }
    throw err
  } finally {
    await sandbox.dispose()
  }
}

/** `run` with its own statuses: a usage error is 64 and an unexpected failure 70, never 2 or 1. */
async function runWithStatus(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io)
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`skillhost run: ${err.message}\n\n${HELP}\n`)
      return RUN_EXIT.usage
    }
    io.stderr(`skillhost run: ${err instanceof Error ? err.message : String(err)}\n`)
    return RUN_EXIT.internal
  }
}

/** `skillhost run`: one script of one skill under the same sandbox a model's call gets. */
export const runCommand: CliCommand = {
  name: 'run',
  summary: 'run one script of a skill under the sandbox',
  help: HELP,
  run: runWithStatus,
}
