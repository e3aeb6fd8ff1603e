import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Writes a pure-python wheel of `skillhost-probe-pkg` 1.0.0 into `dir`: an offline index of one. */
export function buildProbeWheel(python: string, dir: string): void {
  const code = `
import base64, hashlib, sys, zipfile
files = {
  "skillhost_probe_pkg/__init__.py": "VALUE = 'from-the-wheel'\\n",
  "skillhost_probe_pkg-1.0.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: skillhost-probe-pkg\\nVersion: 1.0.0\\n",
  "skillhost_probe_pkg-1.0.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = []
for path, text in files.items():
    data = text.encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{path},sha256={digest},{len(data)}")
record.append("skillhost_probe_pkg-1.0.0.dist-info/RECORD,,")
files["skillhost_probe_pkg-1.0.0.dist-info/RECORD"] = "\\n".join(record) + "\\n"
with zipfile.ZipFile(sys.argv[1] + "/skillhost_probe_pkg-1.0.0-py3-none-any.whl", "w") as z:
    for path, text in files.items():
        z.writestr(path, text)
`
  execFileSync(python, ['-c', code, dir])
}

/** A PEP 723 script's `lines` under a header that declares `skillhost-probe-pkg>=1`, one text. */
export function probePep723(...lines: string[]): string {
  return ['# /// script', '# dependencies = ["skillhost-probe-pkg>=1"]', '# ///', ...lines].join(
    '\n',
  )
}

/** A PEP 723 script that needs the probe package and prints its VALUE (`from-the-wheel`). */
export const PROBE_USE_PY =
  '# /// script\n# dependencies = ["skillhost-probe-pkg"]\n# ///\nimport skillhost_probe_pkg as p\nprint(p.VALUE)\n'

/** The skill most env suites build: `probe`, whose `scripts/use.py` is `PROBE_USE_PY`. */
export const PROBE_SKILL = {
  name: 'probe',
  description: 'Uses a package.',
  use: PROBE_USE_PY,
} as const

/** What `probeWheelFolder` made; `dir` holds the rest and is the caller's to remove. */
export interface ProbeWheelFolder {
  readonly dir: string
  /** An offline index (`--find-links`) holding only the probe wheel. */
  readonly wheels: string
  /** The skill's folder: `SKILL.md` and `scripts/use.py`. */
  readonly skill: string
}

/**
 * A fresh folder (name starting `prefix`) holding `wheels/` (the probe wheel)
 * and one skill at `skillPath` (relative to it): `SKILL.md` names it `name`
 * with `description` and says to run `scripts/use.py`, whose text is `use`.
 * The one home of the env suites' offline fixture.
 */
export function probeWheelFolder(
  python: string,
  prefix: string,
  skill: {
    readonly path: string
    readonly name: string
    readonly description: string
    readonly use: string
  },
): ProbeWheelFolder {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const wheels = join(dir, 'wheels')
  mkdirSync(wheels)
  buildProbeWheel(python, wheels)
  const folder = join(dir, skill.path)
  mkdirSync(join(folder, 'scripts'), { recursive: true })
  writeFileSync(
    join(folder, 'SKILL.md'),
    `---\nname: ${skill.name}\ndescription: ${skill.description}\n---\nRun scripts/use.py.\n`,
  )
  writeFileSync(join(folder, 'scripts', 'use.py'), skill.use)
  return { dir, wheels, skill: folder }
}
