// Runs the benchmarks, each in its own process so one's heap cannot skew
// another's figures: `npm run bench` for all, `npm run bench -- scripts` for one.
// Builds dist/ first. Each benchmark prints its table and rewrites its own
// section of bench/RESULTS.md. BY_HAND ones run only when named: `soak`
// (two replicas under load for 10 minutes) is too long for a run of all.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const ALL = [
  'discovery',
  'incremental',
  'list-skills',
  'module-tool',
  'pinned-imports',
  'managers',
  'isolated',
  'scripts',
  'workspace',
  'spool',
  'sessions',
  'workspace-postgres',
  'real-corpus',
  'startup',
  'provision',
]
const BY_HAND = ['soak']
const picked = process.argv.slice(2)
const names = picked.length > 0 ? picked : ALL
for (const name of names) {
  if (!ALL.includes(name) && !BY_HAND.includes(name)) {
    console.error(`unknown benchmark '${name}'; choose from: ${[...ALL, ...BY_HAND].join(', ')}`)
    process.exit(2)
  }
}
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
})
for (const name of names) {
  const file = `bench/${name}.mjs`
  if (!existsSync(`${root}/${file}`)) {
    console.error(`bench/${name}.mjs is missing`)
    process.exit(1)
  }
  console.log(`\n== ${name}`)
  execFileSync(process.execPath, ['--expose-gc', file], { cwd: root, stdio: 'inherit' })
}
