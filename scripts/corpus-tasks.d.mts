/** One task of corpus-check's task mode, as checked by readTasks. */
export interface CorpusTask {
  readonly id: string
  /** The skill folder, relative to the collections folder. */
  readonly skill: string
  /** Each step: a script of the skill and its arguments, run in order in one folder. */
  readonly steps: readonly (readonly string[])[]
  /** Input files by relative name: { text } | { json } | { make } | { fromSkill }. */
  readonly inputs: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly note?: string
}

/** One side's run as compared: exit status, stdout, the working folder's files, its stand-ins and clock window. */
export interface CorpusRun {
  readonly status: number
  readonly stdout: string
  readonly files: ReadonlyMap<string, Buffer>
  readonly places: Readonly<Record<string, string>>
  readonly window?: readonly [number, number]
}

/** The checked tasks of a task file; throws a TypeError naming the first fault. */
export function readTasks(text: string): CorpusTask[]
/** text with each place, as a whole path only, replaced by its stand-in (longest first). */
export function normalise(text: string, places: Readonly<Record<string, string>>): string
/** text with each ISO-8601 date-time within window (±1 s) replaced by `<time of the run>`. */
export function normaliseClock(text: string, window?: readonly [number, number]): string
/** A zip's members as stored, uncompressed, or undefined when buf is not a zip this reader handles. */
export function zipMembers(buf: Buffer): { name: string; data: Buffer }[] | undefined
/** The differences between the two runs of one task; empty when they match. */
export function compareRuns(outside: CorpusRun, inside: CorpusRun): string[]
/** The stand-ins of one side: its working folder as `<work>`, its skill folder as `<skill>`. */
export function placesOf(workDir: string, skillDir: string): Record<string, string>
