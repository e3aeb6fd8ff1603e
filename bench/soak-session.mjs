// One soak session (bench/soak.mjs): an official MCP SDK client over
// Streamable HTTP that works like an agent on a document task, in a loop
// bounded by a deadline and a count: load the skill, write a binary input,
// run the skill's script on it, read the binary output back (through the
// result's resource link with resources/read, or through workspace_read) and
// check every byte by digest; now and then unload, move to the other replica
// with the same session id, or end the session (DELETE) and open a new one.
// Every call is timed per kind and counted; every failure is put in one of
// three categories (see `Tally`).
import { createHash } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

export const SKILL = 'soak-bin'
const SCRIPT_TOOL = 'run_soak_bin_script'
const CALL_TIMEOUT_MS = 60_000
/** Input sizes, cycled: empty, tiny, around the 64 KiB embedding limit, and past it. */
const SIZES = [0, 1, 3, 700, 4096, 65_000, 66_000, 200_000, 600_000]
/** Every input starts with a BOM, NUL, 0xFF and CRLF: bytes no text path keeps. */
const HOSTILE = Buffer.from([0xef, 0xbb, 0xbf, 0x00, 0xff, 0x0d, 0x0a])
const KEEP_FILES = 6

/** The skill the soak runs: SKILL.md and a python script that reads a binary file and writes one. */
export const SKILL_FILES = {
  'SKILL.md': `---\nname: ${SKILL}\ndescription: Transforms a binary input file into a binary output file with a digest header. Use for the soak benchmark.\n---\n\n# soak-bin\n\nRun \`python scripts/transform.py IN OUT\` in the workspace: OUT is \`SOAK\`, the SHA-256 of IN, then IN with every byte XOR 0xA5.\n`,
  'scripts/transform.py': `import hashlib\nimport os\nimport sys\n\nsrc, dst = sys.argv[1], sys.argv[2]\nwith open(src, 'rb') as f:\n    data = f.read()\nos.makedirs(os.path.dirname(dst) or '.', exist_ok=True)\ntable = bytes(i ^ 0xA5 for i in range(256))\nwith open(dst, 'wb') as f:\n    f.write(b'SOAK' + hashlib.sha256(data).digest() + data.translate(table))\nprint(f'{src}: {len(data)} bytes -> {dst}')\n`,
}

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex')
/** What transform.py makes of `input`, computed here to check the server's bytes. */
export function expectedOutput(input) {
  const xored = Buffer.from(input.map((b) => b ^ 0xa5))
  return Buffer.concat([Buffer.from('SOAK'), createHash('sha256').update(input).digest(), xored])
}

/** A deterministic pseudo-random input of `size` bytes (hostile prefix first). */
function makeInput(size, seed) {
  const out = Buffer.alloc(size)
  let x = seed >>> 0 || 1
  for (let i = 0; i < size; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = i < HOSTILE.length ? HOSTILE[i] : x & 0xff
  }
  return out
}

const textOf = (result) =>
  (result.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n')
const bytesOf = (contents) =>
  'blob' in contents ? Buffer.from(contents.blob, 'base64') : Buffer.from(contents.text, 'utf8')

/** A call's failure, with where it belongs in the tally. */
class SoakError extends Error {
  constructor(category, kind, message) {
    super(`${kind}: ${message}`)
    this.category = category
  }
}

/**
 * The counts of one soak run: latencies per call kind, and failures in three
 * categories: `inflight` (a call the killed replica held when it died),
 * `fileLoss` (a file a moved session had, absent on its new replica), and
 * `other` (everything else, wrong bytes included: the goal is 0).
 */
export class Tally {
  latency = new Map()
  served = 0
  moves = 0
  restoredNotices = 0
  sessions = 0
  /** Sessions the soak could not end with a DELETE (their rows stay until pruned by age). */
  abandoned = 0
  /** File losses on a replica process that had served the session before (it kept a stale copy). */
  lostOnHolder = 0
  bytesVerified = 0
  reads = 0
  filesChecked = 0
  errors = { inflight: 0, fileLoss: 0, other: 0 }
  samples = { inflight: [], fileLoss: [], other: [] }
  record(kind, ms) {
    const list = this.latency.get(kind) ?? []
    this.latency.set(kind, list)
    list.push(ms)
    this.served++
  }
  fail(category, message) {
    this.errors[category]++
    if (this.samples[category].length < 8) this.samples[category].push(message.slice(0, 300))
  }
}

/** A session worker; `replicas` are `{ name, url, up, epoch }` the harness keeps current. */
export class SoakSession {
  constructor({ id, replicas, token, tally, deadline, maxIterations, thinkMs }) {
    Object.assign(this, { id, replicas, token, tally, deadline, maxIterations, thinkMs })
    this.at = id % replicas.length
    this.files = [] // { path, digest, size, replica }
    this.loaded = false
    this.loadedUnknown = false
    this.seq = 0
  }

  get replica() {
    return this.replicas[this.at]
  }

  async connect(sessionId) {
    const transport = new StreamableHTTPClientTransport(new URL(this.replica.url), {
      ...(sessionId ? { sessionId } : {}),
      requestInit: { headers: { authorization: `Bearer ${this.token}` } },
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    })
    const client = new Client({ name: `soak-${this.id}`, version: '1.0.0' })
    client.onerror = () => undefined // a notification stream cut by a kill or a move
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS })
    this.client = client
    this.transport = transport
  }

  /**
   * Runs `work` as one timed call of `kind` on the current replica; a failure
   * is categorized. A replica known to be down is left first, as a load
   * balancer's health check would: the session moves to the other one.
   */
  async call(kind, work) {
    if (!this.replica.up && !this.moving && this.client) {
      const other = this.otherUp()
      if (other === undefined) throw new SoakError('other', kind, 'no replica up')
      await this.moveTo(other)
    }
    const replica = this.replica
    const epoch = replica.epoch
    const t = performance.now()
    try {
      const out = await work()
      this.tally.record(kind, performance.now() - t)
      return out
    } catch (e) {
      if (e instanceof SoakError) throw e
      const category = replica.epoch !== epoch ? 'inflight' : 'other'
      throw new SoakError(category, kind, `${replica.name}: ${e?.message ?? e}`)
    }
  }

  async tool(kind, name, args) {
    const result = await this.call(kind, () =>
      this.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS }),
    )
    if (textOf(result).includes('skillhost notice: this session was restored'))
      this.tally.restoredNotices++
    return result
  }

  async open() {
    await this.call('initialize', () => this.connect())
    this.sessionId = this.transport.sessionId
    this.heldBy = new Map([[this.replica.name, this.replica.epoch]])
    this.loaded = false
    this.loadedUnknown = false
    this.files = []
    this.tally.sessions++
  }

  async end() {
    await this.call('DELETE (end session)', () => this.transport.terminateSession())
    await this.client.close().catch(() => undefined)
  }

  /** Continues the same session on another replica: a new client with the same session id. */
  async moveTo(index) {
    this.moving = true
    try {
      await this.client?.close().catch(() => undefined)
      this.at = index
      // The same replica process served this session before: it may still hold a stale copy.
      this.backToHolder = this.heldBy.get(this.replica.name) === this.replica.epoch
      this.heldBy.set(this.replica.name, this.replica.epoch)
      await this.connect(this.sessionId)
      this.tally.moves++
      // The first request on the new replica restores the session there.
      const listed = await this.call('tools/list (first after a move)', () =>
        this.client.listTools(undefined, { timeout: CALL_TIMEOUT_MS }),
      )
      if (this.loaded && !this.loadedUnknown && !listed.tools.some((t) => t.name === SCRIPT_TOOL))
        throw new SoakError('other', 'move', `${SCRIPT_TOOL} missing after the move`)
      await this.checkKeptFiles()
    } finally {
      this.moving = false
    }
  }

  /** After a move: every file the session made must still be there, byte for byte. */
  async checkKeptFiles() {
    const kept = []
    for (const f of this.files) {
      this.tally.filesChecked++
      const got = await this.tool('workspace_read (kept file)', 'workspace_read', { path: f.path })
      const bytes = await this.fileBytes(got, f.path)
      if (bytes === undefined) {
        if (this.backToHolder) this.tally.lostOnHolder++
        this.tally.fail(
          'fileLoss',
          `${f.path} (${f.size} B, made on ${f.replica}) absent on ${this.replica.name}${this.backToHolder ? ', which held the session before' : ''}`,
        )
        continue
      }
      this.verify('workspace_read (kept file)', bytes, f.digest, f.size)
      kept.push(f)
    }
    this.files = kept
  }

  verify(kind, bytes, digest, size) {
    if (bytes.length !== size || sha(bytes) !== digest)
      throw new SoakError('other', kind, `wrong bytes: ${bytes.length} B, expected ${size} B`)
    this.tally.bytesVerified += bytes.length
    this.tally.reads++
  }

  /** A file's bytes from a result: its embedded resource, else its link read with resources/read. */
  async fileBytes(result, path) {
    if (result.isError) return undefined
    const embedded = result.content.find(
      (b) => b.type === 'resource' && b.resource.uri.endsWith(`/${path}`),
    )
    if (embedded) return bytesOf(embedded.resource)
    const link = result.content.find((b) => b.type === 'resource_link' && b.name === path)
    if (!link) return undefined
    const read = await this.call('resources/read', () =>
      this.client.readResource({ uri: link.uri }, { timeout: CALL_TIMEOUT_MS }),
    )
    return bytesOf(read.contents[0])
  }

  async load() {
    const r = await this.tool('load_skill', 'load_skill', { skill: SKILL })
    if (r.isError && !(this.loadedUnknown && textOf(r).includes('E_SKILL_ALREADY_LOADED')))
      throw new SoakError('other', 'load_skill', textOf(r))
    this.loaded = true
    this.loadedUnknown = false
  }

  async unload() {
    const r = await this.tool('unload_skill', 'unload_skill', { skill: SKILL })
    if (r.isError && !(this.loadedUnknown && textOf(r).includes('E_SKILL_NOT_LOADED')))
      throw new SoakError('other', 'unload_skill', textOf(r))
    this.loaded = false
    this.loadedUnknown = false
  }

  /** One document task: input in, script, output out and checked. */
  async task() {
    if (!this.loaded || this.loadedUnknown) await this.load()
    const n = ++this.seq
    const input = makeInput(SIZES[(n + this.id) % SIZES.length], this.id * 100_003 + n)
    const inPath = `in/s${this.id}-${n}.bin`
    const outPath = `out/s${this.id}-${n}.bin`
    const wrote = await this.tool('workspace_write', 'workspace_write', {
      path: inPath,
      content: input.toString('base64'),
      encoding: 'base64',
    })
    if (wrote.isError) throw new SoakError('other', 'workspace_write', textOf(wrote))
    const echoed = await this.fileBytes(wrote, inPath)
    if (echoed === undefined)
      throw new SoakError('other', 'workspace_write', 'no link to the input')
    this.verify('workspace_write', echoed, sha(input), input.length)
    await this.think()
    const ran = await this.tool('script call', SCRIPT_TOOL, {
      script: 'scripts/transform.py',
      args: [inPath, outPath],
    })
    if (ran.isError) throw new SoakError('other', 'script call', textOf(ran))
    const want = expectedOutput(input)
    // Alternate the two ways out: the result's own link, or workspace_read.
    const out =
      n % 2 === 0 ? ran : await this.tool('workspace_read', 'workspace_read', { path: outPath })
    const bytes = await this.fileBytes(out, outPath)
    if (bytes === undefined) throw new SoakError('other', 'output', `${outPath} not carried`)
    this.verify('output', bytes, sha(want), want.length)
    const made = this.replica.name
    this.files.push({ path: inPath, digest: sha(input), size: input.length, replica: made })
    this.files.push({ path: outPath, digest: sha(want), size: want.length, replica: made })
    this.files = this.files.slice(-KEEP_FILES)
  }

  think() {
    return new Promise((r) => setTimeout(r, this.thinkMs))
  }

  /** The other replica that is up, else undefined. */
  otherUp() {
    const i = (this.at + 1) % this.replicas.length
    return this.replicas[i].up ? i : undefined
  }

  /** The loop: bounded by `deadline` (ms since epoch) and `maxIterations`. */
  async run() {
    let i = 0
    for (; i < this.maxIterations && Date.now() < this.deadline; i++) {
      try {
        if (!this.replica.up && !this.client) {
          // A new session opens where a balancer would send it: a replica that is up.
          const other = this.otherUp()
          if (other === undefined) {
            await this.think()
            continue
          }
          this.at = other
        }
        if (!this.client) await this.open()
        await this.task()
        if (i % 5 === 4) await this.unload()
        if (i % 7 === 6) {
          const other = this.otherUp()
          if (other !== undefined) await this.moveTo(other)
        }
        if (i % 23 === 22) {
          await this.end()
          this.client = undefined
        }
      } catch (e) {
        const category = e instanceof SoakError ? e.category : 'other'
        this.tally.fail(category, `session ${this.id}: ${e?.message ?? e}`)
        if (category === 'inflight') this.loadedUnknown = true
        else if (category === 'other' && this.client) {
          // Start afresh: a session in an unknown state would fail every later call.
          await this.end().catch(() => {
            this.tally.abandoned++
            return this.client?.close().catch(() => undefined)
          })
          this.client = undefined
        }
      }
      await this.think()
    }
    if (this.client)
      await this.end().catch((e) => this.tally.fail('other', `final end: ${e.message}`))
    return i
  }
}
