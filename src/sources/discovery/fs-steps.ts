import type { Stats } from 'node:fs'
import type {
  CappedFile,
  DirEntry,
  FileIdentity,
  ResolvedPath,
  SkillFs,
  SyncSkillFs,
} from './skill-fs.js'

/**
 * One filesystem call a discovery step asks its driver to make. `all` runs
 * several steps, concurrently when the driver is async; their results come
 * back in the order given, so completion order never leaks into the output.
 */
export type FsRequest =
  | { readonly op: 'readdir'; readonly path: string }
  | { readonly op: 'readdirChecked'; readonly path: string; readonly real: string | null }
  | {
      readonly op: 'statChecked'
      readonly path: string
      readonly real: string | null
      readonly names: readonly string[]
    }
  | { readonly op: 'stat'; readonly path: string }
  | { readonly op: 'realpath'; readonly path: string }
  | { readonly op: 'resolve'; readonly path: string }
  | {
      readonly op: 'readCapped'
      readonly path: string
      readonly maxBytes: number
      readonly label: string
      readonly expected?: FileIdentity | undefined
      /** The bytes are decoded at once, so a sync driver may hand back a reused buffer. */
      readonly transient?: boolean
    }
  | { readonly op: 'all'; readonly steps: readonly FsSteps<unknown>[] }

/** What a driver sends back for an `FsRequest`, in the same order as `FsRequest`'s cases (`undefined`: a checked listing refused). */
export type FsResponse =
  | DirEntry[]
  | undefined
  | Stats[]
  | Stats
  | string
  | ResolvedPath
  | CappedFile
  | readonly unknown[]

/**
 * An algorithm written once over filesystem requests: it yields each request
 * and receives the answer (or has the failure thrown in at the `yield`).
 * `runSync` and `runAsync` make the calls; the algorithm never knows which.
 */
export type FsSteps<T> = Generator<FsRequest, T, FsResponse>

// Typed one-call steps: `yield*` keeps the response's type at each call site.

/** Lists a folder with file types. */
export function* readdirStep(path: string): FsSteps<DirEntry[]> {
  return (yield { op: 'readdir', path }) as DirEntry[]
}

/**
 * Lists the folder at `path` if it is the folder whose canonical path is
 * `real`, proved from an open descriptor (`SkillFs.readdirChecked`);
 * undefined when something else is there now.
 */
export function* readdirCheckedStep(
  path: string,
  real: string | null,
): FsSteps<DirEntry[] | undefined> {
  return (yield { op: 'readdirChecked', path, real }) as DirEntry[] | undefined
}

/**
 * `lstat`s `names` inside the folder at `path` if it is the folder whose
 * canonical path is `real`, proved from an open descriptor
 * (`SkillFs.statChecked`); undefined when something else is there now.
 */
export function* statCheckedStep(
  path: string,
  real: string | null,
  names: readonly string[],
): FsSteps<Stats[] | undefined> {
  return (yield { op: 'statChecked', path, real, names }) as Stats[] | undefined
}

/** Stats a path, following symlinks. */
export function* statStep(path: string): FsSteps<Stats> {
  return (yield { op: 'stat', path }) as Stats
}

/** Resolves a path to its canonical form. */
export function* realpathStep(path: string): FsSteps<string> {
  return (yield { op: 'realpath', path }) as string
}

/** A path's canonical form and the stat of what is there, from one descriptor (`SkillFs.resolve`). */
export function* resolveStep(path: string): FsSteps<ResolvedPath> {
  return (yield { op: 'resolve', path }) as ResolvedPath
}

/** `SkillFs.readCapped` as a step; `transient` only when the bytes are decoded at once. */
export function* readCappedStep(
  path: string,
  maxBytes: number,
  label: string,
  expected?: FileIdentity,
  transient?: boolean,
): FsSteps<CappedFile> {
  const request: FsRequest = transient
    ? { op: 'readCapped', path, maxBytes, label, expected, transient }
    : { op: 'readCapped', path, maxBytes, label, expected }
  return (yield request) as CappedFile
}

/** Runs `steps` (concurrently when async) and returns their results in input order; throws the first failure in input order. */
export function* allSteps<T>(steps: readonly FsSteps<T>[]): FsSteps<T[]> {
  return (yield { op: 'all', steps }) as T[]
}

type Call = Exclude<FsRequest, { op: 'all' }>

/** The one place a request becomes a call; both interfaces take the same arguments. */
function call(fs: SyncSkillFs | SkillFs, r: Call): unknown {
  switch (r.op) {
    case 'readdir':
      return fs.readdir(r.path)
    case 'readdirChecked':
      return fs.readdirChecked(r.path, r.real)
    case 'statChecked':
      return fs.statChecked(r.path, r.real, r.names)
    case 'stat':
      return fs.stat(r.path)
    case 'realpath':
      return fs.realpath(r.path)
    case 'resolve':
      return fs.resolve(r.path)
    case 'readCapped':
      return fs.readCapped(r.path, r.maxBytes, r.label, r.expected, r.transient)
  }
}

/** Runs `steps` to completion with direct synchronous calls: no promise anywhere. */
export function runSync<T>(steps: FsSteps<T>, fs: SyncSkillFs): T {
  let next = steps.next()
  while (!next.done) {
    const request = next.value
    let response: FsResponse
    try {
      response =
        request.op === 'all'
          ? // In order, stopping at the first failure: the async driver reports the same one.
            request.steps.map((s) => runSync(s, fs))
          : (call(fs, request) as FsResponse)
    } catch (err) {
      next = steps.throw(err)
      continue
    }
    next = steps.next(response)
  }
  return next.value
}

/** Runs `steps` to completion through `fs`'s promises; `all` requests run concurrently. */
export async function runAsync<T>(steps: FsSteps<T>, fs: SkillFs): Promise<T> {
  let next = steps.next()
  while (!next.done) {
    const request = next.value
    let response: FsResponse
    try {
      response =
        request.op === 'all'
          ? await settleInOrder(request.steps.map((s) => runAsync(s, fs)))
          : ((await call(fs, request)) as FsResponse)
    } catch (err) {
      next = steps.throw(err)
      continue
    }
    next = steps.next(response)
  }
  return next.value
}

/** Waits for every promise (none is left running), then throws the first failure in input order. */
async function settleInOrder(promises: Promise<unknown>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(promises)
  return settled.map((s) => {
    if (s.status === 'rejected') throw s.reason
    return s.value
  })
}
