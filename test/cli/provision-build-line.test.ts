import { describe, expect, it } from 'vitest'
import { provisionBuildLine } from '../../src/cli/shared/provision-build-line.js'

describe('provisionBuildLine', () => {
  it('names what is built, and how long it took once it ends', () => {
    const requirements = ['pypdf>=4', 'pillow']
    expect(provisionBuildLine({ phase: 'started', requirements })).toBe(
      'env: building a python environment for pypdf>=4, pillow (2 requirements); calls that need it wait',
    )
    expect(provisionBuildLine({ phase: 'built', requirements, ms: 12_345 })).toBe(
      'env: built the environment for pypdf>=4, pillow in 12.3 s',
    )
    expect(provisionBuildLine({ phase: 'failed', requirements, ms: 800 })).toBe(
      'env: the environment for pypdf>=4, pillow failed to build in 0.8 s; the call says why',
    )
  })

  it("a failure given with its cause says it and where pip's log is (serve's operator sees nothing else)", () => {
    const failure = {
      cause: "pip found no wheel of 'pillow' that fits in the wheel folder /w",
      log: '/c/logs/k.log',
    }
    expect(
      provisionBuildLine({ phase: 'failed', requirements: ['pillow'], ms: 800, failure }),
    ).toBe(
      "env: the environment for pillow failed to build in 0.8 s: pip found no wheel of 'pillow' that fits in the wheel folder /w; pip's full log: /c/logs/k.log",
    )
  })

  it('names six requirements and counts the rest', () => {
    const requirements = Array.from({ length: 9 }, (_, i) => `pkg${i}`)
    expect(provisionBuildLine({ phase: 'started', requirements })).toBe(
      'env: building a python environment for pkg0, pkg1, pkg2, pkg3, pkg4, pkg5 and 3 more (9 requirements); calls that need it wait',
    )
  })
})
