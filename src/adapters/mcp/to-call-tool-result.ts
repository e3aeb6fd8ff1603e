import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js'
import type { ToolResult } from '../../common/index.js'
import { Media, renderError } from '../../common/index.js'

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')

function mediaBlock(media: Media, index: number): ContentBlock {
  const data = base64(media.data)
  if (media.mimeType.startsWith('image/')) return { type: 'image', data, mimeType: media.mimeType }
  if (media.mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType: media.mimeType }
  const name = media.name ?? `media-${index}`
  return {
    type: 'resource',
    resource: {
      uri: `skillhost:media/${encodeURIComponent(name)}`,
      mimeType: media.mimeType,
      blob: data,
    },
  }
}

/**
 * Maps a skillhost tool result to MCP content: text stays text, images and
 * audio become their MCP blocks, anything else (raw bytes, other media) an
 * embedded blob resource.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (typeof result === 'string') return { content: [{ type: 'text', text: result }] }
  if (result instanceof Uint8Array) {
    return {
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'skillhost:bytes',
            mimeType: 'application/octet-stream',
            blob: base64(result),
          },
        },
      ],
    }
  }
  const items = (Array.isArray(result) ? result : [result]).filter((m) => Media.isInstance(m))
  return { content: items.map(mediaBlock) }
}

/** The MCP result for a failed call: `isError: true` with exactly `renderError`'s model-safe text. */
export function toCallToolError(err: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: renderError(err) }] }
}
