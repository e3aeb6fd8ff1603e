import { SkillHostError } from '../common/errors.js'
import { Tool } from '../common/tool.js'
import { validateSkillManifest } from '../manifest/validate-skill-manifest.js'
import { normalizeSkillPath } from '../skill-model/skill-path.js'
import type { SkillDefinition } from './define-skill.js'
import { bytesToStream } from './reading/bytes-to-stream.js'
import type {
  DiscoveredSkill,
  DiscoverOptions,
  SkillDescriptor,
  SkillFileStat,
  SkillRef,
  SkillSource,
  SourceReadOptions,
} from './types.js'

/** Options for `InMemorySkillSource`. */
export interface InMemorySkillSourceOptions {
  /** Source id; defaults to `memory`. */
  readonly id?: string
  readonly skills?: readonly SkillDefinition[]
}

interface Stored {
  readonly definition: SkillDefinition
  readonly version: string
  readonly body: Uint8Array
  readonly files: ReadonlyMap<string, Uint8Array>
}

const encoder = new TextEncoder()

function invalid(name: string, problems: readonly string[]): SkillHostError {
  return new SkillHostError(
    'E_SKILL_MANIFEST_INVALID',
    `Skill "${name}" is invalid: ${problems.join('; ')}`,
    {
      data: { problems },
    },
  )
}

/** Checks a definition strictly and freezes its body and files as bytes. */
function store(definition: SkillDefinition, version: string): Stored {
  const verdict = validateSkillManifest(
    {
      name: definition.name,
      description: definition.description,
      ...(definition.license !== undefined && { license: definition.license }),
      ...(definition.compatibility !== undefined && { compatibility: definition.compatibility }),
      ...(definition.metadata !== undefined && { metadata: definition.metadata }),
      ...(definition.allowedTools !== undefined && { 'allowed-tools': definition.allowedTools }),
    },
    { strict: true },
  )
  if (!verdict.ok) throw invalid(String(definition.name), verdict.errors)
  if (typeof definition.body !== 'string') throw invalid(definition.name, ['body must be a string'])
  const files = new Map<string, Uint8Array>()
  for (const [path, content] of Object.entries(definition.files ?? {})) {
    files.set(
      normalizeSkillPath(path),
      typeof content === 'string' ? encoder.encode(content) : content.slice(),
    )
  }
  const problems: string[] = []
  for (const s of definition.scripts ?? []) {
    if (!files.has(normalizeSkillPath(s.path)))
      problems.push(`script "${s.name}" path "${s.path}" is not among files`)
  }
  for (const t of definition.tools ?? []) {
    if (!Tool.isInstance(t)) problems.push('tools must hold Tool instances')
  }
  if (problems.length > 0) throw invalid(definition.name, problems)
  return { definition, version, body: encoder.encode(definition.body), files }
}

/**
 * A mutable source for programmatic skills and tests. `add`, `replace` and
 * `remove` take effect at once; every `add` and `replace` issues a fresh
 * version, so refs to the previous one fail with `E_SKILL_NOT_FOUND`.
 * Definitions are validated strictly on entry (`E_SKILL_MANIFEST_INVALID`).
 */
export class InMemorySkillSource implements SkillSource {
  readonly id: string
  readonly #skills = new Map<string, Stored>()
  #revision = 0

  constructor(options: InMemorySkillSourceOptions = {}) {
    this.id = options.id ?? 'memory'
    for (const skill of options.skills ?? []) this.add(skill)
  }

  #version(definition: SkillDefinition): string {
    this.#revision += 1
    return definition.version ? `${definition.version}#${this.#revision}` : `r${this.#revision}`
  }

  /** Adds a new skill; fails with `E_SKILL_MANIFEST_INVALID` if its id is taken. */
  add(definition: SkillDefinition): SkillRef {
    if (this.#skills.has(definition.name)) {
      throw invalid(definition.name, ['a skill with this name already exists; use replace()'])
    }
    const stored = store(definition, this.#version(definition))
    this.#skills.set(definition.name, stored)
    return { id: definition.name, version: stored.version }
  }

  /** Replaces an existing skill with a new version; `E_SKILL_NOT_FOUND` if absent. */
  replace(definition: SkillDefinition): SkillRef {
    if (!this.#skills.has(definition.name)) {
      throw new SkillHostError(
        'E_SKILL_NOT_FOUND',
        `No skill "${definition.name}" to replace; use add().`,
      )
    }
    const stored = store(definition, this.#version(definition))
    this.#skills.set(definition.name, stored)
    return { id: definition.name, version: stored.version }
  }

  /** Removes a skill; true when it existed. */
  remove(id: string): boolean {
    return this.#skills.delete(id)
  }

  async *discover(options: DiscoverOptions = {}): AsyncIterable<DiscoveredSkill> {
    for (const [id, stored] of [...this.#skills]) {
      options.signal?.throwIfAborted()
      yield this.#discovered(id, stored)
    }
  }

  /** `discover` at once (see `SkillSource.discoverBatch`). */
  async discoverBatch(options: DiscoverOptions = {}): Promise<readonly DiscoveredSkill[]> {
    options.signal?.throwIfAborted()
    return [...this.#skills].map(([id, stored]) => this.#discovered(id, stored))
  }

  #discovered(id: string, { definition: d, version }: Stored): DiscoveredSkill {
    return {
      id,
      version,
      name: d.name,
      description: d.description,
      ...(d.license !== undefined && { license: d.license }),
      ...(d.compatibility !== undefined && { compatibility: d.compatibility }),
      ...(d.metadata !== undefined && { metadata: d.metadata }),
      ...(d.allowedTools !== undefined && { allowedTools: d.allowedTools }),
      ...(d.disableModelInvocation === true && { disableModelInvocation: true as const }),
      location: `memory:${this.id}/${id}`,
    }
  }

  #current(ref: SkillRef, signal?: AbortSignal): Stored {
    signal?.throwIfAborted()
    const stored = this.#skills.get(ref.id)
    if (!stored || stored.version !== ref.version) {
      throw new SkillHostError(
        'E_SKILL_NOT_FOUND',
        `Skill "${ref.id}" at version "${ref.version}" is not current; list skills again.`,
        {
          data: { id: ref.id, version: ref.version },
        },
      )
    }
    return stored
  }

  #file(ref: SkillRef, stored: Stored, path: string | undefined): Uint8Array {
    if (path === undefined) return stored.body
    const rel = normalizeSkillPath(path)
    const bytes = stored.files.get(rel)
    if (!bytes)
      throw new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${ref.id}" has no file "${rel}".`, {
        data: { path: rel },
      })
    return bytes
  }

  async descriptor(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillDescriptor> {
    const { definition: d, version } = this.#current(ref, options.signal)
    return {
      id: ref.id,
      version,
      name: d.name,
      description: d.description,
      ...(d.channel !== undefined && { channel: d.channel }),
      ...(d.license !== undefined && { license: d.license }),
      ...(d.compatibility !== undefined && { compatibility: d.compatibility }),
      ...(d.metadata !== undefined && { metadata: d.metadata }),
      ...(d.allowedTools !== undefined && { allowedTools: d.allowedTools }),
      ...(d.tools !== undefined && { tools: d.tools }),
      ...(d.isolatedTools !== undefined && { isolatedTools: d.isolatedTools }),
      ...(d.scripts !== undefined && { scripts: d.scripts }),
      ...(d.permissions !== undefined && { permissions: d.permissions }),
    }
  }

  async read(
    ref: SkillRef,
    path?: string,
    options: SourceReadOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    if (path !== undefined) normalizeSkillPath(path)
    const stored = this.#current(ref, options.signal)
    return bytesToStream(this.#file(ref, stored, path).slice())
  }

  async stat(ref: SkillRef, path?: string): Promise<SkillFileStat> {
    if (path !== undefined) normalizeSkillPath(path)
    const stored = this.#current(ref)
    return { size: this.#file(ref, stored, path).byteLength, version: stored.version }
  }

  async list(ref: SkillRef): Promise<readonly string[]> {
    return [...this.#current(ref).files.keys()].sort()
  }
}
