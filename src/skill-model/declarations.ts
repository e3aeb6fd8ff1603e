// The skill model: what a skill declares, independent of where it comes from
// (a folder, a sidecar, a descriptor in code) and of the tier that runs it.
// Every layer above takes these types from here.

/** Which skill, at which version. Versions are opaque strings a source chooses. */
export interface SkillRef {
  readonly id: string
  readonly version: string
  /**
   * Which copy of `id`, when a source holds several (a `FileSystemSkillSource`
   * over roots with two folders of one id): the copy key the source gave the
   * row at discovery (`DiscoveredSkill.copy`). Absent: the copy the source
   * serves the id from (its winner).
   */
  readonly copy?: string
}

/** A typed script parameter (tier 3). */
export interface SkillScriptParamDeclaration {
  readonly name: string
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'enum'
  readonly values?: readonly string[]
  readonly required?: boolean
  readonly positional?: boolean
  readonly description?: string
}

/** A script a skill ships (tier 3): run by the library under a derived sandbox policy. */
export interface SkillScriptDeclaration {
  readonly name: string
  readonly path: string
  readonly description: string
  readonly interpreter: string
  readonly params?: readonly SkillScriptParamDeclaration[]
}

/** JavaScript a skill carries (tier 2): `source` is a complete `async (args) => { … }` expression. */
export interface SkillIsolatedToolDeclaration {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments (an object schema). */
  readonly params?: Readonly<Record<string, unknown>>
  readonly source: string
}
