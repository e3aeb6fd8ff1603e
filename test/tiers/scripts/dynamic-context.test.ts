import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deny, type GateRequest } from '../../../src/common/gate.js'
import { forgeSkillTools } from '../../../src/lifecycle-tools.js'
import { createSkillManager } from '../../../src/manager/index.js'
import type { SkillManagerConfig } from '../../../src/manager/types.js'
import { FileSystemSkillSource } from '../../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../../src/tiers/scripts/index.js'

const linux = process.platform === 'linux'
const base = mkdtempSync(join(tmpdir(), 'skillhost-dynamic-context-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

function skill(name: string, body: string, files: Record<string, string> = {}): void {
  const dir = join(base, 'skills', name)
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: The ${name} skill.\n---\n${body}`,
  )
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text)
}

// Shaped like the public skills that gather context at load (git state, versions, a helper script).
skill(
  'repo-status',
  [
    '## Context',
    '- Here: !`pwd`',
    `- Args: !\`printf '%s|' "$0" "$1" "$ARGUMENTS"\``,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, as a skill writes it
    '- Helper: !`sh ${CLAUDE_SKILL_DIR}/scripts/info.sh`',
    '- Second word: !`echo "$ARGUMENTS[1]"`',
    '```!',
    'echo block one',
    'echo block two',
    '```',
    '- Failing: !`echo oops >&2; exit 3`',
    `- Escapes: !\`printf 'a\\033[2Jb'\``,
    '- Docs: write `` !`echo never` `` in a SKILL.md.',
    '- Workspace entries: !`ls -A /work | wc -l`',
    'Use $ARGUMENTS[0] as the target.',
    '',
  ].join('\n'),
  { 'scripts/info.sh': 'echo "helper ran from $(dirname "$0")"\n' },
)
skill('stall', '- First: !`sleep 30`\n- Second: !`sleep 30`\n')
skill('many', `${Array.from({ length: 17 }, (_, i) => `- ${i}: !\`echo n${i}\``).join('\n')}\n`)

describe.skipIf(!linux)(
  'dynamic context: !`command` runs at load, gated and sandboxed (real bubblewrap)',
  () => {
    let sandbox: ScriptSandbox
    beforeAll(async () => {
      sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
    })
    afterAll(async () => sandbox?.dispose())

    async function load(
      ref: string,
      options: {
        args?: string
        gate?: (request: GateRequest) => void
        scripts?: Partial<NonNullable<SkillManagerConfig['scripts']>> | false
      } = {},
    ) {
      const seen: GateRequest[] = []
      const manager = await createSkillManager({
        sources: [new FileSystemSkillSource({ roots: [join(base, 'skills')] })],
        gate: async (_ctx, request) => {
          seen.push(request)
          options.gate?.(request)
        },
        defaultChannel: 'inline',
        ...(options.scripts === false
          ? {}
          : { scripts: { ...sandbox.config, dynamicContext: 'run', ...options.scripts } }),
      })
      const ctx = manager.createTurnContext()
      for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
      const result = JSON.parse(
        String(
          await ctx.tools
            .get('load_skill')!
            .execute(
              { skill: ref, ...(options.args === undefined ? {} : { arguments: options.args }) },
              ctx,
            ),
        ),
      )
      await manager.dispose()
      return { body: String(result.body), seen: seen.filter((r) => r.tier === 'script') }
    }

    it('replaces each command with its output, run in the workspace with the load arguments as shell parameters', async () => {
      const hostile = '$(touch /work/pwned)'
      const { body, seen } = await load('repo-status', { args: `'a b' '${hostile}'` })
      expect(body).toContain('- Here: /work\n')
      // The arguments reach the shell as values: the command substitution is never run.
      expect(body).toContain(`- Args: a b|${hostile}|'a b' '${hostile}'|\n`)
      expect(body).toContain('- Helper: helper ran from /skill/scripts\n')
      expect(body).toContain(`- Second word: ${hostile}\n`)
      expect(body).toContain('block one\nblock two\n')
      expect(body).not.toContain('```!')
      expect(body).toContain('- Failing: oops\n[exit code 3]\n')
      expect(body).toContain('- Escapes: a\\u001b[2Jb\n')
      expect(body).toContain('write `` !`echo never` `` in a SKILL.md')
      expect(body).toContain('- Workspace entries: 0\n')
      // Text placeholders are filled as before; a command's output is never scanned for them.
      expect(body).toContain('Use a b as the target.')
      // The gate saw every command, as the skill's script tool, before it ran.
      expect(seen.map((r) => (r.args as { command: string }).command)).toEqual([
        'pwd',
        `printf '%s|' "$0" "$1" "$ARGUMENTS"`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the command as the skill wrote it
        'sh ${CLAUDE_SKILL_DIR}/scripts/info.sh',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: $ARGUMENTS[1] as the shell gets it
        'echo "${1}"',
        'echo block one\necho block two',
        'echo oops >&2; exit 3',
        `printf 'a\\033[2Jb'`,
        'ls -A /work | wc -l',
      ])
      expect(new Set(seen.map((r) => r.tool))).toEqual(new Set(['run_repo_status_script']))
      expect(seen.every((r) => r.skill?.id === 'repo-status')).toBe(true)
    })

    it('a refusal of the gate leaves that command as written with a note, the others run', async () => {
      const { body } = await load('repo-status', {
        gate: (r) => {
          if (
            r.tier === 'script' &&
            String((r.args as { command: string }).command).includes('exit 3')
          )
            throw deny('no failing commands')
        },
      })
      expect(body).toContain(
        "- Failing: !`echo oops >&2; exit 3` [not run: the host's gate refused it]",
      )
      expect(body).toContain('- Here: /work\n')
      expect(body).not.toContain('no failing commands')
    })

    it('a broken gate is not a refusal, and says so', async () => {
      const { body } = await load('repo-status', {
        gate: (r) => {
          if (r.tier === 'script') throw new Error('policy store down')
        },
      })
      expect(body).toContain("- Here: !`pwd` [not run: the host's gate is unavailable]")
      expect(body).not.toContain('policy store down')
    })

    it('off by the deployer switch, or with scripts off, nothing runs and each command says why', async () => {
      const off = await load('repo-status', { scripts: { dynamicContext: 'off' } })
      expect(off.seen).toEqual([])
      expect(off.body).toContain('- Here: !`pwd` [not run: dynamic context is off on this host]')
      expect(off.body).toContain(
        '```!\necho block one\necho block two\n```\n[not run: dynamic context is off on this host]',
      )
      const none = await load('repo-status', { scripts: false })
      expect(none.body).toContain('- Here: !`pwd` [not run: scripts are off on this host]')
      const shell = await load('repo-status', {
        scripts: { interpreters: { python3: ['/usr/bin/python3'] } },
      })
      expect(shell.body).toContain(
        '- Here: !`pwd` [not run: this host allows no shell for scripts]',
      )
    })

    it("shares one deadline among a load's commands: a stalling body cannot hold the load", async () => {
      const { body, seen } = await load('stall', { scripts: { defaultTimeoutSeconds: 2 } })
      expect(body).toContain('- First: [killed at the deadline]')
      expect(body).toContain(
        "- Second: !`sleep 30` [not run: the load's time for dynamic context ran out]",
      )
      expect(seen).toHaveLength(1)
    })

    it(`runs at most 16 commands per body; the rest stay as written`, async () => {
      const { body, seen } = await load('many')
      expect(seen).toHaveLength(16)
      expect(body).toContain('- 15: n15\n')
      expect(body).toContain('- 16: !`echo n16` [not run: the body has more than 16 commands]')
    })
  },
)
