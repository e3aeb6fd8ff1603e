import type { Tool as AiTool, PrepareStepFunction, ToolSet } from 'ai'
import type { Tool, TurnContext } from '../../common/index.js'
import { DisposableStore } from '../../common/index.js'
import { forgeSkillTools } from '../../lifecycle-tools.js'
import type { AvailableSkillsOptions, SkillManager } from '../../manager/index.js'
import { renderAvailableSkills } from '../../manager/index.js'
import { assertCatalogBudget } from '../../manager/internal.js'
import { renderProjectedSkills } from './render-skill-context.js'
import { toAiSdkTool } from './to-ai-sdk-tool.js'

/** Skills the `catalog: true` block lists before it points to `list_skills`. */
const DEFAULT_CATALOG_LIMIT = 100

/** Options for `createSkillTools`. */
export interface SkillToolsOptions {
  readonly manager: SkillManager
  /**
   * The turn context the run executes in (make it with `manager.createTurnContext`, passing the same
   * `abortSignal` you give the AI SDK: tools see the context's signal, not the SDK's per-call one).
   */
  readonly ctx: TurnContext
  /** Your own tools, registered into `ctx` first: they win any name collision with a skill. */
  readonly hostTools?: readonly Tool[]
  /** The lifecycle tools offered to the model. Default `forgeSkillTools(manager)`; `false` offers none. */
  readonly lifecycleTools?: readonly Tool[] | false
  /** Your base system prompt; `system()` appends the skill context to it. */
  readonly system?: string
  /**
   * Add an `<available_skills>` block (routing metadata) to `system()`,
   * before the loaded skills, so loads and unloads never change its bytes.
   * Pass your model's context window (`{ window: 200_000 }`, with `share`,
   * default 0.01, or `maxTokens`) and the block is `manager.availableSkills`
   * within that budget: pinned skills first, overflow in steps the model can
   * see, a counted `<more_skills>` line pointing to `list_skills`. `true`
   * uses the manager's `catalog` setting; when that has no budget either,
   * the first 100 skills, as `{ limit }` does for another number. Skills
   * marked `disableModelInvocation` or hidden are left out, and rows never
   * carry paths (the model loads by id). Default false.
   */
  readonly catalog?:
    | boolean
    | { readonly limit: number }
    | Omit<AvailableSkillsOptions, 'locations'>
}

/** Skills the `catalog` block lists when no budget bounds it. */
function limitedCatalog(manager: SkillManager, limit: number): string {
  const page = manager.search({ limit, forModel: true })
  // The model loads by id through load_skill, so the id is the name and no host location is shown.
  const skills = page.entries.map((e) => ({ name: e.id, description: e.description }))
  return renderAvailableSkills(skills, { total: page.total }).text
}

/** The `<available_skills>` block `catalog` asks for, or undefined for none. */
function catalogBlock(
  manager: SkillManager,
  catalog: SkillToolsOptions['catalog'],
): string | undefined {
  if (!catalog) return undefined
  if (catalog !== true && 'limit' in catalog) return limitedCatalog(manager, catalog.limit)
  // The model loads through load_skill: no host path, whatever the manager's setting says.
  const out = manager.availableSkills({ ...(catalog === true ? {} : catalog), locations: 'none' })
  return out.budgetChars === undefined && out.total > DEFAULT_CATALOG_LIMIT
    ? limitedCatalog(manager, DEFAULT_CATALOG_LIMIT)
    : out.text
}

/** What `createSkillTools` returns. Pass `tools` and `prepareStep` to `generateText` / `streamText`. */
export interface SkillTools extends Disposable {
  /**
   * A live tool set: it gains an entry whenever a tool is registered in `ctx`
   * and never loses one mid-run. Which entries the model is offered is
   * decided per step by `prepareStep` (`activeTools`).
   */
  readonly tools: ToolSet
  /**
   * Recomputes, before every step, the `activeTools` (exactly what `ctx.tools`
   * holds now) and the `system` prompt (base + projected skill bodies).
   */
  readonly prepareStep: PrepareStepFunction<ToolSet>
  /** The names `ctx.tools` holds now: what the next step offers. */
  activeTools(): string[]
  /** The system prompt for the next step: base prompt, optional catalog, projected skills. */
  system(): string
  /** Unsubscribes from `ctx` and unregisters the host and lifecycle tools this call registered. Idempotent. */
  dispose(): void
}

/**
 * Turns a skill manager and a turn context into AI SDK tools.
 *
 * The AI SDK fixes the `tools` object for a whole `generateText` /
 * `streamText` run, but reads it afresh at every step, and lets `prepareStep`
 * choose the step's `activeTools` and `system`. So:
 *
 * - `tools` is one object owned by this adapter, mirroring `ctx.tools`: when
 *   `load_skill` registers a skill's tools during step N, their entries are
 *   added at once, and step N+1 can offer and call them. Entries are never
 *   deleted (a tool call the SDK already parsed must still find its entry);
 *   instead each entry resolves the live tool in `ctx` at call time and fails
 *   with `E_TOOL_NOT_FOUND` once its skill is unloaded.
 * - `prepareStep` returns `activeTools` = the names `ctx.tools` holds now, so an
 *   unloaded skill's tools are no longer offered (nor accepted: the SDK
 *   rejects calls to inactive tools), and `system` = your base prompt plus the
 *   bodies or handles projected into `ctx.retrievables`, so a loaded skill's
 *   instructions reach the model in the very next step and leave with unload.
 *
 * Tool errors reach the model as the AI SDK's tool errors whose text is
 * exactly `renderError(err)`: `CODE: message`, never a host path or stack.
 * Without `prepareStep` the run still works, but the model keeps being offered
 * every tool it ever saw and never sees skill bodies outside `load_skill`'s result.
 */
export function createSkillTools(options: SkillToolsOptions): SkillTools {
  const { manager, ctx } = options
  // A bad budget fails here, not at the first step.
  if (typeof options.catalog === 'object' && !('limit' in options.catalog))
    assertCatalogBudget(options.catalog, 'createSkillTools catalog')
  const tools: ToolSet = Object.create(null) as ToolSet
  // Everything this call hooks into `ctx` is owned here and torn down in
  // reverse: the tools it registered, then the subscription.
  const store = new DisposableStore()
  const register = (tool: Tool): void => {
    if (ctx.tools.get(tool.name) === tool) return
    ctx.tools.register(tool)
    store.add(() => {
      ctx.tools.unregister(tool)
    })
  }
  const mirror = (tool: Tool): void => {
    tools[tool.name] = toAiSdkTool(tool, ctx, manager.workspace) as AiTool
  }

  store.add(
    ctx.tools.onDidChange((change) => {
      if (change.kind === 'registered') mirror(change.tool)
    }),
  )
  for (const tool of ctx.tools.all()) mirror(tool)
  // Every step is synchronous, so the store is empty when dispose returns.
  const dispose = (): void => void store.dispose().catch(() => undefined)
  try {
    for (const tool of options.hostTools ?? []) register(tool)
    const lifecycle = options.lifecycleTools ?? forgeSkillTools(manager)
    if (lifecycle) for (const tool of lifecycle) register(tool)
  } catch (err) {
    dispose()
    throw err
  }

  const activeTools = (): string[] => ctx.tools.names().filter((name) => Object.hasOwn(tools, name))
  const system = (): string => {
    const parts: string[] = []
    if (options.system) parts.push(options.system)
    const catalog = catalogBlock(manager, options.catalog)
    if (catalog !== undefined) parts.push(catalog)
    const projected = renderProjectedSkills(ctx.retrievables.all())
    if (projected) parts.push(projected)
    return parts.join('\n\n')
  }
  return {
    tools,
    prepareStep: () => ({ activeTools: activeTools(), system: system() }),
    activeTools,
    system,
    dispose,
    [Symbol.dispose]: dispose,
  }
}
