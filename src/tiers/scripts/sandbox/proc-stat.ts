import { readFileSync } from 'node:fs'

/**
 * The fields of `/proc/<pid>/stat` from the third (the state) onwards, or
 * undefined when the process is gone or the file cannot be read. The one
 * reader of that file: the command name before them may hold spaces and
 * parentheses, so the fields start after its last `)`. Index 0 is the state
 * (`Z` for a zombie), index 19 the start time in clock ticks after boot.
 */
export function procStatFields(pid: number | string): string[] | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
  } catch {
    return undefined
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}
