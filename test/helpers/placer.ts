import { type RacerProcess, startRacer } from './racer-process.js'

/**
 * A racer for discovery's race tests: a separate process (so it runs truly
 * in parallel on another core) that swaps `live` between what is there (a
 * real folder) and `thing` (any inode on the same filesystem: a symlink, a
 * symlink chain, a FIFO, a file) by renames, as fast as it can, until
 * stopped. It plays a host user who can write a shared skills tree while
 * discovery runs. `stop()` puts the folder back and tells how many swaps it
 * made.
 */
export type Placer = RacerProcess

const SCRIPT = `
const fs = require('node:fs')
const [live, thing, parked] = process.argv.slice(2)
let swaps = 0
/** Puts the real folder back under its name and the thing back in its place. */
function restore() {
  if (!fs.existsSync(parked)) return
  try { fs.renameSync(live, thing) } catch {}
  try { fs.renameSync(parked, live) } catch {}
}
process.on('SIGTERM', () => { restore(); process.stdout.write(String(swaps)); process.exit(0) })
process.stdout.write('ready\\n')
function batch() {
  for (let i = 0; i < 500; i++) {
    try {
      fs.renameSync(live, parked)   // the real folder steps aside (outside the skill)
      fs.renameSync(thing, live)    // the thing takes its name
      swaps++
      fs.renameSync(live, thing)    // and goes again
    } catch {}
    restore()
  }
  setImmediate(batch)               // lets SIGTERM's handler run between batches
}
batch()
`

/** Starts a placer swapping `live` with `thing` (parking the folder at `thing` + '.parked'); resolves once its loop runs. */
export function startPlacer(base: string, live: string, thing: string): Promise<Placer> {
  return startRacer(base, 'placer', SCRIPT, [live, thing, `${thing}.parked`])
}
