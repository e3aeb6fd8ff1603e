import { SkillHostError } from '../../../common/errors.js'
import { enforceToolGate, SCRIPT_GATE_CODES } from '../../../common/gate.js'
import type { SkillScriptConfig } from '../types.js'
import { resolveScriptCall } from './resolve-script-call.js'
import { runInSandbox, scriptAborted } from './run-in-sandbox.js'
import type { ScriptCall, ScriptOutcome, ScriptSpool, SpooledScriptOutcome } from './script-call.js'
import { spoolScriptOutput } from './spool-script-output.js'

/**
 * The one owner of a script call, whoever makes it (a script tool, a
 * dynamic-context command, `skillhost run`, `runSkillScript`): gets the
 * skill copy (held by the caller, or made on first use or reused), resolves the request into one
 * checked call (`resolveScriptCall`: each rule once), asks the gate when
 * `call.gate` is set, runs it (`runInSandbox`, called from nowhere else),
 * spools its output and the changed workspace files the run read back
 * through the door when `call.spool` is set,
 * and returns one `ScriptOutcome` for the caller to render. A refusal of
 * skillhost's own (`SkillHostError`, `E_ABORTED` for an abort during the
 * run) is the outcome `ran: false`; anything else (a bug) is thrown.
 */
export async function runScriptCall(
  config: SkillScriptConfig,
  call: ScriptCall & { readonly spool: ScriptSpool },
): Promise<SpooledScriptOutcome>
export async function runScriptCall(
  config: SkillScriptConfig,
  call: ScriptCall,
): Promise<ScriptOutcome>
export async function runScriptCall(
  config: SkillScriptConfig,
  call: ScriptCall,
): Promise<ScriptOutcome> {
  try {
    return await owned(config, call)
  } catch (err) {
    if (SkillHostError.isInstance(err)) return { ran: false, error: err }
    throw err
  }
}

async function owned(config: SkillScriptConfig, call: ScriptCall): Promise<ScriptOutcome> {
  const copy = 'root' in call.copy ? call.copy : await call.copy.get(call.signal)
  const resolved = await resolveScriptCall(config, call.skill, call.request, copy, {
    ...(call.timeoutSeconds === undefined ? {} : { seconds: call.timeoutSeconds }),
    ...(call.argsChecked === undefined ? {} : { argsChecked: call.argsChecked }),
  })
  if (call.signal?.aborted) throw scriptAborted()
  if (call.gate !== undefined) {
    const { gate, ctx, tool, skillVersion } = call.gate
    const skill =
      skillVersion === undefined ? {} : { skill: { id: call.skill, version: skillVersion } }
    await enforceToolGate(
      gate,
      ctx,
      { tool, args: resolved.gateArgs, tier: 'script', ...skill },
      SCRIPT_GATE_CODES,
    )
    if (call.signal?.aborted) throw scriptAborted()
  }
  const { result, workspace, out } = await runInSandbox(config, {
    skill: call.skill,
    copy,
    call: resolved,
    ...(call.workspace === undefined ? {} : { workspace: call.workspace }),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
    readOut: call.spool !== undefined,
  })
  const ran = {
    ran: true as const,
    script: resolved.script,
    timeoutSeconds: resolved.timeoutSeconds,
    result,
    ...(workspace === undefined ? {} : { workspace }),
  }
  if (call.spool === undefined) return ran
  const spooled = await spoolScriptOutput(result, out ?? [], call.spool, call.skill)
  return { ...ran, spooled }
}
