import { quoteName } from '../escape-text.js'
import type { EntryKind } from './beneath.js'
import { nameRefusal } from './door-names.js'

/** What a destination file was when the host last saw it: an update lands only on that very file. */
export interface FileSeen {
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
}

/** One entry contained code made that is to leave for the host (a host folder or a spool store). */
export interface OutItem {
  /** Relative, `/`-separated, as contained code named it. */
  readonly path: string
  readonly kind: EntryKind
  /** Its size as the host's descriptor walk saw it, if known: a bound refuses it before it is read. */
  readonly size?: number
  /** The host file it replaces, as seen before the call; absent: it may only be created. */
  readonly replaces?: FileSeen
}

/**
 * The bytes of an item, read from where contained code left them, with the
 * file's identity. Reads must resolve names from held descriptors, never by
 * path (`SessionWorkspace.get`, through `beneath.ts`); `truncated` says the
 * file holds more than `maxBytes`.
 */
export interface OutSource {
  read(
    path: string,
    maxBytes?: number,
  ): Promise<{ bytes: Uint8Array; ino: number; links: number; truncated?: boolean }>
}

/** The most files and bytes one way out lets through, and optionally the largest file. */
export interface OutLimits {
  readonly files: number
  readonly bytes: number
  readonly fileBytes?: number
}

/** An item the door did not let through, and why (names inside the reason are quoted). */
export interface DoorRefusal {
  readonly path: string
  readonly reason: string
}

/** One item as the door judged it: its bytes, or why it stays inside. */
export type OutRead =
  | { readonly item: OutItem; readonly bytes: Uint8Array; readonly refused?: undefined }
  | { readonly item: OutItem; readonly refused: string }

/** Options of `readOut`. */
export interface ReadOutOptions {
  readonly limits: OutLimits
  /**
   * For a way out that must be whole (copy-back): the reason every item is
   * refused with when the items pass `limits`, and then nothing leaves. Absent
   * (spooling): items are let through in order until a limit, the rest refused
   * one by one.
   */
  readonly wholeOrNothing?: string
}

/**
 * Why the door refuses an item before reading it: a name with a control
 * character, an empty, `.` or `..` part, or a version-control part at any
 * depth (`nameRefusal`), or anything but a regular file.
 */
export function outItemRefusal(item: OutItem): string | undefined {
  return (
    nameRefusal(item.path) ??
    (item.kind === 'file' ? undefined : `a ${item.kind}, not a regular file`)
  )
}

/**
 * The door's judgment and read of what is to leave, item by item and in
 * order, one rule set for every way out (`copyOut` into a host folder, the
 * spooling of a script's changed files): each item judged alone
 * (`outItemRefusal`), read through `source` (descriptors, never a path), a
 * second name of a hard-linked file refused, and counted against `limits`
 * (files, bytes, the largest file). A refusal never stops the others.
 */
export async function readOut(
  items: readonly OutItem[],
  source: OutSource,
  options: ReadOutOptions,
): Promise<OutRead[]> {
  const { limits } = options
  const whole = options.wholeOrNothing !== undefined
  const out: OutRead[] = []
  const firstName = new Map<number, string>()
  const count = { files: 0, bytes: 0 }
  let over = false
  for (const item of items) {
    const refused = outItemRefusal(item) ?? (whole ? undefined : boundRefusal(item, limits, count))
    if (refused !== undefined) {
      out.push({ item, refused })
      continue
    }
    if (over) {
      out.push({ item, refused: options.wholeOrNothing as string })
      continue
    }
    const got = await source
      .read(item.path, limits.fileBytes)
      .catch((err: { code?: string }) => err)
    const why = !('bytes' in got)
      ? `it could not be read (${got.code ?? 'error'})`
      : got.truncated
        ? 'it grew while it was being read'
        : hardLinkRefusal(got, item.path, firstName)
    if (why !== undefined || !('bytes' in got)) {
      out.push({ item, refused: why as string })
      continue
    }
    const bytes = count.bytes + got.bytes.byteLength
    const past = count.files + 1 > limits.files || bytes > limits.bytes
    if (past && !whole) {
      // It grew past the bound since the walk: the items before it stand.
      out.push({ item, refused: pastBytes(limits) })
      continue
    }
    count.files += 1
    count.bytes = bytes
    if (past) over = true
    out.push({ item, bytes: got.bytes })
  }
  if (!over) return out
  return out.map((r) =>
    r.refused === undefined ? { item: r.item, refused: options.wholeOrNothing as string } : r,
  )
}

/** Why an item goes past `limits` before it is read (its walked size, the files already through). */
function boundRefusal(
  item: OutItem,
  limits: OutLimits,
  count: { files: number; bytes: number },
): string | undefined {
  const size = item.size ?? 0
  if (limits.fileBytes !== undefined && size > limits.fileBytes)
    return `larger than ${limits.fileBytes} bytes`
  if (count.files >= limits.files) return `more than ${limits.files} files changed`
  if (count.bytes + size > limits.bytes) return pastBytes(limits)
  return undefined
}

function pastBytes(limits: OutLimits): string {
  return `the call's changes exceed ${limits.bytes} bytes`
}

/** A second name of a file already let through, said by its first name; records the first. */
function hardLinkRefusal(
  got: { ino: number; links: number },
  path: string,
  firstName: Map<number, string>,
): string | undefined {
  if (got.links <= 1) return undefined
  const first = firstName.get(got.ino)
  if (first !== undefined) return `a hard link to ${quoteName(first)}, copied once`
  firstName.set(got.ino, path)
  return undefined
}
