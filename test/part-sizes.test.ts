import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// No class absorbs every feature again (issue 21): every file of src/ stays
// within 400 lines and every class within 250. No function grows while the
// file and class caps pass (issue 34): every function, method, accessor and
// arrow within 80 lines, counted from its first token to its last.
const SRC = resolve(import.meta.dirname, '../src')
const MAX_FILE_LINES = 400
const MAX_CLASS_LINES = 250
const MAX_FUNCTION_LINES = 80

/** The name a function goes by: its own, its variable's or property's, `Class.member` for members. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  const parent = node.parent
  const own = ts.isConstructorDeclaration(node)
    ? 'constructor'
    : node.name !== undefined && !ts.isComputedPropertyName(node.name)
      ? node.name.getText()
      : (ts.isVariableDeclaration(parent) ||
            ts.isPropertyAssignment(parent) ||
            ts.isPropertyDeclaration(parent)) &&
          !ts.isComputedPropertyName(parent.name)
        ? parent.name.getText()
        : '<anonymous>'
  const owner = ts.isClassLike(parent) ? `${parent.name?.text ?? '<class>'}.` : ''
  return `${owner}${own}`
}

/** Each function with a body in `text` (nested ones too, named inside their outer's name) and its length in lines. */
function functionLengths(file: string, text: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line
  const out: { name: string; lines: number }[] = []
  const visit = (node: ts.Node, outer: string) => {
    let inner = outer
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const name = functionName(node as ts.FunctionLikeDeclaration)
      inner = outer === '' ? name : `${outer} › ${name}`
      out.push({ name: inner, lines: lineOf(node.end) - lineOf(node.getStart(source)) + 1 })
    }
    ts.forEachChild(node, (child) => visit(child, inner))
  }
  visit(source, '')
  return out
}

/** Each top-level class in `text` with its length in lines, declaration to closing brace. */
function classLengths(text: string): { name: string; lines: number }[] {
  const lines = text.split('\n')
  const out: { name: string; lines: number }[] = []
  lines.forEach((line, i) => {
    const match = /^(?:export )?(?:abstract )?class (\w+)/.exec(line)
    if (!match) return
    const end = lines.findIndex((l, j) => j > i && l === '}')
    out.push({ name: match[1] as string, lines: (end === -1 ? lines.length : end) - i + 1 })
  })
  return out
}

const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'))

describe('src/ parts stay small', () => {
  it('measures a class from its declaration to its closing brace', () => {
    const text = 'export class A {\n  x = 1\n}\n\nclass B {\n}\n'
    expect(classLengths(text)).toEqual([
      { name: 'A', lines: 3 },
      { name: 'B', lines: 2 },
    ])
  })

  it('measures every kind of function from its first token to its last, by name', () => {
    const text = [
      'export function a() {',
      '  const b = () => {',
      '    return 1',
      '  }',
      '  return b',
      '}',
      'class C {',
      '  get d() { return 1 }',
      '  #e(): void {',
      '    x({ f: function () {} })',
      '  }',
      '  constructor() {}',
      '}',
      'abstract class G { abstract h(): void }',
    ].join('\n')
    expect(functionLengths('x.ts', text)).toEqual([
      { name: 'a', lines: 6 },
      { name: 'a › b', lines: 3 },
      { name: 'C.d', lines: 1 },
      { name: 'C.#e', lines: 3 },
      { name: 'C.#e › f', lines: 1 },
      { name: 'C.constructor', lines: 1 },
    ])
  })

  it(`no function in src/ over ${MAX_FUNCTION_LINES} lines`, () => {
    const tooLong: string[] = []
    for (const file of files) {
      for (const f of functionLengths(file, readFileSync(join(SRC, file), 'utf8')))
        if (f.lines > MAX_FUNCTION_LINES) tooLong.push(`${file} › ${f.name}: ${f.lines} lines`)
    }
    expect(tooLong.sort()).toEqual([])
  })

  it(`no file in src/ over ${MAX_FILE_LINES} lines, no class over ${MAX_CLASS_LINES}`, () => {
    const tooLong: string[] = []
    for (const file of files) {
      const text = readFileSync(join(SRC, file), 'utf8')
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
      if (lines > MAX_FILE_LINES) tooLong.push(`${file}: ${lines} lines`)
      for (const c of classLengths(text))
        if (c.lines > MAX_CLASS_LINES) tooLong.push(`${file} › ${c.name}: ${c.lines} lines`)
    }
    expect(tooLong).toEqual([])
  })
})
