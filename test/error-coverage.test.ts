import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../src/common/error-codes.js'

const testDir = fileURLToPath(new URL('.', import.meta.url))

function testSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return testSources(path)
    // The docs check names every code by construction; it provokes none.
    return name.endsWith('.test.ts') &&
      name !== 'error-docs.test.ts' &&
      name !== 'error-coverage.test.ts'
      ? [readFileSync(path, 'utf8')]
      : []
  })
}

describe('every error code is provoked by a test', () => {
  const sources = testSources(testDir)
  it.each(Object.keys(ERROR_CODES))('%s appears in at least one behavioural test', (code) => {
    expect(
      sources.some(
        (text) =>
          text.includes(`'${code}'`) || text.includes(`"${code}"`) || text.includes(`${code}:`),
      ),
    ).toBe(true)
  })
})
