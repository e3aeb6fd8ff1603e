/**
 * Frontmatter keys Claude Code reads that skillhost does not honour, each
 * with the reason a model, a deployer and an author are told. A skill that
 * uses one still loads; the key is named, never silently dropped.
 */

/** One frontmatter key a skill uses that skillhost does not honour, and why. */
export interface IgnoredKey {
  readonly key: string
  readonly reason: string
}

/** Claude Code's frontmatter keys that skillhost reads but does not act on, with the reason. */
export const IGNORED_CLAUDE_CODE_KEYS: ReadonlyMap<string, string> = new Map([
  [
    'allowed-tools',
    'grants nothing here: what a skill may do is the deployer’s policy and gate, never the skill’s own claim',
  ],
  [
    'context',
    'no forked sub-agent context: the skill’s instructions join the conversation that loaded it',
  ],
  ['agent', 'no sub-agent runs the skill: the model that loaded it follows the instructions'],
  [
    'hooks',
    'skill-declared hooks would run code outside the sandbox at the host’s events; only the deployer’s gate sees events',
  ],
  ['model', 'the host chooses the model; a skill cannot switch it'],
  [
    'user-invocable',
    'no slash-command menu here: the model loads skills through load_skill, the host through the manager',
  ],
  [
    'argument-hint',
    'a hint for a slash-command menu; pass arguments with load_skill’s arguments instead',
  ],
])

/** The Claude Code keys `frontmatter` uses that skillhost does not honour, in a stable (table) order. */
export function ignoredKeys(frontmatter: Readonly<Record<string, unknown>>): IgnoredKey[] {
  const found: IgnoredKey[] = []
  for (const [key, reason] of IGNORED_CLAUDE_CODE_KEYS) {
    if (Object.hasOwn(frontmatter, key)) found.push({ key, reason })
  }
  return found
}
