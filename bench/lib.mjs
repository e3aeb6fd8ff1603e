// Shared helpers for the benchmarks: percentiles, the machine line, and
// replacing one section of bench/RESULTS.md without touching the others.
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'

export function percentile(samples, p) {
  const s = [...samples].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

export function machine() {
  const model = cpus()[0]?.model?.trim() ?? 'unknown CPU'
  return `${cpus().length} CPUs (${model}), Node ${process.version}, ${process.platform} ${process.arch}; ${new Date().toISOString().slice(0, 10)}`
}

/** Replaces (or appends) the `## title` section of bench/RESULTS.md. */
export function writeSection(title, body) {
  const file = new URL('./RESULTS.md', import.meta.url)
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    text = '# Benchmark results\n'
  }
  const heading = `## ${title}`
  const start = text.indexOf(`${heading}\n`)
  const section = `${heading}\n\n${body.trim()}\n`
  if (start === -1) {
    text = `${text.trimEnd()}\n\n${section}`
  } else {
    const next = text.indexOf('\n## ', start + heading.length)
    text = `${text.slice(0, start)}${section}${next === -1 ? '' : text.slice(next)}`
  }
  writeFileSync(file, text)
}

/** System directories the script benches' interpreters read (merged-/usr symlinks included). */
export const SYSTEM_READ_PATHS = ['/usr', '/bin', '/lib', '/lib64']

/**
 * The `runSkillScript` config the script benches (and the warm back-to-back
 * host of test/helpers/) run with: `handle` and `workspace` as given; a
 * policy that reads the workspace's skills and the system, writes its
 * scratch, reaches no network; `sh` only; host paths hidden by
 * `translator`; no host environment.
 */
export function scriptBenchConfig({ handle, workspace, translator }) {
  return {
    handle,
    workspace,
    policy: {
      filesystem: {
        allowRead: [workspace.skillsDir, ...SYSTEM_READ_PATHS],
        denyRead: [],
        allowWrite: [workspace.scratchDir],
        denyWrite: [],
      },
      network: { allowedDomains: [] },
    },
    translator,
    interpreters: { sh: ['/bin/sh'] },
    interpreterReadPaths: SYSTEM_READ_PATHS,
    maxTimeoutSeconds: 30,
    defaultTimeoutSeconds: 20,
    maxOutputBytes: 65_536,
    hostEnvIsolated: true,
  }
}

/** A script that does nothing (`:`), in `sh`: its workspace file and its descriptor. */
export const NOOP_SH = {
  file: { path: 'noop.sh', read: async () => new TextEncoder().encode(':\n') },
  script: { name: 'noop', path: 'noop.sh', description: 'noop', interpreter: 'sh' },
}
