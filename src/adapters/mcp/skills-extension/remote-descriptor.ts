import { SkillHostError } from '../../../common/index.js'
import {
  decodeSkillText,
  OPENAI_YAML_FILE,
  parseOpenAiYaml,
  parseSkillSidecar,
  SKILL_SIDECAR_FILE,
} from '../../../manifest/index.js'
import type { SkillPermissionRequest } from '../../../skill-model/internal.js'
import { unavailableTool } from '../../../skill-model/internal.js'
import type { SkillDescriptor } from '../../../sources/index.js'
import { DEFAULT_SOURCE_LIMITS } from '../../../sources/index.js'
import type { RemoteSkill } from './remote-skill-entries.js'

/** Reads one listed file of the skill, verified against its entry (the source's `#file`). */
type ReadVerified = (path: string) => Promise<Uint8Array>

/**
 * The request of a skill's `agents/openai.yaml`, fetched and verified like
 * any file of the skill, within the frontmatter cap as on disk: a file
 * listed larger, or one that is not UTF-8 or does not parse, requests
 * nothing (the request is metadata; the skill still loads). A file that
 * fails its digest refuses the version, as any file does.
 */
async function openAiPermissions(
  skill: RemoteSkill,
  read: ReadVerified,
): Promise<SkillPermissionRequest | undefined> {
  const listed = skill.files.get(OPENAI_YAML_FILE)
  if (!listed || listed.size > DEFAULT_SOURCE_LIMITS.maxFrontmatterBytes) return undefined
  const bytes = await read(OPENAI_YAML_FILE)
  let text: string
  try {
    text = decodeSkillText(bytes, OPENAI_YAML_FILE)
  } catch {
    return undefined
  }
  return parseOpenAiYaml(text).request
}

/**
 * A remote skill's descriptor from its verified files: SKILL.md first (its
 * digest and frontmatter), then `skillhost.yaml` when listed (every path it
 * names must be a listed file; isolated tools' sources are read), and the
 * permission request (the sidecar's, else `agents/openai.yaml`'s, as on
 * disk). A `module` is never imported: it is reported unavailable.
 */
export async function remoteDescriptor(
  skill: RemoteSkill,
  read: ReadVerified,
): Promise<SkillDescriptor> {
  await read('SKILL.md')
  const m = skill.manifest
  const base: SkillDescriptor = {
    id: skill.id,
    version: skill.version,
    name: m.name,
    description: m.description,
    ...(m.license !== undefined && { license: m.license }),
    ...(m.compatibility !== undefined && { compatibility: m.compatibility }),
    ...(m.metadata !== undefined && { metadata: m.metadata }),
    ...(m.ignored.length > 0 && { ignored: m.ignored }),
  }
  if (!skill.files.has(SKILL_SIDECAR_FILE)) {
    const permissions = await openAiPermissions(skill, read)
    return permissions ? { ...base, permissions } : base
  }
  const sidecar = parseSkillSidecar(
    decodeSkillText(await read(SKILL_SIDECAR_FILE), SKILL_SIDECAR_FILE),
  )
  for (const path of [
    ...sidecar.scripts.map((s) => s.path),
    ...sidecar.isolatedTools.map((t) => t.source),
  ])
    if (!skill.files.has(path))
      throw new SkillHostError(
        'E_SKILL_MANIFEST_INVALID',
        `${SKILL_SIDECAR_FILE} names "${path}", which is not a file of the skill.`,
      )
  const isolatedTools = []
  for (const t of sidecar.isolatedTools) {
    const source = decodeSkillText(await read(t.source), t.source)
    isolatedTools.push({
      name: t.name,
      description: t.description,
      ...(t.params && { params: t.params }),
      source: source.trim(),
    })
  }
  // The sidecar's request replaces agents/openai.yaml's, as on disk (load-fs-skill).
  const permissions = sidecar.permissions ?? (await openAiPermissions(skill, read))
  return {
    ...base,
    ...(permissions && { permissions }),
    ...(sidecar.scripts.length > 0 && { scripts: sidecar.scripts }),
    ...(isolatedTools.length > 0 && { isolatedTools }),
    ...(sidecar.module !== undefined && {
      unavailableTools: [
        unavailableTool(
          `module:${sidecar.module}`,
          'module-imports-off',
          'A module served over MCP is never imported.',
        ),
      ],
    }),
  }
}
