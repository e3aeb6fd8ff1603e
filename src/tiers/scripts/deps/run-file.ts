/**
 * `execFile` as a promise of its UTF-8 output, for the host-side python
 * probes and builds of this folder. The root entry reaches these modules, so
 * `node:child_process` and `node:util` are loaded on first use, never at
 * import: an ESM import of `node:util` alone makes Node 22.23/24.21 load
 * `worker_threads` (test/barrel.test.ts). With `signal`, an abort kills the
 * child (SIGTERM) and the promise rejects once it has exited.
 */
export function runFile(
  file: string,
  args: readonly string[],
  options: RunOptions,
): Promise<{ stdout: string; stderr: string }> {
  const { execFile } = process.getBuiltinModule('node:child_process')
  const { promisify } = process.getBuiltinModule('node:util')
  return promisify(execFile)(file, args, { ...options, encoding: 'utf8' })
}

/** The options every build step runs with: its time limit, environment, output cap and abort. */
export interface RunOptions {
  readonly timeout: number
  readonly env: Readonly<Record<string, string>>
  readonly maxBuffer: number
  readonly signal?: AbortSignal
}
