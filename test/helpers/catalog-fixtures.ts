import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const examples = fileURLToPath(new URL('../../examples/skills', import.meta.url))

/**
 * Twelve skills shaped like anthropics/skills (their names and description
 * lengths as measured there, without their text), which with the five
 * example skills make a 17-skill collection like that one.
 */
export const ANTHROPIC_SHAPED: readonly (readonly [string, number])[] = [
  ['claude-api', 1024],
  ['xlsx', 943],
  ['docx', 785],
  ['pptx', 694],
  ['pdf', 437],
  ['doc-coauthoring', 428],
  ['internal-comms', 329],
  ['algorithmic-art', 324],
  ['skill-creator', 319],
  ['canvas-design', 289],
  ['web-artifacts-builder', 288],
  ['mcp-builder', 277],
]

const WORDS =
  'use this skill when the user asks to create edit read convert review files tables slides documents with scripts and references'.split(
    ' ',
  )

/** `length` characters of word-like prose, the same for the same seed. */
export function prose(length: number, seed: number): string {
  const words: string[] = []
  let size = 0
  for (let i = 0; size < length; i++) {
    const word = WORDS[(seed * 7 + i * 13) % WORDS.length]!
    words.push(word)
    size += word.length + 1
  }
  return words.join(' ').slice(0, length)
}

/** Writes `skills` as agentskills.io folders under `root`. */
export async function writeSkills(
  root: string,
  skills: readonly { readonly name: string; readonly description: string }[],
): Promise<void> {
  for (const { name, description } of skills) {
    await mkdir(join(root, name), { recursive: true })
    await writeFile(
      join(root, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n\nSteps for ${name}.\n`,
    )
  }
}

/** A fresh root holding the five example skills and the twelve `ANTHROPIC_SHAPED` ones. */
export async function writeSeventeenSkills(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillhost-17-'))
  await cp(examples, root, { recursive: true })
  await writeSkills(
    root,
    ANTHROPIC_SHAPED.map(([name, length], i) => ({ name, description: prose(length, i) })),
  )
  return root
}

/** A fresh root holding `n` generated skills (`skill-00000`…) with descriptions of 120–400 characters. */
export async function writeManySkills(n: number): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillhost-many-'))
  await writeSkills(
    root,
    Array.from({ length: n }, (_, i) => ({
      name: `skill-${String(i).padStart(5, '0')}`,
      description: prose(120 + ((i * 37) % 281), i),
    })),
  )
  return root
}
