import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// One owner of a script call (issue 34.1): `runScriptCall` is the only
// caller of the runner, the runner the only caller of the sandbox handle,
// one maker makes skill copies, and a call's output is spooled in one place.
// Read from the syntax tree, so a comment or a string naming a function is
// not a call, and an alias or a method call is.
const SRC = resolve(import.meta.dirname, '../../../src')

type Read = (file: string) => string
const readSource: Read = (f) => readFileSync(f, 'utf8')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  )
}

/** The name a call's callee ends in: `f` of `f(…)`, `a.b.f(…)` and `new f(…)`. */
function calleeName(node: ts.CallExpression | ts.NewExpression): string | undefined {
  const callee = node.expression
  if (ts.isIdentifier(callee)) return callee.text
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text
  return undefined
}

/** Every `src/`-relative file that calls (or constructs) `name`, once each, sorted. */
function callersOf(name: string, files: readonly string[], read: Read = readSource): string[] {
  const found = new Set<string>()
  for (const file of files) {
    const text = read(file)
    if (!text.includes(name)) continue
    const tree = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && calleeName(node) === name)
        found.add(relative(SRC, file))
      ts.forEachChild(node, visit)
    }
    visit(tree)
  }
  return [...found].sort()
}

const files = sources(SRC)
const TIER3 = 'tiers/scripts/'

/** The declared parameter and return types of the function `name` in the `src/` file `file`, as written. */
function signatureOf(file: string, name: string): { params: string[]; returns: string } {
  const text = readSource(join(SRC, file))
  const tree = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  let found: ts.FunctionDeclaration | undefined
  tree.forEachChild((n) => {
    if (ts.isFunctionDeclaration(n) && n.name?.text === name && n.body) found = n
  })
  if (found === undefined) throw new Error(`${file} has no function ${name}`)
  return {
    params: found.parameters.map((p) => p.type?.getText(tree) ?? ''),
    returns: found.type?.getText(tree) ?? '',
  }
}

describe('one owner of a script call', () => {
  it('runScriptCall alone calls the runner; the runner alone runs the sandbox handle', () => {
    expect(callersOf('runInSandbox', files)).toEqual(['tiers/scripts/run/run-script-call.ts'])
    // The handle's `run` inside tier 3 (a deployer's own handle is theirs to call).
    const handleRuns = callersOf('run', files).filter(
      (f) => f.startsWith(TIER3) && readSource(join(SRC, f)).includes('handle.run('),
    )
    expect(handleRuns).toEqual(['tiers/scripts/run/run-in-sandbox.ts'])
  })

  it('every face renders runScriptCall: the tools, dynamic context, run once, runSkillScript', () => {
    expect(callersOf('runScriptCall', files)).toEqual([
      'tiers/scripts/run/run-script-once.ts',
      'tiers/scripts/run/run-skill-script.ts',
      'tiers/scripts/tool/dynamic-context.ts',
      'tiers/scripts/tool/script-forge.ts',
    ])
  })

  it('the three renderers take the outcome: the tool text, dynamic context, skillhost run', () => {
    // runScriptOnce hands `skillhost run` the outcome itself, not a result of its own shape.
    expect(signatureOf('tiers/scripts/run/run-script-once.ts', 'runScriptOnce').returns).toBe(
      'Promise<ScriptOutcome>',
    )
    const renderers = [
      ['tiers/scripts/tool/render-tool-outcome.ts', 'renderToolOutcome', 'SpooledScriptOutcome'],
      ['tiers/scripts/tool/dynamic-context.ts', 'renderCommandOutcome', 'ScriptOutcome'],
      ['cli/run/run-print.ts', 'printRun', 'ScriptRan'],
    ] as const
    for (const [file, name, outcome] of renderers) {
      const { params } = signatureOf(file, name)
      expect(params, `${file} › ${name}`).toContain(outcome)
      expect(params, `${file} › ${name}`).not.toContain('ScriptRunResult')
    }
    // The refused arm of run's outcome is said by one printer, whatever refused.
    expect(signatureOf('cli/run/run-command.ts', 'printRefusal').params[0]).toBe('SkillHostError')
  })

  it('one maker makes skill copies', () => {
    expect(callersOf('materialize', files)).toEqual(['tiers/scripts/skill-copy/skill-copy.ts'])
    expect(callersOf('SkillCopyMaker', files)).toEqual([
      'tiers/scripts/run/run-script-once.ts',
      'tiers/scripts/tool/script-forge.ts',
    ])
  })

  it("a call's output and changed files are spooled in one place, for runScriptCall", () => {
    expect(callersOf('spoolScriptOutput', files)).toEqual(['tiers/scripts/run/run-script-call.ts'])
    // The workspace tools spool what workspace_read reads: theirs, not a script call's.
    const spoolers = [...callersOf('spool', files), ...callersOf('put', files)].filter(
      (f) => f.startsWith(TIER3) && !f.startsWith(`${TIER3}workspace/`),
    )
    expect([...new Set(spoolers)]).toEqual(['tiers/scripts/run/spool-script-output.ts'])
  })

  it('a call holds the workspace through one WorkspaceCall: its turn, walks, sweep and read-out', () => {
    // The walk's two visits to workspace/ (docs/architecture.md, One call, walked).
    expect(callersOf('takeCallTurn', files)).toEqual(['tiers/scripts/workspace/workspace-call.ts'])
    expect(callersOf('openProtected', files)).toEqual(['tiers/scripts/workspace/workspace-call.ts'])
    expect(callersOf('sweepVersionControl', files)).toEqual([
      'tiers/scripts/workspace/session-workspace.ts',
      'tiers/scripts/workspace/workspace-call.ts',
    ])
    expect(callersOf('readOut', files).filter((f) => f.startsWith(TIER3))).toEqual([
      'tiers/scripts/workspace/workspace-call.ts',
    ])
    // The runner enters workspace/ through the hold alone (and names its types).
    const runner = readSource(join(SRC, 'tiers/scripts/run/run-in-sandbox.ts'))
    const values = [...runner.matchAll(/^import (?!type )[^']*from '\.\.\/workspace\/([^']+)'/gm)]
    expect(values.map((m) => m[1])).toEqual(['workspace-call.js'])
  })

  it('catches a second caller of the runner, a second maker and a second spooler', () => {
    const planted: Record<string, string> = {
      [join(SRC, 'tiers/scripts/tool/dynamic-context.ts')]:
        '// runInSandbox(config, call) in a comment is no call\nconst r = await runInSandbox(config, call)\n',
      [join(SRC, 'tiers/scripts/run/run-script-once.ts')]:
        'const root = await runConfig.workspace.materialize(ref, files)\n',
      [join(SRC, 'tiers/scripts/tool/script-forge.ts')]:
        'await SpooledArtifact.spool(ctx.spool, text, meta)\n',
    }
    const read: Read = (f) => planted[f] ?? readSource(f)
    expect(callersOf('runInSandbox', files, read)).toEqual([
      'tiers/scripts/run/run-script-call.ts',
      'tiers/scripts/tool/dynamic-context.ts',
    ])
    expect(callersOf('materialize', files, read)).toContain('tiers/scripts/run/run-script-once.ts')
    expect(callersOf('spool', files, read)).toContain('tiers/scripts/tool/script-forge.ts')
  })
})
