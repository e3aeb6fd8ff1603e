import { rename, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { escapeLine } from '../../common/index.js'
import { FileSystemSkillSource, readSkillLock } from '../../index.js'
import { formatSkillLock, type LockedEnvironment } from '../../sources/index.js'
import { type ProvisionBuild, scriptInterpreters } from '../../tiers/scripts/index.js'
import {
  provisionedInterpreter,
  type Requirement,
  scriptRequirements,
} from '../../tiers/scripts/internal.js'
import type { CliCommand } from '../shared/cli-command.js'
import type { HelpSpec } from '../shared/help-text.js'
import { parseArgs, UsageError } from '../shared/parse-args.js'
import { provisionBuildLine } from '../shared/provision-build-line.js'
import { parseSandboxFlags, SANDBOX_FLAGS_HELP } from '../shared/sandbox-flags.js'
import { usableRoots } from '../shared/usable-roots.js'

/** The flags of `run`/`serve` that shape provisioning: env takes these and `--interpreter` only. */
const PROVISION_FLAGS = ['find-links', 'index-url', 'env-cache'] as const

const HELP: HelpSpec = {
  usage: [
    'skillhost env <skill-dir> [--find-links DIR | --index-url URL] [--env-cache DIR] [--lock FILE] [--interpreter python=PATH]',
  ],
  blocks: [
    "Build, outside the sandbox, the python environments a skill's scripts declare: each script's PEP 723 dependencies, else the skill's requirements.txt and the plain pip install / uv run --with lines of its SKILL.md; a skill that declares none gets the packages each script imports at module level. One venv per distinct requirement set, over the python run and serve use, kept in the env cache and found there by run --provision and serve --provision. Prints each set and what pip installed (name==version).",
    {
      title: 'Options:',
      items: [
        {
          term: '--lock FILE',
          text: "record what each set resolved to (names, versions, wheel sha256) in the skill's entry of lockfile FILE (skillhost lock writes it), so serve --locked FILE --provision rebuilds the same environments with --require-hashes",
        },
        {
          term: '--interpreter python=PATH',
          text: "the python to build the environments over, as run and serve will use it (default: the PATH's python3)",
        },
        // The provisioning flags, in env's own words: env always provisions.
        ...SANDBOX_FLAGS_HELP.filter((h) =>
          PROVISION_FLAGS.some((f) => h.term.startsWith(`--${f}`)),
        ).map((h) => ({ term: h.term, text: h.text.replace(/^with --provision: /, '') })),
        { term: '-h, --help', text: 'show this help' },
      ],
    },
  ],
}

/** `skillhost env`: provisions a skill's script environments ahead of `run`/`serve --provision`. */
export const envCommand: CliCommand = {
  name: 'env',
  help: HELP,
  async run(argv, io) {
    // No --read-path: env runs no script, so there is nothing for a script to read.
    const args = parseArgs(argv, { strings: ['lock'], lists: ['interpreter', ...PROVISION_FLAGS] })
    const [skillDir, ...extra] = args.positionals
    if (skillDir === undefined || extra.length > 0) throw new UsageError('give one skill folder')
    const root = resolve(skillDir)
    if (usableRoots([root], io, 'env').unusable.length > 0) return 66
    const flags = parseSandboxFlags(args.lists, true)
    const program = scriptInterpreters(flags.interpreters).python3?.[0]
    if (program === undefined || flags.provision === undefined)
      throw new UsageError('no python3 to build environments with; give --interpreter python=PATH')
    const source = new FileSystemSkillSource({ roots: [root], id: 'cli' })
    const found = []
    for await (const skill of source.discover()) found.push(skill)
    if (found.length !== 1)
      throw new UsageError(`${skillDir} must be one skill folder holding SKILL.md`)
    const ref = { id: found[0]!.id, version: found[0]!.version }
    const paths = (await source.list?.(ref)) ?? []
    const sets = new Map<string, { requirements: Requirement[]; scripts: string[] }>()
    for (const path of paths.filter((p) => p.endsWith('.py')).sort()) {
      const requirements = await scriptRequirements(root, path)
      if (requirements.length === 0) continue
      const key = requirements.map((r) => r.text).join('\n')
      const set = sets.get(key) ?? { requirements, scripts: [] }
      set.scripts.push(path)
      sets.set(key, set)
    }
    if (sets.size === 0) {
      io.stdout(`${escapeLine(ref.id)}: no script declares requirements; nothing to build\n`)
      return 0
    }
    const environments: LockedEnvironment[] = []
    // A build is told on stderr while it runs (stdout is the answer); one found in the cache is not.
    const onBuild = (event: ProvisionBuild) =>
      io.stderr(`[skillhost ${provisionBuildLine(event)}]\n`)
    const provision = { ...flags.provision, onBuild }
    for (const { requirements, scripts } of sets.values()) {
      const built = await provisionedInterpreter(program, requirements, provision)
      if (built === undefined) throw new UsageError(`${program} cannot say where it lives`)
      environments.push({
        requirements: requirements.map((r) => r.text).sort(),
        packages: built.env.packages,
      })
      const pins = built.env.packages.map((p) => `${p.name}==${p.version}`).join(' ')
      io.stdout(
        `${escapeLine(scripts.join(', '))}: env ${built.env.key} (${escapeLine(requirements.map((r) => r.text).join(' '))}) -> ${escapeLine(pins)}\n`,
      )
    }
    if (args.strings.lock !== undefined)
      await recordEnvironments(args.strings.lock, ref.id, environments)
    return 0
  },
}

/** Replaces `id`'s environments in the lockfile at `file`, written whole and renamed into place. */
async function recordEnvironments(
  file: string,
  id: string,
  environments: readonly LockedEnvironment[],
): Promise<void> {
  const path = resolve(file)
  const lock = await readSkillLock(path)
  const entry = lock.skills.get(id)
  if (entry === undefined)
    throw new UsageError(`skill '${id}' is not pinned in ${file}; run skillhost lock first`)
  const skills = new Map(lock.skills).set(id, { ...entry, environments })
  const tmp = `${path}.${process.pid}.tmp`
  await writeFile(tmp, formatSkillLock({ lockfileVersion: lock.lockfileVersion, skills }))
  await rename(tmp, path)
}
