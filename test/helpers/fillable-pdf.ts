/**
 * Builds a small fillable PDF (AcroForm text fields on one page) from plain
 * bytes, so tests can put a realistic input in a workspace without shipping a
 * binary fixture or depending on a PDF library on the Node side.
 */

/** One text field of the generated form. */
export interface FormField {
  /** The field name (`/T`): letters, digits and `_` only, so it needs no escaping. */
  readonly name: string
  /** The label a viewer shows (`/TU`), printed beside the field too. */
  readonly label: string
  /** A value already filled in; empty by default. */
  readonly value?: string
}

const PLAIN_NAME = /^[A-Za-z0-9_]{1,64}$/
const PLAIN_TEXT = /^[ -'*-[\]-~]*$/ // printable ASCII without ( ) \

function literal(text: string, what: string): string {
  if (!PLAIN_TEXT.test(text)) throw new TypeError(`${what} must be printable ASCII without ( ) \\`)
  return `(${text})`
}

/**
 * The bytes of a one-page PDF 1.7 whose AcroForm holds `fields`, one text
 * field per line, each with a printed label. The cross-reference table is
 * computed, so strict readers (pypdf, qpdf) open it without repair.
 */
export function fillablePdf(fields: readonly FormField[]): Uint8Array {
  if (fields.length === 0) throw new TypeError('a form needs at least one field')
  const first = 5 // objects 1-4: catalog, pages, page, font; then fields; then contents
  const fieldRefs = fields.map((_, i) => `${first + i} 0 R`).join(' ')
  const contentsNo = first + fields.length
  const objects: string[] = [
    `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${fieldRefs}] /NeedAppearances true /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 4 0 R >> >> >> >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /Helv 4 0 R >> >> /Contents ${contentsNo} 0 R /Annots [${fieldRefs}] >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ]
  let text = 'BT /Helv 12 Tf'
  fields.forEach((field, i) => {
    if (!PLAIN_NAME.test(field.name)) throw new TypeError(`field name ${field.name} is not plain`)
    const y = 700 - i * 40
    text += ` 1 0 0 1 72 ${y + 5} Tm ${literal(field.label, 'a label')} Tj`
    objects.push(
      `<< /Type /Annot /Subtype /Widget /FT /Tx /T (${field.name}) /TU ${literal(field.label, 'a label')} /Rect [200 ${y} 500 ${y + 20}] /P 3 0 R /F 4 /DA (/Helv 12 Tf 0 g) /V ${literal(field.value ?? '', 'a value')} >>`,
    )
  })
  text += ' ET'
  objects.push(`<< /Length ${text.length} >>\nstream\n${text}\nendstream`)

  let pdf = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(pdf.length)
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = pdf.length
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f\r\n`
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n\r\n`
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  // Latin-1: one byte per character, so the offsets above are byte offsets.
  return Uint8Array.from(pdf, (c) => c.charCodeAt(0))
}

/** The form the pdf-form fixture's tests fill: a name and a date. */
export const SAMPLE_FORM: readonly FormField[] = [
  { name: 'full_name', label: 'Full name' },
  { name: 'signed_on', label: 'Date signed' },
]
