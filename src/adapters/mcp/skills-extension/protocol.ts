import { z } from 'zod'

/** The MCP Skills Extension's id (SEP-2640), the key under `capabilities.extensions`. */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills'

/**
 * The extension's per-skill limits (specification, "Limits"): 512 files,
 * SKILL.md included, and 16 MiB over their sizes. A skill beyond either is
 * not served through the extension (it stays loadable through the tools).
 */
export const SKILLS_EXTENSION_LIMITS = Object.freeze({
  maxFiles: 512,
  maxTotalBytes: 16 * 1024 * 1024,
})

/** Skills one `skills/list` page holds by default; `nextCursor` pages on. */
export const SKILLS_LIST_PAGE = 25

/** The most skills one page may hold, whatever a server is configured with. */
export const SKILLS_LIST_PAGE_MAX = 100

/**
 * The freshness hint sent with `skills/list` and `skills/get`: a catalog can
 * change when a watched folder does, so a minute; never an integrity claim.
 */
export const SKILLS_TTL_MS = 60_000

// The request shapes; `params` is checked by the handlers, so a bad one is
// -32602 (Invalid params) with a sentence, not a schema dump.
const params = z.record(z.string(), z.unknown()).optional()

/** `skills/list` (paginated). */
export const ListSkillsRequestSchema = z.object({ method: z.literal('skills/list'), params })

/** `skills/get` (`params.uri`: the URI of a skill's SKILL.md). */
export const GetSkillRequestSchema = z.object({ method: z.literal('skills/get'), params })

/** One file of a skill entry: its resource URI, `sha256:` digest and size in bytes. */
export interface SkillResourceEntry {
  readonly uri: string
  readonly digest: string
  readonly size: number
}

/** A `Skill` entry, as `skills/list` and `skills/get` carry it. */
export interface SkillEntry {
  readonly uri: string
  readonly frontmatter: Readonly<Record<string, unknown>>
  readonly resources: readonly SkillResourceEntry[] | 'dynamic'
}

/** Zod shape of a `Skill` entry, for clients checking what a server sends. */
export const SkillEntrySchema = z.object({
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.union([
    z.literal('dynamic'),
    z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number().int().min(0) })),
  ]),
})

/** Zod shape of a `skills/list` result. */
export const ListSkillsResultSchema = z.looseObject({
  skills: z.array(SkillEntrySchema),
  nextCursor: z.string().optional(),
})

/** Zod shape of a `skills/get` result. */
export const GetSkillResultSchema = z.looseObject({ skill: SkillEntrySchema })
