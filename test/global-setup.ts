import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Builds `dist/` once before the suite: the CLI tests run the real `skillhost`
 * binary, and worker threads and sandboxed children load compiled JavaScript.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
}
