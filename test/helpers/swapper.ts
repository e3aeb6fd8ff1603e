import { type RacerProcess, startRacer } from './racer-process.js'

/**
 * The attacker of the race tests: a separate process (so it runs truly in
 * parallel with the host on another core) that swaps `<dir>/<name>` between
 * a real folder and a symlink to `target`, as fast as it can, until killed.
 * It plays a sandboxed script rewriting the workspace while the host works.
 * `swaps()` tells how many full swaps it made (read from its stdout at stop).
 */
export type Swapper = RacerProcess

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
export function startSwapper(
  base: string,
  dir: string,
  name: string,
  target: string,
): Promise<Swapper> {
  return startRacer(base, 'swapper', SCRIPT, [dir, name, target])
}

/** How many attempts each race makes: a few hundred in `npm test`, more with SKILLHOST_ESCAPE_ATTEMPTS. */
export const ATTEMPTS = Number(process.env.SKILLHOST_ESCAPE_ATTEMPTS ?? 300)
