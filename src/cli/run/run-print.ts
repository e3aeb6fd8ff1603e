import { constants } from 'node:os'
import { escapeLine } from '../../common/index.js'
import type { SkillScriptConfig } from '../../tiers/scripts/index.js'
import {
  describeInterpreter,
  missingPackageHint,
  type ScriptRan,
  type ScriptRunResult,
} from '../../tiers/scripts/internal.js'
import type { CliIo } from '../shared/cli-command.js'
import { type CarriedFiles, carriedLines } from './run-user-files.js'

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

/** The status of a run that ended: its own code, 124 at the deadline, 128+N for signal N. */
function endedStatus(result: ScriptRunResult): number {
  if (result.timedOut) return RUN_EXIT.timeout
  if (result.exitCode !== null) return result.exitCode
  const signal = result.signal === null ? undefined : constants.signals[result.signal]
  return signal === undefined ? RUN_EXIT.unavailable : 128 + signal
}

/** run's own options, read from its argv (the parse stage). */
/**
 * The print stage: a run's outcome (the one value `runScriptCall` returns,
 * a run killed at its deadline included) as the script's output, what
 * moved, and the exit status.
 */
export function printRun(
  outcome: ScriptRan,
  carried: CarriedFiles | undefined,
  json: boolean,
  config: SkillScriptConfig,
  io: CliIo,
): number {
  const { result } = outcome
  if (json) {
    const moved = carried && { copied: carried.copied, notCopied: carried.notCopied }
    io.stdout(`${JSON.stringify({ ...result, ...moved }, null, 2)}\n`)
  } else {
    io.stdout(result.stdout)
    io.stderr(result.stderr)
    if (result.truncated)
      io.stderr(`\n[skillhost run: output truncated at ${config.maxOutputBytes} bytes]\n`)
    if (carried) io.stderr(carriedLines(carried))
    else
      for (const c of result.workspace?.changes ?? []) {
        io.stderr(`[skillhost run: ${c.change} /work/${escapeLine(c.path)}]\n`)
      }
    for (const r of result.workspace?.removed ?? [])
      io.stderr(`[skillhost run: removed /work/${escapeLine(r.path)}: ${r.reason}]\n`)
  }
  const status = endedStatus(result)
  if (result.timedOut) io.stderr(`[skillhost run: killed at the deadline; exit status ${status}]\n`)
  else if (result.exitCode !== null && OWN_STATUSES.has(status))
    io.stderr(`[skillhost run: the script itself exited ${status}]\n`)
  // A missing python module: which python ran and how to provide it (never a host path).
  const views = config.interpreterViews ?? {}
  const seen = describeInterpreter(outcome.script.interpreter, config.interpreters, views)
  const hint = json ? undefined : missingPackageHint(result, seen, config)
  if (hint !== undefined) io.stderr(`[skillhost run: ${hint}]\n`)
  return status
}
