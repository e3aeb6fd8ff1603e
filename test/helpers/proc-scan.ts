import { readdirSync, readFileSync } from 'node:fs'

/** Host pids of live (non-zombie) processes whose command line contains `marker`. */
export function processesWithMarker(marker: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1')
      const zombie = stat.charAt(stat.lastIndexOf(')') + 2) === 'Z'
      if (!zombie && cmdline.includes(marker)) found.push(Number(entry))
    } catch {
      // gone
    }
  }
  return found
}

/** Host pids of live processes running as host uid `uid` (real uid). */
export function processesOfUid(uid: number): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'latin1')
      const uidLine = /^Uid:\s+(\d+)/m.exec(status)
      const state = /^State:\s+(\w)/m.exec(status)
      if (uidLine && Number(uidLine[1]) === uid && state?.[1] !== 'Z') found.push(Number(entry))
    } catch {
      // gone
    }
  }
  return found
}

/** Host pids of the warm sandboxes (their bwrap) that process `parent` started: one per warm sandbox. */
export function warmSandboxesOf(parent: number = process.pid): number[] {
  return processesWithMarker('skillhost-warm').filter((pid) => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'latin1')
      return Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) === parent
    } catch {
      return false
    }
  })
}
