import { execFileSync } from 'node:child_process'

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
