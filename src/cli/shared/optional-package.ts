/** The optional peer packages CLI commands load on demand: `demo` needs the AI SDK, `serve --postgres` needs `pg`. */
export const OPTIONAL_PACKAGES: readonly string[] = [
  'ai',
  '@ai-sdk/openai',
  '@ai-sdk/anthropic',
  'pg',
]

/**
 * The optional package whose absence `err` reports (Node's
 * `ERR_MODULE_NOT_FOUND` "Cannot find package 'ai' …"), or undefined for any
 * other error, so a skill's own missing import is never blamed on skillhost.
 */
export function missingOptionalPackage(err: unknown): string | undefined {
  if ((err as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') return undefined
  const message = String((err as { message?: unknown }).message ?? '')
  const name = /Cannot find package '([^']+)'/.exec(message)?.[1]
  return name !== undefined && OPTIONAL_PACKAGES.includes(name) ? name : undefined
}

/** What to tell someone whose app lacks `pkg`: which package, and the command that adds it. */
export function missingPackageMessage(command: string, pkg: string): string {
  const also = pkg === 'ai' ? ' (plus @ai-sdk/openai or @ai-sdk/anthropic for a real model)' : ''
  return `skillhost ${command} needs the optional package '${pkg}', which is not installed here. Install it beside skillhost: npm install ${pkg}${also}`
}
