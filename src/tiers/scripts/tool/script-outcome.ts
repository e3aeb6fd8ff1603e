import { SkillHostError } from '../../../common/errors.js'
import type { ScriptRunResult } from '../types.js'

/**
 * The acknowledgement a completed script call returns to the model: exit
 * code, byte count, truncation flag and the retrievable id holding the output.
 */
export function formatScriptAcknowledgement(
  result: ScriptRunResult,
  retrievableId: string,
): string {
  const truncated = result.truncated ? 'yes' : 'no'
  return `Script finished: exit code ${String(result.exitCode)}; ${result.bytes} bytes of output; truncated: ${truncated}; output: ${retrievableId}`
}

/**
 * Turns a completed run into the tool's outcome, after its output has been
 * spooled as `retrievableId`: the acknowledgement string for exit 0 (or any
 * exit with `failOnNonzeroExit: false`), or `rendered` when given; otherwise throws
 * `E_SKILL_SCRIPT_FAILED` carrying `exitCode` and `retrievableId` in `data`.
 */
export function settleScriptResult(
  result: ScriptRunResult,
  options: {
    retrievableId: string
    failOnNonzeroExit?: boolean
    toolName?: string
    /** What a completed call returns instead of the bare acknowledgement. */
    rendered?: string
    /** Lines appended to a failure's message: the end of stderr, the files changed. */
    failureDetail?: readonly string[]
    /** Extra `data` on a failure (e.g. the spooled workspace changes). */
    data?: Readonly<Record<string, unknown>>
  },
): string {
  if (result.exitCode !== 0 && options.failOnNonzeroExit !== false) {
    const who = options.toolName === undefined ? 'The script' : `Script tool '${options.toolName}'`
    const detail = options.failureDetail?.length ? `\n${options.failureDetail.join('\n')}` : ''
    throw new SkillHostError(
      'E_SKILL_SCRIPT_FAILED',
      `${who} exited with code ${String(result.exitCode)}; its output (${result.bytes} bytes${result.truncated ? ', truncated' : ''}) is in ${options.retrievableId}.${detail}`,
      {
        data: {
          ...options.data,
          exitCode: result.exitCode,
          retrievableId: options.retrievableId,
          truncated: result.truncated,
        },
      },
    )
  }
  return options.rendered ?? formatScriptAcknowledgement(result, options.retrievableId)
}
