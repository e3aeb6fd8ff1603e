import { SpooledArtifact } from '../../common/artifacts/index.js'
import { SkillHostError } from '../../common/errors.js'
import { SCRIPT_GATE_CODES, type ToolGate } from '../../common/gate.js'
import type { Tool } from '../../common/tool.js'
import { filesFromSource } from '../../sandbox/workspace-files.js'
import type { SkillDescriptor, SkillSource } from '../../sources/types.js'
import { forgeSkillTool } from '../skill-tool-envelope.js'
import type { ForgeTarget, TierForge } from '../tier-forge.js'
import { runSkillScript } from './run-skill-script.js'
import { scriptInputSchema } from './script-input-schema.js'
import { settleScriptResult } from './script-outcome.js'
import { scriptToolName } from './script-tool-name.js'
import type { ScriptRunResult, SkillScript, SkillScriptConfig } from './types.js'
import { type ValidatedSkillScript, validateSkillScript } from './validate-skill-script.js'

function outputText(result: ScriptRunResult): string {
  const ended = result.timedOut ? 'killed at the deadline' : `exit code: ${String(result.exitCode)}`
  const parts = [`${ended}${result.truncated ? ' (output truncated)' : ''}`]
  parts.push('--- stdout ---', result.stdout)
  if (result.stderr) parts.push('--- stderr ---', result.stderr)
  return parts.join('\n')
}

/**
 * Tier 3's forge for the manager. At load every declared script is validated
 * (interpreter allow-list, path rules, parameter rules) before the skill's
 * files are materialized into a fresh workspace root, which the record owns
 * and disposes once in-flight calls drain. Each script becomes
 * `run_<skill>_<script>`: gated with the script codes (403 vs 503), run under
 * the derived policy, its output spooled, a nonzero exit reported as
 * `E_SKILL_SCRIPT_FAILED` unless `failOnNonzeroExit: false`.
 */
export function createScriptForge(config: SkillScriptConfig, gate: ToolGate): TierForge {
  return {
    names: (d: SkillDescriptor) =>
      (d.scripts ?? []).map((s) => scriptToolName(d.id, String(s.name))),
    unavailable: () => [],
    forge: async (record: ForgeTarget, source: SkillSource, signal: AbortSignal) => {
      const declared = record.descriptor.scripts ?? []
      if (declared.length === 0) return []
      const scripts = declared.map((s) =>
        validateSkillScript(record.id, s as SkillScript, config.interpreters),
      )
      const ref = { id: record.id, version: record.version }
      const root = await config.workspace.materialize(ref, await filesFromSource(source, ref), {
        signal,
      })
      record.store.add(() => config.workspace.dispose(root))
      return scripts.map((script) => forgeOne(config, gate, record, script, root))
    },
  }
}

function forgeOne(
  config: SkillScriptConfig,
  gate: ToolGate,
  record: ForgeTarget,
  script: ValidatedSkillScript,
  root: string,
): Tool {
  const name = scriptToolName(record.id, script.name)
  const skill = { id: record.id, version: record.version }
  return forgeSkillTool<Record<string, unknown>>({
    name,
    description: script.description,
    inputSchema: scriptInputSchema(script.params, config.maxTimeoutSeconds),
    tier: 'script',
    skill,
    meta: { script: script.name },
    gate,
    gateCodes: SCRIPT_GATE_CODES,
    guard: record,
    // The output is spooled here and the model gets an acknowledgement naming it.
    spool: false,
    run: async (args, ctx) => {
      const result = await runSkillScript(config, {
        skill: record.id,
        root,
        script,
        args,
        signal: ctx.abortSignal,
        returnTimedOut: true,
      })
      const artifact = await SpooledArtifact.spool(ctx.spool, outputText(result), {
        provenance: { skill: skill.id, skillVersion: skill.version, tool: name },
        trusted: false,
        title: `${name} output`,
      })
      if (result.timedOut) {
        // The partial output is spooled like any other, so the model can see
        // how far the script got before the deadline.
        throw new SkillHostError(
          'E_SKILL_SCRIPT_TIMEOUT',
          `Script tool '${name}' ran past its deadline and was killed; its partial output (${result.bytes} bytes) is in ${artifact.retrievable.id}. Raise timeout_seconds (max ${config.maxTimeoutSeconds}) or make it faster.`,
          { data: { retrievableId: artifact.retrievable.id, bytes: result.bytes } },
        )
      }
      return settleScriptResult(result, {
        retrievableId: artifact.retrievable.id,
        toolName: name,
        ...(config.failOnNonzeroExit === undefined
          ? {}
          : { failOnNonzeroExit: config.failOnNonzeroExit }),
      })
    },
  })
}
