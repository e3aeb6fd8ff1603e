import { describe, expect, it } from 'vitest'
import { utf8Length } from '../../src/common/artifacts/index.js'
import { createSkillManager, MAX_SKILL_ARGUMENTS_LENGTH } from '../../src/manager/index.js'
import {
  MIN_RENDERED_BODY_LIMIT,
  renderSkillBody,
  substituteSkillBody,
} from '../../src/manager/skill-arguments.js'
import { splitDynamicContext } from '../../src/skill-model/dynamic-context.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { codeOf, rejectsWith } from '../helpers/error-code.js'
import { makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

// Hole 5 of issue 35: a SKILL.md body of 40,000 × `$0` (80 kB, under the
// 1 MiB cap) loaded with one 4,096-character argument rendered and spooled a
// 164 MB body. The rendered size is now counted before anything is built,
// and a body past its bound fails the load with a typed error naming it.

const dir = { skillDir: '/skill' }
const ARG = 'a'.repeat(MAX_SKILL_ARGUMENTS_LENGTH)

describe('a body whose placeholders multiply one argument', () => {
  it("refuses the attack's body through a real source and manager, naming the limit, and loads nothing", async () => {
    const root = await makeTree({
      'multiply/SKILL.md': skillMd('multiply', 'Multiplies.', '', '$0'.repeat(40_000)),
    })
    try {
      await using manager = await createSkillManager({
        sources: [new FileSystemSkillSource({ roots: root })],
        gate: async () => {},
      })
      const ctx = manager.createTurnContext()
      const error = await rejectsWith(
        manager.load('multiply', ctx, { arguments: ARG }),
        'E_SKILL_SOURCE_TOO_LARGE',
      )
      // 164 MB, as the attack measured: each `$0`, then "\n\nARGUMENTS: <raw>".
      const size = 40_000 * ARG.length + '\n\nARGUMENTS: '.length + ARG.length
      expect(error.data).toEqual({ size, limit: MIN_RENDERED_BODY_LIMIT })
      expect(error.message).toContain(`the limit is ${MIN_RENDERED_BODY_LIMIT} bytes`)
      expect(manager.loadedSkills()).toEqual([])
      // The same skill with a short argument is legitimate and loads.
      const loaded = await manager.load('multiply', ctx, { arguments: 'x' })
      expect(loaded.id).toBe('multiply')
      expect(manager.loadedSkills()).toEqual([expect.objectContaining({ id: 'multiply' })])
    } finally {
      await removeTree(root)
    }
  })

  it('counts exactly what it would build: the bound itself renders, one byte more is refused', () => {
    // 500 × `$0` with a 4,096-byte word, padding, and the appended "\n\nARGUMENTS: <raw>".
    const fixed = 500 * ARG.length + '\n\nARGUMENTS: '.length + ARG.length
    const pad = 'p'.repeat(MIN_RENDERED_BODY_LIMIT - fixed)
    const atLimit = substituteSkillBody(`${'$0'.repeat(500)}${pad}`, { ...dir, arguments: ARG })
    expect(utf8Length(atLimit)).toBe(MIN_RENDERED_BODY_LIMIT)
    expect(
      codeOf(() => substituteSkillBody(`${'$0'.repeat(500)}${pad}p`, { ...dir, arguments: ARG })),
    ).toBe('E_SKILL_SOURCE_TOO_LARGE')
  })

  it('counts bytes, not characters: a word of 4-byte characters is sized as UTF-8', () => {
    // 1,024 emoji: 2,048 UTF-16 units, 4,096 bytes. 300 placeholders: 614,400 units, 1,228,800 bytes.
    const emoji = '😀'.repeat(1_024)
    const body = `${'$0 '.repeat(300)}${'q'.repeat(900_000)}`
    expect(body.length + 300 * (emoji.length - 2)).toBeLessThan(MIN_RENDERED_BODY_LIMIT)
    const error = codeOf(() => substituteSkillBody(body, { ...dir, arguments: emoji }))
    expect(error).toBe('E_SKILL_SOURCE_TOO_LARGE')
  })

  it('holds every spelling of a placeholder, and the outputs of dynamic-context commands, to the bound', () => {
    for (const spelling of ['$ARGUMENTS', '$ARGUMENTS[0]', '$0']) {
      expect(
        codeOf(() => substituteSkillBody(spelling.repeat(600), { ...dir, arguments: ARG })),
        spelling,
      ).toBe('E_SKILL_SOURCE_TOO_LARGE')
      // The same placeholders a few times with the longest argument load as ever.
      expect(substituteSkillBody(spelling.repeat(3), { ...dir, arguments: ARG })).toContain(ARG)
    }
    // The skill folder is short and fixed; it never grows a body past the bound.
    const dirs = `\${CLAUDE_SKILL_DIR}`.repeat(40_000)
    expect(utf8Length(substituteSkillBody(dirs, dir))).toBe(40_000 * '/skill'.length)
    // A command's output counts as what it becomes in the body.
    const segments = splitDynamicContext('!`echo a`\n'.repeat(4))
    const outputs = Array.from({ length: 4 }, () => 'o'.repeat(600_000))
    expect(codeOf(() => renderSkillBody(segments, dir, outputs))).toBe('E_SKILL_SOURCE_TOO_LARGE')
    expect(renderSkillBody(segments, dir, outputs.slice(0, 3).concat('short'))).toContain('short')
  })

  it('lets a body written past the floor (a raised SKILL.md cap) render up to twice its own size', () => {
    const big = `$ARGUMENTS ${'w'.repeat(MIN_RENDERED_BODY_LIMIT)}`
    expect(utf8Length(substituteSkillBody(big, { ...dir, arguments: ARG }))).toBe(
      big.length - '$ARGUMENTS'.length + ARG.length,
    )
  })
})
