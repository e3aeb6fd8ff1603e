import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The folder of our own realistic skills (no skillhost.yaml, like the public ones). */
export const REAL_SKILLS_ROOT = fileURLToPath(new URL('../fixtures/real-skills', import.meta.url))

/** The pdf-form skill folder. */
export const PDF_FORM_SKILL = fileURLToPath(
  new URL('../fixtures/real-skills/pdf-form', import.meta.url),
)

/** The deployer overlay directory holding `pdf-form/skillhost.yaml`. */
export const REAL_SKILLS_OVERLAYS = fileURLToPath(
  new URL('../fixtures/real-skills-overlays', import.meta.url),
)

/**
 * A host python that can import pypdf: Debian's `/usr/bin/python3` (what the
 * sandbox runs, with `python3-pypdf` installed by scripts/test.sh) first,
 * then `python3` on PATH. Undefined when neither can.
 */
export function pypdfPython(): string | undefined {
  for (const python of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(python, ['-c', 'import pypdf'], { stdio: 'ignore' })
      return python
    } catch {
      // try the next one
    }
  }
  return undefined
}
