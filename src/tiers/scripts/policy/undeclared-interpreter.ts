import { close, open, read } from 'node:fs'

/** Interpreter names to try, in order, for a file extension. */
const BY_EXTENSION: Readonly<Record<string, readonly string[]>> = {
  py: ['python3', 'python'],
  sh: ['sh', 'bash'],
  bash: ['bash'],
  js: ['node'],
  mjs: ['node'],
  cjs: ['node'],
}

/** What runs one file of a skill, or why it cannot. */
export type InterpreterChoice =
  | { readonly kind: 'runnable'; readonly interpreter: string; readonly argv: readonly string[] }
  | { readonly kind: 'denied'; readonly wanted: string }

function shebangName(head: string): string | undefined {
  if (!head.startsWith('#!')) return undefined
  const words = (head.slice(2).split('\n', 1)[0] ?? '').trim().split(/\s+/)
  const program = words[0] ?? ''
  // `#!/usr/bin/env python3` names its program in the next word (after `-S` and friends).
  const named = program.endsWith('/env') ? words.slice(1).find((w) => !w.startsWith('-')) : program
  const base = named?.slice(named.lastIndexOf('/') + 1)
  // `python3.12` runs as `python3`: the deployer allows names, not patch levels.
  return base?.replace(/^(python3)\.\d+$/, '$1')
}

/**
 * Which allowed interpreter runs `path` when a skill ships no declaration for
 * it: the shebang's program when there is one (`#!/bin/bash`,
 * `#!/usr/bin/env python3`), else the extension (`.py` → python3 or python,
 * `.sh` → sh, `.js`/`.mjs`/`.cjs` → node). Only names in `interpreters` (the
 * deployer's allow-list) are ever chosen; a file that wants another is
 * `denied`, and a file that looks like no script is `undefined`.
 */
export function interpreterFor(
  path: string,
  head: string,
  interpreters: Readonly<Record<string, readonly string[]>>,
): InterpreterChoice | undefined {
  const dot = path.lastIndexOf('.')
  const ext = dot > path.lastIndexOf('/') ? path.slice(dot + 1).toLowerCase() : ''
  const fromShebang = shebangName(head)
  const candidates =
    fromShebang !== undefined
      ? fromShebang === 'python'
        ? ['python', 'python3']
        : [fromShebang]
      : Object.hasOwn(BY_EXTENSION, ext)
        ? (BY_EXTENSION[ext] as readonly string[])
        : []
  if (candidates.length === 0) return undefined
  for (const name of candidates) {
    const argv = Object.hasOwn(interpreters, name) ? interpreters[name] : undefined
    if (argv !== undefined) return { kind: 'runnable', interpreter: name, argv }
  }
  return { kind: 'denied', wanted: candidates[0] as string }
}

/** Bytes of a file's start read to find its shebang. */
const HEAD_BYTES = 256

/**
 * The first bytes of a script, as text, for `interpreterFor`; empty when it
 * cannot be opened. Plain callbacks and one promise per file, not a
 * `FileHandle` and a promise per call: `skillhost list` reads the heads of
 * tens of thousands of files.
 */
export function readScriptHead(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (openError, fd) => {
      if (openError) return resolve('')
      const buf = Buffer.allocUnsafe(HEAD_BYTES)
      read(fd, buf, 0, HEAD_BYTES, 0, (readError, bytesRead) => {
        close(fd, (closeError) => {
          const failure = readError ?? closeError
          if (failure) reject(failure)
          else resolve(buf.toString('utf8', 0, bytesRead))
        })
      })
    })
  })
}
