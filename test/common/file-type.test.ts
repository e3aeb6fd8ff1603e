import { describe, expect, it } from 'vitest'
import { fileType, mediaTypeByName } from '../../src/common/file-type.js'

const utf8 = (text: string) => new TextEncoder().encode(text)

// One extension table for skill files, MCP resources, workspace files and
// script outputs: they all type a file the same way.
describe('fileType, the one media-type rule', () => {
  it('types by extension, case-insensitively, whatever the content', () => {
    expect(fileType('docs/Guide.MD', utf8('# hi')).mediaType).toBe('text/markdown')
    expect(fileType('scripts/run.py', utf8('print(1)')).mediaType).toBe('text/x-python')
    expect(fileType('a.pdf', utf8('%PDF')).mediaType).toBe('application/pdf')
    expect(mediaTypeByName('fonts/x.woff2')).toBe('font/woff2')
  })

  it('falls back on the bytes: text/plain for UTF-8 without NUL, else octet-stream', () => {
    expect(fileType('notes', utf8('plain words'))).toEqual({ text: true, mediaType: 'text/plain' })
    expect(fileType('blob.bin', new Uint8Array([0, 1, 2]))).toEqual({
      text: false,
      mediaType: 'application/octet-stream',
    })
    expect(fileType('bad', new Uint8Array([0xff, 0xfe])).text).toBe(false)
  })

  it('never gives bytes that are not text a text type from the name', () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9])
    expect(fileType('notes.txt', latin1)).toEqual({
      text: false,
      mediaType: 'application/octet-stream',
    })
    expect(fileType('guide.md', new Uint8Array([0x23, 0]))).toMatchObject({
      mediaType: 'application/octet-stream',
    })
    // A binary type from the name stands, text or not.
    expect(fileType('a.pdf', new Uint8Array([0x25, 0xff])).mediaType).toBe('application/pdf')
  })

  it('gives a dotfile or an extension-less name no type of its own', () => {
    expect(mediaTypeByName('.json')).toBeUndefined()
    expect(mediaTypeByName('dir.md/README')).toBeUndefined()
    expect(fileType('cfg/.yaml', utf8('a: 1')).mediaType).toBe('text/plain')
  })

  it('judges a prefix without failing on a character cut at its end', () => {
    const cut = utf8('é').subarray(0, 1)
    expect(fileType('x.txt', cut, false).text).toBe(true)
    expect(fileType('x.txt', cut, true).text).toBe(false)
  })
})
