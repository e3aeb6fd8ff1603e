import { stat } from 'node:fs/promises'
import { join, posix } from 'node:path'
import { readDeclarationSource } from './read-declaration-source.js'
import { MAX_DECLARATION_SOURCE_CHARS } from './read-requirements.js'
import { parseRequirement, type Requirement } from './requirement.js'

/**
 * The top-level modules of CPython's standard library (3.8 to 3.13: `sys.stdlib_module_names`
 * of 3.11 plus those added or removed around it), private ones left out: never a package.
 */
const STDLIB = new Set(
  (
    'abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb ' +
    'binascii bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop ' +
    'collections colorsys compileall concurrent configparser contextlib contextvars copy copyreg ' +
    'crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis distutils doctest email ' +
    'encodings ensurepip enum errno faulthandler fcntl filecmp fileinput fnmatch fractions ftplib ' +
    'functools gc genericpath getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html ' +
    'http idlelib imaplib imghdr imp importlib inspect io ipaddress itertools json keyword lib2to3 ' +
    'linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap modulefinder msilib ' +
    'msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse ' +
    'os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix ' +
    'posixpath pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri ' +
    'random re readline reprlib resource rlcompleter runpy sched secrets select selectors shelve ' +
    'shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd sqlite3 sre_compile ' +
    'sre_constants sre_parse ssl stat statistics string stringprep struct subprocess sunau symtable ' +
    'sys sysconfig syslog tabnanny tarfile telnetlib tempfile termios textwrap this threading time ' +
    'timeit tkinter token tokenize tomllib trace traceback tracemalloc tty turtle turtledemo types ' +
    'typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg ' +
    'winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo'
  ).split(' '),
)

/** Import names whose distribution is called otherwise; any other name is its own distribution. */
const DISTRIBUTION: Readonly<Record<string, string>> = {
  PIL: 'pillow',
  yaml: 'pyyaml',
  cv2: 'opencv-python',
  docx: 'python-docx',
  pptx: 'python-pptx',
  fitz: 'pymupdf',
  bs4: 'beautifulsoup4',
  sklearn: 'scikit-learn',
  skimage: 'scikit-image',
  dateutil: 'python-dateutil',
  dotenv: 'python-dotenv',
  jwt: 'pyjwt',
  magic: 'python-magic',
  Crypto: 'pycryptodome',
  OpenSSL: 'pyopenssl',
  serial: 'pyserial',
  attr: 'attrs',
  pdfminer: 'pdfminer.six',
  mpl_toolkits: 'matplotlib',
  pkg_resources: 'setuptools',
  gi: 'pygobject',
}

/** The most files of a skill one inference reads (the script and the local modules it imports). */
const MAX_FILES = 200

/** One module-level import: `a.b` absolute, or `level` dots up from the importing file. */
interface Imported {
  readonly level: number
  readonly module: string
  readonly names: readonly string[]
}

/**
 * The imports a python source makes at module level, the ones that fail at
 * start when missing: `import a.b as c, d` and `from x import y, z` at column
 * 0, outside triple-quoted strings. Indented imports (in a function, a `try`
 * with a fallback, an `if`) are optional and left out.
 */
export function moduleLevelImports(source: string): Imported[] {
  const out: Imported[] = []
  let inString: string | undefined
  for (const raw of source.slice(0, MAX_DECLARATION_SOURCE_CHARS).split(/\r?\n/)) {
    const quotes = raw.match(/"""|'''/g) ?? []
    const wasInString = inString !== undefined
    for (const q of quotes)
      inString = inString === undefined ? q : inString === q ? undefined : inString
    if (wasInString) continue
    const line = raw.replace(/#.*$/, '').trimEnd()
    const plain = /^import\s+(.+)$/.exec(line)
    if (plain) {
      for (const part of (plain[1] as string).split(',')) {
        const module =
          part
            .trim()
            .split(/\s+as\s+/)[0]
            ?.trim() ?? ''
        if (/^[A-Za-z_][\w.]*$/.test(module)) out.push({ level: 0, module, names: [] })
      }
      continue
    }
    const from = /^from\s+(\.*)([\w.]*)\s+import\s+\(?([^)]*)\)?$/.exec(line)
    if (from) {
      const names = (from[3] as string)
        .split(',')
        .map(
          (n) =>
            n
              .trim()
              .split(/\s+as\s+/)[0]
              ?.trim() ?? '',
        )
        .filter((n) => /^\w+$/.test(n))
      out.push({ level: (from[1] as string).length, module: from[2] as string, names })
    }
  }
  return out
}

async function kind(path: string): Promise<'file' | 'dir' | undefined> {
  try {
    const s = await stat(path)
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : undefined
  } catch {
    return undefined
  }
}

/**
 * The packages a python script of a skill that declares none imports, as
 * requirements: its module-level imports and those of the skill's own
 * modules it imports (found as python finds them: beside the script, then
 * at the skill's root, `PYTHONPATH=/skill`), less the standard library,
 * each import name mapped to its distribution (`PIL` → `pillow`, else the
 * name itself). Nothing is run; a name that is not a valid requirement is
 * skipped. Sorted by name.
 */
export async function inferRequirements(root: string, scriptPath: string): Promise<Requirement[]> {
  const searchDirs = [...new Set([posix.dirname(scriptPath), '.'])]
  const seen = new Set<string>()
  const queue = [scriptPath]
  const external = new Map<string, Requirement>()
  /** The skill file for `dir/parts…`: a module file, a package's `__init__.py`, or a namespace folder. */
  const local = async (dir: string, parts: readonly string[]): Promise<string | undefined> => {
    const base = posix.join(dir, ...parts)
    if ((await kind(join(root, `${base}.py`))) === 'file') return `${base}.py`
    if ((await kind(join(root, base, '__init__.py'))) === 'file')
      return posix.join(base, '__init__.py')
    return (await kind(join(root, base))) === 'dir' ? base : undefined
  }
  const visit = async (dir: string, parts: readonly string[], names: readonly string[]) => {
    for (let i = 1; i <= parts.length; i++) {
      const found = await local(dir, parts.slice(0, i))
      if (found?.endsWith('.py')) queue.push(found)
    }
    for (const n of names) {
      const sub = await local(dir, [...parts, n])
      if (sub?.endsWith('.py')) queue.push(sub)
    }
  }
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const file = queue.shift() as string
    if (seen.has(file)) continue
    seen.add(file)
    const source = await readDeclarationSource(join(root, file))
    if (source === undefined) continue
    for (const imp of moduleLevelImports(source)) {
      const parts = imp.module === '' ? [] : imp.module.split('.')
      if (imp.level > 0) {
        let dir = posix.dirname(file)
        for (let up = 1; up < imp.level; up++) dir = posix.dirname(dir)
        await visit(dir, parts, imp.names)
        continue
      }
      const top = parts[0] as string
      let home: string | undefined
      for (const dir of searchDirs) if (home === undefined && (await local(dir, [top]))) home = dir
      if (home !== undefined) {
        await visit(home, parts, imp.names)
        continue
      }
      if (STDLIB.has(top) || top.startsWith('_')) continue
      try {
        const r = parseRequirement(DISTRIBUTION[top] ?? top, 'import')
        if (!external.has(r.name)) external.set(r.name, r)
      } catch {
        // not a name pip could install
      }
    }
  }
  return [...external.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
