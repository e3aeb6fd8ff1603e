import { constants } from 'node:os'
import { resolve } from 'node:path'
import { SkillHostError } from '../../common/errors.js'
import { FileSystemSkillSource } from '../../sources/file-system-skill-source.js'
import type { SkillScriptDeclaration } from '../../sources/types.js'
import { createScriptSandbox } from '../../tiers/scripts/config/create-script-sandbox.js'
import { runSkillScript } from '../../tiers/scripts/run/run-skill-script.js'
import { filesFromSource } from '../../tiers/scripts/skill-copy/workspace-files.js'
import {
  undeclaredScriptCall,
  undeclaredScripts,
} from '../../tiers/scripts/tool/undeclared-script-tool.js'
import { validateSkillScript } from '../../tiers/scripts/tool/validate-skill-script.js'
import type { ScriptRunResult, SkillScript } from '../../tiers/scripts/types.js'
import {
  SessionWorkspaceSlot,
  withWorkspaceDir,
} from '../../tiers/scripts/workspace/session-workspace-slot.js'
import type { CliCommand, CliIo } from '../shared/cli-command.js'
import { escapeLine } from '../shared/escape-controls.js'
import { OVERLAYS_HELP, overlayDirs } from '../shared/overlay-dirs.js'
import { UsageError } from '../shared/parse-args.js'
import {
  parseSandboxFlags,
  SANDBOX_LIST_FLAGS,
  sandboxFlagsHelp,
  sandboxOptionsFrom,
} from '../shared/sandbox-flags.js'

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
                directory: put inputs there and find outputs there (default: a
                fresh private folder, removed afterwards)
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

const RUN_FLAGS = new Set(['timeout', 'json', 'help'])
// run's own flags that take a value; never passed to the script.
const RUN_VALUE_FLAGS = new Set<string>(['timeout', 'workspace', 'overlays', ...SANDBOX_LIST_FLAGS])

/** Splits argv into run options and script arguments typed by the script's declared params. */
function scriptArgs(
  script: SkillScriptDeclaration,
  argv: readonly string[],
): Record<string, unknown> {
  const params = new Map((script.params ?? []).map((p) => [p.name, p]))
  const positional = (script.params ?? []).filter((p) => p.positional)
  const args: Record<string, unknown> = Object.create(null)
  let nextPositional = 0
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) {
      const param = positional[nextPositional++]
      if (!param)
        throw new UsageError(
          `script '${script.name}' takes no more positional values (got '${arg}')`,
        )
      args[param.name] = coerce(param.type, arg, param.name)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (RUN_FLAGS.has(name) || RUN_VALUE_FLAGS.has(name)) {
      if (RUN_VALUE_FLAGS.has(name)) i += eq === -1 ? 1 : 0
      continue
    }
    const param = params.get(name)
    if (!param) {
      const known = [...params.keys()].map((n) => `--${n}`).join(', ') || 'none'
      throw new UsageError(
        `script '${script.name}' has no parameter --${name} (parameters: ${known})`,
      )
    }
    if (param.type === 'boolean' && eq === -1) {
      args[name] = true
      continue
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) throw new UsageError(`--${name} needs a value`)
    args[name] = coerce(param.type, value, name)
  }
  return args
}

function coerce(type: string, value: string, name: string): unknown {
  if (type === 'number' || type === 'integer') {
    const n = Number(value)
    if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number`)
    return n
  }
  if (type === 'boolean') return value === 'true'
  return value
}

/** Every value of `--name` in argv (`--name value` or `--name=value`), in order. */
function optionValues(argv: readonly string[], name: string): string[] {
  const values: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === `--${name}`) {
      const value = argv[++i]
      if (value === undefined) throw new UsageError(`--${name} needs a value`)
      values.push(value)
    } else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3))
  }
  return values
}

/**
 * `<skill-dir>` and `<script>`, the first two arguments that are not run's
 * own flags: run's flags may stand before, between or after them. The flags
 * met before them are kept, in order, ahead of the rest; a script's own
 * parameters go after its name.
 */
function runTarget(argv: readonly string[]): {
  skillDir: string
  scriptName: string
  rest: string[]
} {
  const own: string[] = []
  const target: string[] = []
  let i = 0
  for (; i < argv.length && target.length < 2; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) {
      target.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (!RUN_FLAGS.has(name) && !RUN_VALUE_FLAGS.has(name))
      throw new UsageError(
        `give a skill folder and a script name before the script's parameters (got ${arg})`,
      )
    own.push(arg)
    if (RUN_VALUE_FLAGS.has(name) && eq === -1) {
      const value = argv[++i]
      if (value === undefined) throw new UsageError(`--${name} needs a value`)
      own.push(value)
    }
  }
  const [skillDir, scriptName] = target
  if (skillDir === undefined || scriptName === undefined)
    throw new UsageError('give a skill folder and a script name')
  return { skillDir, scriptName, rest: [...own, ...argv.slice(i)] }
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
  let workspace: SessionWorkspaceSlot | undefined
  try {
    const config = withWorkspaceDir(sandbox.config, workspaceDir)
    const files = await filesFromSource(source, ref)
    const root = await config.workspace.materialize(ref, files)
    try {
      let script: SkillScript
      let argv: string[] | undefined
      if (declared) {
        validateSkillScript(ref.id, declared as SkillScript, config.interpreters)
        script = declared as SkillScript
      } else {
        const paths = files.map((f) => f.path)
        const found = await undeclaredScripts(root, paths, config.interpreters)
        const call = undeclaredScriptCall(
          ref.id,
          { script: scriptName, args: dash === -1 ? [] : rest.slice(dash + 1) },
          found.runnable,
          found.denied,
        )
        script = call.script
        argv = call.argv
      }
      workspace = new SessionWorkspaceSlot(config)
      const result = await runSkillScript(config, {
        skill: ref.id,
        root,
        script,
        args,
        ...(argv === undefined ? {} : { argv }),
        workspace: await workspace.open(),
        returnTimedOut: true,
        ...(timeout === undefined ? {} : { timeoutSeconds: Number(timeout) }),
      })
      if (rest.includes('--json')) io.stdout(`${JSON.stringify(result, null, 2)}\n`)
      else {
        io.stdout(result.stdout)
        io.stderr(result.stderr)
        if (result.truncated)
          io.stderr(`\n[skillhost run: output truncated at ${config.maxOutputBytes} bytes]\n`)
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
    } finally {
      await workspace?.dispose()
      await sandbox.config.workspace.dispose(root)
    }
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
