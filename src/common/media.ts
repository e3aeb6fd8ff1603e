/**
 * Binary content with a MIME type: an image, a PDF, an audio clip. A valid tool
 * result on its own or in an array. Instances are frozen.
 */
export class Media {
  readonly mimeType: string
  readonly data: Uint8Array
  readonly name: string | undefined

  constructor(init: { mimeType: string; data: Uint8Array; name?: string }) {
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(init.mimeType)) {
      throw new TypeError(`Media mimeType '${init.mimeType}' is not a type/subtype`)
    }
    this.mimeType = init.mimeType
    this.data = init.data
    this.name = init.name
    Object.freeze(this)
  }

  /** Recognizes Media across two copies of the package. */
  static isInstance(value: unknown): value is Media {
    return (
      value instanceof Media ||
      (typeof value === 'object' &&
        value !== null &&
        (value as Record<symbol, unknown>)[MEDIA_BRAND] === true)
    )
  }
}

const MEDIA_BRAND = Symbol.for('skillhost.media')
Object.defineProperty(Media.prototype, MEDIA_BRAND, { value: true })
