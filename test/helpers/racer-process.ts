import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A racer process of the race tests, once its loop runs: `stop()` ends it and tells how many swaps it made. */
export interface RacerProcess {
  stop(): Promise<number>
}

/**
 * Runs `script` (CommonJS, written to `base/<name>.cjs`) with `args` in a
 * process of its own, so it races the test truly in parallel on another
 * core; resolves once the script prints `ready`. The script's contract: it
 * prints `ready` when its loop runs, and on SIGTERM puts things back, prints
 * its swap count and exits. The one home of that handshake for every racer
 * (`swapper.ts`, `placer.ts`).
 */
export async function startRacer(
  base: string,
  name: string,
  script: string,
  args: readonly string[],
): Promise<RacerProcess> {
  const file = join(base, `${name}.cjs`)
  writeFileSync(file, script)
  const child: ChildProcess = spawn(process.execPath, [file, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString()
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', () => (out.includes('ready') ? resolve() : undefined))
    child.once('exit', () => reject(new Error(`${name} exited early`)))
  })
  return {
    stop: () =>
      new Promise<number>((resolve) => {
        child.once('exit', () => resolve(Number(out.replace('ready\n', '')) || 0))
        child.kill('SIGTERM')
      }),
  }
}
