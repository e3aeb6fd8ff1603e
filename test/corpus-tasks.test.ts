import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import {
  type CorpusRun,
  compareRuns,
  normalise,
  normaliseClock,
  placesOf,
  readTasks,
  zipMembers,
} from '../scripts/corpus-tasks.mjs'

// The pure parts of corpus-check's task mode (scripts/corpus-check.mjs
// --tasks): what it normalises between a run inside the sandbox and the same
// run outside, and nothing more. The public corpus itself is not needed here.

/** A zip written by python's zipfile (the packers the skills use): members in the given order, stamped `year`. */
function zip(members: [string, string][], year: number): Buffer {
  const code = `import sys, zipfile, json, io
b = io.BytesIO()
with zipfile.ZipFile(b, 'w', zipfile.ZIP_DEFLATED) as z:
    for name, text in json.loads(sys.argv[1]):
        z.writestr(zipfile.ZipInfo(name, (int(sys.argv[2]), 1, 2, 3, 4, 6)), text)
sys.stdout.buffer.write(b.getvalue())`
  return execFileSync('python3', ['-c', code, JSON.stringify(members), String(year)])
}

const OUT = placesOf('/tmp/skillhost-corpus-task-ab12/outside', '/corpus/pdf')
const IN = placesOf('/work', '/skill')

function run(over: Partial<CorpusRun> & { places: CorpusRun['places'] }): CorpusRun {
  return { status: 0, stdout: '', files: new Map(), ...over }
}

describe('corpus-check task mode: reading tasks', () => {
  const task = { id: 't', skill: 'a+b/skills/pdf', steps: [['scripts/x.py', 'in.pdf']], inputs: {} }

  it('keeps a well-formed task', () => {
    const [t] = readTasks(
      JSON.stringify({ tasks: [{ ...task, inputs: { 'a/b.txt': { text: 'x' } } }] }),
    )
    expect(t?.steps).toEqual([['scripts/x.py', 'in.pdf']])
  })

  it.each([
    ['a duplicate id', { tasks: [task, task] }, /unique/],
    ['a skill that climbs out', { tasks: [{ ...task, skill: '../etc' }] }, /skill folder/],
    ['an absolute script', { tasks: [{ ...task, steps: [['/bin/sh']] }] }, /not a skill file/],
    ['no steps', { tasks: [{ ...task, steps: [] }] }, /needs steps/],
    [
      'an input outside the folder',
      { tasks: [{ ...task, inputs: { '../x': { text: '' } } }] },
      /plain/,
    ],
    [
      'an input of two kinds',
      { tasks: [{ ...task, inputs: { x: { text: '', json: 1 } } }] },
      /exactly one/,
    ],
  ])('refuses %s', (_, doc, message) => {
    expect(() => readTasks(JSON.stringify(doc))).toThrow(message)
  })
})

describe('corpus-check task mode: normalising', () => {
  it('replaces a place only as a whole path', () => {
    const text =
      'wrote /work/out.json; "/work"; relationships/worksheet; /workspace; a/work; /skill/x'
    expect(normalise(text, IN)).toBe(
      'wrote <work>/out.json; "<work>"; relationships/worksheet; /workspace; a/work; <skill>/x',
    )
  })

  it('replaces the longer place first when one holds the other', () => {
    const places = { '/t/run': '<work>', '/t/run/skill': '<skill>' }
    expect(normalise('/t/run/skill/a /t/run/b', places)).toBe('<skill>/a <work>/b')
  })

  it('replaces only the date-times of the run itself', () => {
    const start = Date.parse('2026-12-06T20:50:16.400Z')
    const window: [number, number] = [start, start + 3000]
    expect(
      normaliseClock(
        'made 2026-12-06T20:50:16Z, 2026-12-06 20:50:18, 2026-12-06T21:50:17+01:00; due 2026-12-06T20:55:00Z',
        window,
      ),
    ).toBe('made <time of the run>, <time of the run>, <time of the run>; due 2026-12-06T20:55:00Z')
    expect(normaliseClock('2026-12-06T20:50:16Z', undefined)).toBe('2026-12-06T20:50:16Z')
  })
})

describe('corpus-check task mode: comparing two runs', () => {
  it('reads the members of a zip, uncompressed', () => {
    const members = zipMembers(zip([['word/document.xml', '<w:document/>']], 2026))
    expect(members?.map((m) => [m.name, m.data.toString()])).toEqual([
      ['word/document.xml', '<w:document/>'],
    ])
    expect(zipMembers(Buffer.from('PK not a zip'))).toBeUndefined()
  })

  it('matches zips that differ only in member times and order', () => {
    const a = zip(
      [
        ['a.xml', '<a/>'],
        ['b.xml', '<b/>'],
      ],
      2026,
    )
    const b = zip(
      [
        ['b.xml', '<b/>'],
        ['a.xml', '<a/>'],
      ],
      2025,
    )
    expect(a.equals(b)).toBe(false)
    const diffs = compareRuns(
      run({ places: OUT, files: new Map([['out.docx', a]]) }),
      run({ places: IN, files: new Map([['out.docx', b]]) }),
    )
    expect(diffs).toEqual([])
  })

  it('tells a zip member whose content differs', () => {
    const diffs = compareRuns(
      run({ places: OUT, files: new Map([['out.docx', zip([['a.xml', '<a/>']], 2026)]]) }),
      run({ places: IN, files: new Map([['out.docx', zip([['a.xml', '<A/>']], 2026)]]) }),
    )
    expect(diffs).toEqual(['out.docx: content differs'])
  })

  it('matches stdout and text files that differ only in the two places', () => {
    const diffs = compareRuns(
      run({
        places: OUT,
        stdout: 'Saved to /tmp/skillhost-corpus-task-ab12/outside/s.json\n',
        files: new Map([['s.json', Buffer.from('{"script": "/corpus/pdf/scripts/x.py"}')]]),
      }),
      run({
        places: IN,
        stdout: 'Saved to /work/s.json\n',
        files: new Map([['s.json', Buffer.from('{"script": "/skill/scripts/x.py"}')]]),
      }),
    )
    expect(diffs).toEqual([])
  })

  it('never normalises a binary file', () => {
    const diffs = compareRuns(
      run({
        places: OUT,
        files: new Map([['x.pdf', Buffer.from('/tmp/skillhost-corpus-task-ab12/outside')]]),
      }),
      run({ places: IN, files: new Map([['x.pdf', Buffer.from('/work')]]) }),
    )
    expect(diffs).toEqual(['x.pdf: content differs'])
  })

  it('tells every other difference: status, stdout, a file on one side only', () => {
    const diffs = compareRuns(
      run({
        places: OUT,
        stdout: 'pattern count in sync: 12\n',
        files: new Map([['a', Buffer.from('')]]),
      }),
      run({
        places: IN,
        status: 127,
        stdout: 'pattern count in sync: \n',
        files: new Map([['b', Buffer.from('')]]),
      }),
    )
    expect(diffs).toEqual([
      'exit status 0 outside, 127 inside',
      'stdout differs',
      'a: only outside',
      'b: only inside',
    ])
  })
})
