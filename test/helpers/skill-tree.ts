import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach } from 'vitest'
import { streamToBytes } from '../../src/sources/reading/bytes-to-stream.js'
import type { DiscoveredSkill, SkillProblem, SkillSource } from '../../src/sources/types.js'

/** A temp folder populated from a `{ relativePath: content }` map. */
export async function makeTree(files: Record<string, string | Uint8Array>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillhost-src-'))
  await writeTree(root, files)
  return root
}

/** Writes `{ relativePath: content }` under `root`. */
export async function writeTree(
  root: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
}

/** Removes a tree made by `makeTree`. */
export function removeTree(root: string): Promise<void> {
  return rm(root, { recursive: true, force: true })
}

/**
 * A `tree(files)` that makes a temp tree (`makeTree`) and removes every
 * tree it made after each test. Call it at a test file's top level: it
 * registers the `afterEach`.
 */
export function treesRemovedAfterEach(): (
  files: Record<string, string | Uint8Array>,
) => Promise<string> {
  const made: string[] = []
  afterEach(async () => {
    await Promise.all(made.splice(0).map(removeTree))
  })
  return async (files) => {
    const root = await makeTree(files)
    made.push(root)
    return root
  }
}

/** A minimal valid SKILL.md. */
export function skillMd(
  name: string,
  description = `The ${name} skill.`,
  extra = '',
  body = `# ${name}\n\n## Use\n\nBody.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}`
}

/** Runs a discovery and returns skills and reported problems. */
export async function discover(
  source: SkillSource,
): Promise<{ skills: DiscoveredSkill[]; problems: SkillProblem[] }> {
  const skills: DiscoveredSkill[] = []
  const problems: SkillProblem[] = []
  for await (const s of source.discover({ report: (p) => problems.push(p) })) skills.push(s)
  return { skills, problems }
}

/** Reads a source stream to text. */
export async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new TextDecoder().decode(await streamToBytes(stream))
}
