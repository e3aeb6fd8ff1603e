import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import type { ToolGate } from '../../src/common/gate.js'
import { Tool } from '../../src/common/tool.js'
import type { SkillDefinition } from '../../src/sources/define-skill.js'
import { InMemorySkillSource } from '../../src/sources/in-memory-skill-source.js'

/** A gate that allows everything and records what it was asked. */
export function recordingGate(): ToolGate & { calls: string[] } {
  const calls: string[] = []
  const gate = (async (_ctx, request) => {
    calls.push(request.tool)
  }) as ToolGate & { calls: string[] }
  gate.calls = calls
  return gate
}

/** A module tool that echoes its input. */
export function echoTool(name = 'echo'): Tool<{ text: string }> {
  return new Tool({
    name,
    description: 'Echoes text back.',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => `echo: ${text}`,
  })
}

export const BODY = `# Reports

Use the reports tool to write reports.

## Usage

Call \`echo\` with text.

## Limits

None worth noting.
`

/** A skill definition with one module tool. */
export function reportSkill(overrides: Partial<SkillDefinition> = {}): SkillDefinition {
  return {
    name: 'reports',
    description: 'Writes reports.',
    body: BODY,
    tools: [echoTool()],
    ...overrides,
  }
}

/** An in-memory source holding the given skills. */
export function memorySource(skills: SkillDefinition[], id = 'memory'): InMemorySkillSource {
  return new InMemorySkillSource({ id, skills })
}

/**
 * Writes one agentskills.io folder per entry under a fresh temporary root
 * (SKILL.md with `name` and a JSON-quoted `description`) and returns the root.
 * Served leniently by `FileSystemSkillSource`, so over-long descriptions load.
 */
export async function writeSkillRoot(
  skills: readonly { readonly name: string; readonly description: string }[],
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'skillhost-skills-'))
  for (const { name, description } of skills) {
    await mkdir(join(root, name))
    await writeFile(
      join(root, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`,
    )
  }
  return root
}
