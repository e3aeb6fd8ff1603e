import { quoteName } from '../escape-text.js'
import { protectedPart } from './protected-names.js'

/**
 * Why the door refuses a `/`-separated relative name contained code chose,
 * or undefined: a control character anywhere (it would forge lines of the
 * host's report, and no tool means it), an empty, `.` or `..` component, or
 * a version-control component at any depth (`isProtectedName`). The reason
 * quotes what it names, so it is safe in host-written text.
 */
export function nameRefusal(rel: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(rel)) return 'its name holds a control character'
  if (rel.split('/').some((p) => p === '' || p === '.' || p === '..'))
    return 'its name has an empty, . or .. part'
  const part = protectedPart(rel)
  if (part !== undefined)
    return `${quoteName(part)} is version-control state, never written by contained code`
  return undefined
}
