import { spawnSync } from 'node:child_process'

/**
 * The samples of a Prometheus text exposition, keyed `name{a="x",b="y"}`
 * with the labels sorted by name (a sample without labels: just `name`).
 */
export function parseSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`not a sample line: ${line}`)
    const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, k, v]) => `${k}="${v}"`)
      .sort()
    samples.set(labels.length ? `${m[1]}{${labels.join(',')}}` : (m[1] as string), Number(m[3]))
  }
  return samples
}

/** `after − before` for `key` (an absent sample counts 0). */
export function delta(
  before: Map<string, number>,
  after: Map<string, number>,
  key: string,
): number {
  return (after.get(key) ?? 0) - (before.get(key) ?? 0)
}

/** Every sample whose key starts with `prefix` that moved between the two scrapes, with its change. */
export function moved(
  before: Map<string, number>,
  after: Map<string, number>,
  prefix: string,
): Record<string, number> {
  const out: Record<string, number> = {}
  for (const key of after.keys())
    if (key.startsWith(prefix) && delta(before, after, key) !== 0)
      out[key] = delta(before, after, key)
  return out
}

/** Debian's `promtool check metrics` over `text`: its exit status and what it said. */
export function promtoolCheck(text: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
  if (run.error)
    throw new Error(`promtool is missing (apt-get install prometheus): ${run.error.message}`)
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}
