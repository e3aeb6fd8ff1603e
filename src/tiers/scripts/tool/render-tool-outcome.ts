import { SkillHostError } from '../../../common/errors.js'
import type { SpooledScriptOutcome } from '../run/script-call.js'
import type { SkillScriptConfig } from '../types.js'
import { full, unmeasurable } from '../workspace/session-workspace.js'
import { describeInterpreter } from './describe-interpreter.js'
import { missingPackageHint } from './missing-package-hint.js'
import { settleScriptResult } from './script-outcome.js'
import {
  describeChanges,
  renderScriptResult,
  SCRIPT_ERROR_TAIL_BYTES,
  tailOf,
} from './script-report.js'

/**
 * A script tool's outcome (spooled) as the model reads it: the result text
 * (`renderScriptResult`) for a run that ended well, or the thrown error:
 * the refusal itself, `E_SKILL_WORKSPACE_FULL` for a call killed for
 * growing the workspace past its cap, `E_SKILL_SCRIPT_TIMEOUT` at the
 * deadline and `E_SKILL_SCRIPT_FAILED` for a nonzero exit (unless
 * `failOnNonzeroExit: false`), each naming the spooled output and the
 * changed files.
 */
export function renderToolOutcome(
  config: SkillScriptConfig,
  tool: string,
  outcome: SpooledScriptOutcome,
): string {
  if (!outcome.ran) throw outcome.error
  const { result, spooled, workspace } = outcome
  const { outputId: id, changes } = spooled
  const changed = describeChanges(result, changes)
  const report = result.workspace
  if (report?.overCap) {
    const err =
      report.complete || workspace === undefined
        ? full(report.bytes, report.maxBytes)
        : unmeasurable(workspace.maxEntries)
    throw new SkillHostError(
      'E_SKILL_WORKSPACE_FULL',
      `Script tool '${tool}' was killed for growing the workspace past its cap of ${report.maxBytes} bytes; its output is in ${id}. ${err.message}\n${changed.join('\n')}`,
      { data: { ...err.data, retrievableId: id, changes } },
    )
  }
  if (result.timedOut) {
    throw new SkillHostError(
      'E_SKILL_SCRIPT_TIMEOUT',
      `Script tool '${tool}' ran past its deadline and was killed; its partial output (${result.bytes} bytes) is in ${id}. Raise timeout_seconds (max ${config.maxTimeoutSeconds}) or make it faster.${changed.length ? `\n${changed.join('\n')}` : ''}`,
      { data: { retrievableId: id, bytes: result.bytes, changes } },
    )
  }
  // A failure shows the end of stderr, or of stdout when a script reports its
  // errors there (many do): the model sees why without another call.
  const stream = result.stderr ? 'stderr' : 'stdout'
  const tail = tailOf(result.stderr || result.stdout, SCRIPT_ERROR_TAIL_BYTES)
  // A missing python module is explained beside the outcome, never instead of it.
  const views = config.interpreterViews ?? {}
  const runsWith = describeInterpreter(outcome.script.interpreter, config.interpreters, views)
  const hint = missingPackageHint(result, runsWith, config)
  const rendered = renderScriptResult(result, id, changes)
  return settleScriptResult(result, {
    retrievableId: id,
    toolName: tool,
    rendered: hint === undefined ? rendered : `${rendered}\n${hint}`,
    failureDetail: [
      ...(tail ? [`--- end of ${stream} (script output) ---`, tail] : []),
      ...(hint === undefined ? [] : [`--- skillhost ---`, hint]),
      ...changed,
    ],
    data: { changes },
    ...(config.failOnNonzeroExit === undefined
      ? {}
      : { failOnNonzeroExit: config.failOnNonzeroExit }),
  })
}
