import { packageJson } from './package-version.js'

/**
 * The oldest Node.js major skillhost supports, read from its package.json's
 * `engines.node` (`>=N`), so the range has one home; undefined when unreadable.
 */
export function supportedNodeMajor(): number | undefined {
  const range = packageJson().engines?.node
  const match = typeof range === 'string' ? /^>=\s*(\d+)/.exec(range) : null
  return match ? Number(match[1]) : undefined
}

/**
 * The one line the CLI prints on stderr when it runs on a Node.js older than
 * the supported range (npm's engine warning is easy to miss or hidden), or
 * undefined on a supported runtime. `version` is `process.version`'s form.
 */
export function unsupportedRuntimeLine(
  version: string,
  oldest: number | undefined = supportedNodeMajor(),
): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1])
  if (oldest === undefined || !Number.isInteger(major) || major >= oldest) return undefined
  return `skillhost: Node.js ${version} is older than the supported range (${oldest} and newer); it gets no security fixes and is not tested. Install Node.js ${oldest} or newer.\n`
}
