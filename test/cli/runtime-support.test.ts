import { execFileSync, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { supportedNodeMajor, unsupportedRuntimeLine } from '../../src/cli/shared/runtime-support.js'
import { runCli } from '../helpers/run-cli.js'

// Issue 40.9: an unsupported Node.js gets one line, not silence.

const bin = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))

/** The PATH's node, when it is older than the supported range (Debian's 20 on this kind of machine). */
function olderNode(): string | undefined {
  try {
    const path = execFileSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).trim()
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim()
    return unsupportedRuntimeLine(version) === undefined ? undefined : path
  } catch {
    return undefined
  }
}

describe('the supported Node.js range', () => {
  it('comes from package.json engines', () => {
    expect(supportedNodeMajor()).toBe(22)
  })

  it('one line below it, none within it', () => {
    expect(unsupportedRuntimeLine('v20.20.2', 22)).toBe(
      'skillhost: Node.js v20.20.2 is older than the supported range (22 and newer); it gets no security fixes and is not tested. Install Node.js 22 or newer.\n',
    )
    expect(unsupportedRuntimeLine('v22.0.0', 22)).toBeUndefined()
    expect(unsupportedRuntimeLine('v24.3.1', 22)).toBeUndefined()
    expect(unsupportedRuntimeLine('not a version', 22)).toBeUndefined()
  })

  it('the binary on a supported runtime prints no such line', async () => {
    const r = await runCli(['--version'])
    expect(r).toMatchObject({ code: 0, stderr: '' })
  })

  const older = olderNode()
  it.skipIf(older === undefined)(
    'the binary on an older runtime says so once and still runs',
    () => {
      const r = spawnSync(older as string, [bin, '--version'], { encoding: 'utf8' })
      expect(r.status).toBe(0)
      expect(r.stderr).toBe(
        unsupportedRuntimeLine(
          execFileSync(older as string, ['--version'], { encoding: 'utf8' }).trim(),
        ),
      )
      const out = r.stdout
      expect(out).toMatch(/^\d+\.\d+\.\d+\n$/)
    },
  )
})
