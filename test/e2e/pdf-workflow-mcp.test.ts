import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'
import { FileSpoolStore } from '../../src/index.js'
import { PDF_FORM_SKILL, REAL_SKILLS_ROOT } from '../helpers/pdf-form-fixture.js'
import {
  CALLS,
  copyIdOf,
  expectFilledPdf,
  INPUT_PDF,
  pathsBelow,
  RUN,
  requirePypdf,
  SKILL,
  sharedTempDir,
  treeListing,
  VERIFY_STDOUT,
  valuesFor,
  WORKSPACE_FILES,
} from '../helpers/pdf-workflow.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const linux = process.platform === 'linux'
const temp = sharedTempDir('skillhost-e2e-mcp-')
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10))
}

describe.skipIf(!linux)(
  'pdf-form workflow through `skillhost serve` (real MCP client over stdio)',
  () => {
    it('the user’s folder is the workspace: extract → workspace_write → fill → verify; out.pdf outlives the skill; nothing written elsewhere', async () => {
      const python = requirePypdf()
      const fixtureBefore = treeListing(PDF_FORM_SKILL)
      // The user's folder, handed to serve with --workspace: it holds their PDF.
      // (An MCP client has no host API for putting files in, and a deployer who
      // serves a project folder is how a real user's file reaches the sandbox;
      // the base64 route through workspace_write is left to the model.)
      const userDir = join(temp, 'project')
      mkdirSync(userDir)
      // Tests run as root here and the sandbox as nobody, which must write the folder.
      chmodSync(userDir, 0o777)
      writeFileSync(join(userDir, 'input.pdf'), INPUT_PDF, { mode: 0o644 })
      const state = join(temp, 'state')
      // Everything serve makes in a temp folder (the sandbox base) lands here.
      const tmp = join(temp, 'tmp')
      mkdirSync(tmp)
      chmodSync(tmp, 0o777)

      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          'dist/cli/main.js',
          'serve',
          '--state-dir',
          state,
          '--workspace',
          userDir,
          // The python that has pypdf (Debian's), not the one PATH would give (issue 23).
          '--interpreter',
          `python3=${python}`,
          REAL_SKILLS_ROOT,
        ],
        cwd: ROOT,
        env: { ...getDefaultEnvironment(), TMPDIR: tmp },
        stderr: 'pipe',
      })
      let stderr = ''
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
      })
      const client = new Client({ name: 'pdf-workflow-e2e', version: '1.0.0' })
      await client.connect(transport)
      const seen: string[] = []
      const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
        const result = await client.callTool({ name, arguments: args })
        const out = text(result)
        expect(result.isError, `${name}: ${out}\n${stderr}`).toBeFalsy()
        seen.push(out)
        return out
      }

      const loaded = JSON.parse(await call('load_skill', { skill: SKILL }))
      expect(loaded.toolsAdded).toEqual([RUN])
      // The body comes inline or as a handle, whichever channel serve uses; either tells what to run.
      const body: string = loaded.body ?? (await call('artifact_cat', { id: loaded.handle.id }))
      expect(body).toContain('python scripts/extract_fields.py input.pdf fields.json')
      const tools = (await client.listTools()).tools
      expect(tools.find((t) => t.name === RUN)?.description).toContain('scripts/verify_fields.py')

      const extracted = await call(RUN, CALLS.extract)
      expect(extracted).toContain('2 fields written to fields.json')
      expect(copyIdOf(extracted, 'fields.json')).toMatch(/^r_/)
      // The model reads the fields it has to fill, from the workspace.
      const fieldsRead = await call('workspace_read', { path: 'fields.json' })
      const fieldsJson = fieldsRead.slice(fieldsRead.indexOf('\n') + 1)
      expect(fieldsJson).toBe(readFileSync(join(userDir, 'fields.json'), 'utf8'))

      const values = valuesFor(fieldsJson)
      expect(await call('workspace_write', { path: 'values.json', content: values })).toBe(
        `wrote /work/values.json (${values.length} bytes)`,
      )
      const filled = await call(RUN, CALLS.fill)
      expect(filled).toContain('filled 2 fields into out.pdf')
      const outId = copyIdOf(filled, 'out.pdf')
      expect(outId).toMatch(/^r_/)
      const outSize = Number(/created out\.pdf \((\d+) bytes\)/.exec(filled)?.[1])

      const verified = await call(RUN, CALLS.verify)
      expect(verified).toContain(`--- stdout ---\n${VERIFY_STDOUT}`)

      expect(JSON.parse(await call('unload_skill', { skill: SKILL }))).toMatchObject({
        toolsRemoved: [RUN],
      })
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(RUN)

      // After unload the copy is still there by id: described (a PDF is binary) …
      expect(await call('artifact_cat', { id: outId })).toContain(
        `is binary (application/pdf, ${outSize} bytes)`,
      )
      // … and its bytes, read from the session's spool, are the filled form.
      const sessions = readdirSync(join(state, 'spool'))
      expect(sessions).toHaveLength(1)
      const copy = await new FileSpoolStore({ directory: join(state, 'spool', sessions[0]!) }).get(
        outId!,
      )
      expectFilledPdf(python, copy!)
      expect(Buffer.from(copy!).equals(readFileSync(join(userDir, 'out.pdf')))).toBe(true)
      // No result showed the model a host path.
      for (const out of seen) expect(out).not.toContain(temp)

      await client.close()
      await until(() => stderr.includes('shutdown complete'))

      // Every file stayed inside the workspace: the user's folder holds exactly
      // the workflow's files, serve's temp and spool folders are empty, and the
      // skill's folder is as committed.
      expect(pathsBelow(userDir)).toEqual(WORKSPACE_FILES)
      expectFilledPdf(python, readFileSync(join(userDir, 'out.pdf')))
      expect(readFileSync(join(userDir, 'input.pdf')).equals(Buffer.from(INPUT_PDF))).toBe(true)
      expect(pathsBelow(tmp)).toEqual([])
      expect(pathsBelow(state)).toEqual(['spool/'])
      expect(treeListing(PDF_FORM_SKILL)).toEqual(fixtureBefore)
    })
  },
)
