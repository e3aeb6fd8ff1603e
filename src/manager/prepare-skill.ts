import {
  describeArtifactHandle,
  MarkdownArtifact,
  SpooledArtifact,
} from '../common/artifacts/index.js'
import { SkillHostError } from '../common/errors.js'
import type { ToolGate } from '../common/gate.js'
import { describeResourceOwner, withResourceOwner } from '../common/leak-tracker.js'
import type { SpoolStore } from '../common/spool-store.js'
import { Tool } from '../common/tool.js'
import type { ToolRegistry } from '../common/tool-registry.js'
import type { TurnContext } from '../common/turn-context.js'
import {
  type BodySegment,
  MAX_DYNAMIC_COMMANDS,
  splitDynamicContext,
} from '../skill-model/dynamic-context.js'
import { PLUGIN_MOUNT } from '../skill-model/plugin-mount.js'
import { normalizeUnavailableTools } from '../skill-model/unavailable-tool.js'
import type { SkillDescriptor, SkillRef, SkillSource } from '../sources/types.js'
import { wrapModuleTool } from '../tiers/module/tier.js'
import type { DynamicContextOutcome, TierForge } from '../tiers/tier-forge.js'
import { resolveBodyChannel } from './body-channel.js'
import { preflightToolNames } from './preflight.js'
import {
  dynamicCommandLine,
  dynamicContextEnv,
  renderSkillBody,
  type SkillBodyValues,
} from './skill-arguments.js'
import { indexSkillFiles } from './skill-files.js'
import { SkillRecord } from './skill-record.js'
import type { SkillChannel } from './types.js'
import { withheldTools } from './withheld-tools.js'

/** What preparing a skill needs from the manager. */
export interface PrepareDeps {
  readonly gate: ToolGate
  readonly spool: SpoolStore
  readonly defaultChannel: SkillChannel
  readonly reserved: ReadonlySet<string>
  readonly claimed: ReadonlyMap<string, string>
  readonly hostTools: ToolRegistry
  readonly replacing?: ReadonlySet<string>
  readonly artifactClassFor: (
    skillId: string,
    toolName: string,
  ) => typeof SpooledArtifact | undefined
  readonly tiers: readonly TierForge[]
  readonly signal: AbortSignal
  /** The skill's folder as scripts see it, for `${CLAUDE_SKILL_DIR}` and its kin. */
  readonly skillDir: string
  /** The load's `arguments`, substituted into the body. */
  readonly arguments?: string
  /** The turn loading the skill: its dynamic-context commands are gated with it. */
  readonly turn: TurnContext
}

const decoder = new TextDecoder('utf-8', { fatal: false })

/** Reads a whole stream as UTF-8 text. */
export async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
  }
  return decoder.decode(Buffer.concat(chunks))
}

function checkDescriptor(ref: SkillRef, descriptor: SkillDescriptor): void {
  if (descriptor?.id !== ref.id || descriptor.version !== ref.version) {
    throw new SkillHostError(
      'E_SKILL_MANIFEST_INVALID',
      `The source returned a descriptor for '${String(descriptor?.id)}@${String(descriptor?.version)}' when asked for '${ref.id}@${ref.version}'.`,
      { data: { skill: ref.id } },
    )
  }
  for (const tool of descriptor.tools ?? []) {
    if (!Tool.isInstance(tool)) {
      throw new SkillHostError(
        'E_SKILL_MANIFEST_INVALID',
        `Skill '${ref.id}' lists a module tool that is not a Tool.`,
        {
          data: { skill: ref.id },
        },
      )
    }
  }
}

async function callSource<T>(skillId: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op()
  } catch (err) {
    if (SkillHostError.isInstance(err)) throw err
    throw new SkillHostError(
      'E_SKILL_SOURCE_FAILED',
      `The source of skill '${skillId}' failed to resolve it.`,
      {
        data: { skill: skillId },
        cause: err,
      },
    )
  }
}

/**
 * Lets the source of `row` (the catalog row a load names) fetch what the
 * load will read (`SkillSource.prefetch`), before the load joins the queue
 * every load shares: a slow source delays only its own loads. No row (a ref
 * the load will refuse) or no `prefetch`: nothing to do.
 */
export async function prefetchRow(
  row: { readonly skill: SkillRef; readonly source: SkillSource } | undefined,
): Promise<void> {
  const prefetch = row?.source.prefetch
  if (!row || !prefetch) return
  await callSource(row.skill.id, () => prefetch.call(row.source, row.skill))
}

/**
 * What replaces each of a body's dynamic-context commands: its output when a
 * tier ran it (the script tier, when on), else the command as written with a
 * note saying why it did not run. Commands past `MAX_DYNAMIC_COMMANDS` never
 * run.
 */
async function renderDynamicContext(
  record: SkillRecord,
  source: SkillSource,
  commands: readonly Extract<BodySegment, { kind: 'command' }>[],
  values: SkillBodyValues,
  deps: PrepareDeps,
): Promise<string[]> {
  const runner = deps.tiers.find((tier) => tier.dynamicContext !== undefined)
  const allowed = commands.slice(0, MAX_DYNAMIC_COMMANDS)
  const outcomes: DynamicContextOutcome[] =
    runner?.dynamicContext === undefined
      ? allowed.map(() => ({ ran: false, reason: 'scripts are off on this host' }))
      : await runner.dynamicContext(
          record,
          source,
          allowed.map((c) => dynamicCommandLine(c.command)),
          { ctx: deps.turn, ...dynamicContextEnv(values), signal: deps.signal },
        )
  return commands.map((command, i) => {
    const outcome: DynamicContextOutcome = outcomes[i] ?? {
      ran: false,
      reason: `the body has more than ${MAX_DYNAMIC_COMMANDS} commands`,
    }
    if (outcome.ran) return outcome.text
    return command.form === 'inline'
      ? `${command.source} [not run: ${outcome.reason}]`
      : `${command.source}\n[not run: ${outcome.reason}]`
  })
}

/**
 * The skill's tools, set on the record: its module tools rewrapped, then each
 * tier's forged tools; and the tools it declares that this host does not
 * offer (the source's, then each tier's).
 */
async function forgeTools(record: SkillRecord, source: SkillSource, deps: PrepareDeps) {
  const { descriptor, source: ref } = record
  const tools: Tool[] = (descriptor.tools ?? []).map((original) =>
    wrapModuleTool(original, {
      skill: ref,
      gate: deps.gate,
      guard: record,
      artifactClass: () => deps.artifactClassFor(ref.id, String(original.name)),
    }),
  )
  for (const tier of deps.tiers)
    tools.push(...(await tier.forge(record, source, deps.signal, deps.turn)))
  record.tools = Object.freeze(tools)
  record.unavailableTools = Object.freeze([
    ...normalizeUnavailableTools(descriptor.unavailableTools),
    ...deps.tiers.flatMap((tier) => tier.unavailable(descriptor)),
  ])
}

/** The rendered body spooled in the record's channel: a Markdown handle, or the inline text. */
async function spoolBody(
  record: SkillRecord,
  source: SkillSource,
  body: string,
  deps: PrepareDeps,
): Promise<NonNullable<SkillRecord['body']>> {
  const { descriptor, source: ref, channel } = record
  const meta = {
    title: `${descriptor.name} (SKILL.md)`,
    provenance: { skill: ref.id, skillVersion: ref.version, source: source.id },
    trusted: false,
    mimeType: 'text/markdown',
  }
  if (channel === 'handle') {
    const artifact = await MarkdownArtifact.spool(deps.spool, body, meta)
    return {
      retrievable: artifact.retrievable,
      channel,
      text: describeArtifactHandle(artifact, body),
    }
  }
  const artifact = await SpooledArtifact.spool(deps.spool, body, meta)
  return { retrievable: artifact.retrievable, channel, text: body }
}

/**
 * Prepares one skill version completely without touching any turn: resolves
 * and checks the descriptor, preflights every tool name, rebuilds module
 * tools, forges tier-2/3 tools (materializing the workspace), indexes the
 * skill's files, runs the body's dynamic-context commands
 * (`renderDynamicContext`) and spools the body (its placeholders filled by
 * `renderSkillBody`: `auto` picks the channel by its written size). `ref` is what the source serves it under (a copy's
 * key included); `catalogRef` the ref the record keeps (see `CatalogEntry.ref`). On any failure everything created so far is disposed and the
 * error rethrown, so a failed prepare leaves nothing behind.
 */
export async function prepareSkill(
  ref: SkillRef,
  catalogRef: string,
  source: SkillSource,
  deps: PrepareDeps,
): Promise<SkillRecord> {
  const descriptor = await callSource(ref.id, () => source.descriptor(ref, { signal: deps.signal }))
  checkDescriptor(ref, descriptor)
  const moduleNames = (descriptor.tools ?? []).map((t) => String(t.name))
  const tierNames = deps.tiers.flatMap((tier) => tier.names(descriptor))
  preflightToolNames([...moduleNames, ...tierNames], {
    skillId: ref.id,
    hostTools: deps.hostTools,
    reserved: deps.reserved,
    claimed: deps.claimed,
    ...(deps.replacing ? { replacing: deps.replacing } : {}),
  })
  const written = await callSource(ref.id, async () =>
    readText(await source.read(ref, undefined, { signal: deps.signal })),
  )
  const values = {
    skillDir: deps.skillDir,
    ...(descriptor.plugin && { pluginRoot: PLUGIN_MOUNT }),
    ...(deps.arguments === undefined ? {} : { arguments: deps.arguments }),
  }
  // Commands are found in the body as written, so no argument can add one.
  const segments = splitDynamicContext(written)
  const commands = segments.flatMap((s) => (s.kind === 'command' ? [s] : []))
  const chosen = descriptor.channel ?? deps.defaultChannel
  // A first guess from the written body; settled below once outputs are in.
  const record = new SkillRecord(descriptor, resolveBodyChannel(chosen, written), {
    ref,
    catalogRef,
    args: deps.arguments,
  })
  // What the tiers make for this version (skill copies, dynamic context's runs) is the record's.
  describeResourceOwner(record, `skill '${ref.id}' ${ref.version}`)
  try {
    await withResourceOwner(record, () => forgeTools(record, source, deps))
    record.files = await callSource(ref.id, () => indexSkillFiles(source, ref, deps.signal))
    const withheld = await withheldTools(deps.tiers, descriptor, record.files, source, ref)
    record.unavailableTools = Object.freeze([...record.unavailableTools, ...withheld])
    const replacements =
      commands.length === 0
        ? []
        : await withResourceOwner(record, () =>
            renderDynamicContext(record, source, commands, values, deps),
          )
    const body = renderSkillBody(segments, values, replacements)
    record.channel = resolveBodyChannel(chosen, body)
    record.body = await spoolBody(record, source, body, deps)
    return record
  } catch (err) {
    await record.forceTeardown(() => undefined)
    throw err
  }
}
