/** Which flags a command accepts: booleans take no value, strings take one, lists one per use. */
export interface ArgSpec {
  readonly booleans?: readonly string[]
  readonly strings?: readonly string[]
  /** Flags that take a value and may repeat (`--overlays A --overlays B`), kept in order. */
  readonly lists?: readonly string[]
}

/** Parsed command-line arguments. Flag maps are null-prototype objects. */
export interface ParsedArgs {
  readonly positionals: readonly string[]
  readonly booleans: Readonly<Record<string, boolean>>
  readonly strings: Readonly<Record<string, string>>
  /** Every value of each repeatable flag given, in order; absent when not given. */
  readonly lists: Readonly<Record<string, readonly string[]>>
}

/** A command-line mistake; the CLI prints its message and the usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/**
 * A small argument parser: `--flag`, `--name value`, `--name=value` (kept
 * once, or every time for a `lists` flag), `-h` for
 * `--help`, and `--` to end flags. Unknown flags, a missing value, or a value
 * given to a boolean are `UsageError`s rather than guesses.
 */
export function parseArgs(argv: readonly string[], spec: ArgSpec): ParsedArgs {
  const booleanNames = new Set(['help', ...(spec.booleans ?? [])])
  const stringNames = new Set(spec.strings ?? [])
  const listNames = new Set(spec.lists ?? [])
  const positionals: string[] = []
  const booleans: Record<string, boolean> = Object.create(null)
  const strings: Record<string, string> = Object.create(null)
  const lists: Record<string, string[]> = Object.create(null)
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (arg === '-h') {
      booleans.help = true
      continue
    }
    if (!arg.startsWith('--') || arg === '-') {
      if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`)
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (booleanNames.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`)
      booleans[name] = true
    } else if (stringNames.has(name) || listNames.has(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
      if (value === undefined || (eq === -1 && value.startsWith('--')))
        throw new UsageError(`--${name} needs a value`)
      if (listNames.has(name)) lists[name] = [...(lists[name] ?? []), value]
      else strings[name] = value
    } else throw new UsageError(`unknown option --${name}`)
  }
  return { positionals, booleans, strings, lists }
}
