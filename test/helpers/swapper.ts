import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The attacker of the race tests: a separate process (so it runs truly in
 * parallel with the host on another core) that swaps `<dir>/<name>` between
 * a real folder and a symlink to `target`, as fast as it can, until killed.
 * It plays a sandboxed script rewriting the workspace while the host works.
 * `swaps()` tells how many full swaps it made (read from its stdout at stop).
 */
export interface Swapper {
  stop(): Promise<number>
}

const SCRIPT = `
const fs = require('node:fs')
const [dir, name, target] = process.argv.slice(2)
const live = dir + '/' + name, parked = dir + '/.parked-' + name
let swaps = 0
process.on('SIGTERM', () => { restore(); process.stdout.write(String(swaps)); process.exit(0) })
/** Puts the real folder back under its name, whatever the host did meanwhile. */
function restore() {
  if (!fs.existsSync(parked)) return
  try { fs.renameSync(parked, live); return } catch {}
  try { fs.rmSync(live, { recursive: true, force: true }) } catch {}
  try { fs.renameSync(parked, live) } catch {}
}
process.stdout.write('ready\\n')
function batch() {
  for (let i = 0; i < 500; i++) {
    try {
      fs.renameSync(live, parked)          // the real folder steps aside
      fs.symlinkSync(target, live)         // a symlink to the host folder takes its name
      swaps++
      fs.unlinkSync(live)                  // and goes again
    } catch {}
    restore()                              // the real folder is back
  }
  setImmediate(batch)                      // lets SIGTERM's handler run between batches
}
batch()
`

/** Starts a swapper and resolves once its loop runs. */
export async function startSwapper(
  base: string,
  dir: string,
  name: string,
  target: string,
): Promise<Swapper> {
  const file = join(base, 'swapper.cjs')
  writeFileSync(file, SCRIPT)
  const child: ChildProcess = spawn(process.execPath, [file, dir, name, target], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString()
  })
  await new Promise<void>((resolve, reject) => {
    const check = () => (out.includes('ready') ? resolve() : undefined)
    child.stdout?.on('data', check)
    child.once('exit', () => reject(new Error('swapper exited early')))
  })
  return {
    stop: () =>
      new Promise<number>((resolve) => {
        child.once('exit', () => resolve(Number(out.replace('ready\n', '')) || 0))
        child.kill('SIGTERM')
      }),
  }
}

/** How many attempts each race makes: a few hundred in `npm test`, more with SKILLHOST_ESCAPE_ATTEMPTS. */
export const ATTEMPTS = Number(process.env.SKILLHOST_ESCAPE_ATTEMPTS ?? 300)
