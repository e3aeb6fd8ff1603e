// A module customization hook (`node:module` `register`) that records every
// `file:` URL Node loads, one per line, in the file named by the data given
// to `register`. The line is written before the load returns, so an awaited
// import has recorded its whole graph when it settles. Used by
// test/lazy-script-tier.test.ts to see which files an import pulls in.
import { appendFileSync } from 'node:fs'

let out

export function initialize(data) {
  out = data.out
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(out, `${url}\n`)
  return nextLoad(url, context)
}
